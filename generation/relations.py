"""The relations of DESIGN §4 and the single relevance function.

Everything that decides whether a clip answers a query calls `relevant` here: the planner (to verify
each positive and negative), the writer (corpus qrels), the validator and the oracle baseline.
Relations are three-valued so that pairs between the margins are `AMBIGUOUS`, never guessed.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

ORDER_GAP = 0.5          # before(X, Y): X.offset + 0.5 s <= Y.onset
OVERLAP_FRACTION = 0.5   # overlap: shared >= 0.5 x the shorter event ...
OVERLAP_SECONDS = 0.5    # ... and >= 0.5 s; disjoint by >= 0.5 s is a clear "no"
LONGER_RATIO = 2.0       # longer(X, Y): dur X >= 2 x dur Y; dur X <= dur Y is a clear "no"
SHORT_SECONDS = 1.5      # short(X): dur <= 1.5 s
LONG_SECONDS = 4.0       # long(X): dur >= 4 s


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
    """One relation of a query, e.g. Atom("before", ("dog", "car_horn"))."""

    relation: str
    args: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"relation": self.relation, "args": list(self.args)}

    @classmethod
    def from_dict(cls, data: Mapping) -> "Atom":
        if data.get("relation") not in RELATIONS:
            raise ValueError(f"unknown relation {data.get('relation')!r}; known: {sorted(RELATIONS)}")
        return cls(data["relation"], tuple(data["args"]))


def _clear(condition_yes: bool, condition_no: bool) -> Relevance:
    return YES if condition_yes else NO if condition_no else AMBIGUOUS


def _present(x: Event | None) -> Relevance:
    return _clear(x is not None, x is None)


def _absent(y: Event | None) -> Relevance:
    return _clear(y is None, y is not None)


def _before(x: Event | None, y: Event | None) -> Relevance:
    if x is None or y is None:
        return NO
    if _overlap(x, y) is YES:
        return NO
    return _clear(x.offset + ORDER_GAP <= y.onset, y.offset + ORDER_GAP <= x.onset)


def _shared(x: Event, y: Event) -> float:
    return min(x.offset, y.offset) - max(x.onset, y.onset)  # negative: the gap between them


def _overlap(x: Event | None, y: Event | None) -> Relevance:
    if x is None or y is None:
        return NO
    shared = _shared(x, y)
    enough = shared >= OVERLAP_FRACTION * min(x.seconds, y.seconds) and shared >= OVERLAP_SECONDS
    return _clear(enough, -shared >= ORDER_GAP)


def _longer(x: Event | None, y: Event | None) -> Relevance:
    if x is None or y is None:
        return NO
    return _clear(x.seconds >= LONGER_RATIO * y.seconds, x.seconds <= y.seconds)


def _short(x: Event | None) -> Relevance:
    if x is None:
        return NO
    return _clear(x.seconds <= SHORT_SECONDS, x.seconds >= LONG_SECONDS)


def _long(x: Event | None) -> Relevance:
    if x is None:
        return NO
    return _clear(x.seconds >= LONG_SECONDS, x.seconds <= SHORT_SECONDS)


RELATIONS = {
    "present": _present, "absent": _absent, "before": _before, "overlap": _overlap,
    "longer": _longer, "short": _short, "long": _long,
}
# Relations that hold only if every argument sounds: a clip lacking one of these labels is a clear "no".
REQUIRES_PRESENCE = {"present", "before", "overlap", "longer", "short", "long"}


def required_labels(atoms: Iterable[Atom]) -> frozenset[str]:
    """Labels that a relevant clip must contain (lets corpus qrels skip clips that lack them)."""
    return frozenset(a for atom in atoms if atom.relation in REQUIRES_PRESENCE for a in atom.args)


def relevant(atoms: Sequence[Atom], events: Iterable[Event]) -> Relevance:
    """Does a clip with these events answer the conjunction `atoms`? YES, NO or AMBIGUOUS."""
    by_label: dict[str, Event] = {}
    for event in events:
        if event.label in by_label:
            raise ValueError(f"class {event.label!r} occurs twice in one clip; relations would be ambiguous")
        by_label[event.label] = event
    verdicts = [RELATIONS[atom.relation](*(by_label.get(a) for a in atom.args)) for atom in atoms]
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
