"""`bag-of-sounds`: perfect sound recognition without reasoning. A clip scores the number of sounds the
query mentions that it contains, less 0.01 per sound it contains that the query does not mention: "all
the mentioned sounds, fewest extras". Negation, order, overlap and duration are ignored. It is the
reference a reasoning-free rule is held to: one that also reads the query's words (first-mentioned-first)
must not beat it by a wide margin on any query shape. The tie-break makes it the strongest such
recogniser: were positives to hold fewer extra sounds than their negatives, it would show here."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from reasonaudio.models.scoring import System, clip_events, query_atoms

from .annotations import mentioned_labels

EXTRA_PENALTY = 0.01   # per unmentioned sound: below any difference in mentioned sounds, only breaks ties


def count_scores(mentioned: Sequence[set[str]], present: Sequence[set[str]], device: str = "cpu") -> torch.Tensor:
    """(queries x clips) float64: the mentioned sounds each clip holds."""
    vocabulary = {label: i for i, label in enumerate(sorted(set().union(*mentioned, *present)))}

    def multi_hot(label_sets):
        matrix = torch.zeros(len(label_sets), len(vocabulary), dtype=torch.float64)
        for row, labels in enumerate(label_sets):
            matrix[row, [vocabulary[label] for label in labels]] = 1.0
        return matrix.to(device)

    return multi_hot(mentioned) @ multi_hot(present).T


def bag_scores(mentioned: Sequence[set[str]], present: Sequence[set[str]], device: str = "cpu") -> torch.Tensor:
    """(queries x clips) float64: mentioned sounds present, less EXTRA_PENALTY x unmentioned sounds present."""
    found = count_scores(mentioned, present, device)
    sizes = torch.tensor([float(len(labels)) for labels in present], dtype=torch.float64, device=found.device)
    return found - EXTRA_PENALTY * (sizes[None, :] - found)


def count_tie(data) -> np.ndarray:
    """Per query, the accuracy of counting the named sounds alone, ties by their expectation: 1 / the
    candidates holding the most named sounds when the positive is among them, else 0. Bag-of-sounds' tie-break
    (fewest other sounds) and `least-busy` are held to it: off it, busyness tells the positive."""
    events = clip_events(data.corpus)
    row = {clip: i for i, clip in enumerate(data.corpus["clip_id"])}
    ties = []
    for atoms, group, positive in zip(query_atoms(data.queries), data.queries["candidates"], data.queries["positive"]):
        named = mentioned_labels(atoms)
        counts = [len(named & {e.label for e in events[row[clip]]}) for clip in group]
        best = max(counts)
        ties.append(1 / counts.count(best) if counts[group.index(positive)] == best else 0.0)
    return np.asarray(ties)


class BagOfSounds(System):
    name = "bag-of-sounds"

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        mentioned = [mentioned_labels(atoms) for atoms in query_atoms(data.queries)]
        return bag_scores(mentioned, [{event.label for event in events} for events in clip_events(data.corpus)], device)


def build(location: str = "", device: str = "cpu") -> BagOfSounds:
    """counts the query's sounds present in a clip, fewest extras first (recognition without reasoning)."""
    return BagOfSounds()
