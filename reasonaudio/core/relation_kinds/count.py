"""How often a sound is heard: times(X, N), more_often(X, Y), as_often(X, Y) and its mirror differs_often(X, Y),
each over every occurrence of its classes at once (`count_range`)."""
from __future__ import annotations

from typing import Callable, Sequence

from .base import COUNT, Confidence, Event, Relation, Relevance, clear, logistic, mirrored, ms, of_events

COUNT_APART = 1.0        # times(X, N): two occurrences of X are two when >= 1 s of silence of X parts them ...
COUNT_JOINED = 0.4       # ... and one when under 0.4 s does, as inside one sound of the bank (its pauses are shorter)
COUNT_APART_MS, COUNT_JOINED_MS = ms(COUNT_APART), ms(COUNT_JOINED)


def count_range(events: Sequence[Event], slack: int = 0) -> tuple[int, int]:
    """How many occurrences of one class `events` hold, at fewest and at most: events parted by a pause of at
    least COUNT_APART (less 2 x `slack`, an annotation's tolerance) are separate occurrences, events closer than
    COUNT_JOINED (or overlapping) one, a pause between may be heard either way.

    Args:
        events: the events of one class in a clip.
        slack: milliseconds an annotated boundary may be off.

    Returns:
        (fewest, most); (0, 0) without events.
    """
    if not events:
        return 0, 0
    spans = sorted(event.span_ms for event in events)
    fewest = most = 1
    until = spans[0][1]
    for onset, offset in spans[1:]:
        pause = onset - until
        fewest += pause - 2 * slack >= COUNT_APART_MS
        most += pause + 2 * slack >= COUNT_JOINED_MS
        until = max(until, offset)
    return fewest, most


def _times(x: Sequence[Event], count: str, slack: int = 0) -> Relevance:
    fewest, most = count_range(x, slack)
    return clear(fewest == most == int(count), not fewest <= int(count) <= most)


def _more_often(x: Sequence[Event], y: Sequence[Event], slack: int = 0) -> Relevance:
    (x_fewest, x_most), (y_fewest, y_most) = count_range(x, slack), count_range(y, slack)
    return clear(x_fewest > y_most, x_most <= y_fewest)


def _as_often(x: Sequence[Event], y: Sequence[Event], slack: int = 0) -> Relevance:
    (x_fewest, x_most), (y_fewest, y_most) = count_range(x, slack), count_range(y, slack)
    return clear(x_fewest == x_most == y_fewest == y_most, x_most < y_fewest or y_most < x_fewest)


def _differs_often(x: Sequence[Event], y: Sequence[Event], slack: int = 0) -> Relevance:
    """`as_often`'s mirror ("X and Y heard a different number of times"): its clear no is a yes, its yes a no."""
    return mirrored(_as_often(x, y, slack))


def of_counts(margin: Callable[..., float]) -> Confidence:
    """A counting relation's confidence (`Relation.confidence`): yes where the detected counts say so by one.

    Args:
        margin: how far past the relation's yes the counts are, over each named class's detected count (midway
            between its fewest and most) and the relation's numbers.

    Returns:
        The relation's confidence (`of_events`).
    """
    return of_events(lambda *counts: logistic(margin(*counts), 0.25), read=lambda h: sum(count_range(h.events)) / 2)


TIMES = Relation("times", labels=1, number=COUNT, requires_presence=True, truth=_times, combine=None, counts=True,
                 confidence=of_counts(lambda x, count: 0.5 - abs(x - int(count))), fails_as="count")
MORE_OFTEN = Relation("more_often", labels=2, number=None, requires_presence=True, truth=_more_often, combine=None,
                      counts=True, confidence=of_counts(lambda x, y: x - y - 0.5), fails_as="count")
AS_OFTEN = Relation("as_often", labels=2, number=None, requires_presence=True, truth=_as_often, combine=None,
                    counts=True, confidence=of_counts(lambda x, y: 0.5 - abs(x - y)), fails_as="count")
DIFFERS_OFTEN = Relation("differs_often", labels=2, number=None, requires_presence=True, truth=_differs_often,
                         combine=None, counts=True, confidence=of_counts(lambda x, y: abs(x - y) - 0.5),
                         fails_as="count")
