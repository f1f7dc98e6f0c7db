"""What `generate` is asked to make: its settings, checked before any work (a module of its own, light to
import, so that the CLI's parser gives their defaults without loading the pipeline)."""
from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path

from reasonaudio.core.relations import WHY_NATURAL_BUILDS_DO_NOT_COUNT
from reasonaudio_dataset.folders import folder_source, record_files

from .acoustics import CLEAN, Condition, ConditionError, load_condition, presets
from .profiles import PROFILES
from .sources import SPLITS
from .sources.strong_labels import NATURAL_KIND
from .tasks import DEFAULT_TASKS, EVENTS_PER_CLIP, TASKS
from .templates import DEFAULT_STYLE, STYLES, known_style

LOCAL, RAY = "local", "ray"   # where the corpus files are rendered: here, or on a Ray cluster (generation/executor.py)
MIN_SAMPLE_RATE = 16000     # Nyquist 8 kHz: lower rates silence whole classes; models take >= 16 kHz
MAX_SAMPLE_RATE = 192000    # the highest rate audio is recorded at; above it the clips only grow
MAX_CLIP_SECONDS = 600.0
MAX_GROUP_BYTES = 2 ** 31   # one candidate group's audio (float32) in memory while it is rendered
LIMITS = {"queries_per_task": (1, 100_000), "candidates": (2, 100), "atomic_sounds": (1, 100_000),
          "workers": (1, 256), "num_shards": (1, 100_000), "seed": (0, 2 ** 32 - 1)}   # (least, most) of each count
ALL_DEPTHS = (1, 9)
ROLE, ENCODE = "role", "encode"   # each field's metadata: BUILD or WORK, and how a BUILD field enters content()
BUILD, WORK = "build", "work"


def build(default, encode=None):
    """A field that decides what the corpus is, so part of the plan's fingerprint.

    Args:
        default: the field's default.
        encode: `encode(config, value)` -> what `content()` holds for it (left out where None); the value itself
            without it.

    Returns:
        The dataclass field.
    """
    return field(default=default, metadata={ROLE: BUILD, ENCODE: encode})


def work(default):
    """A field that only says how the corpus is computed: any value of it plans the same corpus.

    Args:
        default: the field's default.

    Returns:
        The dataclass field.
    """
    return field(default=default, metadata={ROLE: WORK})


def _listed(config, value) -> list:
    return list(value)


def _condition_specs(config, value) -> list[dict] | None:
    """The acoustic conditions' specs (not their names or files) when there is more than the clean mix."""
    return None if [c.name for c in config.conditions] == [CLEAN] else [c.spec for c in config.conditions]


def _weights(config, value) -> dict | None:
    return dict(value) or None


