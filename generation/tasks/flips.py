"""Minimal-pair flips and how they combine: a flip trades two places' sounds or puts an excluded sound in; a
member's closure makes every subset of its flips at once (`merged`), or, for flips that do not commute, their
orbit as a cycle (`alternating_cycle`)."""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ..scene import Scene, Slot


def fits(sound, slot: Slot) -> bool:
    """Can `sound` take `slot`'s place at exactly its length: looped or cropped, never stretched?"""
    return sound.kind == "continuous" or sound.seconds >= slot.seconds


def fits_where_moved(sound, slot: Slot, reach: Optional[dict[str, float]]) -> bool:
    """Does `sound` fit `slot`, and the longest place a flip may move the slot's sound to (`Shape.reach`)?"""
    return fits(sound, slot) and fits(sound, replace(slot, seconds=(reach or {}).get(slot.role, 0.0)))


def absent_flips(scene: Scene, rng, absent: dict, unmentioned: set[str], spare: frozenset[str] = frozenset(),
                 reach: Optional[dict[str, float]] = None) -> list[Scene]:
    """For each absent sound, one minimal pair: it takes the place of an unmentioned sound of its own kind
    (continuous or discrete: a discrete sound in a continuous one's place lets "the most continuous sounds" find
    the positive) that it fits (never
    of a named sound, wherever a trade has moved it, nor of another absent sound), a different place for
    each: the place of the sound it replaces in every member of the group (`Scene.replaces`), else a
    stand-in's (`spare`: where the named sounds sit), else any."""
    taken = scene.named | {sound.label for sound in absent.values()}
    fitting = {role: [slot.role for slot in scene.slots()
                      if slot.role in unmentioned and slot.label not in taken and fits_where_moved(sound, slot, reach)
                      and slot.continuous == (sound.kind == "continuous")]
               for role, sound in absent.items()}
    if not all(fitting.values()):
        return []
    chosen, used, replacing = {}, set(), dict(scene.replaces)
    for role in sorted(fitting, key=lambda r: len(fitting[r])):      # the sound that fits fewest places first
        free = [place for place in fitting[role] if place in spare and place not in used] or \
            [place for place in fitting[role] if place not in used] or fitting[role]
        agreed = [place for place in free if scene.slot(place).label == replacing.get(absent[role].label)]
        free = agreed or free
        chosen[role] = free[rng.integers(len(free))]
        used.add(chosen[role])
    return [scene.with_sound(chosen[role], sound) for role, sound in absent.items()]


def alternating_cycle(scene: Scene, first, second) -> list[Scene]:
    """The orbit of two flips that do not commute (swaps of neighbours, trades sharing a sound), as a cycle:
    `first`, `second`, `first`, ... from `scene`, six versions in all (the group the two generate)."""
    cycle = [scene]
    for step in range(5):
        cycle.append((first if step % 2 == 0 else second)(cycle[-1]))
    return cycle


def merged(scene: Scene, flips: list[Scene], put_in: dict) -> Optional[Scene]:
    """The flips' sound changes made at once, or None where they cannot be. A *trade* (slots exchanging their
    sounds: an order, overlap, duration or lasts flip) moves sounds between places; a *put-in* (an unmentioned
    sound replaced by an excluded one, `put_in`: label -> AtomicSound) follows the sound it replaces wherever
    the trades took it, and must fit there. So an excluded sound that can only take a stand-in's place still
    combines with the trade that moves the stand-in (made at the same place, the two would collide, and the member
    would be a star whose centre, the positive, a listwise ranker finds). Two
    trades of one slot, or two put-ins of one sound, cannot be made at once."""
    before = {slot.role: slot for slot in scene.slots()}
    placed, traded, replacing = dict(before), set(), {}
    for flip in flips:
        changed = {slot.role: slot for slot in flip.slots() if slot != before[slot.role]}
        if sorted(slot.label for slot in changed.values()) == sorted(before[role].label for role in changed):
            if traded & changed.keys():
                return None
            traded |= changed.keys()
            placed.update(changed)
            continue
        for role, slot in changed.items():
            if before[role].label in replacing:
                return None
            replacing[before[role].label] = slot
    for label, new in replacing.items():
        role = next(role for role, slot in placed.items() if slot.label == label)
        if not fits(put_in[new.label], placed[role]):
            return None
        placed[role] = replace(placed[role], label=new.label, source_id=new.source_id, continuous=new.continuous)
    return scene._map(lambda slot: placed[slot.role])


def keeps_places(scene: Scene, flip: Scene) -> bool:
    return [(b.host.role, b.inner and b.inner.role) for b in flip.blocks] == \
        [(b.host.role, b.inner and b.inner.role) for b in scene.blocks]
