"""`relation-blind`: a query-aware adversary that knows *which* sounds a query names, not what it says of them.

It sees the clip's timeline and the set of classes the query mentions (wanted and excluded alike: not
which is which, not their roles, not the relation, task or shape — knowing any of these is knowing the
relation), through features symmetric in the mentioned sounds: how many are there; whether the first,
last, longest, shortest, loudest or most central event is one of them; how much of each fifth of the clip
they cover; whether they are contiguous; how many unmentioned sounds come before, between and after
them; their gains and lengths against the unmentioned ones'. A retrieval model scores each (query, clip)
pair on its own, so it can learn exactly such a rule. It is held to its count tie (`counting.count_tie`: the best
rule that counts how many named sounds a candidate holds): beating it means where the named sounds sit gives the
answer.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from reasonaudio.core.relations import sounding_seconds
from reasonaudio.core.spec import integer_option
from reasonaudio.models.system import clip_events, query_atoms

from .annotations import mentioned_labels
from .learned import GroupAdversary, group_columns
from .metadata import BaselineMetadata

if TYPE_CHECKING:
    from reasonaudio.models.scoring import EvalData

FIFTHS = 5
FEATURES = ("mentioned", "mentioned_present", "unmentioned_present", "events", "first_mentioned", "last_mentioned",
            "longest_mentioned", "shortest_mentioned", "loudest_mentioned", "quietest_mentioned", "central_mentioned",
            *(f"fifth_{i}_mentioned" for i in range(FIFTHS)), *(f"fifth_{i}_unmentioned" for i in range(FIFTHS)),
            "contiguous", "unmentioned_before", "unmentioned_between", "unmentioned_after", "first_mentioned_rank",
            "gain_mentioned", "gain_unmentioned", "seconds_mentioned", "seconds_unmentioned")

METADATA = BaselineMetadata(
    name="relation-blind", reads="the named sounds", short=7, needs_train=True, held_to="its count tie",
    flags="above", tie_row="relation-blind's count tie",
    flag="where the named sounds sit gives the answer away, without the relation",
    shows="which sounds the query names and where they sit, not the relation: whether the timeline gives it away")


def _cover(events, start: float, end: float) -> float:
    """The share of [start, end) that any of `events` sounds in."""
    return sounding_seconds(events, start, end) / (end - start)


def pair_features(mentioned: set[str], events, clip_seconds: float) -> list[float]:
    """What a relation-blind rule can see of one (query, clip) pair (see the module docstring)."""
    events = sorted(events, key=lambda e: (e.onset, e.offset))
    named = [e.label in mentioned for e in events]
    ours = [e for e, n in zip(events, named) if n]
    others = [e for e, n in zip(events, named) if not n]
    if not events:
        return [float(len(mentioned))] + [0.0] * (len(FEATURES) - 1)
    by = {"longest": max(events, key=lambda e: e.seconds), "shortest": min(events, key=lambda e: e.seconds),
          "loudest": max(events, key=lambda e: e.gain_db), "quietest": min(events, key=lambda e: e.gain_db),
          "central": min(events, key=lambda e: abs((e.onset + e.offset) / 2 - clip_seconds / 2)),
          "last": max(events, key=lambda e: (e.offset, e.onset))}
    places = [i for i, n in enumerate(named) if n]
    first, last = (places[0], places[-1]) if places else (len(events), -1)
    fifth = clip_seconds / FIFTHS
    return [
        len(mentioned), len(ours), len(others), len(events), float(named[0]),
        *(float(by[k].label in mentioned) for k in ("last", "longest", "shortest", "loudest", "quietest", "central")),
        *(_cover(ours, i * fifth, (i + 1) * fifth) for i in range(FIFTHS)),
        *(_cover(others, i * fifth, (i + 1) * fifth) for i in range(FIFTHS)),
        float(bool(places) and last - first + 1 == len(places)),
        float(first if places else len(events)), float(sum(not n for n in named[first:last + 1])) if places else 0.0,
        float(len(events) - 1 - last if places else 0), float(first) / len(events),
        float(np.mean([e.gain_db for e in ours])) if ours else 0.0,
        float(np.mean([e.gain_db for e in others])) if others else 0.0,
        float(np.mean([e.seconds for e in ours])) if ours else 0.0,
        float(np.mean([e.seconds for e in others])) if others else 0.0,
    ]


def group_features(data: EvalData) -> np.ndarray:
    """One row per (query, candidate), in group order."""
    events = clip_events(data.corpus)
    seconds = data.corpus["duration"]
    rows = []
    for atoms, columns in zip(query_atoms(data.queries), group_columns(data)):
        mentioned = mentioned_labels(atoms)
        rows.extend(pair_features(mentioned, events[c], seconds[c]) for c in columns)
    return np.asarray(rows, dtype=np.float64)


class RelationBlind(GroupAdversary):
    name = "relation-blind"
    group_features = staticmethod(group_features)


def build(location: str = "", train: str | None = None, seed: str = "0", device: str = "cpu") -> RelationBlind:
    """knows which sounds the query names, not what it says of them: trained on a train split (?train=DIR)."""
    return RelationBlind(train, integer_option("relation-blind", "seed", seed))
