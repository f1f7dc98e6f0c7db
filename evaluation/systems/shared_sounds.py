"""`shared-sounds`: a query-blind rule on a group's structure. Each candidate scores how much the rest of its group
shares its sounds (the mean Jaccard similarity of its set of classes to each other candidate's, the listwise
audit's `jaccard_mean`), the least shared first (`?order=most`: the most shared first).

A group built member after member can hold the positive's sounds less often than another member's: every
recording outside the positive's member must be a no to the query, while nothing stops one from holding another
member's sounds in that member's relation. On natural stand-ins the least shared candidate was the positive 14-16 %
of the time on `longer` and `overlap` (10 by chance), which the learned listwise audit, pooling every task, did not
flag. A rule this simple must score at chance, in both directions (`reasonaudio baselines`)."""
from __future__ import annotations

import numpy as np
import torch

from models.scoring import System, clip_events

from .learned import group_columns, group_similarity
from .listwise_audit import FEATURES, candidate_features

ORDERS = ("least", "most")


class SharedSounds(System):
    def __init__(self, order: str):
        self.least = order == "least"
        self.name = "shared-sounds" if order == "least" else "shared-sounds:?order=most"

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        events, column = clip_events(data.corpus), FEATURES.index("jaccard_mean")
        shared = np.asarray([row[column] for columns in group_columns(data)
                             for row in candidate_features([events[c] for c in columns])], dtype=np.float64)
        # in [0, 1] either way: above the -1 that `group_similarity` gives the clips outside the group
        return group_similarity(data, 1.0 - shared if self.least else shared, device)


def build(location: str = "", order: str = "least", device: str = "cpu") -> SharedSounds:
    """query-blind: the candidate whose sounds the rest of its group shares least (?order=most: most)."""
    if order not in ORDERS:
        raise ValueError(f"shared-sounds: order must be one of {', '.join(ORDERS)}, got {order!r}")
    return SharedSounds(order)
