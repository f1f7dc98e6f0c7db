"""Negation groups as symmetric designs: no statistic of the group tells the positive, not even one that knows
which sounds the query names but not which it excludes.

A group of members (a base and its flip putting the excluded sound in) would give the excluded sound to every
member's flip: five candidates would hold it, two the wanted one, and "the candidate holding the named sound
fewest candidates hold" would find every positive of present-absent. A design has no such member: a few classes,
each candidate holding some of them (`Design.holds`), drawn so that every class is held by as many candidates,
every candidate is one edit from as many others, and some renaming of the named classes maps the group on
itself with the positive on another candidate: a rule blind to which named sound is excluded ties the
positive with that candidate. Every class keeps one place of the clip (`Design.places`; a candidate's other
places are left out), all at one length, beside unmentioned fillers every candidate shares.

* `Ring(w)`: the classes in a circle, candidate k holding c_k .. c_{k+w-1}; the query names the positive's last
  w-1 classes present and the next one absent (its hard negative: the next window). The mirror of the circle
  through the present class next to the excluded one trades the two.
* `Complements()`: n classes, a candidate for every two left out (n(n-1)/2 candidates: 10 of 5 classes), the
  query naming one class present and two absent; every permutation of the three named classes maps the group
  on itself (a ring cannot: the present class is the one named class held with both others).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import isqrt
from typing import Optional

from reasonaudio.core.phrases import lookalikes

from ..scene import Block, Scene, Slot
from .shape import MIN_SECONDS, Need, Shape


@dataclass(frozen=True)
class Design:
    """Which of `classes` classes each candidate holds (`holds`: the positive first, then its hard negatives,
    one per excluded class), the present and excluded classes, and each class's place in the clip."""

    classes: int
    holds: tuple[tuple[int, ...], ...]
    present: tuple[int, ...]
    excluded: tuple[int, ...]
    places: tuple[int, ...]

    @property
    def hard(self) -> list[int]:
        return list(range(1, 1 + len(self.excluded)))


class Ring:
    """Windows of `window` classes on a circle of as many classes as candidates."""

    def __init__(self, window: int):
        self.window = window

    def __call__(self, candidates: int) -> Optional[Design]:
        """None where the positive, its hard negative and its mirror would not be three windows with no other
        window holding every present class."""
        if candidates < self.window + 2:
            return None
        # places: the least divisor of the circle's length not under the window, so no window puts two classes
        # in one place
        spread = next(p for p in range(self.window, candidates + 1) if candidates % p == 0)
        holds = tuple(tuple((k + t) % candidates for t in range(self.window)) for k in range(candidates))
        return Design(candidates, holds, tuple(range(1, self.window)), (self.window,),
                      tuple(i % spread for i in range(candidates)))


class Complements:
    """Every candidate leaves out two of n classes; one named present, two absent."""

    def __call__(self, candidates: int) -> Optional[Design]:
        """None where the candidates are no n(n-1)/2 of n >= 4 classes."""
        n = (1 + isqrt(1 + 8 * candidates)) // 2
        if n < 4 or n * (n - 1) // 2 != candidates:
            return None
        present, excluded, unnamed = 0, (1, 2), list(range(3, n))
        positive = tuple(i for i in range(n) if i not in excluded)
        hard = [tuple(sorted(set(positive) - {unnamed[j % len(unnamed)]} | {z})) for j, z in enumerate(excluded)]
        rest = [tuple(i for i in range(n) if i not in out) for out in combinations(range(n), 2)]
        holds = (positive, *hard, *(h for h in rest if h != positive and h not in hard))
        return Design(n, holds, (present,), excluded, tuple(range(n)))


def design_scenes(shape: Shape, design: Design, rooms: dict[int, float], draw, free_seconds,
                  gains: tuple[float, float], gaps: tuple[float, float], rng) -> Optional[tuple[list[Scene], dict[str, str]]]:
    """A group of the design: every candidate holding its classes at one length, beside the fillers all share.

    Args:
        shape: the query's shape (its roles name the present and excluded classes).
        design: which classes each candidate holds.
        rooms: blocks a clip may hold -> the room each block then gets, in increasing order of blocks.
        draw: `draw(need, exclude)`, a sound `need` admits of a class not in `exclude` (None when there is none).
        free_seconds: `free_seconds(sound, room)`, a filler's length.
        gains: the lowest and highest gain a sound is played at (dB).
        gaps: the shortest and longest gap between blocks (seconds).
        rng: the query's generator.

    Returns:
        The design's scenes, in `design.holds`' order, and the query's words (role -> label); None when the bank
        has too few classes or no number of blocks both holds the positive's classes and fits.
    """
    held = len(design.holds[0])
    counts = [n for n in rooms if n >= held]
    if not counts:
        return None
    blocks = counts[rng.integers(len(counts))]
    room = rooms[blocks]
    seconds = round(float(rng.uniform(max(MIN_SECONDS, 0.4 * room), room)), 3)

    def gain() -> float:
        return round(float(rng.uniform(*gains)), 1)

    sounds, taken, need = [], set(), Need(min_seconds=seconds)
    for _ in range(design.classes):     # every class at one length and of the first's kind: no candidate's
        sound = draw(need, frozenset(taken | lookalikes(taken)))  # timeline nor count of continuous sounds is its own
        if sound is None:
            return None
        sounds.append(sound)
        taken.add(sound.label)
        need = need.of_kind(sound.kind == "continuous")
    # which class the positive holds is not the draw order's: each draw leaves out the look-alikes of those
    # before it, so the first drawn are the classes with look-alikes ("most such classes" would find it)
    sounds = [sounds[i] for i in rng.permutation(len(sounds))]
    fillers = []
    for _ in range(blocks - held):
        sound = draw(Need(), frozenset(taken | lookalikes(taken)))
        if sound is None:
            return None
        fillers.append(Slot(f"f{len(fillers)}", sound.label, sound.source_id, free_seconds(sound, room), gain(),
                            sound.kind == "continuous"))
        taken.add(sound.label)
    slots = [Slot(f"p{place}", s.label, s.source_id, seconds, gain(), s.kind == "continuous")
             for s, place in zip(sounds, design.places)]
    order = sorted({slot.role for slot in slots}) + [slot.role for slot in fillers]
    order = [order[i] for i in rng.permutation(len(order))]
    gap, lead = round(float(rng.uniform(*gaps)), 3), float(rng.uniform())
    present, excluded = ([sounds[i].label for i in rng.permutation(list(labels))]        # either named first
                         for labels in (design.present, design.excluded))
    words = {**dict(zip(shape.relates, present)), **dict(zip(shape.absent_roles, excluded))}
    named = frozenset(words.values())
    scenes = []
    for holding in design.holds:
        kept = {slot.role: slot for slot in (*(slots[i] for i in holding), *fillers)}
        scenes.append(Scene(tuple(Block(kept[role]) for role in order if role in kept), gap, lead, named))
    return scenes, words
