"""Event targets for the `small` model's event head: which sound classes play in each audio step.

The train split's `events` column says when each sound plays; the head learns to read that from the
audio, which teaches recognition and timing far faster than the contrastive signal alone.
"""
from __future__ import annotations

import torch


class EventTargets(torch.utils.data.Dataset):
    """`ContrastiveTriplets` items plus, for each of their clips (the positive, and the hard negative when
    there is one), a (steps x labels) 0/1 matrix: a label is on in a step when one of its sounds covers at
    least half of the step."""

    def __init__(self, triplets, labels: list[str], hop: int):
        self.triplets, self.hop = triplets, hop
        self.column = {label: i for i, label in enumerate(labels)}
        table = triplets.corpus.with_format(None).select_columns(["clip_id", "events"])
        self.events = dict(zip(table["clip_id"], table["events"]))
        self.rate = triplets.corpus[0]["audio"]["sampling_rate"]

    def set_epoch(self, epoch: int) -> None:
        self.triplets.set_epoch(epoch)

    def __len__(self) -> int:
        return len(self.triplets)

    def _activity(self, clip_id: str, samples: int) -> torch.Tensor:
        steps = (samples // self.hop + 1) // 2 // 2   # the small model's steps: centred STFT frames, pooled twice by 2
        seconds = samples / self.rate / steps
        starts = torch.arange(steps) * seconds
        activity = torch.zeros(steps, len(self.column))
        for event in self.events[clip_id]:
            covered = (torch.clamp(torch.minimum(starts + seconds, torch.tensor(event["offset"])) -
                                   torch.maximum(starts, torch.tensor(event["onset"])), min=0))
            activity[covered >= seconds / 2, self.column[event["label"]]] = 1.0
        return activity

    def __getitem__(self, index: int):
        text, *clips = self.triplets[index]
        ids = self.triplets.clip_ids(index)
        return text, *clips, *(self._activity(clip_id, len(clip)) for clip_id, clip in zip(ids, clips))
