"""Streaming: a split read file by file, from a local folder or the Hub, without downloading it first;
audio decoded where the rows are read (in the DataLoader's workers), and a `collate_fn` that batches them.

`load_dataset(..., streaming=True).with_format("torch")` alone does not batch: torch's default collate
refuses the audio decoder objects that `datasets` yields, and zips per-row lists (`events`,
`candidates`) across the batch, failing when they differ in length. `collate_reasonaudio` batches rows
of any table, streamed or not; `StreamingTriplets` (in `training.triplets`) streams training items.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import datasets
import numpy as np

from .loading import audio_decoder, check_source, corpus_of, damaged_file, load_table

DECODE_BATCH = 16   # clips a streamed corpus decodes at a time (16 x 10 s at 48 kHz: 31 MB)


@dataclass(frozen=True)
class StreamedSplit:
    queries: datasets.IterableDataset
    corpus: datasets.IterableDataset      # "audio" yields {"array": float32 mono, "sampling_rate": int}
    qrels: datasets.IterableDataset


def stream_table(path_or_repo: str, table: str, split: str) -> datasets.IterableDataset:
    """One table, streamed: one shard per Parquet file; a table that cannot be opened, or a local file that is
    damaged (truncated: read as it streams, it failed mid-way naming no file), is a one-line error."""
    problem = damaged_file(path_or_repo, table, split)
    if problem:
        raise ValueError(f"{problem}; `reasonaudio validate {path_or_repo}` lists every problem")
    try:
        return datasets.load_dataset(path_or_repo, table, split=split, streaming=True)
    except (ValueError, OSError) as error:
        cause = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise ValueError(f"cannot stream the {table} table of {path_or_repo} (split {split!r}): {cause}") from None


def split_queries(path_or_repo: str, split: str, task: str | None = None) -> datasets.Dataset:
    """The queries of a split (a small table, read whole), of one task when `task` is given."""
    check_source(path_or_repo, split)
    queries = load_table(path_or_repo, "queries", split)
    if task is None:
        return queries
    tasks = sorted(set(queries["task"]))
    if task not in tasks:
        raise ValueError(f"unknown task {task!r}; this split has {tasks}")
    return queries.filter(lambda t: t == task, input_columns="task")


def streamed_corpus(path_or_repo: str, split: str, acoustics: str | None = None) -> datasets.IterableDataset:
    """The clips of a split (under condition `acoustics`), streamed with their audio left encoded."""
    corpus = stream_table(path_or_repo, corpus_of(path_or_repo, split, acoustics), split)
    return corpus.cast_column("audio", datasets.Audio(decode=False))


def stream_reasonaudio(path_or_repo: str, task: str | None = None, split: str = "test",
                       sampling_rate: int | None = None, backend: str | None = None,
                       acoustics: str | None = None) -> StreamedSplit:
    """`load_reasonaudio`, streamed: a build too large to download first, read file by file.

    The corpus's audio is decoded as `load_reasonaudio` decodes it (the same arrays) while it is read. Feed a
    table to a DataLoader with `collate_fn=collate_reasonaudio`; each worker reads its own corpus files.

    Args:
        path_or_repo, task, split, sampling_rate, backend, acoustics: as `load_reasonaudio`.

    Returns:
        A `StreamedSplit` of three `datasets.IterableDataset`s: `queries`, `corpus` and `qrels`.
    """
    decoder = audio_decoder(sampling_rate, backend)  # checks the rate before any loading
    check_source(path_or_repo, split)
    corpus = streamed_corpus(path_or_repo, split, acoustics)
    streamed, qrels = stream_table(path_or_repo, "queries", split), stream_table(path_or_repo, "qrels", split)
    if task is not None:    # what the task keeps, from the (small) queries table read whole
        queries = split_queries(path_or_repo, split, task)
        kept_queries = set(queries["query_id"])
        kept_clips = {clip for candidates in queries["candidates"] for clip in candidates}
        streamed = streamed.filter(lambda q: q in kept_queries, input_columns="query_id")
        corpus = corpus.filter(lambda t: t == task, input_columns="task")
        qrels = qrels.filter(lambda q, c: q in kept_queries and c in kept_clips, input_columns=["query_id", "clip_id"])
    return StreamedSplit(streamed, corpus.map(decoder, batched=True, batch_size=DECODE_BATCH), qrels)


def collate_reasonaudio(rows: list[dict]) -> dict:
    """A DataLoader `collate_fn` for rows of any ReasonAudio table, streamed or not, in any format
    (`with_format("torch")` too).

    Args:
        rows: the rows of one batch, as a table yields them.

    Returns:
        The batch as a dict of columns: audio (decoded {"array", "sampling_rate"} or the decoder objects
        `datasets` yields) becomes {"array": float32 (rows, samples), zero-padded to the longest,
        "num_samples", "sampling_rate"}; numbers become tensors; text, ids and per-row lists (`events`,
        `candidates`, `hard_negatives`) stay one Python value per row.
    """
    from torch.utils.data import default_collate

    batch = {}
    for key in rows[0]:
        values = [row[key] for row in rows]
        if all(map(_is_audio, values)):
            batch[key] = _collate_audio(values)
        elif all(map(_is_number, values)):
            batch[key] = default_collate(values)
        else:
            batch[key] = values
    return batch


def _is_audio(value) -> bool:
    return (isinstance(value, dict) and {"array", "sampling_rate"} <= set(value)) or hasattr(value, "get_all_samples")


def _is_number(value) -> bool:
    return isinstance(value, (numbers.Number, np.generic)) or getattr(value, "ndim", None) == 0


def _collate_audio(values: list) -> dict:
    import torch

    arrays, rates = [], []
    for value in values:
        if isinstance(value, dict):
            arrays.append(torch.as_tensor(value["array"], dtype=torch.float32))
            rates.append(int(value["sampling_rate"]))
        else:                                   # datasets' torchcodec decoder: (channels, samples), mixed to mono
            samples = value.get_all_samples()
            arrays.append(samples.data.mean(dim=0).to(torch.float32))
            rates.append(int(samples.sample_rate))
    return {"array": torch.nn.utils.rnn.pad_sequence(arrays, batch_first=True),
            "num_samples": torch.tensor([len(a) for a in arrays]), "sampling_rate": torch.tensor(rates)}
