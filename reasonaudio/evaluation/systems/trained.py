"""`trained:MODEL_DIR`: a model `reasonaudio train` wrote (its `reasonaudio_model.json` names the kind)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .clap import model_identity

if TYPE_CHECKING:
    from reasonaudio.models.scoring import EmbeddingSystem


def build(location: str, device: str = "cpu") -> EmbeddingSystem:
    """a model `reasonaudio train` wrote: trained:MODEL_DIR (small or fine-tuned CLAP)"""
    if not location:
        raise ValueError("trained needs a folder: trained:MODEL_DIR (written by reasonaudio train --out MODEL_DIR)")
    from reasonaudio.models.registry import load
    from reasonaudio.models.scoring import system_of

    model = load(Path(location), device)
    return system_of(model, f"trained:{location}", model_identity(f"trained:{location}", location, None))
