"""A torch Dataset for contrastive fine-tuning: (query text, positive audio, hard-negative audio)."""
from __future__ import annotations

import numpy as np
import torch

from .loading import load_reasonaudio


class ContrastiveTriplets(torch.utils.data.Dataset):
    """One item per query of a split (normally `train`): its text, its positive clip and one of its
    minimal-pair negatives (the clip that differs only in the tested attribute), as float32 tensors.

    Which hard negative a query yields is drawn from (seed, epoch, index); call `set_epoch` between
    epochs to cycle through them."""

    def __init__(self, path_or_repo: str, split: str = "train", task: str | None = None,
                 sampling_rate: int | None = None, seed: int = 0, backend: str | None = None):
        data = load_reasonaudio(path_or_repo, task=task, split=split, sampling_rate=sampling_rate, backend=backend)
        self.queries, self.corpus = data.queries, data.corpus
        self.row_of = {clip_id: i for i, clip_id in enumerate(self.corpus.with_format(None)["clip_id"])}
        without_hard = [q for q, hard in zip(self.queries["query_id"], self.queries["hard_negatives"]) if not hard]
        if without_hard:
            raise ValueError(f"{len(without_hard)} queries have no hard negative, e.g. {without_hard[:3]}")
        self.seed, self.epoch = seed, 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __len__(self) -> int:
        return len(self.queries)

    def _audio(self, clip_id: str) -> torch.Tensor:
        return torch.from_numpy(self.corpus[self.row_of[clip_id]]["audio"]["array"])

    def __getitem__(self, index: int) -> tuple[str, torch.Tensor, torch.Tensor]:
        query = self.queries[index]
        rng = np.random.default_rng([self.seed, self.epoch, index])
        negative = query["hard_negatives"][rng.integers(len(query["hard_negatives"]))]
        return query["text"], self._audio(query["positive"]), self._audio(negative)
