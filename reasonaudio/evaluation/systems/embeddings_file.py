"""`embeddings:FILE`: precomputed embeddings, from any framework, scored without writing Python.

FILE is `.npz` or `.parquet`, written by `reasonaudio.evaluation.save_embeddings` (which stores the plan
fingerprint of the build the vectors are of, so that another build is refused) or by hand:

* `.npz`: arrays `query_id` (strings), `query_embedding` (queries x width), `clip_id`, `clip_embedding`
  (clips x width);
* `.parquet`: one row per vector, columns `query_id` (null on clip rows), `clip_id` (null on query rows)
  and `embedding` (list of floats).

Every query of the split and every clip of its corpus must be there (extra ids are ignored); scores are
cosine similarities, as for every embedding model, of each vector normalised in the file's own precision
(float64 vectors of any finite magnitude keep their directions).
"""
from __future__ import annotations

import logging
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from reasonaudio.models.system import VectorSystem

if TYPE_CHECKING:
    import torch

log = logging.getLogger(__name__)


def save_embeddings(path, query_ids, query_embeddings, clip_ids, clip_embeddings, build: str | None = None,
                    split: str = "test") -> Path:
    """Write embeddings in the format `--model embeddings:FILE` reads (.npz or .parquet, by suffix).

    Args:
        path: the file to write (.npz or .parquet).
        query_ids, query_embeddings: one vector per query id; clip_ids, clip_embeddings: one per clip id.
        build, split: the build (folder or Hub id) and split the vectors were computed on: its plan fingerprint is
            stored, and scoring the file on another build (regenerated with another seed: the same ids, other
            clips) is refused. Without it the file cannot be checked, and evaluate warns.

    The vectors are stored as float32 unit vectors (cosine is scale-free), normalised in their own precision
    first: float64 vectors of any finite magnitude keep their directions. NaN, inf and all-zero vectors are
    refused, as evaluate would refuse them.

    Returns:
        The path written.
    """
    path = Path(path)
    query_ids, clip_ids = list(query_ids), list(clip_ids)
    queries = _unit("query", query_ids, _vectors("query", query_ids, query_embeddings, path), f"embeddings:{path}")
    clips = _unit("clip", clip_ids, _vectors("clip", clip_ids, clip_embeddings, path), f"embeddings:{path}")
    queries, clips = queries.numpy(), clips.numpy()
    fingerprint = _fingerprint_of(build, split) if build is not None else ""
    if path.suffix == ".npz":
        np.savez(path, query_id=np.asarray(query_ids, str), query_embedding=queries,
                 clip_id=np.asarray(clip_ids, str), clip_embedding=clips, build_fingerprint=np.asarray(fingerprint))
    elif path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = len(queries) + len(clips)
        pq.write_table(pa.table({
            "query_id": pa.array(list(query_ids) + [None] * len(clips), pa.string()),
            "clip_id": pa.array([None] * len(queries) + list(clip_ids), pa.string()),
            "embedding": pa.array(list(queries) + list(clips), pa.list_(pa.float32()), size=rows),
        }).replace_schema_metadata({BUILD_KEY: fingerprint}), path)
    else:
        raise ValueError(f"embeddings file {path}: use a .npz or .parquet suffix")
    return path


def _vectors(kind: str, ids: list, values, path: Path) -> torch.Tensor:
    """`values` as one row of real numbers per id, in their own dtype: a float32 cast would turn float64
    vectors of magnitude 1e-50 into zeros and of 1e50 into inf (`unit_rows` scales them losslessly)."""
    from reasonaudio.models.scoring import real_vectors

    try:
        vectors = real_vectors(values).cpu()
    except ValueError as error:
        raise ValueError(f"embeddings:{path}: the {kind} vectors are {error}") from None
    if vectors.ndim != 2 or len(vectors) != len(ids) or not ids:
        raise ValueError(f"embeddings {path}: {len(ids)} {kind} ids and {kind} vectors of shape {tuple(vectors.shape)}; "
                         "expected one vector (a row) per id, at least one")
    return vectors


def _unit(kind: str, ids: list, vectors: torch.Tensor, name: str) -> torch.Tensor:
    """`vectors` (one per id) at unit length; NaN, inf or a vector of zeros (no direction: it would score 0
    against every clip, silently) is refused, naming the file `name` and the first ids it is at."""
    from reasonaudio.models.scoring import unit_rows

    for wrong, what in (((~vectors.isfinite()).any(dim=1), "hold NaN or inf"),
                        ((vectors == 0).all(dim=1), "are all zeros (no direction to score)")):
        if bool(wrong.any()):
            at = [ids[i] for i in wrong.nonzero()[:3, 0].tolist()]
            raise ValueError(f"{name}: {int(wrong.sum())} of the {kind} vectors {what}, e.g. those of {at}")
    return unit_rows(vectors)


BUILD_KEY = "reasonaudio_build_fingerprint"    # Parquet metadata (an .npz holds the array build_fingerprint)


def _fingerprint_of(build: str, split: str) -> str:
    from reasonaudio_dataset.identity import read_record

    fingerprint = read_record(build, split).get("fingerprint")
    if not fingerprint:
        raise ValueError(f"build={build!r}: no split {split!r} generated there (no record): name the build the "
                         "vectors were computed on")
    return fingerprint


