"""The relations of DESIGN §4 and the single relevance function.

Everything that decides whether a clip answers a query calls `relevant` here: the planner (to verify
each positive and negative), the writer (corpus qrels), the validator and the oracle baseline.
Relations are three-valued so that pairs between the margins are `AMBIGUOUS`, never guessed.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Mapping, Sequence

ORDER_GAP = 0.5          # before(X, Y): X.offset + 0.5 s <= Y.onset
OVERLAP_FRACTION = 0.5   # overlap: shared >= 0.5 x the shorter event ...
OVERLAP_SECONDS = 0.5    # ... and >= 0.5 s; disjoint by >= 0.5 s is a clear "no"
LONGER_RATIO = 2.0       # longer(X, Y): dur X >= 2 x dur Y; dur X <= dur Y is a clear "no"
SHORT_SECONDS = 1.5      # short(X): dur <= 1.5 s
LONG_SECONDS = 4.0       # long(X): dur >= 4 s
LASTS_YES = (0.25, 0.1)  # lasts(X, N): yes when |dur X - N| <= max(0.25 s, 0.1 N) ...
LASTS_NO = (1.0, 0.4)    # ... no when |dur X - N| >= max(1 s, 0.4 N); ambiguous between


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

    def to_dict(self) -> dict:
        return {"label": self.label, "source_id": self.source_id, "onset": self.onset,
                "offset": self.offset, "gain_db": self.gain_db}


@dataclass(frozen=True)
class Atom:
    """One relation of a query, e.g. Atom("before", ("dog", "car_horn")) or Atom("lasts", ("rain", "5")):
    class labels, then the relation's number (seconds, written as text) where it takes one."""

    relation: str
    args: tuple[str, ...]

    @property
    def labels(self) -> tuple[str, ...]:
        """The sound classes the atom names (a number such as lasts' seconds is not one)."""
        return self.args[:RELATION_ARITY.get(self.relation, len(self.args))]

    def to_dict(self) -> dict:
        return {"relation": self.relation, "args": list(self.args)}

    @classmethod
    def from_dict(cls, data: Mapping) -> "Atom":
        if data.get("relation") not in RELATIONS:
            raise ValueError(f"unknown relation {data.get('relation')!r}; known: {sorted(RELATIONS)}")
        relation, args = data["relation"], data.get("args")
        if not isinstance(args, (list, tuple)) or not all(isinstance(a, str) for a in args):
            raise ValueError(f"atom arguments must be a list of strings, got {args!r}")
        labels = RELATION_ARITY.get(relation, SIGNATURE_LABELS[relation])
        if len(args) != SIGNATURE_LABELS[relation] or any(not _seconds(a) for a in args[labels:]):
            raise ValueError(f"{relation} takes {labels} class label(s)"
                             + (" and a number of seconds" if labels < SIGNATURE_LABELS[relation] else "")
                             + f", got {list(args)}")
        return cls(relation, tuple(args))


def _clear(condition_yes: bool, condition_no: bool) -> Relevance:
    return YES if condition_yes else NO if condition_no else AMBIGUOUS


def _present(x: Event | None) -> Relevance:
    return _clear(x is not None, x is None)


def _absent(y: Event | None) -> Relevance:
    return _clear(y is None, y is not None)


def _ms(seconds: float) -> int:
    """A time in integer milliseconds, the resolution events are planned and published at: every margin is
    then compared exactly (a `longer` at exactly 2x, equal lengths, a `lasts` on its bound mean what the
    margins say, not what floating-point rounding makes of them)."""
    return round(seconds * 1000)


def _length(x: Event) -> int:
    return _ms(x.offset) - _ms(x.onset)


def _exact(value: float) -> Fraction:
    """A margin as the decimal it is written as (0.1 is 1/10, not the nearest double)."""
    return Fraction(str(value))


ORDER_GAP_MS, OVERLAP_MS = _ms(ORDER_GAP), _ms(OVERLAP_SECONDS)
SHORT_MS, LONG_MS = _ms(SHORT_SECONDS), _ms(LONG_SECONDS)
OVERLAP_RATIO, LONGER = _exact(OVERLAP_FRACTION), _exact(LONGER_RATIO)


def _at_least(value: int, ratio: Fraction, of: int) -> bool:
    """value >= ratio x of, in integers."""
    return value * ratio.denominator >= ratio.numerator * of


def _before(x: Event | None, y: Event | None) -> Relevance:
    if x is None or y is None:
        return NO
    if _overlap(x, y) is YES:
        return NO
    return _clear(_ms(x.offset) + ORDER_GAP_MS <= _ms(y.onset), _ms(y.offset) + ORDER_GAP_MS <= _ms(x.onset))


def _shared(x: Event, y: Event) -> int:
    """Milliseconds both sound (negative: the gap between them)."""
    return min(_ms(x.offset), _ms(y.offset)) - max(_ms(x.onset), _ms(y.onset))


