"""`shared-sounds`: a query-blind rule on a group's structure. Each candidate scores how much the rest of its group
shares its sounds (the mean Jaccard similarity of its set of classes to each other candidate's, the listwise
audit's `jaccard_mean` worked out exactly: in floats, summed in each candidate's own order of the others, two
candidates the rest share exactly as much came out one rounding step apart, a tie broken by rounding), the
least shared first (`?order=most`: the most shared first).

A group built member after member can hold the positive's sounds less often than another member's: every
recording outside the positive's member must be a no to the query, while nothing stops one from holding another
member's sounds in that member's relation. On natural recordings the least shared candidate can then be the
positive more often than chance, which the learned listwise audit, pooling every task, may not flag. A rule
this simple must score at chance, in both directions (`reasonaudio baselines`)."""
from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from reasonaudio.models.system import System, clip_events

from .learned import group_columns, group_similarity
from .metadata import CHANCE, BaselineMetadata

if TYPE_CHECKING:
    import torch

ORDERS = ("least", "most")

METADATA = BaselineMetadata(
    name="shared-sounds", reads="nothing", held_to=CHANCE,
    flag="how much the rest of its group shares a candidate's sounds (no query) finds the positive",
    shows="no query, the candidate whose sounds the rest of its group shares least: whether a group marks it")


def shared(group: list) -> list[Fraction]:
    """Per candidate of a group (each a timeline), the mean Jaccard similarity of its classes to each other's."""
    sounds = [frozenset(event.label for event in events) for events in group]
    others = max(len(sounds) - 1, 1)
    return [sum((Fraction(len(a & b), max(len(a | b), 1)) for j, b in enumerate(sounds) if j != i), Fraction(0))
            / others for i, a in enumerate(sounds)]


class SharedSounds(System):
    def __init__(self, order: str):
        self.least = order == "least"
        self.name = "shared-sounds" if order == "least" else "shared-sounds:?order=most"

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        events = clip_events(data.corpus)
        # in [0, 1] either way: above the -1 that `group_similarity` gives the clips outside the group
        scores = [float(1 - value if self.least else value) for columns in group_columns(data)
                  for value in shared([events[c] for c in columns])]
        return group_similarity(data, np.asarray(scores, dtype=np.float64), device)


def build(location: str = "", order: str = "least", device: str = "cpu") -> SharedSounds:
    """query-blind: the candidate whose sounds the rest of its group shares least (?order=most: most)."""
    if order not in ORDERS:
        raise ValueError(f"shared-sounds: order must be one of {', '.join(ORDERS)}, got {order!r}")
    return SharedSounds(order)
