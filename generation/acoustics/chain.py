"""A condition applied to the clips of a candidate group with one draw of its parameters.

audiomentations draws parameters and noise from the global `random` and `numpy.random` states; a
`GroupChain` seeds both from the plan, draws every parameter once, freezes them, and reseeds before
each clip: every version of a minimal pair then gets the same transforms, parameters, noise waveform
and room, so no acoustic statistic can tell the positive apart.

Noise is set against the group's quietest annotated sound as the rest of the chain leaves it (a
band-pass that takes 20 dB off a low hum lowers the noise with it), so every annotated sound stays at
least the condition's SNR above the noise; a chain that leaves a sound more than 30 dB below its own
level (the bank's audibility rule) is refused: that sound would not be heard.
"""
from __future__ import annotations

import hashlib
import random
from contextlib import contextmanager

import numpy as np

from .spec import COMPOSITIONS, MAX_RT60, Condition

NOISE_LEVEL = {"AddGaussianSNR": "noise_std", "AddColorNoise": "desired_noise_rms"}  # additive: the level parameter
KEEPS_LEVEL = ("Mp3Compression", "BitCrush", "Aliasing", "PolarityInversion")  # damage that keeps a sound's level
MAX_LOSS_DB = 30.0          # a sound the chain leaves this much quieter than itself is inaudible (bank.TRIM_DB)
BANK_MARGIN_DB = 6.0        # the bank keeps sounds that lose at most MAX_LOSS_DB - this in sampled draws
MAX_GROUP_DRAWS = 10        # draws a group tries (from derived seeds) before its sounds count as inaudible
LEVEL_SECONDS = 1.0         # the excerpt of each sound its level after the chain is measured on
MAX_ROOM_DRAWS = 20


class InaudibleUnderCondition(ValueError):
    """The condition would leave an annotated sound inaudible."""


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


def build(item: dict):
    """The audiomentations object of one checked spec entry."""
    import audiomentations

    (name, arguments), = item.items()
    arguments = dict(arguments)
    if name not in COMPOSITIONS:
        return getattr(audiomentations, name)(**arguments)
    children = [build(child) for child in arguments.pop("transforms")]
    if name == "SomeOf":
        count = arguments.pop("num_transforms", (1, None))
        return audiomentations.SomeOf(tuple(count) if isinstance(count, list) else count, children, **arguments)
    return getattr(audiomentations, name)(children, **arguments)


def applied(node):
    """The leaf transforms that a frozen chain applies, in order."""
    kind = type(node).__name__
    if kind == "Compose":
        for child in node.transforms:
            yield from applied(child)
    elif kind == "OneOf":
        if node.should_apply:
            yield from applied(node.transforms[node.transform_index])
    elif kind == "SomeOf":
        if node.should_apply:
            for index in node.transform_indexes:
                yield from applied(node.transforms[index])
    elif node.parameters.get("should_apply"):
        yield node


def _plain(value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    return value if isinstance(value, str) else None


def measure_rt60(rir: np.ndarray, rate: int) -> float:
    """RT60 from the Schroeder decay (T30, extrapolated), as pyroomacoustics measures it."""
    from pyroomacoustics.experimental import measure_rt60 as schroeder

    return float(schroeder(rir, fs=rate, decay_db=30))


def _finish_room(transform, seed: int, rate: int, length: int) -> dict:
    """The room's impulse response scaled to unit energy (a room changes the colour and the tail of a clip,
    not its level: image sources otherwise gain 10-15 dB and clip) and its measured RT60, redrawn (from
    seeds derived from the group's) until it is within MAX_RT60."""
    for attempt in range(MAX_ROOM_DRAWS):
        rir = np.asarray(transform.room.rir[0][0], dtype=np.float64)
        rt60 = measure_rt60(rir, rate)
        if rt60 <= MAX_RT60:
            transform.room.rir[0][0] = (rir / np.sqrt(np.sum(rir ** 2))).astype(np.float32)
            return {"rt60": round(rt60, 4)}
        with seeded(derived_seed(seed, "room", attempt)):
            transform.randomize_parameters(np.zeros(length, np.float32), rate)
    raise ValueError(f"RoomSimulator drew {MAX_ROOM_DRAWS} rooms with a measured RT60 above {MAX_RT60} s: lower "
                     "max_target_rt60 or max_order")


FINISH = {"RoomSimulator": _finish_room}


def _rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))


