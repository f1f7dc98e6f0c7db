"""CLAP through transformers' ClapModel / ClapProcessor: `ClapEncoders` (what the `clap:PATH_OR_ID` system scores
with) and `TrainableClap` (`reasonaudio train --model clap:PATH_OR_ID` fine-tunes it, e.g. laion/clap-htsat-unfused
on a GPU).

The processor's features are computed without gradients (they are fixed transforms); the model's text
and audio towers and projections are trained, through the same encoders the `clap:` adapter scores
with. The folder it saves is a plain ClapModel folder, so `clap:MODEL_DIR` and `trained:MODEL_DIR`
both load it.
"""
from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import torch
from torch import nn

from .pretrained import loading_model


def _features(output) -> torch.Tensor:
    """transformers 4 returns the projected features; 5 returns an output whose pooler_output holds them."""
    return output if isinstance(output, torch.Tensor) else output.pooler_output


class ClapEncoders:
    """A ClapModel and its processor as encode_text / encode_audio, gradients kept (`TrainableClap` fine-tunes
    through them; the `clap:` system wraps them for inference)."""

    def __init__(self, model, processor):
        self.model, self.processor = model, processor
        self.sampling_rate = processor.feature_extractor.sampling_rate
        # an unfused model takes one mel channel: never hand it the 4-channel "fusion" input
        self.truncation = "fusion" if getattr(model.config, "enable_fusion", False) else "rand_trunc"
        self.audio_keyword = "audio" if "audio" in inspect.signature(processor.__call__).parameters else "audios"

    @classmethod
    def from_pretrained(cls, location: str, device: str = "cpu") -> "ClapEncoders":
        from transformers import ClapModel, ClapProcessor   # the `models` extra: imported on use

        if not location:
            raise ValueError("clap needs a model: clap:PATH_OR_ID, e.g. clap:laion/clap-htsat-unfused")
        with loading_model(f"clap:{location}"):
            return cls(ClapModel.from_pretrained(location).to(device), ClapProcessor.from_pretrained(location))

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def encode_text(self, texts) -> torch.Tensor:
        inputs = self.processor(text=list(texts), return_tensors="pt", padding=True, truncation=True).to(self.device)
        return _features(self.model.get_text_features(**inputs))

    def encode_audio(self, arrays) -> torch.Tensor:
        inputs = self.processor(**{self.audio_keyword: [np.asarray(a, dtype=np.float32) for a in arrays]},
                                sampling_rate=self.sampling_rate, truncation=self.truncation,
                                return_tensors="pt").to(self.device)
        return _features(self.model.get_audio_features(**inputs))


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
