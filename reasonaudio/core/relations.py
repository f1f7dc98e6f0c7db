"""The relations of DESIGN §4 and the single relevance function.

Everything that decides whether a clip answers a query calls `relevant` here (or `judged`, the same function
over a clip's events already grouped by class): the planner (to verify each positive and negative), the writer
(corpus qrels), the validator and the oracle baseline.
Relations are three-valued so that pairs between the margins are `AMBIGUOUS`, never guessed.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from itertools import product
from typing import Iterable, Iterator, Mapping, Sequence

ORDER_GAP = 0.5          # before(X, Y): X.offset + 0.5 s <= Y.onset
OVERLAP_FRACTION = 0.5   # overlap: shared >= 0.5 x the shorter event ...
OVERLAP_SECONDS = 0.5    # ... and >= 0.5 s; disjoint by >= 0.5 s is a clear "no"
LONGER_RATIO = 2.0       # longer(X, Y): dur X >= 2 x dur Y; dur X <= dur Y is a clear "no"
SHORT_SECONDS = 1.5      # short(X): dur <= 1.5 s
LONG_SECONDS = 4.0       # long(X): dur >= 4 s
LASTS_YES = (0.25, 0.1)  # lasts(X, N): yes when |dur X - N| <= max(0.25 s, 0.1 N) ...
LASTS_NO = (1.0, 0.4)    # ... no when |dur X - N| >= max(1 s, 0.4 N); ambiguous between
COUNT_APART = 1.0        # times(X, N): two occurrences of X are two when >= 1 s of silence of X parts them ...
COUNT_JOINED = 0.4       # ... and one when under 0.4 s does, as inside one sound of the bank (its pauses are shorter)
MAX_TOLERANCE = 1.0      # the largest annotation tolerance an atom may carry (seconds)
# Why counting is left out of natural builds (said by the generator's refusal and by a natural split's card).
WHY_NATURAL_BUILDS_DO_NOT_COUNT = (
    "their annotations do not say whether a sound's repeats are occurrences a listener counts apart (one annotated "
    "event may hold several barks, and same-class events parted by a short gap are merged into one)")


class Relevance(enum.Enum):
    NO = 0
    YES = 1
    AMBIGUOUS = -1


YES, NO, AMBIGUOUS = Relevance.YES, Relevance.NO, Relevance.AMBIGUOUS


@dataclass(frozen=True)
class Event:
    """One sound event of a clip timeline (times in seconds)."""

    label: str
    source_id: str
    onset: float
    offset: float
    gain_db: float

    @property
    def seconds(self) -> float:
        return self.offset - self.onset

    @cached_property
    def span_ms(self) -> tuple[int, int]:
        """Onset and offset in integer milliseconds (`_ms`), worked out once: planning a natural split compares
        them some 25 million times."""
        return _ms(self.onset), _ms(self.offset)

    def to_dict(self) -> dict:
        return {"label": self.label, "source_id": self.source_id, "onset": self.onset,
                "offset": self.offset, "gain_db": self.gain_db}


@dataclass(frozen=True)
class Atom:
    """One relation of a query, e.g. Atom("before", ("dog", "car_horn")) or Atom("lasts", ("rain", "5")):
    class labels, then the relation's number (seconds, written as text) where it takes one."""

    relation: str
    args: tuple[str, ...]
    tolerance: float = 0.0   # seconds an annotated boundary may be off (natural builds); margins widen by it

    @property
    def labels(self) -> tuple[str, ...]:
        """The sound classes the atom names (a number such as lasts' seconds is not one)."""
        return self.args[:RELATION_ARITY.get(self.relation, len(self.args))]

    def to_dict(self) -> dict:
        data = {"relation": self.relation, "args": list(self.args)}
        return {**data, "tolerance": self.tolerance} if self.tolerance else data

    @classmethod
    def from_dict(cls, data: Mapping) -> "Atom":
        if data.get("relation") not in RELATIONS:
            raise ValueError(f"unknown relation {data.get('relation')!r}; known: {sorted(RELATIONS)}")
        relation, args = data["relation"], data.get("args")
        if not isinstance(args, (list, tuple)) or not all(isinstance(a, str) for a in args):
            raise ValueError(f"atom arguments must be a list of strings, got {args!r}")
        labels = RELATION_ARITY.get(relation, SIGNATURE_LABELS[relation])
        if len(args) != SIGNATURE_LABELS[relation] or any(not _number(relation, a) for a in args[labels:]):
            number = " and a whole count from 1" if relation == "times" else " and a number of seconds"
            raise ValueError(f"{relation} takes {labels} class label(s)"
                             + (number if labels < SIGNATURE_LABELS[relation] else "")
                             + f", got {list(args)}")
        tolerance = data.get("tolerance", 0.0)
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance <= MAX_TOLERANCE:
            raise ValueError(f"an atom's tolerance is seconds from 0 to {MAX_TOLERANCE}, got {tolerance!r}")
        return cls(relation, tuple(args), float(tolerance))


