"""Audio-free clip plans: a row of blocks, each one sound (its host) and at most one sound inside it.

Blocks follow each other with one gap between neighbours; a block's inner sound sits wholly inside its
host, so the two overlap and nothing else does. Every slot carries a role ("a", "b", "w", "f1" ...), and
a minimal pair is one edit by role that keeps everything else, gains and gaps included:

* `swap_blocks`: two blocks trade places (order flips; the span and every length stay as they were);
* `move_inner`: an inner sound moves into another host of the same length (overlap is pulled apart,
  and no timeline statistic changes: with the twin laid out anew, the positive would span more time than
  its twin more often than not, which the audit finds);
* `swap_sounds`: two slots trade sounds, every time kept (durations flip; the timeline is identical);
* `with_sound`: another sound takes a slot at its place and length (a negated sound put in).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterator, Optional

from reasonaudio.core.relations import Event



@dataclass(frozen=True)
class Slot:
    role: str
    label: str
    source_id: str
    seconds: float
    gain_db: float
    continuous: bool


@dataclass(frozen=True)
class Block:
    host: Slot
    inner: Optional[Slot] = None
    shift: float = 0.5        # 0..1: where the inner sound sits in the host's free time


@dataclass(frozen=True)
class Scene:
    blocks: tuple[Block, ...]
    gap: float                # silence between neighbouring blocks, > the 0.5 s relation margin
    lead: float               # 0..1: share of the clip's free time before the first block
    named: frozenset[str] = frozenset()   # the classes the query names, wherever edits move them
    replaces: tuple[tuple[str, str], ...] = ()   # (excluded class, the class whose place it takes), shared by a group

    def slots(self) -> Iterator[Slot]:
        for block in self.blocks:
            yield block.host
            if block.inner is not None:
                yield block.inner

    def slot(self, role: str) -> Slot:
        return next(slot for slot in self.slots() if slot.role == role)

    def labels(self) -> set[str]:
        return {slot.label for slot in self.slots()}

    def _block_of(self, role: str) -> int:
        return next(i for i, b in enumerate(self.blocks) if role in (b.host.role, b.inner and b.inner.role))

    def swap_blocks(self, first: str, second: str) -> "Scene":
        i, j = self._block_of(first), self._block_of(second)
        blocks = list(self.blocks)
        blocks[i], blocks[j] = blocks[j], blocks[i]
        return replace(self, blocks=tuple(blocks))

    def move_inner(self, role: str, into: str) -> "Scene":
        """The inner sound `role` moves into the host `into` (which has none, and the same length)."""
        i, j = self._block_of(role), self._block_of(into)
        blocks = list(self.blocks)
        blocks[j] = replace(blocks[j], inner=blocks[i].inner, shift=blocks[i].shift)
        blocks[i] = replace(blocks[i], inner=None)
        return replace(self, blocks=tuple(blocks))

    def _map(self, change) -> "Scene":
        return replace(self, blocks=tuple(
            replace(b, host=change(b.host), inner=b.inner and change(b.inner)) for b in self.blocks))

    def swap_sounds(self, first: str, second: str) -> "Scene":
        """`first` and `second` trade sounds; each place keeps its time, length and gain."""
        sounds = {role: self.slot(role) for role in (first, second)}

        def trade(slot: Slot) -> Slot:
            if slot.role not in sounds:
                return slot
            return _playing(slot, sounds[second if slot.role == first else first])
        return self._map(trade)

    def with_sound_of(self, role: str, other: str) -> "Scene":
        """The slot `role` plays the sound of the slot `other` (an occurrence of it more, of its own one fewer):
        place, length and gain kept."""
        sound = self.slot(other)
        return self._map(lambda slot: _playing(slot, sound) if slot.role == role else slot)

    def trade_sounds(self, first: str, second: str) -> "Scene":
        """Every slot playing `first`'s sound plays `second`'s, and the other way round (all their occurrences
        trade: a count compared flips); each place keeps its time, length and gain."""
        one, other = self.slot(first), self.slot(second)
        sounds = {(one.label, one.source_id): other, (other.label, other.source_id): one}

        def trade(slot: Slot) -> Slot:
            new = sounds.get((slot.label, slot.source_id))
            return slot if new is None else _playing(slot, new)
        return self._map(trade)

    def with_sound_everywhere(self, role: str, sound) -> "Scene":
        """`sound` (an AtomicSound that fits) in every slot playing `role`'s sound (all its occurrences: a count's
        partner replaced); each place keeps its time, length and gain."""
        old = self.slot(role)
        return self._map(lambda slot: replace(slot, label=sound.label, source_id=sound.source_id,
                                              continuous=sound.kind == "continuous")
                         if (slot.label, slot.source_id) == (old.label, old.source_id) else slot)

    def with_sound(self, role: str, sound, seconds: Optional[float] = None) -> "Scene":
        """`sound` (an AtomicSound that fits) in the slot `role`: place and gain kept, and length (or `seconds`)."""
        return self._map(lambda slot: replace(slot, label=sound.label, source_id=sound.source_id,
                                              continuous=sound.kind == "continuous",
                                              seconds=slot.seconds if seconds is None else seconds)
                         if slot.role == role else slot)

    def with_length(self, role: str, seconds: float) -> "Scene":
        """The slot `role` played for `seconds` (its sound and place kept)."""
        return self._map(lambda slot: replace(slot, seconds=seconds) if slot.role == role else slot)

    def span(self) -> float:
        return sum(b.host.seconds for b in self.blocks) + self.gap * (len(self.blocks) - 1)

    def events(self, clip_seconds: float) -> Optional[tuple[Event, ...]]:
        """The timeline, or None when the plan does not fit in the clip."""
        span = self.span()
        if span > clip_seconds:
            return None
        onset, times = self.lead * (clip_seconds - span), []
        for block in self.blocks:
            times.append((block.host, onset))
            if block.inner is not None:
                times.append((block.inner, onset + block.shift * (block.host.seconds - block.inner.seconds)))
            onset += block.host.seconds + self.gap
        return tuple(sorted(
            (Event(slot.label, slot.source_id, round(start, 3), round(start + slot.seconds, 3), slot.gain_db)
             for slot, start in times),
            key=lambda event: (event.onset, event.label)))


def _playing(slot: Slot, other: Slot) -> Slot:
    """`slot` playing `other`'s sound: its place, length and gain kept."""
    return replace(slot, label=other.label, source_id=other.source_id, continuous=other.continuous)
