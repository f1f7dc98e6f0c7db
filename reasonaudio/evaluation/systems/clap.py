"""`clap:PATH_OR_ID`: a CLAP model through transformers' ClapModel / ClapProcessor."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reasonaudio.models.scoring import EmbeddingSystem


def build(location: str, device: str = "cpu") -> EmbeddingSystem:
    """CLAP via transformers (clap:laion/clap-htsat-unfused, or a local folder); audio resampled to its rate."""
    import torch

    from reasonaudio.models.clap import ClapEncoders
    from reasonaudio.models.scoring import EmbeddingSystem

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
