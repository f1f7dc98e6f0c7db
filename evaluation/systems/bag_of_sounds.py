"""`bag-of-sounds`: perfect sound recognition without reasoning. A clip scores the number of sounds the
query mentions that it contains: negation, order, overlap and duration are ignored."""
from __future__ import annotations

import torch

from .annotations import clip_events, query_atoms
from .base import System


class BagOfSounds(System):
    name = "bag-of-sounds"

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        mentioned = [{label for atom in atoms for label in atom.args} for atoms in query_atoms(data.queries)]
        present = [{event.label for event in events} for events in clip_events(data.corpus)]
        vocabulary = {label: i for i, label in enumerate(sorted(set().union(*mentioned, *present)))}

        def multi_hot(label_sets):
            matrix = torch.zeros(len(label_sets), len(vocabulary))
            for row, labels in enumerate(label_sets):
                matrix[row, [vocabulary[label] for label in labels]] = 1.0
            return matrix.to(device)

        return multi_hot(mentioned) @ multi_hot(present).T


def build(location: str = "", device: str = "cpu") -> BagOfSounds:
    """counts the query's sounds present in a clip (recognition without reasoning)."""
    return BagOfSounds()
