"""present(X) and absent(X): whether a class sounds at all."""
from __future__ import annotations

from typing import Sequence

from .base import Event, Heard, Relation, Relevance, clear


def _present(x: Sequence[Event], slack: int = 0) -> Relevance:
    return clear(bool(x), not x)


def _absent(x: Sequence[Event], slack: int = 0) -> Relevance:
    return clear(not x, bool(x))


def _sounds(heard: Sequence[Heard], numbers: Sequence[str]) -> float:
    """A detector's confidence that a class sounds: its peak probability."""
    return heard[0].peak


def _silent(heard: Sequence[Heard], numbers: Sequence[str]) -> float:
    return 1 - heard[0].peak


PRESENT = Relation("present", labels=1, number=None, requires_presence=True, truth=_present, combine=None,
                   confidence=_sounds, opposite="absent", fails_as="missing")
ABSENT = Relation("absent", labels=1, number=None, requires_presence=False, truth=_absent, combine=None,
                  confidence=_silent, opposite="present", fails_as="negation")
