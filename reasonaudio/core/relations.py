"""Atoms, the tables of the relations of DESIGN §4 (each declared once, in `reasonaudio.core.relation_kinds`) and the
single relevance function.

Everything that decides whether a clip answers a query calls `relevant` here (or `judged`, the same function
over a clip's events already grouped by class): the planner (to verify each positive and negative), the writer
(corpus qrels), the validator and the oracle baseline.
Relations are three-valued so that pairs between the margins are `AMBIGUOUS`, never guessed.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Iterable, Iterator, Mapping, Sequence

from reasonaudio.core.relation_kinds import REGISTRY
from reasonaudio.core.relation_kinds.base import AMBIGUOUS, NO, UNHEARD, YES, Event, Heard, Relation, Relevance, ms
from reasonaudio.core.relation_kinds.count import (COUNT_APART, COUNT_APART_MS, COUNT_JOINED, COUNT_JOINED_MS,
                                                   count_range)
from reasonaudio.core.relation_kinds.duration import (LASTS_NO, LASTS_YES, LONG_MS, LONG_SECONDS, LONGER,
                                                      LONGER_RATIO, SHORT_MS, SHORT_SECONDS)
from reasonaudio.core.relation_kinds.order import (ORDER_GAP, ORDER_GAP_MS, OVERLAP_FRACTION, OVERLAP_MS,
                                                   OVERLAP_RATIO, OVERLAP_SECONDS)

MAX_TOLERANCE = 1.0      # the largest annotation tolerance an atom may carry (seconds)
# Why counting is left out of natural builds (said by the generator's refusal and by a natural split's card).
WHY_NATURAL_BUILDS_DO_NOT_COUNT = (
    "their annotations do not say whether a sound's repeats are occurrences a listener counts apart (one annotated "
    "event may hold several barks, and same-class events parted by a short gap are merged into one)")


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
        relation = REGISTRY.get(self.relation)
        return self.args[:relation.labels] if relation else self.args

    def to_dict(self) -> dict:
        data = {"relation": self.relation, "args": list(self.args)}
        return {**data, "tolerance": self.tolerance} if self.tolerance else data

    @classmethod
    def from_dict(cls, data: Mapping) -> "Atom":
        relation = REGISTRY.get(data.get("relation"))
        if relation is None:
            raise ValueError(f"unknown relation {data.get('relation')!r}; known: {sorted(REGISTRY)}")
        args = data.get("args")
        if not isinstance(args, (list, tuple)) or not all(isinstance(a, str) for a in args):
            raise ValueError(f"atom arguments must be a list of strings, got {args!r}")
        if len(args) != relation.arguments or any(not relation.number.valid(a) for a in args[relation.labels:]):
            raise ValueError(f"{relation.name} takes {relation.labels} class label(s)"
                             + (f" and {relation.number.said}" if relation.number else "") + f", got {list(args)}")
        tolerance = data.get("tolerance", 0.0)
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance <= MAX_TOLERANCE:
            raise ValueError(f"an atom's tolerance is seconds from 0 to {MAX_TOLERANCE}, got {tolerance!r}")
        return cls(relation.name, tuple(args), float(tolerance))


# The tables of the relations, read off the registry (`reasonaudio.core.relation_kinds`).
# Relations over one occurrence of each argument: (verdict, how the verdicts over every combination combine).
PAIRWISE = {name: (r.truth, r.combine) for name, r in REGISTRY.items() if r.combine is not None}
# Relations over all of a class's occurrences at once: how often it is heard (`count_range`).
COUNTED = {name: r.truth for name, r in REGISTRY.items() if r.counts}
RELATIONS = frozenset(REGISTRY)
RELATION_ARITY = {name: r.labels for name, r in REGISTRY.items() if r.number}   # labels before a relation's number
SIGNATURE_LABELS = {name: r.arguments for name, r in REGISTRY.items()}          # arguments each takes
# Relations that hold only if every argument sounds: a clip lacking one of these labels is a clear "no".
REQUIRES_PRESENCE = {name for name, r in REGISTRY.items() if r.requires_presence}


def required_labels(atoms: Iterable[Atom]) -> frozenset[str]:
    """Labels that a relevant clip must contain (lets corpus qrels skip clips that lack them)."""
    return frozenset(a for atom in atoms if REGISTRY[atom.relation].requires_presence for a in atom.labels)


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
    relation = REGISTRY[atom.relation]
    named = relation.labels
    arguments = [by_label.get(label, ()) for label in atom.args[:named]]
    if relation.requires_presence and not all(arguments):
        return NO
    numbers, slack = atom.args[named:], ms(atom.tolerance)
    if relation.combine is None:
        return relation.truth(*arguments, *numbers, slack)
    truth = relation.truth
    return relation.combine([truth(*events, *numbers, slack) for events in product(*arguments)])


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


MISSING = "missing"     # a broken atom whose named sound is not in the clip at all: hearing, not reasoning
# the failure taxonomy's kinds, in the order results list them: a sound missing, then each relation's `fails_as`
FAILURE_KINDS = tuple(dict.fromkeys([MISSING, *(relation.fails_as for relation in REGISTRY.values())]))


def broken(atoms: Sequence[Atom], events: Iterable[Event]) -> list[str]:
    """What a clip gets wrong of a query: the failure kind of each atom it answers NO to (`verdict`, the one
    relevance function), each kind once, in FAILURE_KINDS order. An atom on a sound the clip lacks altogether is
    `missing` (hearing), whatever its relation; an excluded sound present is `negation`; any other broken atom
    is its relation's `fails_as` (order, overlap, duration, count). Empty exactly when the clip is not a clear NO.

    Args:
        atoms: the query's atoms.
        events: the clip's events.

    Returns:
        The kinds, e.g. ["negation"] or ["missing", "order"].
    """
    by_label, found = occurrences(events), set()
    for atom in atoms:
        if verdict(atom, by_label) is NO:
            relation = REGISTRY[atom.relation]
            lacking = relation.requires_presence and not all(label in by_label for label in atom.labels)
            found.add(MISSING if lacking else relation.fails_as)
    return [kind for kind in FAILURE_KINDS if kind in found]


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


__all__ = [
    "MISSING", "FAILURE_KINDS", "broken", "REGISTRY", "Relation", "Relevance", "YES", "NO", "AMBIGUOUS", "Event", "Atom", "Heard", "UNHEARD",
    "PAIRWISE", "COUNTED", "RELATIONS", "RELATION_ARITY", "SIGNATURE_LABELS", "REQUIRES_PRESENCE",
    "ORDER_GAP", "OVERLAP_FRACTION", "OVERLAP_SECONDS", "LONGER_RATIO", "SHORT_SECONDS", "LONG_SECONDS", "LASTS_YES",
    "LASTS_NO", "COUNT_APART", "COUNT_JOINED", "MAX_TOLERANCE", "WHY_NATURAL_BUILDS_DO_NOT_COUNT",
    "ORDER_GAP_MS", "OVERLAP_MS", "COUNT_APART_MS", "COUNT_JOINED_MS", "SHORT_MS", "LONG_MS", "OVERLAP_RATIO", "LONGER",
    "count_range", "required_labels", "tested", "depth", "mentioned", "sounding_seconds", "occurrences", "verdict",
    "relevant", "misses_one_atom", "judged", "judge_queries", "judge_corpus",
]
