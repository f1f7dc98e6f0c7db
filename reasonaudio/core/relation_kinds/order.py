"""When two sounds are heard: before(X, Y), overlap(X, Y) and its mirror apart(X, Y). One module, as each reads
the others' margins: before is a clear no where the two overlap, overlap a clear no where they are an order's gap
apart."""
from __future__ import annotations

from .base import (NO, YES, Event, Relation, Relevance, at_least, clear, every, exact, length, logistic, mirrored, ms,
                   of_events, some)

ORDER_GAP = 0.5          # before(X, Y): X.offset + 0.5 s <= Y.onset
OVERLAP_FRACTION = 0.5   # overlap: shared >= 0.5 x the shorter event ...
OVERLAP_SECONDS = 0.5    # ... and >= 0.5 s; disjoint by >= ORDER_GAP is a clear "no"
ORDER_GAP_MS, OVERLAP_MS = ms(ORDER_GAP), ms(OVERLAP_SECONDS)
OVERLAP_RATIO = exact(OVERLAP_FRACTION)


def _shared(x: Event, y: Event) -> int:
    """Milliseconds both sound (negative: the gap between them)."""
    return min(x.span_ms[1], y.span_ms[1]) - max(x.span_ms[0], y.span_ms[0])


def _before(x: Event, y: Event, slack: int = 0) -> Relevance:
    if _overlap(x, y, slack) is YES:
        return NO
    margin = ORDER_GAP_MS + 2 * slack
    (x_on, x_off), (y_on, y_off) = x.span_ms, y.span_ms
    return clear(x_off + margin <= y_on, y_off + margin <= x_on)


def _overlap(x: Event, y: Event, slack: int = 0) -> Relevance:
    shared = _shared(x, y) - 2 * slack
    enough = at_least(shared, OVERLAP_RATIO, min(length(x), length(y)) + 2 * slack) and shared >= OVERLAP_MS
    return clear(enough, -_shared(x, y) >= ORDER_GAP_MS + 2 * slack)


def _apart(x: Event, y: Event, slack: int = 0) -> Relevance:
    """Overlap's mirror: its clear no (disjoint by >= 0.5 s) is a yes, its yes a no."""
    return mirrored(_overlap(x, y, slack))


@of_events
def _before_confidence(x: Event, y: Event) -> float:
    """Yes: x ends ORDER_GAP before y starts."""
    return logistic(y.onset - x.offset - ORDER_GAP / 2, ORDER_GAP / 2)


def _together(x: Event, y: Event) -> float:
    """Overlap's yes: shared >= OVERLAP_FRACTION of the shorter and >= OVERLAP_SECONDS."""
    shared = min(x.offset, y.offset) - max(x.onset, y.onset)
    needed = max(OVERLAP_FRACTION * min(x.seconds, y.seconds), OVERLAP_SECONDS)
    return logistic(shared - needed / 2, OVERLAP_SECONDS / 2)


# How verdicts over every combination of occurrences make one (a class may occur several times in a natural
# recording): overlap holds when some X and some Y sound together, the others when every combination says so,
# and are a clear no when every one says no. So `apart` ("X and Y at different times") is yes when every X and
# Y are disjoint by >= 0.5 s and no when every X and Y sound together; a recording where one X overlaps Y and
# another is apart is true of "an X at a separate time from a Y" and false of "never together": ambiguous (as
# its no, a stand-in's "a whistle and, at a separate time, a crackle" was read true of a recording with a
# second whistle clear of the crackle).
BEFORE = Relation("before", labels=2, number=None, requires_presence=True, truth=_before, combine=every,
                  confidence=_before_confidence, fails_as="order")
OVERLAP = Relation("overlap", labels=2, number=None, requires_presence=True, truth=_overlap, combine=some,
                   confidence=of_events(_together), opposite="apart", fails_as="overlap")
APART = Relation("apart", labels=2, number=None, requires_presence=True, truth=_apart, combine=every,
                 confidence=of_events(lambda x, y: 1 - _together(x, y)), opposite="overlap", fails_as="overlap")
