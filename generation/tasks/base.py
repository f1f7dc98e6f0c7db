"""What a task is (declarative metadata over aspects) and the group planner every task shares.

An aspect is one relation a query can test: it constrains the scene, states its atoms, renders its
words, and knows its minimal-pair flips. A task is a list of aspect combinations (one aspect, or two
for `mix`). Planning a group: draw a scene, flip it into hard negatives, replace mentioned sounds for
partial matches, verify every candidate with `relevant`, shuffle.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

from ..relations import NO, YES, Atom, Event, relevant
from ..scene import ARRANGEMENTS, EXTRA_PLACES, Scene, Slot

MAX_ATTEMPTS = 200
GAP_SECONDS = (0.7, 1.2)
GAIN_DB = (-6.0, 0.0)
CONTINUOUS_SECONDS = (1.0, 2.5)


class PlanningError(ValueError):
    pass


class Aspect:
    """One testable relation. Subclasses set the class attributes and `atoms`/`flips`."""

    name = ""
    arrangements: tuple[str, ...] = ARRANGEMENTS
    extra_places: tuple[str, ...] = EXTRA_PLACES
    continuous_pair = False                 # a and b must be croppable to any length
    pair_seconds: Optional[tuple[tuple[float, float], tuple[float, float]]] = None  # (a range, b range)
    min_seconds = 0.25                      # shortest sound usable in a or b
    needs_negated = False                   # draws a class z that the positive lacks
    sentences: tuple[str, ...] = ()         # full queries, with {x} {y} {z}
    clauses: tuple[str, ...] = ()           # the same aspect as a clause added to another one

    def atoms(self, x: str, y: str, z: Optional[str]) -> list[Atom]:
        raise NotImplementedError

    def flips(self, scene: Scene, negated, mentioned: set[str]) -> list[Scene]:
        """Minimal pairs: the scene changed only in what this aspect tests (`negated`: an AtomicSound)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Task:
    name: str
    description: str
    combos: tuple[tuple[Aspect, ...], ...]


@dataclass(frozen=True)
class Candidate:
    clip_id: str
    events: tuple[Event, ...]


@dataclass(frozen=True)
class QueryPlan:
    query_id: str
    task: str
    text: str
    atoms: tuple[Atom, ...]
    candidates: tuple[Candidate, ...]
    positive: str


@dataclass
class SoundPicker:
    """Draws sounds by class, uniformly over the eligible classes, from a bank index."""

    by_label: dict[str, list]                      # label -> AtomicSound list
    rng: np.random.Generator
    used: set[str] = field(default_factory=set)

    def eligible(self, continuous: bool, min_seconds: float) -> dict[str, list]:
        found = {}
        for label, sounds in self.by_label.items():
            ok = [s for s in sounds if (s.kind == "continuous" or (not continuous and s.seconds >= min_seconds))]
            if ok:
                found[label] = ok
        return found

    def pick(self, continuous: bool = False, min_seconds: float = 0.25, exclude: set[str] = frozenset()):
        options = {k: v for k, v in self.eligible(continuous, min_seconds).items() if k not in exclude}
        if not options:
            return None
        label = sorted(options)[self.rng.integers(len(options))]
        return options[label][self.rng.integers(len(options[label]))]


def _slot(sound, rng, seconds_range=None) -> Slot:
    continuous = sound.kind == "continuous"
    seconds = rng.uniform(*(seconds_range or CONTINUOUS_SECONDS)) if continuous else sound.seconds
    return Slot(sound.label, sound.source_id, round(float(seconds), 3), round(float(rng.uniform(*GAIN_DB)), 1),
                continuous)


def put(slot: Slot, sound) -> Slot:
    """`slot` holding `sound` instead (an AtomicSound): the one change of a replacement."""
    return slot.with_sound(sound.label, sound.source_id, sound.seconds, sound.kind == "continuous")


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _query_text(combo, phrases: dict[str, str], rng) -> str:
    primary = combo[0].sentences[rng.integers(len(combo[0].sentences))].format(**phrases)
    for aspect in combo[1:]:
        primary += ", " + aspect.clauses[rng.integers(len(aspect.clauses))].format(**phrases)
    return capitalise(primary)


def requirements(combo) -> dict:
    arrangements = [a for a in ARRANGEMENTS if all(a in aspect.arrangements for aspect in combo)]
    places = [p for p in EXTRA_PLACES if all(p in aspect.extra_places for aspect in combo)]
    seconds = next((aspect.pair_seconds for aspect in combo if aspect.pair_seconds), None)
    return {"arrangements": arrangements, "places": places, "seconds": seconds,
            "continuous": any(a.continuous_pair for a in combo), "min_seconds": max(a.min_seconds for a in combo),
            "negated": any(a.needs_negated for a in combo)}


