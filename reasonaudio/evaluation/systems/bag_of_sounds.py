"""`bag-of-sounds`: perfect sound recognition without reasoning. A clip scores the number of sounds the
query mentions that it contains, less 0.01 per sound it contains that the query does not mention: "all
the mentioned sounds, fewest extras" (`counting.bag_scores`). Negation, order, overlap and duration are ignored.
It is the reference a reasoning-free rule is held to: one that also reads the query's words must not beat it
by a wide margin on any query shape. The tie-break makes it the strongest such recogniser: were positives to
hold fewer extra sounds than their negatives, it would show here."""
from __future__ import annotations

from typing import TYPE_CHECKING

from reasonaudio.models.system import System, clip_events, query_atoms

from .annotations import mentioned_labels
from .counting import bag_scores
from .metadata import BaselineMetadata

if TYPE_CHECKING:
    import torch

METADATA = BaselineMetadata(
    name="bag-of-sounds", reads="the named sounds", short=3, provides="recognition",
    held_to="the named sounds' count tie",
    flag="how busy a candidate is (events, other sounds) finds the positive among those holding the named sounds",
    shows="perfect recognition without reasoning: the named sounds a clip holds, fewest other sounds first")


class BagOfSounds(System):
    name = "bag-of-sounds"

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        mentioned = [mentioned_labels(atoms) for atoms in query_atoms(data.queries)]
        return bag_scores(mentioned, [{event.label for event in events} for events in clip_events(data.corpus)], device)


def build(location: str = "", device: str = "cpu") -> BagOfSounds:
    """counts the query's sounds present in a clip, fewest extras first (recognition without reasoning)."""
    return BagOfSounds()
