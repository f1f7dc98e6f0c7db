"""A condition applied to the clips of a candidate group with one draw of its parameters.

audiomentations draws parameters and noise from the global `random` and `numpy.random` states; a
`GroupChain` seeds both from the plan, draws every parameter once, freezes them, and reseeds before
each clip: every version of a minimal pair then gets the same transforms, parameters, noise waveform
and room, so no acoustic statistic can tell the positive apart.

A draw is checked by what the whole chain does to the group's annotated sounds, whatever its
transforms: each sound alone (its first second, at the quietest gain the group mixes it at) through
every transform but the additive noise must stay audible (its level above 20 Hz at most 30 dB below its
own, the bank's audibility rule, and none of the 10 ms frames it is clearly heard in, within 20 dB of its
loudest, left digital silence), and
each clip of the group through the whole chain must keep every sample strictly inside full scale
(|x| < 1) and leave no such frame of an annotated sound digital silence (the whole sound, where it
plays alone). Noise is then set against the quietest sound as the chain leaves it (a band-pass that takes
20 dB off a low hum lowers the noise with it), so every annotated sound stays at least the
condition's SNR above the noise. A draw that fails is redrawn (from derived seeds), and the condition
refused for the group, naming the transform (with its drawn parameters) that erased or clipped a
sound, when no draw fits.
"""
from __future__ import annotations

import hashlib
import json
import logging
import random
from collections import Counter
from contextlib import contextmanager
from functools import cached_property, lru_cache

import numpy as np

from ..bank import FRAME_SECONDS, TRIM_DB, frame_rms, rms_of
from .condition import COMPOSITIONS, MAX_RT60, MIX_GAIN_DB, Condition, ConditionError

NOISE_LEVEL = {"AddGaussianSNR": "noise_std", "AddColorNoise": "desired_noise_rms"}  # additive: the level parameter
MAX_LOSS_DB = -TRIM_DB      # a sound the chain leaves this much quieter than itself is inaudible
AUDIBLE_FROM_HZ = 20.0      # levels are measured above this: what a chain leaves below it (aliasing to 8 Hz) is not heard
SILENT_SAMPLE = 0.5 / 32767  # a sample that rounds to 0 in the stored 16-bit PCM
CLEAR_DB = 20.0             # a sound's 10 ms frames within this of its loudest: none may be left digital silence
FULL_SCALE = 1.0            # every sample of a clip after the chain stays strictly inside +-FULL_SCALE
BANK_MARGIN_DB = 6.0        # the bank keeps sounds that lose at most MAX_LOSS_DB - this in sampled draws
MAX_GROUP_DRAWS = 10        # draws a group tries (from derived seeds) before its condition is refused for it
LEVEL_SECONDS = 1.0         # the excerpt of each sound its level after the chain is measured on
PAD_SECONDS = 0.1           # silence run after each clip and excerpt: a codec's last frame, which it drops, falls on it
GAP_SECONDS = MAX_RT60 + 0.1   # silence before each sound of a level check: a room's tail is 60 dB down by then
BANK_CHUNK = 64             # bank sounds per pass of the audibility check: memory stays that of ~100 s of audio

log = logging.getLogger(__name__)


class DrawRefused(ValueError):
    """A draw of the condition that would break an annotation of the group."""


class InaudibleUnderCondition(DrawRefused):
    """The draw would leave an annotated sound inaudible."""


class ClippedUnderCondition(DrawRefused):
    """The draw would clip a clip of the group."""


@contextmanager
def seeded(seed: int):
    """Seed audiomentations' random sources; restore the caller's states afterwards."""
    saved = random.getstate(), np.random.get_state()
    random.seed(seed)
    np.random.seed(seed)
    try:
        yield
    finally:
        random.setstate(saved[0])
        np.random.set_state(saved[1])


def derived_seed(*parts) -> int:
    """A seed (< 2**31) that is a pure function of its parts."""
    return int.from_bytes(hashlib.sha256("/".join(map(str, parts)).encode()).digest()[:4], "little") >> 1


def group_seed(seed: int, split: str, query_id: str, condition: str) -> int:
    """The seed of one group under one condition: a pure function of the plan."""
    return derived_seed(seed, split, query_id, condition)


