"""`listwise-audit`: a query-blind adversary that compares the candidates of a group with each other.

Rerankers and MLLMs that see a whole candidate list can find a positive that is *structurally*
distinguished — the centre of its member (one edit from each flip), the clip whose sounds the others share
least — without reading the query. This one sees each group's timelines and no query: per candidate, how
many others hold its set of sounds, how much their sounds overlap with its own (Jaccard), how many of its
events (class, onset, offset) others share, its edit distance to the others (mean, least, how many at one
and at two edits), how central it is (its summed distance against the group's), and how many candidates
hold each of its sounds. Chance is 1 / candidates; a score off chance means the construction marks the
positive.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from reasonaudio.core.spec import integer_option
from reasonaudio.models.system import clip_events

from .learned import GroupAdversary, group_columns
from .metadata import CHANCE, BaselineMetadata

if TYPE_CHECKING:
    from reasonaudio.models.scoring import EvalData

FEATURES = ("same_sounds", "jaccard_mean", "jaccard_max", "shared_events", "distance_mean", "distance_min",
            "at_one_edit", "at_two_edits", "centrality_rank", "centrality", "sound_frequency_mean",
            "sound_frequency_min", "distinct_events")

METADATA = BaselineMetadata(
    name="listwise-audit", reads="nothing", needs_train=True, held_to=CHANCE,
    flag="comparing the candidates (no query) finds the positive",
    shows="no query, a group's candidates compared: whether the construction marks the positive")


def _slot(event) -> tuple:
    return (event.label, round(event.onset, 2), round(event.offset, 2))


def candidate_features(group: list) -> list[list[float]]:
    """One row per candidate of a group (each a timeline), relating it to the others only."""
    from scipy.stats import rankdata

    sounds = [frozenset(e.label for e in events) for events in group]
    slots = [frozenset(map(_slot, events)) for events in group]
    count = len(group)
    distance = np.array([[len(a ^ b) / 2 for b in slots] for a in slots])
    summed = distance.sum(axis=1)
    # tied candidates share their mean rank: broken by list position, a tie would become a bet on where the
    # positive was shuffled to
    rank = (rankdata(summed) - 1) / max(count - 1, 1)
    holders = Counter(label for labels in sounds for label in labels)
    shared = Counter(slot for own in slots for slot in own)
    rows = []
    for i in range(count):
        others = [j for j in range(count) if j != i]
        jaccard = [len(sounds[i] & sounds[j]) / max(len(sounds[i] | sounds[j]), 1) for j in others]
        frequency = [holders[label] - 1 for label in sounds[i]] or [0]
        rows.append([
            sum(sounds[j] == sounds[i] for j in others), float(np.mean(jaccard)), max(jaccard),
            float(np.mean([shared[s] - 1 for s in slots[i]])) if slots[i] else 0.0,
            float(distance[i, others].mean()), float(distance[i, others].min()),
            float(np.sum(distance[i, others] <= 1)), float(np.sum(distance[i, others] == 2)),
            float(rank[i]), float(summed[i] / max(summed.mean(), 1e-9)),
            float(np.mean(frequency)), float(min(frequency)), float(len(slots[i])),
        ])
    return rows


def group_features(data: EvalData) -> np.ndarray:
    events = clip_events(data.corpus)
    return np.asarray([row for columns in group_columns(data) for row in candidate_features([events[c] for c in columns])],
                      dtype=np.float64)


class ListwiseAudit(GroupAdversary):
    name = "listwise-audit"
    group_features = staticmethod(group_features)


def build(location: str = "", train: str | None = None, seed: str = "0", device: str = "cpu") -> ListwiseAudit:
    """query-blind, compares a group's candidates (shared sounds and slots, edit distances, centrality): ?train=DIR."""
    return ListwiseAudit(train, integer_option("listwise-audit", "seed", seed))