class GroupChain:
    """A condition with every parameter drawn once for one group (`seed`). `pieces` are the group's
    annotated sounds as mixed (one array each): the noise is set against the quietest of them as the
    chain's other transforms leave it, and a chain that would leave one inaudible is refused."""

    def __init__(self, condition: Condition, seed: int, sample_rate: int, length: int, pieces, key=None):
        import audiomentations

        self.condition, self.seed, self.sample_rate, self.key = condition, seed, sample_rate, key
        with seeded(seed):
            self.chain = audiomentations.Compose([build(item) for item in condition.spec["transforms"]], p=1.0)
            self.chain.randomize_parameters(np.ones(length, dtype=np.float32), sample_rate)   # noise at unit level
            self.chain.freeze_parameters()
        self.transforms = list(applied(self.chain))
        extras = [FINISH[type(t).__name__](t, seed, sample_rate, length) if type(t).__name__ in FINISH else {}
                  for t in self.transforms]
        self.reference_rms = self._reference(pieces)
        for transform in self.transforms:
            if type(transform).__name__ in NOISE_LEVEL:
                transform.parameters[NOISE_LEVEL[type(transform).__name__]] *= self.reference_rms
        self.steps = []
        for transform, extra in zip(self.transforms, extras):
            values = {k: _plain(v) for k, v in transform.parameters.items() if k != "should_apply"}
            self.steps.append({"transform": type(transform).__name__,
                               **{k: v for k, v in values.items() if v is not None}, **extra})
        self._noise = {}

    def level_after(self, piece: np.ndarray) -> np.ndarray:
        """A sound through the transforms that change its level (filters, rooms, gain): not the noise, not
        the codecs, which keep it."""
        for transform in self.transforms:
            if type(transform).__name__ not in NOISE_LEVEL and type(transform).__name__ not in KEEPS_LEVEL:
                piece = transform(piece, self.sample_rate)
        return piece

    def _reference(self, pieces, max_loss_db: float = MAX_LOSS_DB) -> float:
        """The RMS of the quietest annotated sound after the chain (1.0 without pieces); refuses a chain
        that leaves one of them more than `max_loss_db` quieter than itself."""
        levels = []
        for piece in pieces:
            excerpt = np.asarray(piece[: int(LEVEL_SECONDS * self.sample_rate)], dtype=np.float32)
            before, after = _rms(excerpt), _rms(self.level_after(excerpt))
            if before > 0 and after < before * 10 ** (-max_loss_db / 20):
                raise InaudibleUnderCondition(
                    f"condition {self.condition.name!r} leaves a sound {20 * np.log10(before / max(after, 1e-12)):.0f} dB "
                    f"quieter than itself (more than {max_loss_db:.0f} dB: inaudible)")
            levels.append(after)
        return min(levels) if levels else 1.0

    def parameters(self) -> dict:
        """What the corpus stores for each clip of the group (the `acoustics` column, as JSON)."""
        return {"condition": self.condition.name, "seed": self.seed, "reference_rms": round(self.reference_rms, 8),
                "transforms": self.steps}

    def __call__(self, clip: np.ndarray) -> np.ndarray:
        """The clip under the condition. Additive noise does not depend on the clip once its parameters are
        frozen: it is drawn once for the group and added to each clip (the same waveform, at a tenth of the cost)."""
        with seeded(derived_seed(self.seed, "clip")):
            for index, transform in enumerate(self.transforms):
                if type(transform).__name__ in NOISE_LEVEL:
                    if index not in self._noise:
                        with seeded(derived_seed(self.seed, "noise", index)):
                            self._noise[index] = transform(np.zeros(len(clip), np.float32), self.sample_rate)
                    clip = clip + self._noise[index]
                else:
                    clip = transform(clip, self.sample_rate)
        return np.asarray(clip, dtype=np.float32)


def group_chain(condition: Condition, plan_seed: int, split: str, query_id: str, members, bank,
                clip_seconds: float) -> GroupChain:
    """The chain of one candidate group (`members`: every event of its candidates), as `generate` renders
    it and `validate` re-derives it."""
    from ..render import event_piece

    length = int(round(clip_seconds * bank.sample_rate))
    pieces = [event_piece(event, bank, length)[1] for event in sorted(set(members), key=repr)]
    seed = group_seed(plan_seed, split, query_id, condition.name)
    for attempt in range(MAX_GROUP_DRAWS):    # a draw that hides a sound (a room's colour on top of a band) is redrawn
        try:
            return GroupChain(condition, derived_seed(seed, "draw", attempt) if attempt else seed, bank.sample_rate,
                              length, pieces, key=query_id)
        except InaudibleUnderCondition as error:
            last = error
    raise InaudibleUnderCondition(f"group {query_id}: {last} in {MAX_GROUP_DRAWS} draws")


def inaudible_sounds(conditions, sounds, seed: int, split: str, rate: int, draws: int = 4) -> dict[str, str]:
    """The sounds (by source id, with the reason) that a condition's chain would leave inaudible in any of
    `draws` draws: left out of the bank before planning, as a resampling that silences a sound is."""
    found = {}
    for condition in conditions:
        if condition.clean:
            continue
        for draw in range(draws):
            chain = GroupChain(condition, group_seed(seed, split, f"audibility-{draw}", condition.name), rate,
                               int(LEVEL_SECONDS * rate), [])
            for sound in sounds:
                if sound.source_id in found:
                    continue
                try:
                    chain._reference([sound.samples], MAX_LOSS_DB - BANK_MARGIN_DB)
                except InaudibleUnderCondition as error:
                    found[sound.source_id] = str(error).replace("a sound", f"{sound.label!r}")
    return found
