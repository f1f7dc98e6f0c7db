"""How a model is scored on a split: the split as scored (`EvalData`), a scored system (`System`, declared in the
light models/system.py with what a split's annotations say: a similarity for every (query, clip) pair;
`EmbeddingSystem`: two encode functions and their cosine) and the benchmark's headline of one (`group_accuracy`,
through the metric). Training validates with it after every epoch; evaluation's runner and systems build on it."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Iterable, Sequence

import datasets
import numpy as np
import torch
from tqdm.auto import tqdm

from reasonaudio.core.phrases import sources_phrases
from reasonaudio_dataset.loading import audio_decoder, check_sampling_rate, load_reasonaudio, load_table
from reasonaudio_metric.functional import score

from .encoding import cache_folder, chunk_size, encode_chunked
# the light base classes (models/system.py), here too for whoever scores
from .system import (System, VectorSystem, candidate_index, clip_events, group_matrix,  # noqa: F401
                     query_atoms, whole_similarity)

@dataclass
class EvalData:
    """One split's tables; `corpus` keeps its audio encoded (systems decode at the rate they need).
    `sources` (the atomic sounds, for their phrases) is read on first use: only text-aware baselines need it."""

    queries: datasets.Dataset
    corpus: datasets.Dataset
    qrels: datasets.Dataset
    source: str
    split: str = "test"
    sources: datasets.Dataset | None = None
    acoustics: str | None = None       # the acoustic condition of `corpus` (None: the main corpus)
    # the audio column decoded at a rate, made once: each chunk of an encoding reads it (a view per chunk copies
    # the features every time, seconds on the default split)
    _decoded: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def load(cls, path_or_repo: str, split: str = "test", acoustics: str | None = None) -> "EvalData":
        tables = load_reasonaudio(path_or_repo, split=split, acoustics=acoustics)
        return cls(tables.queries, tables.corpus.with_format(None), tables.qrels, path_or_repo, split,
                   acoustics=acoustics)

    def phrases(self) -> dict[str, set[str]]:
        """Every phrase the split's atomic sounds give each label: how the query texts name the sounds."""
        if self.sources is None:
            self.sources = load_table(self.source, "sources", self.split)
        return {label: set(said) for label, said in
                sources_phrases(zip(self.sources["label"], self.sources["phrase"])).items()}

    def audio_batches(self, sampling_rate: int | None, batch_size: int, progress: bool = True,
                      rows: range | None = None):
        """Lists of mono float32 arrays in corpus order (of `rows`, default all), resampled to `sampling_rate`."""
        rows = rows if rows is not None else range(len(self.corpus))
        key = (sampling_rate, getattr(self.corpus, "_fingerprint", id(self.corpus)))    # a corpus replaced: anew
        if key not in self._decoded:
            self._decoded[key] = self.corpus.select_columns(["audio"]).with_transform(audio_decoder(sampling_rate))
        decoded = self._decoded[key]
        for start in tqdm(range(rows.start, rows.stop, batch_size), desc="encoding clips", unit="batch",
                          disable=not progress):
            yield [cell["array"] for cell in decoded[start:min(start + batch_size, rows.stop)]["audio"]]

    def content_key(self, what: str, rows: range) -> str:
        """The hash of what `rows` of the queries (their texts) or clips (their encoded audio bytes) hold:
        the embedding cache's key for a chunk, so that no edit or swap is ever served an old vector."""
        hasher = hashlib.sha256(what.encode())
        if what == "queries":
            for text in self.queries.select(rows)["text"]:
                hasher.update(hashlib.sha256(text.encode()).digest())
        else:
            for cell in self.corpus.select_columns(["audio"]).select(rows)["audio"]:
                hasher.update(hashlib.sha256(cell["bytes"]).digest())
        return hasher.hexdigest()[:40]


Encoder = Callable[[Sequence], "np.ndarray | torch.Tensor"]


def encode_batches(encode: Encoder, batches: Iterable[Sequence], device: str, name: str, unit: str,
                   width: tuple[int, str] | None = None, first: int = 0, batch_size: int | None = None) -> torch.Tensor:
    """Unit vectors, one per item of every batch, checked batch by batch: a wrong count, a NaN or inf, or
    a width other than `width` (its size and where it came from) names the batch instead of giving a
    silently wrong score or a raw torch error. Batches of a chunk that starts at item `first` are named by
    their place in the whole table (their number needs `batch_size` and a chunk aligned to it)."""
    parts, start = [], first
    for number, batch in enumerate(batches):
        aligned = first == 0 or batch_size and first % batch_size == 0
        index = f"batch {first // batch_size + number if first else number}" if aligned else "a batch"
        where = f"{index} ({unit} {start}-{start + len(batch) - 1}) of {len(batch)} {unit}"
        output = encode(batch)
        try:
            vectors = real_vectors(output)
        except ValueError as error:
            raise ValueError(f"{name} returned {error}, for {where}") from None
        if vectors.ndim != 2 or len(vectors) != len(batch):
            got = f"{len(vectors)} vectors" if vectors.ndim == 2 else f"an array of shape {tuple(vectors.shape)}"
            raise ValueError(f"{name} returned {got} for {where}")
        vectors = vectors.to(device=device)
        if not bool(vectors.isfinite().all()):
            raise ValueError(f"{name} returned NaN or inf for {where}")
        width = width or (vectors.shape[1], "its batch 0")
        if vectors.shape[1] != width[0]:
            raise ValueError(f"{name} returned {vectors.shape[1]}-dim vectors for {where}; {width[1]} gave "
                             f"{width[0]}-dim ones")
        parts.append(unit_rows(vectors))
        start += len(batch)
    return torch.cat(parts)