def _overlap(x: Event | None, y: Event | None) -> Relevance:
    if x is None or y is None:
        return NO
    shared = _shared(x, y)
    enough = _at_least(shared, OVERLAP_RATIO, min(_length(x), _length(y))) and shared >= OVERLAP_MS
    return _clear(enough, -shared >= ORDER_GAP_MS)


def _apart(x: Event | None, y: Event | None) -> Relevance:
    """apart(X, Y), "X and Y at different times": overlap's clear "no" (disjoint by >= 0.5 s) is its yes and
    overlap's yes its no, so the two are each other's mirror (the overlap task states either)."""
    if x is None or y is None:
        return NO
    return {YES: NO, NO: YES}.get(_overlap(x, y), AMBIGUOUS)


def _longer(x: Event | None, y: Event | None) -> Relevance:
    if x is None or y is None:
        return NO
    return _clear(_at_least(_length(x), LONGER, _length(y)), _length(x) <= _length(y))


def _short(x: Event | None) -> Relevance:
    if x is None:
        return NO
    return _clear(_length(x) <= SHORT_MS, _length(x) >= LONG_MS)


def _long(x: Event | None) -> Relevance:
    if x is None:
        return NO
    return _clear(_length(x) >= LONG_MS, _length(x) <= SHORT_MS)


def _lasts(x: Event | None, seconds: str) -> Relevance:
    """Exact rationals: N as written ("5", "2.5") in milliseconds, its tolerances too."""
    if x is None:
        return NO
    target = Fraction(seconds) * 1000
    error = abs(_length(x) - target)
    yes = max(_exact(LASTS_YES[0]) * 1000, _exact(LASTS_YES[1]) * target)
    no = max(_exact(LASTS_NO[0]) * 1000, _exact(LASTS_NO[1]) * target)
    return _clear(error <= yes, error >= no)


RELATIONS = {
    "present": _present, "absent": _absent, "before": _before, "overlap": _overlap,
    "apart": _apart, "longer": _longer, "short": _short, "long": _long, "lasts": _lasts,
}
RELATION_ARITY = {"lasts": 1}        # labels an atom names before its number; the rest name labels only
SIGNATURE_LABELS = {"present": 1, "absent": 1, "before": 2, "overlap": 2, "apart": 2, "longer": 2, "short": 1, "long": 1,
                    "lasts": 2}      # how many arguments each relation takes


def _seconds(text: str) -> bool:
    try:
        return 0 < float(text) < float("inf")
    except ValueError:
        return False
# Relations that hold only if every argument sounds: a clip lacking one of these labels is a clear "no".
REQUIRES_PRESENCE = {"present", "before", "overlap", "apart", "longer", "short", "long", "lasts"}


def required_labels(atoms: Iterable[Atom]) -> frozenset[str]:
    """Labels that a relevant clip must contain (lets corpus qrels skip clips that lack them)."""
    return frozenset(a for atom in atoms if atom.relation in REQUIRES_PRESENCE for a in atom.labels)


def depth(atoms: Sequence[Atom]) -> int:
    """The number of atoms, not counting a present(X) that another atom on X already implies (DESIGN §4)."""
    implied = {a for atom in atoms if atom.relation != "present" for a in required_labels([atom])}
    return sum(not (atom.relation == "present" and atom.args[0] in implied) for atom in atoms)


def mentioned(atoms: Sequence[Atom]) -> list[str]:
    """The sound classes a query names, in the order its atoms first name them."""
    return list(dict.fromkeys(a for atom in atoms for a in atom.labels))


def relevant(atoms: Sequence[Atom], events: Iterable[Event]) -> Relevance:
    """Does a clip with these events answer the conjunction `atoms`? YES, NO or AMBIGUOUS."""
    by_label: dict[str, Event] = {}
    for event in events:
        if event.label in by_label:
            raise ValueError(f"class {event.label!r} occurs twice in one clip; relations would be ambiguous")
        by_label[event.label] = event
    verdicts = [RELATIONS[atom.relation](*(by_label.get(a) for a in atom.labels), *atom.args[len(atom.labels):])
                for atom in atoms]
    if NO in verdicts:
        return NO
    return AMBIGUOUS if AMBIGUOUS in verdicts else YES


def judge_corpus(queries: Iterable[tuple[str, Sequence[Atom]]],
                 clips: Sequence[tuple[str, Sequence[Event]]]) -> dict[tuple[str, str], Relevance]:
    """Every (query_id, clip_id) pair that is YES or AMBIGUOUS over a whole corpus (the rest are NO).

    Clips lacking a label the query requires are a clear NO and are skipped via a label index."""
    with_label: dict[str, set[int]] = {}
    for index, (_, events) in enumerate(clips):
        for event in events:
            with_label.setdefault(event.label, set()).add(index)
    judged = {}
    for query_id, atoms in queries:
        needed = required_labels(atoms)
        pool = set.intersection(*(with_label.get(label, set()) for label in needed)) if needed else range(len(clips))
        for index in sorted(pool):
            clip_id, events = clips[index]
            verdict = relevant(atoms, events)
            if verdict is not NO:
                judged[(query_id, clip_id)] = verdict
    return judged
