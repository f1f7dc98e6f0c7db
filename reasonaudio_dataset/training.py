"""A torch Dataset for contrastive fine-tuning: (query text, positive audio, hard-negative audio)."""
from __future__ import annotations

import numpy as np
import torch

from .loading import load_reasonaudio


class ContrastiveTriplets(torch.utils.data.Dataset):
    """One item per query of a split (normally `train`): its text, its positive clip and one of its
    minimal-pair negatives (the clip that differs only in the tested attribute), as float32 tensors.

    Which hard negative a query yields is drawn from (seed, epoch, index); call `set_epoch` between
    epochs to cycle through them.

    `augment` (a preset name such as "noisy" or "wild", a YAML file, or an audiomentations `Compose`)
    applies an acoustic condition on the fly, in the DataLoader's workers. Its parameters (noise, room,
    codec) are drawn once per item from (seed, epoch, index) and applied to the positive and the hard
    negative alike: augmentation that differed between them would itself become the cue a model learns.
    Transforms that move, stretch, mask or crop audio are refused by name, as in `generate --acoustics`."""

    def __init__(self, path_or_repo: str, split: str = "train", task: str | None = None,
                 sampling_rate: int | None = None, seed: int = 0, backend: str | None = None, augment=None):
        condition = None
        if augment is not None:
            from generation.acoustics import as_condition   # checks it before any loading

            condition = as_condition(augment)
        data = load_reasonaudio(path_or_repo, task=task, split=split, sampling_rate=sampling_rate, backend=backend)
        self.queries, self.corpus = data.queries, data.corpus
        self.row_of = {clip_id: i for i, clip_id in enumerate(self.corpus.with_format(None)["clip_id"])}
        without_hard = [q for q, hard in zip(self.queries["query_id"], self.queries["hard_negatives"]) if not hard]
        if without_hard:
            raise ValueError(f"{len(without_hard)} queries have no hard negative, e.g. {without_hard[:3]}")
        self.seed, self.epoch, self.augment = seed, 0, None if condition is None or condition.clean else condition

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __len__(self) -> int:
        return len(self.queries)

    def _audio(self, clip_id: str) -> tuple[np.ndarray, int]:
        audio = self.corpus[self.row_of[clip_id]]["audio"]
        return audio["array"], audio["sampling_rate"]

    def __getitem__(self, index: int) -> tuple[str, torch.Tensor, torch.Tensor]:
        query = self.queries[index]
        rng = np.random.default_rng([self.seed, self.epoch, index])
        negative = query["hard_negatives"][rng.integers(len(query["hard_negatives"]))]
        (positive, rate), (negative, _) = self._audio(query["positive"]), self._audio(negative)
        if self.augment is not None:
            from generation.acoustics import GroupChain

            level = float(np.sqrt(np.mean(np.square(positive, dtype=np.float64)))) or 1e-4
            chain = GroupChain(self.augment, int(rng.integers(2 ** 31)), level, rate, len(positive))
            positive, negative = chain(positive), chain(negative)
        return query["text"], torch.from_numpy(positive), torch.from_numpy(negative)