def transform_class(name: str, version: int = 1) -> type:
    """The class a spec's transform name builds at a condition's `version`: audiomentations', or the
    project's own where it computes the same thing faster (a room drawn as audiomentations draws it, a
    filter designed once) or belongs to the project (a composition at a channel's rate); from version 2,
    the additive noises in float32 (other waveforms: why a version opts in). Imported on use:
    audiomentations takes a second to import, which a build without conditions never pays."""
    import audiomentations

    from .filters import DESIGNED_ONCE   # all import audiomentations
    from .noise import Float32ColorNoise, Float32GaussianSNR
    from .rates import AtSampleRate
    from .rooms import ShoeBoxRoom

    own = {"RoomSimulator": ShoeBoxRoom, "AtSampleRate": AtSampleRate, **DESIGNED_ONCE}
    if version >= 2:
        own.update(AddColorNoise=Float32ColorNoise, AddGaussianSNR=Float32GaussianSNR)
    return own.get(name) or getattr(audiomentations, name)


def build(item: dict, version: int = 1):
    """The audiomentations object of one checked spec entry, at its condition's `version`."""
    (name, arguments), = item.items()
    arguments, made = dict(arguments), transform_class(name, version)
    if name not in COMPOSITIONS:
        return made(**arguments)
    children = [build(child, version) for child in arguments.pop("transforms")]
    if name == "SomeOf":
        count = arguments.pop("num_transforms", (1, None))
        arguments["num_transforms"] = tuple(count) if isinstance(count, list) else count
        return made(transforms=children, **arguments)
    return made(children, **arguments)


def kind(transform) -> str:
    """A transform's name in a spec (and in the record), also for those the project computes its own way."""
    return getattr(transform, "spec_name", type(transform).__name__)


def applied(node):
    """The leaf transforms that a frozen chain applies, in order."""
    name = type(node).__name__
    if name == "Compose":
        for child in node.transforms:
            yield from applied(child)
    elif name == "OneOf":
        if node.should_apply:
            yield from applied(node.transforms[node.transform_index])
    elif name == "SomeOf":
        if node.should_apply:
            for index in node.transform_indexes:
                yield from applied(node.transforms[index])
    elif node.parameters.get("should_apply"):
        yield node


def step(transform) -> dict:
    """A transform's name and drawn parameters (a composition's: with its applied transforms')."""
    values = {k: _plain(v) for k, v in transform.parameters.items() if k != "should_apply"}
    inner = {"transforms": [step(t) for t in applied(transform.chain)]} if kind(transform) == "AtSampleRate" else {}
    return {"transform": kind(transform), **{k: v for k, v in values.items() if v is not None}, **inner}


