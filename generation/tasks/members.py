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


def part(flips: int, size: int, rng) -> list[tuple[int, ...]]:
    """A connected part of `size` versions of a closure: a version drawn, then versions one flip from those kept,
    drawn one at a time (always the base and its flips, the sounds the base holds were the group's most
    frequent: 18-25 % listwise on present-two-absent)."""
    versions = subsets(flips)
    kept = [versions[rng.integers(len(versions))]]
    while len(kept) < size:
        around = sorted({tuple(sorted(set(s) ^ {i})) for s in kept for i in range(flips)} - set(kept))
        kept.append(around[rng.integers(len(around))])
    return kept
