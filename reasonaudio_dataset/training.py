"""A torch Dataset for contrastive fine-tuning: (query text, positive audio, hard-negative audio)."""
from __future__ import annotations

import numpy as np
import torch

from .loading import load_reasonaudio


class ContrastiveTriplets(torch.utils.data.Dataset):
    """One item per query of a split (normally `train`): its text, its positive clip and one of its
    minimal-pair negatives (the clip that differs only in the tested attribute), as float32 tensors.
    With `hard_negatives=False`, (text, positive) pairs: the negative is never read or decoded.

    Which hard negative a query yields is drawn from (seed, epoch, index); call `set_epoch` between
    epochs to cycle through them. The epoch lives in shared memory, so `set_epoch` reaches DataLoader
    workers that outlive an epoch (`persistent_workers=True`) too; call it before iterating the loader.

    `augment` (a preset name such as "noisy" or "wild", a YAML file, or an audiomentations `Compose`)
    applies an acoustic condition on the fly, in the DataLoader's workers. Its parameters (noise, room,
    codec) are drawn once per item from (seed, epoch, index) and applied to the positive and the hard
    negative alike: augmentation that differed between them would itself become the cue a model learns.
    Transforms that move, stretch, mask or crop audio are refused by name, as in `generate --acoustics`."""

    def __init__(self, path_or_repo: str, split: str = "train", task: str | None = None,
                 sampling_rate: int | None = None, seed: int = 0, backend: str | None = None, augment=None,
                 hard_negatives: bool = True):
        condition = None
        if augment is not None:
            from generation.acoustics import as_condition   # checks it before any loading

            condition = as_condition(augment)
        data = load_reasonaudio(path_or_repo, task=task, split=split, sampling_rate=sampling_rate, backend=backend)
        self.queries, self.corpus = data.queries, data.corpus
        self.row_of = {clip_id: i for i, clip_id in enumerate(self.corpus.with_format(None)["clip_id"])}
        without_hard = [q for q, hard in zip(self.queries["query_id"], self.queries["hard_negatives"]) if not hard]
        if without_hard and hard_negatives:
            raise ValueError(f"{len(without_hard)} queries have no hard negative, e.g. {without_hard[:3]}")
        self.seed, self.augment = seed, None if condition is None or condition.clean else condition
        self.hard_negatives = hard_negatives
        self._epoch = torch.zeros((), dtype=torch.int64).share_memory_()

    @property
    def epoch(self) -> int:
        return int(self._epoch)

    @epoch.setter
    def epoch(self, epoch: int) -> None:
        self.set_epoch(epoch)

    def set_epoch(self, epoch: int) -> None:
        self._epoch.fill_(epoch)

    def __len__(self) -> int:
        return len(self.queries)

    def _clip(self, clip_id: str) -> tuple[np.ndarray, int, list[np.ndarray]]:
        """A clip's samples, rate, and the stretch of the mix where each annotated sound plays."""
        row = self.corpus[self.row_of[clip_id]]
        samples, rate = row["audio"]["array"], row["audio"]["sampling_rate"]
        return samples, rate, [samples[int(e["onset"] * rate):int(e["offset"] * rate)] for e in row["events"]]

    def _draw(self, index: int):
        query = self.queries[index]
        rng = np.random.default_rng([self.seed, self.epoch, index])
        if not self.hard_negatives:
            return query, None, rng
        return query, query["hard_negatives"][rng.integers(len(query["hard_negatives"]))], rng

    def clip_ids(self, index: int) -> tuple[str, ...]:
        """The (positive, hard negative) clip ids item `index` yields this epoch (e.g. to look up their events);
        (positive,) without hard negatives."""
        query, negative, _ = self._draw(index)
        return (query["positive"],) if negative is None else (query["positive"], negative)

    def __getitem__(self, index: int) -> tuple[torch.Tensor | str, ...]:
        query, negative, rng = self._draw(index)
        positive, rate, spans = self._clip(query["positive"])
        negative, _, more = (None, rate, []) if negative is None else self._clip(negative)
        if self.augment is not None:
            from generation.acoustics.chain import GroupChain, InaudibleUnderCondition

            # noise against the quietest annotated stretch of either clip, one draw for both; a draw that
            # would hide an annotated sound leaves the item as it is (its text would no longer be true)
            try:
                chain = GroupChain(self.augment, int(rng.integers(2 ** 31)), rate, len(positive), spans + more)
                positive, negative = chain(positive), None if negative is None else chain(negative)
            except InaudibleUnderCondition:
                pass
        if negative is None:
            return query["text"], torch.from_numpy(positive)
        return query["text"], torch.from_numpy(positive), torch.from_numpy(negative)
