"""Loading helpers: the three tables of a split, with audio decoded to plain arrays.

Audio decodes through torchcodec when it is installed (and FFmpeg's libraries load), through
soundfile otherwise; both give the same float32 samples. Resampling, when asked, is done by soxr
after decoding whatever the decoder, so the arrays stay identical either way.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache

import datasets
import numpy as np


@dataclass(frozen=True)
class ReasonAudioSplit:
    queries: datasets.Dataset
    corpus: datasets.Dataset      # "audio" yields {"array": float32 mono, "sampling_rate": int}
    qrels: datasets.Dataset


@lru_cache(maxsize=1)
def _torchcodec_usable() -> bool:
    try:
        from torchcodec.decoders import AudioDecoder  # noqa: F401 - loads FFmpeg's libraries
    except (ImportError, RuntimeError, OSError):
        return False
    return True


def decode_audio(data: bytes, backend: str | None = None) -> tuple[np.ndarray, int]:
    """Mono float32 samples and their rate, from encoded bytes (FLAC, WAV, ...)."""
    backend = backend or ("torchcodec" if _torchcodec_usable() else "soundfile")
    if backend == "torchcodec":
        from torchcodec.decoders import AudioDecoder

        samples = AudioDecoder(data).get_all_samples()
        return samples.data.numpy().mean(axis=0).astype(np.float32), int(samples.sample_rate)
    if backend == "soundfile":
        import soundfile

        samples, rate = soundfile.read(io.BytesIO(data), dtype="float32", always_2d=True)
        return samples.mean(axis=1), int(rate)
    raise ValueError(f"unknown audio backend {backend!r}; use 'torchcodec' or 'soundfile'")


def audio_decoder(sampling_rate: int | None = None, backend: str | None = None):
    """A `datasets` transform that turns the encoded `audio` column into arrays."""

    def transform(batch: dict) -> dict:
        decoded = []
        for cell in batch["audio"]:
            samples, rate = decode_audio(cell["bytes"], backend)
            if sampling_rate and rate != sampling_rate:
                import soxr

                samples, rate = soxr.resample(samples, rate, sampling_rate, quality="HQ").astype(np.float32), sampling_rate
            decoded.append({"array": samples, "sampling_rate": rate})
        return {**batch, "audio": decoded}

    return transform


def load_reasonaudio(path_or_repo: str, task: str | None = None, split: str = "test",
                     sampling_rate: int | None = None, backend: str | None = None) -> ReasonAudioSplit:
    """Queries, corpus and qrels of one split; `task` keeps that task's queries and clips only (and the
    qrels among them), so corpus retrieval then ranks within the task."""
    queries = datasets.load_dataset(path_or_repo, "queries", split=split)
    corpus = datasets.load_dataset(path_or_repo, "corpus", split=split)
    qrels = datasets.load_dataset(path_or_repo, "qrels", split=split)
    if task is not None:
        tasks = sorted(set(queries["task"]))
        if task not in tasks:
            raise ValueError(f"unknown task {task!r}; this split has {tasks}")
        queries = queries.filter(lambda t: t == task, input_columns="task")
        corpus = corpus.filter(lambda t: t == task, input_columns="task")
        kept_queries, kept_clips = set(queries["query_id"]), set(corpus["clip_id"])
        qrels = qrels.filter(lambda q, c: q in kept_queries and c in kept_clips, input_columns=["query_id", "clip_id"])
    corpus = corpus.cast_column("audio", datasets.Audio(decode=False)).with_transform(
        audio_decoder(sampling_rate, backend))
    return ReasonAudioSplit(queries, corpus, qrels)
