"""`clap:PATH_OR_ID`: a CLAP model through transformers' ClapModel / ClapProcessor."""
from __future__ import annotations

import hashlib
import inspect
from pathlib import Path

import numpy as np
import torch

from .base import EmbeddingSystem, loading_model


def _features(output) -> torch.Tensor:
    """transformers 4 returns the projected features; 5 returns an output whose pooler_output holds them."""
    return output if isinstance(output, torch.Tensor) else output.pooler_output


class ClapEncoders:
    """A ClapModel and its processor as encode_text / encode_audio, gradients kept (the training loop
    fine-tunes through them; `build` wraps them for inference)."""

    def __init__(self, model, processor):
        self.model, self.processor = model, processor
        self.sampling_rate = processor.feature_extractor.sampling_rate
        # an unfused model takes one mel channel: never hand it the 4-channel "fusion" input
        self.truncation = "fusion" if getattr(model.config, "enable_fusion", False) else "rand_trunc"
        self.audio_keyword = "audio" if "audio" in inspect.signature(processor.__call__).parameters else "audios"

    @classmethod
    def from_pretrained(cls, location: str, device: str = "cpu") -> "ClapEncoders":
        from transformers import ClapModel, ClapProcessor

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


def build(location: str, device: str = "cpu") -> EmbeddingSystem:
    """CLAP via transformers (clap:laion/clap-htsat-unfused, or a local folder); audio resampled to its rate."""
    clap = ClapEncoders.from_pretrained(location, device)
    clap.model.eval()
    return EmbeddingSystem(f"clap:{location}", torch.inference_mode()(clap.encode_text),
                           torch.inference_mode()(clap.encode_audio),
                           sampling_rate=clap.sampling_rate, identity=model_identity(f"clap:{location}", location, clap.model))


def model_identity(name: str, location: str, model) -> str | None:
    """What the embedding cache keys a model on: a local folder's files (names, sizes, modification times),
    or the Hub commit transformers resolved (None, so no cache, when it resolved none)."""
    folder = Path(location)
    if folder.is_dir():
        files = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir() if p.is_file())
        return f"{name}#{hashlib.sha256(repr(files).encode()).hexdigest()[:16]}"
    commit = getattr(model.config, "_commit_hash", None)
    return f"{name}@{commit}" if commit else None
