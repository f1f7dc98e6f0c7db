"""`trained:MODEL_DIR`: a model `reasonaudio train` wrote (its `reasonaudio_model.json` names the kind)."""
from __future__ import annotations

from pathlib import Path

import torch

from .base import EmbeddingSystem
from .clap import model_identity


def system_of(model, name: str, identity: str | None = None) -> EmbeddingSystem:
    """A training model (torch module with encode_text / encode_audio) as a scored system: eval mode, no
    gradients. The training loop validates through it; `trained:` loads a folder into it."""
    def without_gradients(encode):
        def encode_in_eval_mode(items):
            was_training = model.training
            model.eval()
            try:
                with torch.inference_mode():
                    return encode(items)
            finally:
                model.train(was_training)
        return encode_in_eval_mode

    return EmbeddingSystem(name, without_gradients(model.encode_text), without_gradients(model.encode_audio),
                           model.sampling_rate, identity=identity)


def build(location: str, device: str = "cpu") -> EmbeddingSystem:
    """a model `reasonaudio train` wrote: trained:MODEL_DIR (small or fine-tuned CLAP)"""
    from training.models import load

    if not location:
        raise ValueError("trained needs a folder: trained:MODEL_DIR (written by reasonaudio train --out MODEL_DIR)")
    model = load(Path(location), device)
    return system_of(model, f"trained:{location}", model_identity(f"trained:{location}", location, None))