def _clear(condition_yes: bool, condition_no: bool) -> Relevance:
    return YES if condition_yes else NO if condition_no else AMBIGUOUS


def _ms(seconds: float) -> int:
    """A time in integer milliseconds, the resolution events are planned and published at: every margin is
    then compared exactly (a `longer` at exactly 2x, equal lengths, a `lasts` on its bound mean what the
    margins say, not what floating-point rounding makes of them)."""
    return round(seconds * 1000)


def _length(x: Event) -> int:
    return x.span_ms[1] - x.span_ms[0]


def _exact(value: float) -> Fraction:
    """A margin as the decimal it is written as (0.1 is 1/10, not the nearest double)."""
    return Fraction(str(value))


ORDER_GAP_MS, OVERLAP_MS = _ms(ORDER_GAP), _ms(OVERLAP_SECONDS)
COUNT_APART_MS, COUNT_JOINED_MS = _ms(COUNT_APART), _ms(COUNT_JOINED)
SHORT_MS, LONG_MS = _ms(SHORT_SECONDS), _ms(LONG_SECONDS)
OVERLAP_RATIO, LONGER = _exact(OVERLAP_FRACTION), _exact(LONGER_RATIO)


def _at_least(value: int, ratio: Fraction, of: int) -> bool:
    """value >= ratio x of, in integers."""
    return value * ratio.denominator >= ratio.numerator * of


# Each relation over one occurrence of each argument. `slack`: the milliseconds an annotated boundary may be
# off (an atom's tolerance). A time compared across two boundaries, or a length, may then be off by twice
# that, so every margin widens by 2 x slack: a yes or a no holds wherever the true boundaries lie. Planned
# clips have slack 0.

def _before(x: Event, y: Event, slack: int = 0) -> Relevance:
    if _overlap(x, y, slack) is YES:
        return NO
    margin = ORDER_GAP_MS + 2 * slack
    (x_on, x_off), (y_on, y_off) = x.span_ms, y.span_ms
    return _clear(x_off + margin <= y_on, y_off + margin <= x_on)


def _shared(x: Event, y: Event) -> int:
    """Milliseconds both sound (negative: the gap between them)."""
    return min(x.span_ms[1], y.span_ms[1]) - max(x.span_ms[0], y.span_ms[0])


def _overlap(x: Event, y: Event, slack: int = 0) -> Relevance:
    shared = _shared(x, y) - 2 * slack
    enough = _at_least(shared, OVERLAP_RATIO, min(_length(x), _length(y)) + 2 * slack) and shared >= OVERLAP_MS
    return _clear(enough, -_shared(x, y) >= ORDER_GAP_MS + 2 * slack)


def _apart(x: Event, y: Event, slack: int = 0) -> Relevance:
    """Overlap's mirror: its clear no (disjoint by >= 0.5 s) is a yes, its yes a no."""
    return {YES: NO, NO: YES}.get(_overlap(x, y, slack), AMBIGUOUS)


def _longer(x: Event, y: Event, slack: int = 0) -> Relevance:
    return _clear(_at_least(_length(x) - 2 * slack, LONGER, _length(y) + 2 * slack),
                  _length(x) + 2 * slack <= _length(y) - 2 * slack)


def _short(x: Event, slack: int = 0) -> Relevance:
    return _clear(_length(x) + 2 * slack <= SHORT_MS, _length(x) - 2 * slack >= LONG_MS)


def _long(x: Event, slack: int = 0) -> Relevance:
    return _clear(_length(x) - 2 * slack >= LONG_MS, _length(x) + 2 * slack <= SHORT_MS)


@lru_cache(maxsize=None)
def _lasts_margins(seconds: str) -> tuple:
    """N as written ("5", "2.5") in milliseconds, and its yes and no margins, as exact rationals (integers where
    they are whole): worked out once per N (making them on every call was a third of a natural build's planning)."""
    target = Fraction(seconds) * 1000
    margins = (target, max(_exact(LASTS_YES[0]) * 1000, _exact(LASTS_YES[1]) * target),
               max(_exact(LASTS_NO[0]) * 1000, _exact(LASTS_NO[1]) * target))
    return tuple(int(m) if m.denominator == 1 else m for m in margins)


def _lasts(x: Event, seconds: str, slack: int = 0) -> Relevance:
    target, yes, no = _lasts_margins(seconds)
    error = abs(_length(x) - target)
    return _clear(error + 2 * slack <= yes, error - 2 * slack >= no)


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
    return _clear(fewest == most == int(count), not fewest <= int(count) <= most)