@dataclass(frozen=True)
class GenerateConfig:
    """What `generate` builds; every field is also an option of `reasonaudio generate`, checked on creation.

    Args:
        source: the sounds ("synthetic:" the built-in bank, "esc50:DIR", "strong:DIR?labels=...", ...).
        out: the build's folder; split: "test", "validation" or "train".
        queries_per_task, candidates, atomic_sounds, clip_seconds, sample_rate, seed: the build's size and seed.
        tasks, events_per_clip, depth, text_style, acoustics, shape_weights: what the queries and clips hold.
        skip_bad_sources: leave out unreadable recordings instead of stopping.
        force, workers, num_shards, shard_index, executor, progress: how the work is done.
        Each field declares `build` (it decides the corpus, so `content()`, the plan's fingerprint, holds it) or
        `work` (out and how the work is done: any value plans the same corpus).

    Returns:
        A frozen config; `GenerateConfig.from_profile("paper", **changes)` starts from a named profile.
    """
    source: str = build("synthetic:")
    out: str = work("reasonaudio-corpus")
    split: str = build("test")
    queries_per_task: int = build(200)
    candidates: int = build(10)
    atomic_sounds: int = build(200)
    clip_seconds: float = build(10.0)
    sample_rate: int = build(44100)
    seed: int = build(0)
    tasks: tuple[str, ...] = build(DEFAULT_TASKS)
    events_per_clip: tuple[int, int] = build(EVENTS_PER_CLIP, _listed)   # sounds per clip, drawn per group
    depth: tuple[int, int] = build(ALL_DEPTHS, _listed)   # atoms per query: shapes outside are left out
    text_style: str = build(DEFAULT_STYLE)
    skip_bad_sources: bool = build(False)
    # conditions (preset names or YAML files); "all": every preset
    acoustics: tuple[str, ...] = build((CLEAN,), _condition_specs)
    # (published shape, weight): drawn that much more often (else 1); 0 leaves it out (e.g. a train split that
    # never shows one shape, to test whether a model composes it from the others)
    shape_weights: tuple[tuple[str, float], ...] = build((), _weights)
    force: bool = work(False)          # write beside unrelated files in --out (never over a foreign README.md)
    workers: int = work(1)
    num_shards: int = work(1)
    shard_index: int = work(0)
    executor: str = work("local")      # or "ray", "ray:ADDRESS": where the files are rendered (generation/executor.py)
    progress: bool = work(True)

    def __post_init__(self):
        problems = [f"unknown split {self.split!r} (choose from {SPLITS})"] if self.split not in SPLITS else []
        problems += [f"unknown task {t!r} (choose from {list(TASKS)})" for t in self.tasks if t not in TASKS]
        problems += [f"task {t!r} is listed {n} times in tasks (query and clip ids would repeat)"
                     for t, n in Counter(self.tasks).items() if n > 1]
        for name, (least, most) in LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
                problems.append(f"{name.replace('_', '-')} must be from {least} to {most:,}"
                                + (" (one positive, one negative at least)" if name == "candidates" else "")
                                + f", got {value!r}")
        try:
            parse_executor(self.executor)
        except ValueError as error:
            problems.append(str(error))
        if self.executor != "local" and self.num_shards != 1:
            problems.append("--executor ray shards the rendering itself: leave out --num-shards and --shard-index")
        if not 0 <= self.shard_index < self.num_shards:
            problems.append(f"shard-index must be in [0, {self.num_shards}), got {self.shard_index}")
        if not (math.isfinite(self.clip_seconds) and 4 <= self.clip_seconds <= MAX_CLIP_SECONDS):
            problems.append(f"clip-seconds must be a number from 4 (room for three sounds and gaps) to "
                            f"{MAX_CLIP_SECONDS}, got {self.clip_seconds}")
        for name in ("events_per_clip", "depth"):
            low, high = getattr(self, name)
            if not 1 <= low <= high:
                problems.append(f"{name.replace('_', '-')} must be a range MIN-MAX with 1 <= MIN <= MAX, got {low}-{high}")
        if self.events_per_clip[0] < 2:
            problems.append(f"events-per-clip starts at 2 (a relation needs two sounds), got {self.events_per_clip[0]}")
        if not known_style(self.text_style):
            problems.append(f"unknown text style {self.text_style!r} (choose from {', '.join(STYLES)}, or STYLE:seen / "
                            "STYLE:held-out for a template holdout)")
        published = {shape.reported_as for task in self.tasks if task in TASKS for shape in TASKS[task].shapes}
        object.__setattr__(self, "shape_weights", tuple((str(n), float(w)) for n, w in dict(self.shape_weights).items()))
        problems += [f"shape weight {name}={weight:g}: {name!r} is no shape of the build's tasks, or the weight is not a "
                     f"number >= 0 (0 leaves the shape out)" for name, weight in self.shape_weights
                     if name not in published or not (math.isfinite(weight) and weight >= 0)]
        if self.sample_rate < MIN_SAMPLE_RATE:
            problems.append(f"sample-rate must be at least {MIN_SAMPLE_RATE} Hz, got {self.sample_rate}: below it "
                            f"everything above {MIN_SAMPLE_RATE // 2} Hz (whistles, birds, sirens' harmonics) is "
                            "lost, and audio-text models take 16 kHz or more")
        elif self.sample_rate > MAX_SAMPLE_RATE:
            problems.append(f"sample-rate must be at most {MAX_SAMPLE_RATE} Hz, got {self.sample_rate}")
        elif math.isfinite(self.clip_seconds) and self.candidates * self.clip_seconds * self.sample_rate * 4 > MAX_GROUP_BYTES:
            problems.append(f"{self.candidates} candidates of {self.clip_seconds:g} s at {self.sample_rate} Hz make a "
                            f"group of {self.candidates * self.clip_seconds * self.sample_rate * 4 / 2**30:.1f} GiB; at "
                            f"most {MAX_GROUP_BYTES / 2**30:.0f} GiB is rendered at once (fewer candidates, shorter "
                            "clips or a lower sample-rate)")
        if isinstance(self.acoustics, str):
            object.__setattr__(self, "acoustics", (self.acoustics,))
        conditions = []
        try:
            conditions = self.conditions
        except ConditionError as error:
            problems.append(str(error))
        natural = self.source.partition(":")[0] == NATURAL_KIND
        if natural and [c.name for c in conditions] not in ([CLEAN], []):
            problems.append("a natural build (a strong-label source) takes --acoustics clean only: its recordings "
                            "are published as recorded")
        problems += [f"task {task!r} is not built from natural recordings: {WHY_NATURAL_BUILDS_DO_NOT_COUNT}; "
                     "build it from a bank of sounds"
                     for task in self.tasks if natural and task in TASKS and TASKS[task].repeats]
        if problems:
            raise ValueError("; ".join(problems))

    @classmethod
    def from_profile(cls, name: str, **options) -> "GenerateConfig":
        """A profile's settings (generation/profiles.py), `options` over them."""
        if name not in PROFILES:
            raise ValueError(f"unknown profile {name!r} (choose from {', '.join(PROFILES)})")
        return cls(**{**PROFILES[name].options, **options})

    @cached_property
    def conditions(self) -> list[Condition]:
        """The acoustic conditions `acoustics` names, clean first (resolved, and so checked, on creation)."""
        return resolve_conditions(self.acoustics)

    def content(self) -> dict:
        """The parameters that decide the corpus, not how it is computed: the fields declared `build`, in
        field order, each as its field says."""
        content = {}
        for f in fields(self):
            if f.metadata[ROLE] == BUILD:
                value = getattr(self, f.name)
                value = value if f.metadata[ENCODE] is None else f.metadata[ENCODE](self, value)
                if value is not None:
                    content[f.name] = value
        return content

    def corpus_configs(self) -> dict[str, Condition]:
        return corpus_configs(self.conditions)

    def check_same_corpus(self) -> None:
        """A split already begun or finished in `out` with other parameters is refused before any planning
        (the files' stamps would refuse it too, but only once the plan is made)."""
        path = record_files(Path(self.out), planned=True).get(self.split) or record_files(Path(self.out)).get(self.split)
        try:
            recorded = json.loads(path.read_text())["parameters"] if path else None
        except (OSError, ValueError, KeyError, TypeError):
            return                                  # a damaged record: the stamps decide (validate reports it)
        others = {split: path for split, path in {**record_files(Path(self.out), planned=True),
                                                  **record_files(Path(self.out))}.items() if split != self.split}
        theirs = folder_source(others)
        if theirs is not None and _kind(theirs) != _kind(self.source):
            raise ValueError(f"{self.out} holds splits built from {theirs}: a folder holds one kind of source, and "
                             f"this split's is {self.source}; pass --source of that kind, or choose another --out")
        content = json.loads(json.dumps(self.content()))
        if isinstance(recorded, dict) and recorded != content:
            changed = ", ".join(f"{name} {recorded.get(name)!r} there, {content.get(name)!r} now"
                                for name in sorted(set(recorded) | set(content)) if recorded.get(name) != content.get(name))
            raise FileExistsError(f"{self.out}: its split {self.split!r} belongs to a different corpus ({changed}); "
                                  "choose another --out, or repeat that split's command to resume it")


