"""Audio-free clip plans: a pair of sounds (a, b) laid out by an arrangement, plus one free extra sound.

Every task varies the same few parameters, so a minimal pair is a `dataclasses.replace` of one field
(arrangement, durations, one slot's sound) and everything else, gains and gaps included, stays put.

Overlap scenes are two blocks of equal length, one of them holding the shorter of a and b: the longer
of the pair fills one block and the extra sound (as long) the other; "overlap" puts the shorter inside
the longer, "apart" inside the extra. A pulled-apart twin thus differs only in where that one sound
sits: span, onsets of the blocks, gaps and silence are identical, so no timeline statistic tells them
apart (the audit found the positive spanning more time than its twin in two thirds of pairs before).
"""
from __future__ import annotations

from dataclasses import dataclass

from .relations import Event

ARRANGEMENTS = ("a_first", "b_first", "overlap", "apart")
EXTRA_PLACES = ("before", "after", "with_a", "with_b")
BLOCK_PLACES = ("before", "after")      # where the extra block stands in overlap and apart scenes


@dataclass(frozen=True)
class Slot:
    label: str
    source_id: str
    seconds: float
    gain_db: float
    continuous: bool


@dataclass(frozen=True)
class Scene:
    a: Slot
    b: Slot
    extra: Slot
    arrangement: str      # one of ARRANGEMENTS
    extra_place: str      # one of EXTRA_PLACES (overlap and apart: before or after)
    gap: float            # silence between sequential events, > the 0.5 s relation margin
    shift: float          # 0..1: where the shorter of two overlapping sounds sits in the longer
    lead: float           # 0..1: share of the clip's free time before the first event

    def slots(self) -> dict[str, Slot]:
        return {"a": self.a, "b": self.b, "extra": self.extra}

    def labels(self) -> set[str]:
        return {slot.label for slot in self.slots().values()}

    def _overlapping(self, fixed: tuple[float, float], seconds: float) -> tuple[float, float]:
        """Place a sound so it shares at least 75 % of the shorter sound's length with `fixed`."""
        start, end = fixed
        longer, shorter = max(end - start, seconds), min(end - start, seconds)
        offset = -0.25 * shorter + self.shift * (longer - 0.5 * shorter)
        onset = start + offset if seconds <= end - start else start - offset  # the shorter sits in the longer
        return onset, onset + seconds

    def _blocks(self) -> dict[str, tuple[float, float]]:
        """Overlap and apart: the longer of a and b fills one block, the extra sound the other (before
        or after it), and the shorter sits inside the longer (overlap) or inside the extra (apart)."""
        longer, shorter = ("a", "b") if self.a.seconds >= self.b.seconds else ("b", "a")
        slots = self.slots()
        length = slots[longer].seconds
        times = {longer: (0.0, length)}
        if self.extra_place not in BLOCK_PLACES:
            raise ValueError(f"an {self.arrangement} scene has its extra sound before or after, not {self.extra_place}")
        if self.extra_place == "before":
            times["extra"] = (-self.gap - self.extra.seconds, -self.gap)
        else:
            times["extra"] = (length + self.gap, length + self.gap + self.extra.seconds)
        host = times[longer if self.arrangement == "overlap" else "extra"]
        onset = host[0] + self.shift * max(0.0, host[1] - host[0] - slots[shorter].seconds)
        times[shorter] = (onset, onset + slots[shorter].seconds)
        return times

    def events(self, clip_seconds: float) -> tuple[Event, ...] | None:
        """The timeline, or None when the plan does not fit in the clip."""
        times: dict[str, tuple[float, float]] = {}
        if self.arrangement in ("overlap", "apart"):
            times = self._blocks()
        else:
            first, second = ("a", "b") if self.arrangement == "a_first" else ("b", "a")
            slots = self.slots()
            times[first] = (0.0, slots[first].seconds)
            onset = slots[first].seconds + self.gap
            times[second] = (onset, onset + slots[second].seconds)
            start = min(t[0] for t in times.values())
            end = max(t[1] for t in times.values())
            if self.extra_place == "before":
                times["extra"] = (start - self.gap - self.extra.seconds, start - self.gap)
            elif self.extra_place == "after":
                times["extra"] = (end + self.gap, end + self.gap + self.extra.seconds)
            else:
                times["extra"] = self._overlapping(times[self.extra_place[-1]], self.extra.seconds)
        start = min(t[0] for t in times.values())
        span = max(t[1] for t in times.values()) - start
        if span > clip_seconds:
            return None
        shift = self.lead * (clip_seconds - span) - start
        slots = self.slots()
        return tuple(sorted(
            (Event(slots[role].label, slots[role].source_id, round(on + shift, 3), round(off + shift, 3),
                   slots[role].gain_db) for role, (on, off) in times.items()),
            key=lambda event: (event.onset, event.label),
        ))