def _more_often(x: Sequence[Event], y: Sequence[Event], slack: int = 0) -> Relevance:
    (x_fewest, x_most), (y_fewest, y_most) = count_range(x, slack), count_range(y, slack)
    return _clear(x_fewest > y_most, x_most <= y_fewest)


def _as_often(x: Sequence[Event], y: Sequence[Event], slack: int = 0) -> Relevance:
    (x_fewest, x_most), (y_fewest, y_most) = count_range(x, slack), count_range(y, slack)
    return _clear(x_fewest == x_most == y_fewest == y_most, x_most < y_fewest or y_most < x_fewest)


def _differs_often(x: Sequence[Event], y: Sequence[Event], slack: int = 0) -> Relevance:
    """`as_often`'s mirror ("X and Y heard a different number of times"): its clear no is a yes, its yes a no."""
    return {YES: NO, NO: YES}.get(_as_often(x, y, slack), AMBIGUOUS)


def _every(verdicts: list[Relevance]) -> Relevance:
    """Yes when every combination of occurrences says yes, no when every one says no, else ambiguous."""
    return _clear(all(v is YES for v in verdicts), all(v is NO for v in verdicts))


def _some(verdicts: list[Relevance]) -> Relevance:
    """Yes when some combination of occurrences says yes, no when every one says no, else ambiguous."""
    return _clear(any(v is YES for v in verdicts), all(v is NO for v in verdicts))


# How a relation's verdicts over every combination of its arguments' occurrences make one (a class may occur
# several times in a natural recording): overlap holds when some X and some Y sound together, the others
# when every combination says so, and are a clear no when every one says no. So `apart` ("X and Y at
# different times") is yes when every X and Y are disjoint by >= 0.5 s and no when every X and Y sound
# together; a recording where one X overlaps Y and another is apart is true of "an X at a separate time from
# a Y" and false of "never together": ambiguous (as its no, a stand-in's "a whistle and, at a separate time,
# a crackle" was read true of a recording with a second whistle clear of the crackle).
PAIRWISE = {"before": (_before, _every), "overlap": (_overlap, _some), "apart": (_apart, _every),
            "longer": (_longer, _every), "short": (_short, _every), "long": (_long, _every), "lasts": (_lasts, _every)}
# Relations over all of a class's occurrences at once: how often it is heard (`count_range`).
COUNTED = {"times": _times, "more_often": _more_often, "as_often": _as_often, "differs_often": _differs_often}
RELATIONS = frozenset(PAIRWISE) | frozenset(COUNTED) | {"present", "absent"}
RELATION_ARITY = {"lasts": 1, "times": 1}   # labels an atom names before its number; the rest name labels only
SIGNATURE_LABELS = {"present": 1, "absent": 1, "before": 2, "overlap": 2, "apart": 2, "longer": 2, "short": 1, "long": 1,
                    "lasts": 2, "times": 2, "more_often": 2, "as_often": 2, "differs_often": 2}   # arguments each takes


def _seconds(text: str) -> bool:
    try:
        return 0 < float(text) < float("inf")
    except ValueError:
        return False


def _number(relation: str, text: str) -> bool:
    """Is `text` a number the relation takes: seconds (lasts), or a whole count from 1 (times)?"""
    return text.isdigit() and int(text) >= 1 if relation == "times" else _seconds(text)


# Relations that hold only if every argument sounds: a clip lacking one of these labels is a clear "no".
REQUIRES_PRESENCE = {"present", "before", "overlap", "apart", "longer", "short", "long", "lasts", "times",
                     "more_often", "as_often", "differs_often"}


def required_labels(atoms: Iterable[Atom]) -> frozenset[str]:
    """Labels that a relevant clip must contain (lets corpus qrels skip clips that lack them)."""
    return frozenset(a for atom in atoms if atom.relation in REQUIRES_PRESENCE for a in atom.labels)


def tested(atoms: Sequence[Atom], *, presence: bool = True) -> list[int]:
    """The atoms a minimal pair may flip, by index: every atom but a present(X) another atom on X already
    implies (flipping it would flip that atom too).

    Args:
        atoms: a query's atoms.
        presence: whether a present(X) no other atom implies is tested. Natural builds flip it like any atom;
            planned shapes leave every present(X) to the partial matches, whose clips lack X.

    Returns:
        The tested atoms' indices, in order.
    """
    implied = required_labels([atom for atom in atoms if atom.relation != "present"])
    return [j for j, atom in enumerate(atoms)
            if atom.relation != "present" or (presence and atom.args[0] not in implied)]


def depth(atoms: Sequence[Atom]) -> int:
    """The number of atoms, not counting a present(X) that another atom on X already implies (DESIGN §4): the
    atoms `tested` in a natural build."""
    return len(tested(atoms))


