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


def _lasts(x: Event | None, seconds: str) -> Relevance:
    if x is None:
        return NO
    target, error = float(seconds), abs(x.seconds - float(seconds))
    return _clear(error <= max(LASTS_YES[0], LASTS_YES[1] * target), error >= max(LASTS_NO[0], LASTS_NO[1] * target))


RELATIONS = {
    "present": _present, "absent": _absent, "before": _before, "overlap": _overlap,
    "longer": _longer, "short": _short, "long": _long, "lasts": _lasts,
}
RELATION_ARITY = {"lasts": 1}        # labels an atom names before its number; the rest name labels only
SIGNATURE_LABELS = {"present": 1, "absent": 1, "before": 2, "overlap": 2, "longer": 2, "short": 1, "long": 1,
                    "lasts": 2}      # how many arguments each relation takes


def _seconds(text: str) -> bool:
    try:
        return 0 < float(text) < float("inf")
    except ValueError:
        return False
# Relations that hold only if every argument sounds: a clip lacking one of these labels is a clear "no".
REQUIRES_PRESENCE = {"present", "before", "overlap", "longer", "short", "long", "lasts"}


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
