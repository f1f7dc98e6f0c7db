"""The items the event heads train on (targets from models/events.py): `EventTargets` adds each clip's
frame targets to the contrastive triplets, `ClipActivity` gives every clip of a split with its targets."""
from __future__ import annotations

import torch

from reasonaudio.models.events import activity
from reasonaudio_dataset.loading import load_reasonaudio


class EventTargets(torch.utils.data.Dataset):
    """`ContrastiveTriplets` items plus, for each of their clips (the positive, and the hard negative when
    there is one), its `activity` matrix."""

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

    def __getitem__(self, index: int):
        text, *clips = self.triplets[index]
        ids = self.triplets.clip_ids(index)
        return text, *clips, *(activity(self.events[clip_id], len(clip), self.rate, self.hop, self.column)
                               for clip_id, clip in zip(ids, clips))


class ClipActivity(torch.utils.data.Dataset):
    """Every clip of a split (normally `train`) once per epoch: (audio, its `activity` matrix), the
    detector's training items. Each clip's events are exact strong labels: ideal detection data."""

    def __init__(self, path_or_repo: str, split: str, sampling_rate: int, labels: list[str], hop: int):
        self.corpus = load_reasonaudio(path_or_repo, split=split, sampling_rate=sampling_rate).corpus
        self.events = self.corpus.with_format(None).select_columns(["events"])["events"]
        self.column, self.hop = {label: i for i, label in enumerate(labels)}, hop

    def set_epoch(self, epoch: int) -> None:
        """Every epoch reads every clip: nothing is drawn per epoch."""

    def __len__(self) -> int:
        return len(self.corpus)

    def __getitem__(self, index: int):
        audio = self.corpus[index]["audio"]
        samples = torch.as_tensor(audio["array"], dtype=torch.float32)
        return samples, activity(self.events[index], len(samples), audio["sampling_rate"], self.hop, self.column)
