"""Negation groups as a ring of windows: no statistic of the group tells the positive, not even one that knows
which sounds the query names but not which it excludes.

A group of members (a base and its flip putting the excluded sound in) gave the excluded sound to every
member's flip: five candidates held it, two the wanted one, and "the candidate holding the named sound fewest
candidates hold" found every positive of present-absent (tie 20 %). The ring has no such member: `candidates`
classes c0, c1, ... stand in a circle, and candidate k holds the window c_k .. c_{k+w-1} (w = `Shape.ring`),
each class always at the same place of the clip (its place: index mod p, p the least divisor of the ring's
length not under w; a window's other places are left out) and all of them at one length, beside unmentioned
fillers every candidate shares. The query names the window's last w-1 classes present and the next class
absent: the positive is window 0, its hard negative window 1 (the excluded class put in, its first class
left out). Every class is then held by w candidates, every window is one edit from its two neighbours, and
the mirror of the circle through the present class next to the excluded one trades the two and maps the
positive on window 2: a rule blind to which named sound is excluded ties the positive with it.
"""
from __future__ import annotations

from typing import Optional

from ..phrases import lookalikes
from ..scene import Block, Scene, Slot
from .shape import MIN_SECONDS, Need, Shape


def places(length: int, window: int) -> int:
    """How many places a ring of `length` classes spreads them over: the least divisor of `length` that is
    at least `window`, so that every class keeps one place and no window puts two classes in one."""
    return next(p for p in range(window, length + 1) if length % p == 0)


def fits(shape: Shape, candidates: int) -> bool:
    """Is the ring this shape's construction for groups of `candidates`? The positive's window, its hard
    negative and the positive's mirror must be three different windows, and no other window may hold every
    present class."""
    return bool(shape.ring) and candidates >= shape.ring + 2


def ring_scenes(shape: Shape, candidates: int, events: tuple[int, int], room_for, draw, free_seconds,
                gains: tuple[float, float], gaps: tuple[float, float], rng) -> Optional[tuple[list[Scene], dict[str, str]]]:
    """The ring's scenes, the positive's first and its hard negative second, and the query's words (role ->
    label); None when the bank has too few classes. `room_for(n)`: the room a block gets when a clip holds n
    blocks (None when they do not fit); `draw(need, exclude)`: a sound of a class not excluded;
    `free_seconds(sound, room)`: a filler's length."""
    window = shape.ring
    counts = [n for n in range(max(events[0], window), events[1] + 1) if room_for(n) is not None]
    if not counts:
        return None
    blocks = counts[rng.integers(len(counts))]
    room = room_for(blocks)
    seconds = round(float(rng.uniform(max(MIN_SECONDS, 0.4 * room), room)), 3)
    def gain() -> float:
        return round(float(rng.uniform(*gains)), 1)

    ring, taken, need = [], set(), Need(min_seconds=seconds)
    for _ in range(candidates):     # every class at one length and of the first's kind: no window's timeline
        sound = draw(need, frozenset(taken | lookalikes(taken)))      # nor count of continuous sounds is its own
        if sound is None:
            return None
        ring.append(sound)
        taken.add(sound.label)
        need = need.of_kind(sound.kind == "continuous")
    fillers = []
    for _ in range(blocks - window):
        sound = draw(Need(), frozenset(taken | lookalikes(taken)))
        if sound is None:
            return None
        fillers.append(Slot(f"f{len(fillers)}", sound.label, sound.source_id, free_seconds(sound, room), gain(),
                            sound.kind == "continuous"))
        taken.add(sound.label)
    spread = places(candidates, window)
    slots = [Slot(f"p{i % spread}", s.label, s.source_id, seconds, gain(), s.kind == "continuous") for i, s in enumerate(ring)]
    order = [f"p{i}" for i in range(spread)] + [slot.role for slot in fillers]
    order = [order[i] for i in rng.permutation(len(order))]
    gap, lead = round(float(rng.uniform(*gaps)), 3), float(rng.uniform())
    present = [ring[i].label for i in range(1, window)]
    if len(present) > 1 and rng.uniform() < 0.5:      # which present class is next to the excluded one: either
        present.reverse()
    words = {**dict(zip(shape.relates, present)), "z": ring[window].label}
    named = frozenset(words.values())
    scenes = []
    for k in range(candidates):
        held = {slot.role: slot for slot in (slots[(k + t) % candidates] for t in range(window))} | \
            {slot.role: slot for slot in fillers}
        scenes.append(Scene(tuple(Block(held[role]) for role in order if role in held), gap, lead, named))
    return scenes, words
