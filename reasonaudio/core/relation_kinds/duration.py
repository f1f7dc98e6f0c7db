"""How long a sound lasts: longer(X, Y), short(X), long(X) and lasts(X, N)."""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

from .base import SECONDS, Event, Relation, Relevance, at_least, clear, every, exact, length, logistic, ms, of_events

LONGER_RATIO = 2.0       # longer(X, Y): dur X >= 2 x dur Y; dur X <= dur Y is a clear "no"
SHORT_SECONDS = 1.5      # short(X): dur <= 1.5 s
LONG_SECONDS = 4.0       # long(X): dur >= 4 s
LASTS_YES = (0.25, 0.1)  # lasts(X, N): yes when |dur X - N| <= max(0.25 s, 0.1 N) ...
LASTS_NO = (1.0, 0.4)    # ... no when |dur X - N| >= max(1 s, 0.4 N); ambiguous between
SHORT_MS, LONG_MS = ms(SHORT_SECONDS), ms(LONG_SECONDS)
LONGER = exact(LONGER_RATIO)


def _longer(x: Event, y: Event, slack: int = 0) -> Relevance:
    return clear(at_least(length(x) - 2 * slack, LONGER, length(y) + 2 * slack),
                 length(x) + 2 * slack <= length(y) - 2 * slack)


def _short(x: Event, slack: int = 0) -> Relevance:
    return clear(length(x) + 2 * slack <= SHORT_MS, length(x) - 2 * slack >= LONG_MS)


def _long(x: Event, slack: int = 0) -> Relevance:
    return clear(length(x) - 2 * slack >= LONG_MS, length(x) + 2 * slack <= SHORT_MS)


@lru_cache(maxsize=None)
def _lasts_margins(seconds: str) -> tuple:
    """N as written ("5", "2.5") in milliseconds, and its yes and no margins, as exact rationals (integers where
    they are whole): worked out once per N (making them on every call was a third of a natural build's planning)."""
    target = Fraction(seconds) * 1000
    margins = (target, max(exact(LASTS_YES[0]) * 1000, exact(LASTS_YES[1]) * target),
               max(exact(LASTS_NO[0]) * 1000, exact(LASTS_NO[1]) * target))
    return tuple(int(m) if m.denominator == 1 else m for m in margins)


def _lasts(x: Event, seconds: str, slack: int = 0) -> Relevance:
    target, yes, no = _lasts_margins(seconds)
    error = abs(length(x) - target)
    return clear(error + 2 * slack <= yes, error - 2 * slack >= no)


@of_events
def _longer_confidence(x: Event, y: Event) -> float:
    """Yes: twice as long; no: not longer."""
    ratio = math.log(max(x.seconds, 1e-3) / max(y.seconds, 1e-3))
    return logistic(ratio - math.log(LONGER_RATIO) / 2, math.log(LONGER_RATIO) / 4)


def _lengthy(sign: int):
    """A detector's confidence in long (sign 1) or short (-1): how far past the middle of the two margins."""
    @of_events
    def confidence(x: Event) -> float:
        return logistic(sign * (x.seconds - (LONG_SECONDS + SHORT_SECONDS) / 2), (LONG_SECONDS - SHORT_SECONDS) / 4)
    return confidence


@of_events
def _lasts_confidence(x: Event, seconds: str) -> float:
    target = float(seconds)
    yes = max(LASTS_YES[0], LASTS_YES[1] * target)
    no = max(LASTS_NO[0], LASTS_NO[1] * target)
    return logistic((yes + no) / 2 - abs(x.seconds - target), (no - yes) / 4)


LONGER_THAN = Relation("longer", labels=2, number=None, requires_presence=True, truth=_longer, combine=every,
                       confidence=_longer_confidence, fails_as="duration")
SHORT = Relation("short", labels=1, number=None, requires_presence=True, truth=_short, combine=every,
                 confidence=_lengthy(-1), opposite="long", fails_as="duration")
LONG = Relation("long", labels=1, number=None, requires_presence=True, truth=_long, combine=every,
                confidence=_lengthy(1), opposite="short", fails_as="duration")
LASTS = Relation("lasts", labels=1, number=SECONDS, requires_presence=True, truth=_lasts, combine=every,
                 confidence=_lasts_confidence, fails_as="duration")