def _kind(source: str) -> str:
    """A source's kind (synthetic, esc50, strong, csv, ...): one folder's splits are all of one kind, so that a
    command that leaves out --source (the built-in bank) never adds a synthetic split to a natural build."""
    return source.partition(":")[0]


def parse_executor(text: str) -> tuple[str, str | None]:
    """`local`, `ray` (a new local Ray, or the cluster RAY_ADDRESS names) or `ray:ADDRESS` -> (kind, address)."""
    kind, _, address = text.partition(":")
    if kind not in (LOCAL, RAY) or (kind == LOCAL and address):
        raise ValueError(f"--executor must be `local`, `ray` or `ray:ADDRESS` (e.g. ray:auto, ray:10.0.0.5:6379), "
                         f"got {text!r}")
    return kind, address or None


def corpus_configs(conditions: list[Condition]) -> dict[str, Condition]:
    """Where each condition's clips go: one condition fills `corpus`; a robustness build puts the clean
    mix in `corpus` and each further condition in `corpus_<name>`."""
    from reasonaudio_dataset.schema import corpus_config   # datasets' Features: not needed to parse a command

    if len(conditions) == 1:
        return {"corpus": conditions[0]}
    return {corpus_config(None if c.name == CLEAN else c.name): c for c in conditions}


def resolve_conditions(names) -> list[Condition]:
    """The conditions of `--acoustics`: "all" is every preset; several conditions always include clean first."""
    names = [n for name in names for n in (presets() if name == "all" else [name])]
    if not names:
        raise ConditionError(f"acoustics names no condition; name a preset ({', '.join(presets())}), `all` or a YAML file")
    conditions = [load_condition(name) for name in dict.fromkeys(names)]
    if len(conditions) > 1 and all(c.name != CLEAN for c in conditions):
        conditions.insert(0, load_condition(CLEAN))
    seen = Counter(c.name for c in conditions)
    if any(n > 1 for n in seen.values()):
        raise ConditionError(f"two acoustic conditions share a name: {sorted(n for n, k in seen.items() if k > 1)}")
    return sorted(conditions, key=lambda c: (c.name != CLEAN, c.name))   # the order given changes nothing