def _plain(value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    return value if isinstance(value, str) else None


def _peak(samples: np.ndarray) -> float:
    return max(float(samples.max()), -float(samples.min())) if len(samples) else 0.0


@lru_cache(maxsize=8)
def _audible_band(rate: int) -> np.ndarray:
    from scipy.signal import butter

    return butter(2, AUDIBLE_FROM_HZ, "highpass", fs=rate, output="sos")


def audible_rms(samples: np.ndarray, rate: int) -> float:
    """The RMS of what can be heard of `samples`: above AUDIBLE_FROM_HZ."""
    from scipy.signal import sosfilt

    return rms_of(sosfilt(_audible_band(rate), samples))


class HeardSound:
    """A sound as the audibility check compares what a chain makes of it with: its first LEVEL_SECONDS
    (`samples`), their audible level and the 10 ms frames they are clearly heard in (within CLEAR_DB of
    their loudest). Level and frames are computed when first asked for and kept: the bank's sounds are
    compared with four draws, and a chain of additive noise alone compares nothing."""

    def __init__(self, samples: np.ndarray, rate: int):
        self.samples = np.asarray(samples[: int(LEVEL_SECONDS * rate)], dtype=np.float32)
        self.rate, self.frame, self.length = rate, max(1, int(FRAME_SECONDS * rate)), len(self.samples)

    @cached_property
    def level(self) -> float:
        return audible_rms(self.samples, self.rate)

    @cached_property
    def clear(self) -> np.ndarray:
        levels = frame_rms(self.samples, self.frame)
        return levels >= levels.max() * 10 ** (-CLEAR_DB / 20)

    def erased(self, after: np.ndarray, max_loss_db: float = MAX_LOSS_DB) -> str | None:
        """How `after` (the sound through a chain) no longer lets it be heard, or None: its audible level
        more than `max_loss_db` below the sound's own, or a frame it is clearly heard in left digital
        silence (a quantiser's work; a fade or the quietest moments of a sound may go)."""
        if not self.level > 0:                   # a silent (or empty) excerpt has nothing to lose
            return None
        if _peak(after) < SILENT_SAMPLE:
            return "as digital silence"
        lost = 20 * np.log10(self.level / max(audible_rms(after, self.rate), 1e-12))
        if lost > max_loss_db:
            return f"{lost:.0f} dB quieter than itself (more than {max_loss_db:.0f} dB: inaudible)"
        usable = len(self.clear) * self.frame if self.length >= self.frame else self.length
        peaks = np.abs(after[:usable]).reshape(len(self.clear), -1).max(axis=1)
        silent = int(np.sum(self.clear & (peaks < SILENT_SAMPLE)))
        if silent:
            return f"with digital silence in {silent} of the {int(self.clear.sum())} 10 ms frames it is clearly heard in"
        return None


def silenced(before: np.ndarray, after: np.ndarray, spans, rate: int) -> str | None:
    """How `after` (a clip through a chain) leaves digital silence where an annotated sound of `before`
    (the clip as mixed) is clearly heard, or None: within each span (start, stop samples), a 10 ms frame
    within CLEAR_DB of the span's loudest. It sees a sound's whole length where it plays alone."""
    frame = max(1, int(FRAME_SECONDS * rate))
    for start, stop in spans:
        stop -= (stop - start) % frame
        if stop <= start:
            continue
        levels = frame_rms(before[start:stop], frame)
        clear = levels >= levels.max() * 10 ** (-CLEAR_DB / 20)
        silent = int(np.sum(clear & (np.abs(after[start:stop]).reshape(-1, frame).max(axis=1) < SILENT_SAMPLE)))
        if levels.max() > 0 and silent:
            return (f"with digital silence in {silent} of the {int(clear.sum())} 10 ms frames its sound at "
                    f"{start / rate:.2f}-{stop / rate:.2f} s is clearly heard in")
    return None


def clipped(peak_before: float, after: np.ndarray) -> str | None:
    """How `after` (a clip through a chain) clips, or None."""
    peak = _peak(after)
    return f"peaking at {peak:.2f} times full scale (from {peak_before:.2f})" if peak >= FULL_SCALE else None


class GroupChain:
    """A condition with every parameter drawn once for one group (`seed`). `pieces` are the group's
    annotated sounds as mixed (one array each), `clips` its clips as mixed and `spans` the (start, stop)
    samples of each clip's annotated sounds: a draw that leaves a sound inaudible or a clip clipped is
    refused (`DrawRefused`), and the noise is set against the quietest sound as the chain's other
    transforms leave it. The checked clips' results are kept for `__call__`."""

    def __init__(self, condition: Condition, seed: int, sample_rate: int, length: int, pieces, key=None, clips=(),
                 spans=()):
        import audiomentations   # a second to import: a build without conditions never pays it

        from .rooms import finish_room   # audiomentations too

        self.condition, self.seed, self.sample_rate, self.key = condition, seed, sample_rate, key
        with seeded(seed):
            self.chain = audiomentations.Compose([build(item, condition.version) for item in condition.spec["transforms"]],
                                                 p=1.0)
            self.chain.randomize_parameters(np.ones(length, dtype=np.float32), sample_rate)   # noise at unit level
            self.chain.freeze_parameters()
        self.transforms = list(applied(self.chain))
        self._extras = [finish_room(t, sample_rate, length, lambda attempt: seeded(derived_seed(seed, "room", attempt)))
                        if kind(t) == "RoomSimulator" else {} for t in self.transforms]
        self._noise, self._checked, self._results = {}, {}, []
        self._changes_sounds = any(kind(t) not in NOISE_LEVEL for t in self.transforms)
        self.reference_rms = self._reference(pieces)
        for transform in self.transforms:
            if kind(transform) in NOISE_LEVEL:
                transform.parameters[NOISE_LEVEL[kind(transform)]] *= self.reference_rms
        self.steps = [self._step(index) for index in range(len(self.transforms))]
        for number, (clip, where) in enumerate(zip(clips, spans or [()] * len(clips)), 1):
            stages, peak, what = self._stages(clip), _peak(np.asarray(clip)), f"clip {number} of {len(clips)}"
            self._refuse_if(lambda stage: silenced(stages[0], stage, where, sample_rate), stages,
                            InaudibleUnderCondition, what)
            self._refuse_if(lambda stage: clipped(peak, stage), stages, ClippedUnderCondition, what)
            self._checked.setdefault(_key(stages[0]), []).append(len(self._results))
            self._results.append((stages[0], stages[-1]))

    def _step(self, index: int) -> dict:
        """What the record holds of one applied transform: its name and drawn parameters."""
        return {**step(self.transforms[index]), **self._extras[index]}

    def _stages(self, samples: np.ndarray, noise: bool = True) -> list[np.ndarray]:
        """`samples` and what each applied transform in turn makes of them (the last is the result); the
        additive noise left out unless `noise`. They run with PAD_SECONDS of silence after them, cut off
        again (an MP3 codec drops its last frame: the last 33 ms of a clip would go silent); a chain of
        additive noise alone needs no padding (nor its copy of the clip). Additive noise does not depend on
        the clip once its parameters are frozen: it is drawn once for the group, at the padded length
        whatever the chain, and added to each clip (the same waveform, at a tenth of the cost)."""
        samples, pad = np.asarray(samples, dtype=np.float32), int(PAD_SECONDS * self.sample_rate)
        stages = [np.concatenate([samples, np.zeros(pad, np.float32)]) if self._changes_sounds else samples]
        with seeded(derived_seed(self.seed, "clip")):
            for index, transform in enumerate(self.transforms):
                if kind(transform) not in NOISE_LEVEL:
                    stages.append(np.asarray(transform(stages[-1], self.sample_rate), dtype=np.float32))
                elif noise:
                    if index not in self._noise:
                        with seeded(derived_seed(self.seed, "noise", index)):
                            self._noise[index] = transform(np.zeros(len(samples) + pad, np.float32), self.sample_rate)
                    stages.append(stages[-1] + self._noise[index][:len(stages[-1])])
                else:
                    stages.append(stages[-1])
        return [stage[:len(samples)] for stage in stages]

    def _refuse_if(self, problem_of, stages: list[np.ndarray], error: type[DrawRefused], what: str) -> None:
        """Raise `error` when the chain breaks `what` (`_broken`)."""
        problem = self._broken(problem_of, stages, what)
        if problem:
            raise error(problem)

    def _broken(self, problem_of, stages: list[np.ndarray], what: str) -> str | None:
        """How the chain breaks `what`, when `problem_of(result)` says so, naming the transform from which on
        every stage is broken; or None."""
        problem = problem_of(stages[-1])
        if problem is None:
            return None
        first = len(stages) - 1
        while first > 0 and problem_of(stages[first - 1]):
            first -= 1
        culprit = f"transform {first} of {len(self.transforms)}, {describe(self._step(first - 1))}" if first \
            else "the mix itself"
        return f"condition {self.condition.name!r} leaves {what} {problem} after {culprit}"

    def level_after(self, piece: np.ndarray) -> np.ndarray:
        """A sound through every transform of the chain but the additive noise."""
        return self._stages(piece, noise=False)[-1]

    def heard(self, sounds: list[HeardSound], max_loss_db: float = MAX_LOSS_DB,
              whats=None) -> list[tuple[float, str | None]]:
        """Each annotated sound's RMS after the chain (noise left out) and how the chain leaves it inaudible
        (`HeardSound.erased`, with `max_loss_db`), or None. The sounds run
        through the chain in one pass, each after silence as long as the chain's tail (GAP_SECONDS with a room,
        else PAD_SECONDS, a codec's last frame): each is heard apart from the others (a frame-based codec's grid
        falls where it falls, as it does in a clip), and a codec or resampler is set up once, not per sound."""
        if not self._changes_sounds or not sounds:      # additive noise alone leaves every sound as it was
            return [(rms_of(sound.samples), None) for sound in sounds]
        room = any(kind(transform) == "RoomSimulator" for transform in self.transforms)
        gap = np.zeros(int((GAP_SECONDS if room else PAD_SECONDS) * self.sample_rate), np.float32)
        starts = np.cumsum([0] + [len(gap) + sound.length for sound in sounds])
        passed = self._stages(np.concatenate([part for sound in sounds for part in (gap, sound.samples)]), noise=False)
        found = []
        for sound, start, what in zip(sounds, starts, whats or ["a sound"] * len(sounds)):
            stages = [stage[start + len(gap): start + len(gap) + sound.length] for stage in passed]
            found.append((rms_of(stages[-1]), self._broken(lambda stage: sound.erased(stage, max_loss_db), stages, what)))
        return found

    def _reference(self, pieces) -> float:
        """The RMS of the quietest annotated sound after the chain (1.0 without pieces); refuses a chain
        that leaves one of them inaudible."""
        found = self.heard([HeardSound(piece, self.sample_rate) for piece in pieces])
        problem = next((problem for _, problem in found if problem), None)
        if problem:
            raise InaudibleUnderCondition(problem)
        return min(level for level, _ in found) if found else 1.0

    def parameters(self) -> dict:
        """What the corpus stores for each clip of the group (the `acoustics` column, as JSON)."""
        return {"condition": self.condition.name, "seed": self.seed, "reference_rms": round(self.reference_rms, 8),
                "transforms": self.steps}

    def checked(self, index: int) -> np.ndarray | None:
        """The `index`-th of the clips the draw was checked on, under the condition: what `__call__` makes of
        it, without mixing the clip again to find it; None once it was handed out (each result is handed out
        once: its taker may change it in place)."""
        held, self._results[index] = self._results[index], None
        return None if held is None else held[1]

    def __call__(self, clip: np.ndarray) -> np.ndarray:
        """The clip under the condition (a clip the draw was checked on is not run through it again)."""
        clip = np.asarray(clip, dtype=np.float32)
        for index in self._checked.get(_key(clip), []):
            held = self._results[index]
            if held is not None and np.array_equal(held[0], clip):
                return self.checked(index)
        return self._stages(clip)[-1]


def _key(clip: np.ndarray) -> tuple:
    """A cheap key of a clip for finding it among the checked ones (which are then compared whole)."""
    return len(clip), clip[::1021].tobytes()


def describe(step: dict) -> str:
    """A drawn transform for a message: its name and parameters."""
    values = ", ".join(f"{key}={value:.5g}" if isinstance(value, float) else
                       f"{key}=[{', '.join(map(describe, value))}]" if key == "transforms" else f"{key}={value}"
                       for key, value in step.items() if key != "transform")
    return f"{step['transform']} ({values})" if values else step["transform"]


def group_chain(condition: Condition, plan_seed: int, split: str, query_id: str, members, bank,
                clip_seconds: float) -> GroupChain:
    """The chain of one candidate group (`members`: the timeline of each of its candidates), as `generate`
    renders it and `validate` re-derives it; refused for the group when no draw keeps every sound
    audible and every clip unclipped."""
    from ..render import event_piece, render   # soundfile, imported on use: --help stays fast

    length = int(round(clip_seconds * bank.sample_rate))
    quietest = {}      # each sound (and length, under LEVEL_SECONDS) once, at the quietest gain the group mixes it
    for event in sorted({event for timeline in members for event in timeline}, key=repr):   # at: the hardest to hear
        key = event.source_id, min(event.offset - event.onset, LEVEL_SECONDS)
        if key not in quietest or event.gain_db < quietest[key].gain_db:
            quietest[key] = event
    pieces = [event_piece(event, bank, length)[1] for event in quietest.values()]
    clips = [render(tuple(timeline), bank, clip_seconds) for timeline in members]
    spans = [[(int(round(e.onset * bank.sample_rate)), min(int(round(e.offset * bank.sample_rate)), length))
              for e in timeline] for timeline in members]
    seed = group_seed(plan_seed, split, query_id, condition.name)
    for attempt in range(MAX_GROUP_DRAWS):    # a draw that hides a sound (a room's colour on top of a band) is redrawn
        try:
            return GroupChain(condition, derived_seed(seed, "draw", attempt) if attempt else seed, bank.sample_rate,
                              length, pieces, key=query_id, clips=clips, spans=spans)
        except DrawRefused as error:
            last = error
    raise type(last)(f"group {query_id}: none of {MAX_GROUP_DRAWS} draws fits; the last: {last}")


def inaudible_sounds(conditions, sounds, seed: int, split: str, rate: int, draws: int = 4) -> dict[str, str]:
    """The sounds (by source id, with the reason) that a condition's chain would leave inaudible in any of
    `draws` draws, each sound at the quietest gain an event is mixed at (a quantiser erases quiet sounds
    first): left out of the bank before planning, as a resampling that silences a sound is. A condition
    that would leave out more than half of the bank is refused: it is not the benchmark's audio. What was
    left out is said in one line (the card lists each sound with the reason).

    A draw that repeats an earlier one on the same sounds is not run again: what the check passes through
    is every transform but the noise, each a function of its drawn parameters (none on the allow-list draws
    anything when applied), so the same parameters on the same chunks give the same verdicts (a telephone
    draws its bitrate from three: four draws repeat one)."""
    quietest, found, said = np.float32(10 ** (min(MIX_GAIN_DB) / 20)), {}, []
    measured = {}   # each sound at that gain, its level and clear frames kept: for every draw of every condition
    for condition in conditions:
        if condition.clean:
            continue
        left_out, checked = {}, set()
        for draw in range(draws):
            chain = GroupChain(condition, group_seed(seed, split, f"audibility-{draw}", condition.name), rate,
                               int(LEVEL_SECONDS * rate), [])
            unheard = [sound for sound in sounds if sound.source_id not in found and sound.source_id not in left_out]
            draw_on = (json.dumps([step for step in chain.steps if step["transform"] not in NOISE_LEVEL]),
                       tuple(sound.source_id for sound in unheard))
            if draw_on in checked:
                continue
            checked.add(draw_on)
            for start in range(0, len(unheard), BANK_CHUNK):
                chunk = unheard[start:start + BANK_CHUNK]
                for sound in chunk:     # a discrete sound whole: a clip may play all of it (its first second
                    if sound.source_id not in measured:     # alone passed a chirp whose tail a telephone silences)
                        played = sound.samples if sound.kind == "discrete" else sound.samples[: int(LEVEL_SECONDS * rate)]
                        measured[sound.source_id] = HeardSound(played * quietest, rate)
                for heard in (chunk, chunk[::-1]):  # each sound at two places on a codec's frame grid: the frame
                    verdicts = chain.heard([measured[sound.source_id] for sound in heard],   # it silences depends
                                           MAX_LOSS_DB - BANK_MARGIN_DB, [repr(sound.label) for sound in heard])  # on it
                    left_out.update((sound.source_id, problem) for sound, (_, problem) in zip(heard, verdicts)
                                    if problem and sound.source_id not in left_out)
        if len(left_out) > len(sounds) / 2:
            raise ConditionError(f"condition {condition.name!r} would leave {len(left_out)} of the bank's "
                                 f"{len(sounds)} sounds inaudible, e.g.: {next(iter(left_out.values()))}")
        found.update(left_out)
        if left_out:
            labels = Counter(sound.label for sound in sounds if sound.source_id in left_out)
            said.append(f"{condition.name!r} ({', '.join(f'{n} {label}' for label, n in sorted(labels.items()))})")
    if said:
        log.warning("left out %d of the bank's %d sounds as inaudible under %s; the card lists each with the reason",
                    len(found), len(sounds), " and ".join(said))
    return found