def stored_build(path) -> str | None:
    """The plan fingerprint of the build a file's vectors were computed on (`save_embeddings(build=...)`), or None."""
    path = Path(path)
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as arrays:
            found = str(arrays["build_fingerprint"]) if "build_fingerprint" in arrays.files else ""
    else:
        import pyarrow.parquet as pq

        found = (pq.read_schema(path).metadata or {}).get(BUILD_KEY.encode(), b"").decode()
    return found or None


def load_embeddings(path) -> dict[str, tuple[list[str], np.ndarray]]:
    """{"query": (ids, vectors), "clip": (ids, vectors)} from a file `save_embeddings` wrote."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"embeddings:{path}: no such file")
    if path.suffix == ".npz":
        try:
            archive = np.load(path, allow_pickle=False)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as error:
            archive, cause = None, type(error).__name__
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise ValueError(f"embeddings:{path} is not a readable .npz archive ({cause if archive is None else 'a bare array'}"
                             "); write it with evaluation.save_embeddings or numpy.savez")
        with archive as arrays:
            missing = {"query_id", "query_embedding", "clip_id", "clip_embedding"} - set(arrays.files)
            if missing:
                raise ValueError(f"embeddings:{path} lacks the arrays {sorted(missing)}")
            found = {}
            for kind in ("query", "clip"):
                try:
                    ids, values = arrays[f"{kind}_id"].astype(str).tolist(), arrays[f"{kind}_embedding"]
                except ValueError:   # an object array, which allow_pickle=False will not load
                    raise ValueError(f"embeddings:{path}: {kind}_id or {kind}_embedding is an array of Python "
                                     "objects; save strings and numbers") from None
                found[kind] = (ids, _vectors(kind, ids, values, path).numpy())
    elif path.suffix == ".parquet":
        import pyarrow
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(path)
        except (pyarrow.ArrowException, OSError) as error:
            raise ValueError(f"embeddings:{path} is not a readable Parquet file ({type(error).__name__})") from None
        if not {"query_id", "clip_id", "embedding"} <= set(table.column_names):
            raise ValueError(f"embeddings:{path} needs the columns query_id, clip_id, embedding; it has "
                             f"{table.column_names}")
        found = {}
        for kind in ("query", "clip"):
            ids = table.column(f"{kind}_id")
            rows = table.filter(ids.is_valid())
            vectors = rows.column("embedding").to_pylist()
            if len({len(v) if v is not None else -1 for v in vectors}) > 1:
                raise ValueError(f"embeddings:{path}: the {kind} vectors have several widths (or a null)")
            ids = rows.column(f"{kind}_id").to_pylist()
            found[kind] = (ids, _vectors(kind, ids, np.asarray(vectors), path).numpy())
    else:
        raise ValueError(f"embeddings:{path}: expected a .npz or .parquet file")
    return found


class PrecomputedEmbeddings(VectorSystem):
    def __init__(self, path: str):
        self.name, self.path, self.stored = f"embeddings:{path}", path, load_embeddings(path)

    def _check_build(self, data) -> None:
        """Vectors of one build score no other: regenerated with another seed, a build keeps its ids."""
        from reasonaudio_dataset.identity import read_record

        stored, scored = stored_build(self.path), read_record(data.source, data.split).get("fingerprint")
        if stored is None:
            log.warning("%s names no build (save_embeddings(..., build=BUILD) stores it): it is scored as if its "
                        "vectors were computed on %s", self.name, data.source)
        elif scored is not None and stored != scored:
            raise ValueError(f"{self.name} holds vectors of another build (plan {stored}) than {data.source} "
                             f"(plan {scored}; regenerated?): encode this build again")

    def _aligned(self, kind: str, wanted: list[str]) -> torch.Tensor:
        import torch

        ids, vectors = self.stored[kind]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{self.name}: some {kind} ids appear twice")
        row = {identifier: i for i, identifier in enumerate(ids)}
        missing = [identifier for identifier in wanted if identifier not in row]
        if missing:
            raise ValueError(f"{self.name} has no vector for {len(missing)} of the split's {len(wanted)} {kind} ids, "
                             f"e.g. {missing[:3]}")
        return _unit(kind, wanted, torch.from_numpy(vectors[[row[identifier] for identifier in wanted]]), self.name)

    def vectors(self, data, device="cpu", batch_size=32, progress=True) -> tuple[torch.Tensor, torch.Tensor]:
        if data.acoustics is not None:   # every condition's clips share their ids: the file cannot say which it holds
            raise ValueError(f"{self.name} scores the vectors in the file, whatever the acoustic condition: leave out "
                             "--acoustics and pass the file computed on that condition's clips")
        self._check_build(data)
        queries = self._aligned("query", list(data.queries["query_id"]))
        clips = self._aligned("clip", list(data.corpus["clip_id"]))
        if queries.shape[1] != clips.shape[1]:
            raise ValueError(f"{self.name}: query vectors are {queries.shape[1]}-dim, clip vectors {clips.shape[1]}-dim")
        return queries, clips


def build(location: str, device: str = "cpu") -> PrecomputedEmbeddings:
    """precomputed vectors: embeddings:FILE.npz or .parquet keyed by query_id and clip_id (docs/design.md)"""
    if not location:
        raise ValueError("embeddings needs a file: embeddings:FILE.npz or embeddings:FILE.parquet")
    return PrecomputedEmbeddings(location)
