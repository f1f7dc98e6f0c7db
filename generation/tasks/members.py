"""A group's members: how many versions each keeps (`member_sizes`), which versions a member that is a part
of its closure keeps (`part`), and whether the positive's member is that part (`positive_first`). Planned
groups (`group.py`) and natural ones (`generation/natural.py`) both use them: a version is named by the subset
of tested atoms it flips, the base by the empty one. Where the positive sits is dealt by `Quotas`."""
from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import lcm
from typing import Callable, Sequence

import numpy as np

LARGEST_DECK = 60       # strata of a deck whose odds need more (each outcome then within two of its odds a deck)

Pick = Callable[[Sequence[Fraction]], int]      # odds -> the outcome drawn


class Quotas:
    """Outcomes dealt to the queries of a split from shuffled decks, one deck per question (e.g. "is the
    positive on the part, for this shape?"): a deck holds each outcome as many times as its odds say, so every
    deck's worth of queries gets each outcome exactly as often as its odds, not only on average. Drawn afresh
    per query, a small split puts the positive on the part more or less often than its share, and a ranker that
    bets on the part (the listwise audit) gains or loses by it."""

    def __init__(self):
        self.decks: dict[tuple, list[float]] = defaultdict(list)

    def query(self, rng: np.random.Generator) -> "Dealer":
        """The dealer of one query, which shuffles a deck it finds empty with the query's own `rng` (planning
        stays sequential and seeded, whatever the number of workers)."""
        return Dealer(self, rng)

    def deal(self, key: tuple, odds: Sequence[Fraction], rng: np.random.Generator) -> int:
        """The next outcome of deck `key` (its index in `odds`)."""
        assert odds, "nothing to deal"
        deck = self.decks[key]
        if not deck:                       # strata of [0, 1) in random order, a uniform within each
            strata = min(lcm(*(p.denominator for p in odds)), LARGEST_DECK)
            deck.extend(((rng.permutation(strata) + rng.uniform(size=strata)) / strata).tolist())
        outcome = np.searchsorted(np.cumsum([float(p) for p in odds]), deck.pop(), side="right")
        return int(min(outcome, len(odds) - 1))          # the odds' float sum may fall short of 1


class Dealer:
    """One query's outcomes from its split's decks, each question dealt once: every attempt at the query's
    group asks again and gets the same outcome (a failed attempt spending a card would deal the outcomes that
    fail least more often)."""

    def __init__(self, quotas: Quotas, rng: np.random.Generator):
        self.quotas, self.rng, self.dealt = quotas, rng, {}

    def pick(self, key: tuple, odds: Sequence[Fraction]) -> int:
        key = (key, tuple(odds))               # a deck per question and odds (a shape's variants may differ)
        if key not in self.dealt:
            self.dealt[key] = self.quotas.deal(key, odds, self.rng)
        return self.dealt[key]

    def asking(self, *key) -> Pick:
        """`pick` for one question."""
        return lambda odds: self.pick(key, odds)


def member_sizes(closure_size: int, candidates: int) -> list[int]:
    """Whole closures, then a part of one more with what is left (a lone version is no member: it is dropped)."""
    full, left = divmod(candidates, closure_size)
    return [closure_size] * full + ([left] if left > 1 else [])


def subsets(flips: int) -> list[tuple[int, ...]]:
    """The versions of a closure of `flips` tested atoms, each named by the flips it combines: the base first, then
    by size. The one definition of a closure: `Shape.closure` makes a planned member's scenes in this order, and a
    natural member's versions are these over its tested atoms."""
    return [c for count in range(flips + 1) for c in combinations(range(flips), count)]


Part = tuple[tuple[int, ...], ...]         # a part's versions, each named by the subset of tested atoms it flips


@lru_cache(maxsize=None)
def parts(flips: int, size: int, holding_base: bool = False) -> tuple[tuple[Part, Fraction], ...]:
    """Every connected part of `size` versions of a closure, with its odds: a version drawn, then versions one
    flip from those kept, drawn one at a time (always the base and its flips, the sounds the base holds would be the
    group's most frequent, which a listwise ranker finds). `holding_base` (the positive's member): the
    part moved (every version flipped by one of its own, drawn) so that the base is that one: the positive is
    then anywhere on the part, as any version is. Each part's versions by size, the base first."""
    versions = subsets(flips)
    grown = {frozenset([v]): Fraction(1, len(versions)) for v in versions}
    for _ in range(size - 1):
        grows: dict[frozenset, Fraction] = defaultdict(Fraction)
        for kept, odds in grown.items():
            around = {tuple(sorted(set(s) ^ {i})) for s in kept for i in range(flips)} - kept
            for version in around:
                grows[kept | {version}] += odds / len(around)
        grown = grows
    ordered: dict[Part, Fraction] = defaultdict(Fraction)
    for kept, odds in grown.items():
        moves = sorted(kept) if holding_base else [()]
        for moved in moves:
            moved_part = tuple(sorted((tuple(sorted(set(s) ^ set(moved))) for s in kept), key=lambda v: (len(v), v)))
            ordered[moved_part] += odds / len(moves)
    return tuple(sorted(ordered.items()))


def part(flips: int, size: int, pick: Pick, holding_base: bool = False) -> Part:
    """One of `parts`, as `pick` deals it."""
    drawn = parts(flips, size, holding_base)
    return drawn[pick([odds for _, odds in drawn])][0]


def positive_first(sizes: list[int], candidates: int, pick: Pick) -> list[int]:
    """The members' sizes with the positive's first: the part (the last size) as often as its share of the
    candidates (never there, a reader of the group's structure would pick 1 in 8 instead of 1 in 10)."""
    left = sizes[-1] if len(sizes) > 1 and sizes[-1] != sizes[0] else 0
    if left and pick([1 - Fraction(left, candidates), Fraction(left, candidates)]):
        return sizes[-1:] + sizes[:-1]
    return sizes

