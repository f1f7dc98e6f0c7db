"""A condition applied to the clips of a candidate group with one draw of its parameters.

audiomentations draws parameters and noise from the global `random` and `numpy.random` states; a
`GroupChain` seeds both from the plan, draws every parameter once against the group's reference
level, freezes them, and reseeds before each clip: every version of a minimal pair then gets the same
transforms, parameters, noise waveform and room, so no acoustic statistic can tell the positive apart.
"""
from __future__ import annotations

import hashlib
import random
from contextlib import contextmanager

import numpy as np

from .spec import COMPOSITIONS, MAX_RT60, Condition


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


def group_seed(seed: int, split: str, query_id: str, condition: str) -> int:
    """The seed of one group under one condition: a pure function of the plan."""
    digest = hashlib.sha256(f"{seed}/{split}/{query_id}/{condition}".encode()).digest()
    return int.from_bytes(digest[:4], "little") >> 1


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


def _finish_room(transform, rate: int) -> dict:
    """The room's impulse response scaled to unit energy (a room changes the colour and the tail of a clip,
    not its level: image sources otherwise gain 10-15 dB and clip) and its measured RT60, bounded."""
    rir = np.asarray(transform.room.rir[0][0], dtype=np.float64)
    transform.room.rir[0][0] = (rir / np.sqrt(np.sum(rir ** 2))).astype(np.float32)
    rt60 = measure_rt60(rir, rate)
    if rt60 > MAX_RT60:
        raise ValueError(f"RoomSimulator drew a room with a measured RT60 of {rt60:.2f} s (> {MAX_RT60} s): lower "
                         "max_target_rt60 or max_order")
    return {"rt60": round(rt60, 4)}


FINISH = {"RoomSimulator": _finish_room}
ADDITIVE = ("AddGaussianSNR", "AddColorNoise", "AddGaussianNoise")  # output = input + a noise drawn independently of it


class GroupChain:
    """A condition with every parameter drawn once for one group (`seed`), against the level of the group's
    quietest annotated sound (`reference_rms`: noise SNRs are relative to it, so every annotated sound
    stays at least the minimum SNR above the noise)."""

    def __init__(self, condition: Condition, seed: int, reference_rms: float, sample_rate: int, length: int):
        import audiomentations

        self.condition, self.seed, self.sample_rate = condition, seed, sample_rate
        self.reference_rms = float(reference_rms)
        with seeded(seed):
            self.chain = audiomentations.Compose([build(item) for item in condition.spec["transforms"]], p=1.0)
            self.chain.randomize_parameters(np.full(length, self.reference_rms, dtype=np.float32), sample_rate)
            self.chain.freeze_parameters()
        self.transforms = list(applied(self.chain))
        self.steps, self._noise = [], {}
        for transform in self.transforms:
            name = type(transform).__name__
            extra = FINISH[name](transform, sample_rate) if name in FINISH else {}
            values = {k: _plain(v) for k, v in transform.parameters.items() if k != "should_apply"}
            self.steps.append({"transform": name, **{k: v for k, v in values.items() if v is not None}, **extra})

    def parameters(self) -> dict:
        """What the corpus stores for each clip of the group (the `acoustics` column, as JSON)."""
        return {"condition": self.condition.name, "seed": self.seed, "reference_rms": round(self.reference_rms, 8),
                "transforms": self.steps}

    def __call__(self, clip: np.ndarray) -> np.ndarray:
        """The clip under the condition. Additive noise does not depend on the clip once its parameters are
        frozen: it is drawn once for the group and added to each clip (the same waveform, at a tenth of the cost)."""
        with seeded(self.seed ^ 1):
            for index, transform in enumerate(self.transforms):
                if type(transform).__name__ in ADDITIVE:
                    if index not in self._noise:
                        with seeded(self.seed ^ (index + 2)):
                            self._noise[index] = transform(np.zeros(len(clip), np.float32), self.sample_rate)
                    clip = clip + self._noise[index]
                else:
                    clip = transform(clip, self.sample_rate)
        return np.asarray(clip, dtype=np.float32)


def group_chain(condition: Condition, plan_seed: int, split: str, query_id: str, members, bank,
                clip_seconds: float) -> GroupChain:
    """The chain of one candidate group (`members`: every event of its candidates), as `generate` renders
    it and `validate` re-derives it."""
    from ..render import quietest_rms

    chain = GroupChain(condition, group_seed(plan_seed, split, query_id, condition.name),
                       quietest_rms(members, bank, clip_seconds), bank.sample_rate,
                       int(round(clip_seconds * bank.sample_rate)))
    chain.query_id = query_id
    return chain
