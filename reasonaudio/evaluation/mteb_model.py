"""Any ReasonAudio model as an MTEB encoder: `mteb.evaluate(mteb_model("python:my.module:factory"), tasks=...)`.

It follows MTEB's encoder protocol (`encode` over MTEB's DataLoader of batches, cosine `similarity`,
`mteb_model_meta`). Audio arrives as datasets decodes it (a torchcodec AudioDecoder, or a dict with
array and sampling_rate) and is resampled here with soxr, so MTEB's torchaudio-based collator (a
CUDA-only wheel on PyPI for recent torch) is not needed.
"""
from __future__ import annotations

import hashlib

import numpy as np
import soxr
from mteb.models.abs_encoder import AbsEncoder
from mteb.models.model_meta import ModelMeta
from mteb.models.model_meta import ScoringFunction
from tqdm.auto import tqdm

from .systems import EmbeddingSystem, open_system


def _samples(audio, rate: int | None) -> np.ndarray:
    """Mono float32 samples of one decoded clip, at `rate` (None: as stored)."""
    if hasattr(audio, "get_all_samples"):
        decoded = audio.get_all_samples()
        array, source = decoded.data.numpy(), decoded.sample_rate
    else:
        array, source = np.asarray(audio["array"]), audio["sampling_rate"]
    array = array.mean(axis=0) if array.ndim == 2 else array
    array = array.astype(np.float32)
    if rate and rate != source:
        array = soxr.resample(array, source, rate).astype(np.float32)
    return array


class MtebEncoder(AbsEncoder):
    """An `EmbeddingSystem` (two encode functions and a sampling rate) behind MTEB's encoder protocol."""

    def __init__(self, system: EmbeddingSystem):
        self.system = system
        name = system.name.replace(":", "-").replace("/", "-")
        # MTEB's result cache is keyed by model name and revision: the revision follows the model's identity
        # (a retrained CLAP folder, a new cache_key), so new weights are never served old results
        identity = getattr(system, "identity", None)
        revision = hashlib.sha256(identity.encode()).hexdigest()[:12] if identity else "unversioned"
        self.mteb_model_meta = ModelMeta.create_empty(overwrites={
            "name": f"reasonaudio/{name}", "revision": revision, "modalities": ["text", "audio"],
            "similarity_fn_name": ScoringFunction.COSINE, "framework": ["PyTorch"]})

    def encode(self, inputs, *, task_metadata, hf_split, hf_subset, prompt_type=None, **kwargs) -> np.ndarray:
        parts = []
        for batch in tqdm(inputs, desc="encoding", unit="batch", disable=not kwargs.get("show_progress_bar", True)):
            if "audio" in batch:
                vectors = self.system.encode_audio([_samples(a, self.system.sampling_rate) for a in batch["audio"]])
            else:
                vectors = self.system.encode_text(list(batch["text"]))
            parts.append(np.asarray(vectors.detach().cpu() if hasattr(vectors, "detach") else vectors, np.float32))
        if not parts:
            raise ValueError(f"MTEB gave no inputs to encode for {task_metadata.name} ({hf_split})")
        return np.concatenate(parts)


def mteb_model(spec: str, device: str = "cpu") -> MtebEncoder:
    """The model a `reasonaudio evaluate --model` spec names (clap:, python:), as an MTEB encoder."""
    system = open_system(spec, device=device)
    if not isinstance(system, EmbeddingSystem):
        raise ValueError(f"{spec!r} does not encode texts and audio (baselines and precomputed embeddings have no "
                         "encoder to hand MTEB's batches to); use a clap: or python: model")
    return MtebEncoder(system)
