"""Why a model fails, judged by the core's one relevance function (`reasonaudio.core.relations.broken`).

Two views of one scored split:

* the failure taxonomy: for each query, the candidate the model ranks first and, where it is not the positive,
  what that clip breaks of the query (a named sound missing, an excluded sound present, order, overlap,
  duration, count); summed per task in `failures`;
* the kinds of the minimal pairs: what each hard negative breaks (exactly one atom, so one kind), the column
  (`hard_negative_kinds`) from which the metric reads the reasoning profile (`reasoning_profile`).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from reasonaudio.core.relations import FAILURE_KINDS, Atom, Event, broken
from reasonaudio.models.system import column, events_by_clip, query_atoms
from reasonaudio_metric.functional import KINDS

CHOSEN, BROKEN = "chosen", "broken"       # the per-query columns of the taxonomy


@dataclass(frozen=True)
class Annotations:
    """What the diagnosis reads of a split, read once: each query's atoms and each clip's events by clip id."""

    atoms: list[tuple[Atom, ...]]
    events: Mapping[str, tuple[Event, ...]]

    @classmethod
    def of(cls, data) -> Annotations:
        """The annotations of a split (`EvalData`)."""
        return cls(query_atoms(data.queries), events_by_clip(data.corpus))


def hard_negative_kinds(atoms: Sequence[Sequence[Atom]], negatives: Sequence[Sequence[str]],
                        events: Mapping[str, tuple[Event, ...]]) -> list[list[str]]:
    """What each query's hard negatives break: one failure kind each (a minimal pair misses one atom; were a
    negative to break several kinds, they are joined with "+", a pair of no single kind).

    Args:
        atoms: each query's atoms.
        negatives: each query's hard negatives (clip ids).
        events: each clip's events (`events_by_clip`).

    Returns:
        Per query, a kind per hard negative, in order.
    """
    return [["+".join(broken(query, events[clip])) or "none" for clip in clips] for query, clips in zip(atoms, negatives)]


def with_hard_negative_kinds(queries, corpus, annotations: Annotations | None = None):
    """The queries with the `hard_negative_kinds` column from which the metric gives the reasoning profile:
    `reasonaudio.score(similarity, with_hard_negative_kinds(queries, corpus))`.

    Args:
        queries, corpus: a split's tables (`load_reasonaudio`'s, or any `datasets.Dataset`s of the layout).
        annotations: their atoms and events, where already read (`Annotations.of`).

    Returns:
        The queries with the column (as they are where they list no hard negatives, or carry it already).
    """
    if "hard_negatives" not in queries.column_names or KINDS in queries.column_names:
        return queries
    annotations = annotations or Annotations.of(_Split(queries, corpus))
    kinds = hard_negative_kinds(annotations.atoms, column(queries, "hard_negatives"), annotations.events)
    return queries.add_column(KINDS, kinds)


@dataclass(frozen=True)
class _Split:
    """Two tables as a split (what `Annotations.of` reads)."""

    queries: object
    corpus: object


def taxonomy(scores: np.ndarray, data, annotations: Annotations) -> dict[str, list]:
    """Per query, the candidate ranked first (ties: the first of them in candidate order) and, where it is not
    the positive, the failure kinds it breaks (`broken`; empty for the positive).

    Args:
        scores: (queries, candidates) group scores, each row in its query's candidate order.
        data: the split (`EvalData`).
        annotations: its atoms and events (`Annotations.of`).

    Returns:
        {"chosen": [clip id], "broken": [[kind, ...]]}.
    """
    groups, positives = column(data.queries, "candidates"), column(data.queries, "positive")
    chosen = [group[index] for group, index in zip(groups, np.argmax(np.asarray(scores), axis=1))]
    kinds = [[] if clip == positive else broken(atoms, annotations.events[clip])
             for atoms, clip, positive in zip(annotations.atoms, chosen, positives)]
    return {CHOSEN: chosen, BROKEN: kinds}


def failure_counts(tasks: Sequence[str], kinds: Sequence[Sequence[str]], wrong: Sequence[bool]) -> dict[str, dict]:
    """The taxonomy summed: per task (and over all, "all"), its queries, those whose first-ranked clip is not the
    positive, and how many of those break each kind (a clip may break several).

    Args:
        tasks: each query's task.
        kinds: each query's broken kinds (`taxonomy`).
        wrong: whether each query's first-ranked clip is not its positive.

    Returns:
        {task or "all": {"queries": n, "wrong": n, "kinds": {kind: n}}}, kinds in FAILURE_KINDS order.
    """
    queries, failed, named = Counter(), Counter(), {}
    for task, found, miss in zip(tasks, kinds, wrong):
        for key in (task, "all"):
            queries[key] += 1
            failed[key] += bool(miss)
            named.setdefault(key, Counter()).update(found)
    order = {kind: i for i, kind in enumerate(FAILURE_KINDS)}
    return {key: {"queries": queries[key], "wrong": failed[key],
                  "kinds": {k: named[key][k] for k in sorted(named[key], key=lambda k: (order.get(k, len(order)), k))}}
            for key in queries}