def mentioned(atoms: Sequence[Atom]) -> list[str]:
    """The sound classes a query names, in the order its atoms first name them."""
    return list(dict.fromkeys(a for atom in atoms for a in atom.labels))


def sounding_seconds(events: Iterable[Event], start: float = float("-inf"), end: float = float("inf")) -> float:
    """The seconds of [start, end) (the whole timeline by default) during which any sound of it plays (overlaps
    counted once)."""
    total, until = 0.0, start
    for onset, offset in sorted((max(e.onset, start), min(e.offset, end)) for e in events
                                if e.offset > start and e.onset < end):
        total, until = total + max(0.0, offset - max(onset, until)), max(until, offset)
    return total


def occurrences(events: Iterable[Event]) -> dict[str, list[Event]]:
    """Each class's events in a clip (one in a planned clip; any number in a natural recording)."""
    by_label: dict[str, list[Event]] = {}
    for event in events:
        by_label.setdefault(event.label, []).append(event)
    return by_label


def verdict(atom: Atom, by_label: Mapping[str, Sequence[Event]]) -> Relevance:
    """One atom over a clip's occurrences (`occurrences`)."""
    if atom.relation in ("present", "absent"):
        there = bool(by_label.get(atom.args[0]))
        return _clear(there, not there) if atom.relation == "present" else _clear(not there, there)
    arguments = [by_label.get(label, ()) for label in atom.labels]
    if not all(arguments):
        return NO
    numbers, slack = atom.args[len(atom.labels):], _ms(atom.tolerance)
    if atom.relation in COUNTED:
        return COUNTED[atom.relation](*arguments, *numbers, slack)
    relation, combine = PAIRWISE[atom.relation]
    return combine([relation(*events, *numbers, slack) for events in product(*arguments)])


def relevant(atoms: Sequence[Atom], events: Iterable[Event]) -> Relevance:
    """Does a clip with these events answer the conjunction `atoms`? YES, NO or AMBIGUOUS."""
    return judged(atoms, occurrences(events))


def misses_one_atom(atoms: Sequence[Atom], by_label: Mapping[str, Sequence[Event]]) -> bool:
    """Whether a clip misses a query by exactly one atom (answers NO to it, and to no other). A hard negative is
    a version of the positive's own member one flip from it: a natural build, whose versions are recordings
    found, tells them by this; a planned build makes its versions by flips and keeps those one flip from the
    positive (a composite of two moves on a chain may miss one atom only, and is no minimal pair).

    Args:
        atoms: the query's atoms.
        by_label: the clip's occurrences (`occurrences`).

    Returns:
        True for exactly one atom answered NO.
    """
    return sum(verdict(atom, by_label) is NO for atom in atoms) == 1


def judged(atoms: Sequence[Atom], by_label: Mapping[str, Sequence[Event]]) -> Relevance:
    """`relevant` over a clip's occurrences (`occurrences`), for a caller that asks of one clip many times."""
    verdicts = [verdict(atom, by_label) for atom in atoms]
    if NO in verdicts:
        return NO
    return AMBIGUOUS if AMBIGUOUS in verdicts else YES


def judge_queries(queries: Iterable[tuple[str, Sequence[Atom]]],
                  clips: Sequence[tuple[str, Sequence[Event]]]) -> Iterator[tuple[str, list[tuple[str, Relevance]]]]:
    """Per query, in order: its (clip_id, verdict) pairs that are YES or AMBIGUOUS over a whole corpus (the rest
    are NO), one query at a time, so that a caller streams them (a large split's pairs do not fit in memory).

    Clips lacking a label the query requires are a clear NO and are skipped via a label index."""
    with_label: dict[str, set[int]] = {}
    for index, (_, events) in enumerate(clips):
        for event in events:
            with_label.setdefault(event.label, set()).add(index)
    for query_id, atoms in queries:
        needed = required_labels(atoms)
        pool = set.intersection(*(with_label.get(label, set()) for label in needed)) if needed else range(len(clips))
        verdicts = ((clips[index][0], relevant(atoms, clips[index][1])) for index in sorted(pool))
        yield query_id, [(clip_id, verdict) for clip_id, verdict in verdicts if verdict is not NO]


def judge_corpus(queries: Iterable[tuple[str, Sequence[Atom]]],
                 clips: Sequence[tuple[str, Sequence[Event]]]) -> dict[tuple[str, str], Relevance]:
    """Every (query_id, clip_id) pair that is YES or AMBIGUOUS over a whole corpus (the rest are NO)."""
    return {(query_id, clip_id): verdict for query_id, pairs in judge_queries(queries, clips)
            for clip_id, verdict in pairs}
