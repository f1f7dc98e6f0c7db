"""A group's members: how many versions each keeps (`member_sizes`), and which versions a member that is a part
of its closure keeps (`part`). Planned groups (`group.py`) and natural ones (`generation/natural.py`) both use
them: a version is named by the subset of tested atoms it flips, the base by the empty one."""
from __future__ import annotations

from itertools import combinations


def member_sizes(closure_size: int, candidates: int) -> list[int]:
    """Whole closures, then a part of one more with what is left (a lone version is no member: it is dropped)."""
    full, left = divmod(candidates, closure_size)
    return [closure_size] * full + ([left] if left > 1 else [])


def subsets(flips: int) -> list[tuple[int, ...]]:
    """The versions of a closure of `flips` tested atoms, the base first, by size (as `Shape.closure` makes them)."""
    return [c for count in range(flips + 1) for c in combinations(range(flips), count)]


def part(flips: int, size: int, rng, holding_base: bool = False) -> list[tuple[int, ...]]:
    """A connected part of `size` versions of a closure: a version drawn, then versions one flip from those kept,
    drawn one at a time (always the base and its flips, the sounds the base holds were the group's most
    frequent: 18-25 % listwise on present-two-absent). `holding_base` (the positive's member): the part moved
    (every version flipped by one of its own, drawn) so that the base is that one, first: the positive is then
    anywhere on the part, as any version is."""
    versions = subsets(flips)
    kept = [versions[rng.integers(len(versions))]]
    while len(kept) < size:
        around = sorted({tuple(sorted(set(s) ^ {i})) for s in kept for i in range(flips)} - set(kept))
        kept.append(around[rng.integers(len(around))])
    if holding_base:
        moved = kept[rng.integers(len(kept))]
        kept = sorted((tuple(sorted(set(s) ^ set(moved))) for s in kept), key=len)
    return kept


def positive_first(sizes: list[int], candidates: int, rng) -> list[int]:
    """The members' sizes with the positive's first: the part (the last size) as often as its share of the
    candidates (never there, a reader of the group's structure found 1 in 8 instead of 1 in 10)."""
    left = sizes[-1] if len(sizes) > 1 and sizes[-1] != sizes[0] else 0
    return sizes[-1:] + sizes[:-1] if left and rng.uniform() < left / candidates else sizes