def real_vectors(values) -> torch.Tensor:
    """`values` (an array, tensor or nested list) as a tensor in its own dtype, for `unit_rows` to scale
    without a lossy cast. Complex values (a cast keeps their real part alone, with only a warning), bools
    and anything not numbers are refused.

    Args:
        values: what a model or a file gave as vectors.

    Returns:
        A tensor of integers or floats, detached.

    Raises:
        ValueError: what `values` hold instead, for the caller to say whose they are.
    """
    try:
        vectors = torch.as_tensor(values).detach()
    except (TypeError, ValueError, RuntimeError):
        held = f"an array of {values.dtype}" if isinstance(values, np.ndarray) else f"a {type(values).__name__}"
        raise ValueError(f"{held}, not vectors") from None
    if vectors.is_complex() or vectors.dtype == torch.bool:
        fix = ".real, .abs() or both parts side by side" if vectors.is_complex() else "cast the flags to float"
        raise ValueError(f"{str(vectors.dtype).removeprefix('torch.')} values, not real numbers ({fix})")
    return vectors


SAFE_PEAK = (1e-15, 1e15)   # a row whose largest entry lies here squares and sums in float32 without loss


def unit_rows(vectors: torch.Tensor) -> torch.Tensor:
    """Each row at unit length, as float32, whatever its magnitude, so that cosine similarity is scale-free for
    every finite input: a row whose largest entry is outside SAFE_PEAK is first divided by that entry (its
    squares would overflow, x 1e30, or underflow to zero, x 1e-35); other rows are normalised as they are."""
    vectors = vectors if vectors.is_floating_point() else vectors.double()
    peak = vectors.abs().amax(dim=-1, keepdim=True)
    rescale = (peak > 0) & ((peak < SAFE_PEAK[0]) | (peak > SAFE_PEAK[1]))
    vectors = torch.where(rescale, vectors / torch.where(rescale, peak, torch.ones_like(peak)), vectors)
    return torch.nn.functional.normalize(vectors.to(torch.float32), dim=-1)


def encode_texts(encode: Encoder, texts: Sequence[str], device: str, batch_size: int, what: str,
                 progress: bool = True, name: str = "the text model", first: int = 0) -> torch.Tensor:
    """Unit vectors of `texts` (`what` they are: queries, captions; the first at item `first` of its table),
    in batches with a progress bar."""
    starts = tqdm(range(0, len(texts), batch_size), desc=f"encoding {what}", unit="batch", disable=not progress)
    return encode_batches(encode, (texts[i:i + batch_size] for i in starts), device, name, what, first=first,
                          batch_size=batch_size)


class EmbeddingSystem(VectorSystem):
    """Any model as two encode functions: texts -> vectors, audio arrays -> vectors; cosine similarity.

    Encoding runs in chunks (models/encoding.py): saved under `cache_root` when it is set and the
    model has an `identity` (a second or resumed run does not re-encode), and shared across the ranks of
    a launcher's process group when `shared` is set (the CLI sets both)."""

    cache_root = None
    shared = False

    def __init__(self, name: str, encode_text: Encoder, encode_audio: Encoder, sampling_rate: int | None = None,
                 identity: str | None = None):
        check_sampling_rate(sampling_rate)
        self.name, self.encode_text, self.encode_audio, self.sampling_rate = name, encode_text, encode_audio, sampling_rate
        self.identity = identity

    def _cache(self, what: str, rate: int | None = None):
        return cache_folder(self.cache_root, self.identity, what, rate) if self.cache_root else None

    def vectors(self, data, device="cpu", batch_size=32, progress=True) -> tuple[torch.Tensor, torch.Tensor]:
        texts, size = list(data.queries["text"]), chunk_size(batch_size)
        queries = encode_chunked(len(texts), lambda rows: encode_texts(
            self.encode_text, texts[rows.start:rows.stop], "cpu", batch_size, "queries", False,
            f"{self.name}'s encode_text", rows.start),
            self._cache("queries"), "queries", progress, size, self.shared, partial(data.content_key, "queries"))
        clips = encode_chunked(len(data.corpus), lambda rows: encode_batches(
            self.encode_audio, data.audio_batches(self.sampling_rate, batch_size, False, rows), "cpu",
            f"{self.name}'s encode_audio", "clips", (queries.shape[1], "encode_text"), rows.start, batch_size),
            self._cache("clips", self.sampling_rate), "clips", progress, size, self.shared,
            partial(data.content_key, "clips"))
        return queries, clips


def system_of(model, name: str, identity: str | None = None) -> EmbeddingSystem:
    """A model with encode_text / encode_audio (a torch module) as a scored system: eval mode, no gradients.
    Training validates through it; `trained:` loads a folder into it."""
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


def group_accuracy(system: System, data: EvalData, device: str = "cpu", batch_size: int = 32) -> float:
    """Group accuracy of `system` on `data` (macro over tasks, the benchmark's headline), without intervals."""
    group = system.group_similarity(data, device=device, batch_size=batch_size, progress=False)
    return score(group, data.queries, bootstrap=0)["average"]["accuracy"]
