"""`random`: seeded uniform scores; its expected group accuracy is 1 / candidates."""
from __future__ import annotations

from typing import TYPE_CHECKING

from reasonaudio.core.spec import integer_option
from reasonaudio.models.system import System

from .metadata import BaselineMetadata

if TYPE_CHECKING:
    import torch

METADATA = BaselineMetadata(name="random", reads="nothing", short=1,
                            shows="chance: the floor every task is read against")


class RandomScores(System):
    def __init__(self, seed: int):
        self.name, self.seed = "random", seed

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        import torch

        generator = torch.Generator().manual_seed(self.seed)
        return torch.rand(len(data.queries), len(data.corpus), generator=generator).to(device)


def build(location: str = "", seed: str = "0", device: str = "cpu") -> RandomScores:
    """uniform random scores: random or random:?seed=1."""
    return RandomScores(integer_option("random", "seed", seed))