def check_feasible(task: Task, by_label: dict[str, list]) -> None:
    """Fail before any rendering when the bank cannot supply a task's groups."""
    picker = SoundPicker(by_label, np.random.default_rng(0))
    for combo in task.combos:
        need = requirements(combo)
        pair = picker.eligible(need["continuous"], need["min_seconds"])
        total = 3 + need["negated"] + 1          # a, b, extra, the negated class, one replacement
        if len(pair) < 3 or len(by_label) < total:
            kind = "continuous " if need["continuous"] else ""
            raise PlanningError(
                f"task {task.name!r} ({'+'.join(a.name for a in combo)}) needs at least {total} classes, 3 of them "
                f"{kind}sounds of >= {need['min_seconds']} s; the bank has {len(by_label)} classes, "
                f"{len(pair)} eligible: {sorted(pair)}")


def plan_group(task: Task, query_id: str, by_label: dict[str, list], rng: np.random.Generator,
               candidates: int, clip_seconds: float) -> QueryPlan:
    picker = SoundPicker(by_label, rng)
    for _ in range(MAX_ATTEMPTS):
        plan = _try_group(task, query_id, picker, rng, candidates, clip_seconds)
        if plan is not None:
            return plan
    raise PlanningError(f"could not plan a valid group for {query_id} in {MAX_ATTEMPTS} attempts; "
                        f"the bank's sounds may be too long for {clip_seconds} s clips")


def _try_group(task, query_id, picker, rng, candidates, clip_seconds) -> Optional[QueryPlan]:
    combo = task.combos[rng.integers(len(task.combos))]
    need = requirements(combo)
    pair_kw = {"continuous": need["continuous"], "min_seconds": need["min_seconds"]}
    x = picker.pick(**pair_kw)
    y = picker.pick(**pair_kw, exclude={x.label})
    extra = picker.pick(exclude={x.label, y.label})
    z = picker.pick(exclude={x.label, y.label, extra.label}) if need["negated"] else None
    if y is None or extra is None or (need["negated"] and z is None):
        return None
    a_range, b_range = need["seconds"] or (None, None)
    scene = Scene(
        a=_slot(x, rng, a_range), b=_slot(y, rng, b_range), extra=_slot(extra, rng),
        arrangement=need["arrangements"][rng.integers(len(need["arrangements"]))],
        extra_place=need["places"][rng.integers(len(need["places"]))],
        gap=round(float(rng.uniform(*GAP_SECONDS)), 3), shift=float(rng.uniform()), lead=float(rng.uniform()),
    )
    atoms = tuple(atom for aspect in combo for atom in aspect.atoms(x.label, y.label, z and z.label))
    mentioned = {arg for atom in atoms for arg in atom.args} - ({z.label} if z else set())
    hard = [flip for aspect in combo for flip in aspect.flips(scene, z, mentioned)]
    scenes = [scene] + hard[: candidates - 1]
    roles = [role for role in ("a", "b") if scene.slots()[role].label in mentioned]
    in_group = scene.labels() | ({z.label} if z else set())
    used: set[str] = set()
    while len(scenes) < candidates:  # partial matches: one mentioned sound replaced, new classes first
        role = roles[len(scenes) % len(roles)]
        other = picker.pick(**pair_kw, exclude=in_group | used) or picker.pick(**pair_kw, exclude=in_group)
        if other is None:
            return None
        used.add(other.label)
        scenes.append(replace(scene, **{role: put(scene.slots()[role], other)}))
    timelines = [s.events(clip_seconds) for s in scenes]
    if any(t is None for t in timelines) or len(set(timelines)) != len(timelines):
        return None
    verdicts = [relevant(atoms, t) for t in timelines]
    if verdicts[0] is not YES or any(v is not NO for v in verdicts[1:]):
        return None
    order = rng.permutation(candidates)
    clips = tuple(Candidate(f"{query_id}-{pos:02d}", timelines[i]) for pos, i in enumerate(order))
    positive = clips[int(np.flatnonzero(order == 0)[0])].clip_id
    phrases = {"x": x.phrase, "y": y.phrase, "z": z.phrase if z else ""}
    return QueryPlan(query_id, task.name, _query_text(combo, phrases, rng), atoms, clips, positive)
