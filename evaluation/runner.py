"""Score a system on a split: similarity on the device, reduced by the metric's functional core."""
from __future__ import annotations

import torch

from reasonaudio_metric.functional import score

from .systems import EmbeddingSystem, EvalData, System

MODES = ("group", "corpus")


def group_matrix(full: torch.Tensor, data: EvalData) -> torch.Tensor:
    """(queries x candidates) out of (queries x corpus): row i scores queries[i]["candidates"] in order."""
    column = {clip: j for j, clip in enumerate(data.corpus["clip_id"])}
    try:
        index = [[column[clip] for clip in group] for group in data.queries["candidates"]]
    except KeyError as error:
        raise ValueError(f"a candidate is missing from the corpus: {error}") from None
    return full.gather(1, torch.as_tensor(index, device=full.device))


def run(system: System, data: EvalData, mode: str = "group", device: str = "cpu", batch_size: int = 32,
        bootstrap: int = 1000, seed: int = 0, progress: bool = True) -> dict:
    """The metric's result dict for `system` on `data`."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    full = system.similarity(data, device=device, batch_size=batch_size, progress=progress)
    if mode == "group":
        return score(group_matrix(full, data), data.queries, bootstrap=bootstrap, seed=seed)
    return score(full, data.queries, list(data.corpus["clip_id"]), data.qrels, bootstrap=bootstrap, seed=seed)


def evaluate_encoders(data: str | EvalData, encode_text, encode_audio, sampling_rate: int | None = None,
                      mode: str = "group", split: str = "test", device: str = "cpu", batch_size: int = 32,
                      bootstrap: int = 1000, seed: int = 0, name: str = "custom", progress: bool = True) -> dict:
    """Score any model given as two functions: texts -> vectors and mono float32 arrays (at
    `sampling_rate`) -> vectors, e.g. an MLLM embedder on your GPU."""
    data = data if isinstance(data, EvalData) else EvalData.load(data, split)
    system = EmbeddingSystem(name, encode_text, encode_audio, sampling_rate)
    return run(system, data, mode, device, batch_size, bootstrap, seed, progress)
