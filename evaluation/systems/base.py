"""What a scored system is: something that gives every (query, clip) pair of a split a similarity."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import datasets
import numpy as np
import torch
from tqdm.auto import tqdm

from reasonaudio_dataset.loading import audio_decoder, load_reasonaudio


@dataclass
class EvalData:
    """One split's tables; `corpus` keeps its audio encoded (systems decode at the rate they need)."""

    queries: datasets.Dataset
    corpus: datasets.Dataset
    qrels: datasets.Dataset
    source: str

    @classmethod
    def load(cls, path_or_repo: str, split: str = "test") -> "EvalData":
        try:
            tables = load_reasonaudio(path_or_repo, split=split)
        except ValueError as error:  # a split the folder lacks
            raise ValueError(f"{path_or_repo} has no split {split!r}: {error}") from None
        return cls(tables.queries, tables.corpus.with_format(None), tables.qrels, path_or_repo)

    def audio_batches(self, sampling_rate: int | None, batch_size: int, progress: bool = True):
        """Lists of mono float32 arrays in corpus order, resampled to `sampling_rate`."""
        decoded = self.corpus.select_columns(["audio"]).with_transform(audio_decoder(sampling_rate))
        for start in tqdm(range(0, len(decoded), batch_size), desc="encoding clips", unit="batch", disable=not progress):
            yield [cell["array"] for cell in decoded[start:start + batch_size]["audio"]]


class System:
    """A model or baseline under evaluation. `similarity` returns (queries x corpus clips), on `device`."""

    name = ""

    def similarity(self, data: EvalData, device: str = "cpu", batch_size: int = 32,
                   progress: bool = True) -> torch.Tensor:
        raise NotImplementedError


Encoder = Callable[[Sequence], "np.ndarray | torch.Tensor"]


def normalised(vectors, device: str) -> torch.Tensor:
    vectors = torch.as_tensor(vectors).to(device=device, dtype=torch.float32)
    return torch.nn.functional.normalize(vectors, dim=-1)


def encode_texts(encode: Encoder, texts: Sequence[str], device: str, batch_size: int, desc: str,
                 progress: bool = True) -> torch.Tensor:
    """Unit vectors of `texts`, encoded in batches with a progress bar."""
    return torch.cat([normalised(encode(texts[i:i + batch_size]), device)
                      for i in tqdm(range(0, len(texts), batch_size), desc=desc, unit="batch", disable=not progress)])


class EmbeddingSystem(System):
    """Any model as two encode functions: texts -> vectors, audio arrays -> vectors; cosine similarity."""

    def __init__(self, name: str, encode_text: Encoder, encode_audio: Encoder, sampling_rate: int | None = None):
        self.name, self.encode_text, self.encode_audio, self.sampling_rate = name, encode_text, encode_audio, sampling_rate

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        queries = encode_texts(self.encode_text, list(data.queries["text"]), device, batch_size, "encoding queries",
                               progress)
        clips = torch.cat([normalised(self.encode_audio(batch), device)
                           for batch in data.audio_batches(self.sampling_rate, batch_size, progress)])
        return queries @ clips.T
