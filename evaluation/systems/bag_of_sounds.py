"""`bag-of-sounds`: perfect sound recognition without reasoning. A clip scores the number of sounds the
query mentions that it contains, less 0.01 per sound it contains that the query does not mention: "all
the mentioned sounds, fewest extras". Negation, order, overlap and duration are ignored. It is the
reference a reasoning-free rule is held to: one that also reads the query's words (first-mentioned-first)
must not beat it by a wide margin on any query shape. The tie-break makes it the strongest such
recogniser: were positives to hold fewer extra sounds than their negatives, it would show here."""
from __future__ import annotations

from typing import Sequence

import torch

from models.scoring import System, clip_events, query_atoms

from .annotations import mentioned_labels

EXTRA_PENALTY = 0.01   # per unmentioned sound: below any difference in mentioned sounds, only breaks ties


def bag_scores(mentioned: Sequence[set[str]], present: Sequence[set[str]], device: str = "cpu") -> torch.Tensor:
    """(queries x clips) float64: mentioned sounds present, less EXTRA_PENALTY x unmentioned sounds present."""
    vocabulary = {label: i for i, label in enumerate(sorted(set().union(*mentioned, *present)))}

    def multi_hot(label_sets):
        matrix = torch.zeros(len(label_sets), len(vocabulary), dtype=torch.float64)
        for row, labels in enumerate(label_sets):
            matrix[row, [vocabulary[label] for label in labels]] = 1.0
        return matrix.to(device)

    clips = multi_hot(present)
    found = multi_hot(mentioned) @ clips.T
    return found - EXTRA_PENALTY * (clips.sum(1)[None, :] - found)


class BagOfSounds(System):
    name = "bag-of-sounds"

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        mentioned = [mentioned_labels(atoms) for atoms in query_atoms(data.queries)]
        return bag_scores(mentioned, [{event.label for event in events} for events in clip_events(data.corpus)], device)


def build(location: str = "", device: str = "cpu") -> BagOfSounds:
    """counts the query's sounds present in a clip, fewest extras first (recognition without reasoning)."""
    return BagOfSounds()
