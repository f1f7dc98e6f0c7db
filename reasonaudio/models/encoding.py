"""Encoding in chunks: shared across torch.distributed ranks, cached on disk.

The unit of work is a chunk of `CHUNK` consecutive items (queries or clips; more when a batch is larger).
When `reasonaudio evaluate` runs under `torchrun` (or `accelerate launch`), rank r encodes chunks r, r + N,
r + 2N, ... and `all_gather_object` hands every chunk to every rank, so each rank holds the same
(items x width) matrix as one process would; called from a user's own DDP script, nothing is shared. With a
cache folder, each finished chunk is saved as it completes: a second run, or one after a crash, loads
what is there and encodes only the rest. The cache is content-addressed: a folder per model identity,
item kind and sampling rate, and in it one file per chunk named by the hash of what the chunk holds (the
clips' encoded audio bytes, the queries' texts). So another model never hits, a swapped clip or an edited
text re-encodes only its chunk, and an unchanged clip hits whatever build, folder or id it comes under.
"""
from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np
import torch
from tqdm.auto import tqdm

from .distributed import distributed

CHUNK = 64


def chunk_size(batch_size: int) -> int:
    """Items per chunk: CHUNK, or a larger batch size rounded up to a multiple of CHUNK (so a chunk holds at
    least one whole batch; chunk boundaries stay on multiples of CHUNK, which the cache files are named by)."""
    return -(-max(CHUNK, batch_size) // CHUNK) * CHUNK


def cache_folder(root: str | Path | None, identity: str | None, kind: str, sampling_rate: int | None) -> Path | None:
    """Where the chunks of one (model, kind, rate) live; None when the model has no identity."""
    if root is None or identity is None:
        return None
    key = json.dumps([identity, kind, sampling_rate])
    return Path(root) / hashlib.sha256(key.encode()).hexdigest()[:24] / kind


def encode_chunked(count: int, encode_rows: Callable[[range], torch.Tensor], cache: Path | None,
                   what: str, progress: bool = True, size: int = CHUNK, shared: bool = False,
                   content_key: Callable[[range], str] | None = None) -> torch.Tensor:
    """The (count x width) float32 matrix that `encode_rows(range)` gives chunk by chunk (`size` items each),
    each chunk loaded from `cache` when saved there under `content_key(rows)` (the hash of what the rows
    hold), else encoded and saved. With `shared` (set only by a launcher-run CLI), this rank encodes its
    share of the chunks and every rank gets all of them. The progress bar (rank 0's) counts this rank's
    `what` (queries, clips), cached ones included, and says it is that rank's share."""
    rank, world = distributed() if shared else (0, 1)
    mine: dict[int, np.ndarray] = {}
    indices = range(rank, -(-count // size), world)
    share = f" (rank 0's share of {count:,}, {world} processes)" if world > 1 else ""
    bar = tqdm(total=sum(min(size, count - i * size) for i in indices), desc=f"encoding {what}{share}", unit=what,
               disable=not progress or rank != 0)
    for index in indices:
        rows = range(index * size, min(count, (index + 1) * size))
        path = cache / f"{content_key(rows)}.npy" if cache is not None and content_key else None
        if path is not None and path.is_file():
            mine[index] = _load(path, len(rows))
        else:
            mine[index] = encode_rows(rows).cpu().numpy()
            if path is not None:
                _save(path, mine[index])
        bar.update(len(rows))
    bar.close()
    if world > 1:
        shares: list = [None] * world
        torch.distributed.all_gather_object(shares, mine)
        mine = {index: array for share in shares for index, array in share.items()}
    widths = {array.shape[1] for array in mine.values()}
    if len(widths) > 1:
        raise ValueError(f"the model gave vectors of several widths {sorted(widths)} across chunks"
                         + (f" (a stale cache in {cache}? delete it)" if cache else ""))
    if not mine:
        return torch.empty(0, 0)
    return torch.from_numpy(np.concatenate([mine[index] for index in sorted(mine)]))


def _load(path: Path, rows: int) -> np.ndarray:
    """A saved chunk, or a one-line error naming the file to delete (a truncated or foreign file)."""
    try:
        array = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as error:
        raise ValueError(f"the embedding cache file {path} is unreadable ({type(error).__name__}): delete it, or "
                         "run with --no-cache") from None
    if array.ndim != 2 or len(array) != rows or not np.isfinite(array).all():
        raise ValueError(f"the embedding cache file {path} holds {array.shape} values, not {rows} finite vectors: "
                         "delete it, or run with --no-cache")
    return array


def _save(path: Path, array: np.ndarray) -> None:
    """Write a chunk whole or not at all, under a name no other process writes (concurrent runs may share
    a cache: the last complete file wins, and every complete file holds the same vectors). A full or
    read-only cache disk is one line naming the cache; no partial file is left."""
    partial = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".partial",
                                         delete=False) as handle:
            partial = Path(handle.name)
            np.save(handle, array)
        partial.replace(path)
    except BaseException as error:
        if partial is not None:
            partial.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise OSError(f"cannot write the embedding cache in {path.parent} ({error.strerror or error}): free "
                          "space there, move it with --cache or REASONAUDIO_CACHE, or run with --no-cache") from None
        raise
