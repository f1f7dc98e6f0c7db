"""`clap:PATH_OR_ID`: a CLAP model through transformers' ClapModel / ClapProcessor."""
from __future__ import annotations

import hashlib
import inspect
from pathlib import Path

import torch

from .base import EmbeddingSystem, loading_model


def _features(output) -> torch.Tensor:
    """transformers 4 returns the projected features; 5 returns an output whose pooler_output holds them."""
    return output if isinstance(output, torch.Tensor) else output.pooler_output


def build(location: str, device: str = "cpu") -> EmbeddingSystem:
    """CLAP via transformers (clap:laion/clap-htsat-unfused, or a local folder); audio resampled to its rate."""
    from transformers import ClapModel, ClapProcessor

    if not location:
        raise ValueError("clap needs a model: clap:PATH_OR_ID, e.g. clap:laion/clap-htsat-unfused")
    with loading_model(f"clap:{location}"):
        model = ClapModel.from_pretrained(location).to(device).eval()
        processor = ClapProcessor.from_pretrained(location)
    rate = processor.feature_extractor.sampling_rate
    # an unfused model takes one mel channel: never hand it the 4-channel "fusion" input
    truncation = "fusion" if getattr(model.config, "enable_fusion", False) else "rand_trunc"
    audio_keyword = "audio" if "audio" in inspect.signature(processor.__call__).parameters else "audios"

    @torch.inference_mode()
    def encode_text(texts):
        inputs = processor(text=list(texts), return_tensors="pt", padding=True, truncation=True).to(device)
        return _features(model.get_text_features(**inputs))

    @torch.inference_mode()
    def encode_audio(arrays):
        inputs = processor(**{audio_keyword: list(arrays)}, sampling_rate=rate, truncation=truncation,
                           return_tensors="pt").to(device)
        return _features(model.get_audio_features(**inputs))

    return EmbeddingSystem(f"clap:{location}", encode_text, encode_audio, sampling_rate=rate,
                           identity=model_identity(f"clap:{location}", location, model))


def model_identity(name: str, location: str, model) -> str | None:
    """What the embedding cache keys a model on: a local folder's files (names, sizes, modification times),
    or the Hub commit transformers resolved (None, so no cache, when it resolved none)."""
    folder = Path(location)
    if folder.is_dir():
        files = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir() if p.is_file())
        return f"{name}#{hashlib.sha256(repr(files).encode()).hexdigest()[:16]}"
    commit = getattr(model.config, "_commit_hash", None)
    return f"{name}@{commit}" if commit else None
