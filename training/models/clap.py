"""`clap:PATH_OR_ID`: fine-tune a transformers ClapModel (e.g. laion/clap-htsat-unfused on a GPU).

The processor's features are computed without gradients (they are fixed transforms); the model's text
and audio towers and projections are trained, through the same encoders the `clap:` adapter scores
with. The folder it saves is a plain ClapModel folder, so `clap:MODEL_DIR` and `trained:MODEL_DIR`
both load it.
"""
from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from evaluation.systems.clap import ClapEncoders


class TrainableClap(nn.Module):
    kind = "clap"

    def __init__(self, encoders: ClapEncoders):
        super().__init__()
        self.model, self.encoders = encoders.model, encoders
        self.sampling_rate = encoders.sampling_rate

    @classmethod
    def from_pretrained(cls, location: str, device: str = "cpu") -> "TrainableClap":
        return cls(ClapEncoders.from_pretrained(location, device))

    @property
    def device(self) -> torch.device:
        return self.encoders.device

    def encode_text(self, texts) -> torch.Tensor:
        return self.encoders.encode_text(texts)

    def encode_audio(self, arrays) -> torch.Tensor:
        return self.encoders.encode_audio(arrays)

    def save(self, folder: Path) -> None:
        self.model.save_pretrained(folder)
        self.encoders.processor.save_pretrained(folder)

    @classmethod
    def load(cls, folder: Path, device: str = "cpu") -> "TrainableClap":
        return cls.from_pretrained(str(folder), device)
