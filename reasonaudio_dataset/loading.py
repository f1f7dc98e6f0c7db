"""Loading helpers: the three tables of a split, with audio decoded to plain arrays.

Audio decodes through soundfile (libsndfile: FLAC, WAV, OGG, MP3), about 7x faster than torchcodec on
the corpus's FLAC clips, and through torchcodec (when it and FFmpeg's libraries load) for what soundfile
cannot read; both give the same float32 samples. Resampling, when asked, is done by soxr
after decoding whatever the decoder, so the arrays stay identical either way.
"""
from __future__ import annotations

import io
import logging
import numbers
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import datasets
import numpy as np

from .folders import check_data, not_a_corpus
from .identity import read_record, table_digest
from .schema import data_pattern

MIN_SAMPLING_RATE = 1000  # Hz: below it (under 500 Hz of bandwidth) no cue the tasks test survives; 0 or 1 is a slip
MAX_SAMPLING_RATE = 384000  # Hz: above the highest rate audio is recorded at, resampling only allocates (10**9: bad_alloc)
TABLES = ("queries", "corpus", "qrels")


@dataclass(frozen=True)
class ReasonAudioSplit:
    queries: datasets.Dataset
    corpus: datasets.Dataset      # "audio" yields {"array": float32 mono, "sampling_rate": int}
    qrels: datasets.Dataset


@lru_cache(maxsize=1)
def torchcodec_usable() -> bool:
    try:
        from torchcodec.decoders import AudioDecoder  # noqa: F401 - loads FFmpeg's libraries
    except (ImportError, RuntimeError, OSError):
        return False
    return True


def decode_audio(data: bytes, backend: str | None = None) -> tuple[np.ndarray, int]:
    """Mono float32 samples and their rate, from encoded bytes (FLAC, WAV, ...). Without a `backend`,
    soundfile first and torchcodec for a format it cannot read."""
    if backend not in (None, "soundfile", "torchcodec"):
        raise ValueError(f"unknown audio backend {backend!r}; use 'torchcodec' or 'soundfile'")
    if backend != "torchcodec":
        import soundfile

        try:
            samples, rate = soundfile.read(io.BytesIO(data), dtype="float32")
            # a mono file is its one channel (a mean over one channel costs a reduction and changes nothing)
            return (samples if samples.ndim == 1 else samples.mean(axis=1)), int(rate)
        except soundfile.LibsndfileError:
            if backend == "soundfile" or not torchcodec_usable():
                raise
    from torchcodec.decoders import AudioDecoder

    samples = AudioDecoder(data).get_all_samples()
    return samples.data.numpy().mean(axis=0).astype(np.float32), int(samples.sample_rate)


def check_sampling_rate(sampling_rate) -> None:
    """None keeps the stored rate; anything else is a real resampling target, never silently ignored."""
    if sampling_rate is not None and (isinstance(sampling_rate, bool) or not isinstance(sampling_rate, numbers.Integral)
                                      or not MIN_SAMPLING_RATE <= sampling_rate <= MAX_SAMPLING_RATE):
        raise ValueError(f"sampling_rate must be None (the stored rate) or an integer from {MIN_SAMPLING_RATE} to "
                         f"{MAX_SAMPLING_RATE:,} Hz, got {sampling_rate!r}: below 1 kHz no sound of the benchmark keeps "
                         "its cues, and above the highest rate audio is recorded at the clips only grow")


def audio_decoder(sampling_rate: int | None = None, backend: str | None = None):
    """A `datasets` transform that turns the encoded `audio` column into arrays."""
    check_sampling_rate(sampling_rate)

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


def conditions_of(path_or_repo: str, split: str = "test") -> dict[str, str]:
    """The acoustic conditions of a split and the config holding each ({"clean": "corpus", "noisy":
    "corpus_noisy", ...}), from the split's record ({} without one: the naming convention still applies)."""
    record = read_record(path_or_repo, split)
    return {name: config for config, name in record.get("acoustics", {"corpus": "clean"}).items()} if record else {}


def corpus_of(path_or_repo: str, split: str, acoustics: str | None) -> str:
    """The config that holds the clips under condition `acoustics` (None: the main `corpus`)."""
    if acoustics is None:
        return "corpus"
    known = conditions_of(path_or_repo, split)
    if known and acoustics not in known:
        raise ValueError(f"{path_or_repo} has no acoustic condition {acoustics!r} in split {split!r}; it has "
                         f"{sorted(known)}")
    return known.get(acoustics) or ("corpus" if acoustics == "clean" else f"corpus_{acoustics}")


def load_reasonaudio(path_or_repo: str, task: str | None = None, split: str = "test",
                     sampling_rate: int | None = None, backend: str | None = None,
                     acoustics: str | None = None) -> ReasonAudioSplit:
    """Queries, corpus and qrels of one split, the corpus's audio decoded on access.

    Args:
        path_or_repo: a build's folder (what `reasonaudio generate --out` wrote) or a Hub dataset id.
        task: keep that task's queries and clips only (and the qrels among them), so corpus retrieval then
            ranks within the task; None keeps all.
        split: "test" (the benchmark), "validation" or "train".
        sampling_rate: the rate the audio arrays are resampled to (None: as stored).
        backend: "soundfile" or "torchcodec" (None: the faster one available).
        acoustics: the clips of one acoustic condition of a robustness build ("noisy", ...; None: the main
            corpus).

    Returns:
        A `ReasonAudioSplit` of three `datasets.Dataset`s: `queries`, `corpus` (its `audio` column yields
        {"array": float32 mono, "sampling_rate"}) and `qrels`.
    """
    decoder = audio_decoder(sampling_rate, backend)  # checks the rate before any loading
    check_source(path_or_repo, split)
    queries, qrels = (load_table(path_or_repo, table, split) for table in ("queries", "qrels"))
    corpus = load_table(path_or_repo, corpus_of(path_or_repo, split, acoustics), split)
    if task is not None:
        tasks = sorted(set(queries["task"]))
        if task not in tasks:
            raise ValueError(f"unknown task {task!r}; this split has {tasks}")
        queries = queries.filter(lambda t: t == task, input_columns="task")
        corpus = corpus.filter(lambda t: t == task, input_columns="task")
        kept_queries, kept_clips = set(queries["query_id"]), set(corpus["clip_id"])
        qrels = qrels.filter(lambda q, c: q in kept_queries and c in kept_clips, input_columns=["query_id", "clip_id"])
    corpus = corpus.cast_column("audio", datasets.Audio(decode=False)).with_transform(decoder)
    return ReasonAudioSplit(queries, corpus, qrels)


def check_source(path_or_repo: str, split: str) -> None:
    """A local folder must be a ReasonAudio corpus (a card declaring its tables) holding `split` finished,
    and anything else must be able to be a Hub id, so that a wrong --data is one clear line rather than
    whatever `datasets` makes of the files found there (or a Hub look-up of a mistyped path)."""
    check_data(path_or_repo, (split,))
    if Path(path_or_repo).exists():
        _check_card(Path(path_or_repo), split)


def _check_card(folder: Path, split: str) -> None:
    import yaml
    from huggingface_hub.repocard import metadata_load

    try:
        meta = metadata_load(folder / "README.md") if (folder / "README.md").is_file() else None
    except (ValueError, yaml.YAMLError):  # an unreadable card is not ours
        meta = None
    meta = meta if isinstance(meta, dict) else {}
    configs = {c.get("config_name"): c.get("data_files") for c in meta.get("configs") or () if isinstance(c, dict)}
    if not folder.is_dir() or not set(TABLES) <= set(configs):
        raise ValueError(not_a_corpus(folder))
    files = configs["queries"] if isinstance(configs["queries"], list) else []
    splits = {f.get("split") for f in files if isinstance(f, dict)}
    if splits and split not in splits:
        raise ValueError(f"{folder} has no split {split!r}; it has {sorted(splits)}")


def table_cache(folder: str | Path, table: str, split: str) -> Path:
    """Where `datasets` keeps its conversion of a local table: a folder named by the table's content, so that
    a rewritten file, a copied or renamed folder, or another build never gets another content's table back
    (datasets alone keys it by the folder's name and file times)."""
    return Path(datasets.config.HF_DATASETS_CACHE) / "reasonaudio" / table_digest(folder, table, split)[:32]


def _check_files(folder: Path, table: str, split: str) -> None:
    """The table's files in a local folder are the ones its split's record declares: a deleted or an extra
    shard is one line naming it (what `datasets` would say is a split-size mismatch)."""
    from .identity import table_files

    declared = {f for f in read_record(str(folder), split).get("files", []) if str(f).startswith(f"{table}/")}
    found = {path.relative_to(folder).as_posix() for path in table_files(folder, table, split)}
    for name, problem in ((sorted(declared - found), "is missing"),
                          (sorted(found - declared), "is not one of the files its record declares")):
        if declared and name:
            raise ValueError(f"{folder / name[0]} {problem} (split {split!r} of table {table}): the folder is "
                             f"damaged or incomplete; `reasonaudio validate {folder}` lists every problem")


def damaged_file(path_or_repo: str, table: str, split: str) -> str | None:
    """The first Parquet file of a local table whose footer cannot be read (a truncated copy, a disk that
    filled up), with the reader's words; None when every file opens (or the table is remote)."""
    import pyarrow.parquet as pq

    folder = Path(path_or_repo)
    for path in sorted(folder.glob(data_pattern(table, split))) if folder.is_dir() else ():
        try:
            pq.ParquetFile(path)
        except Exception as error:     # pyarrow's ArrowInvalid, OSError: either way the file is unreadable
            return f"{path} is damaged ({error})"
    return None


def load_table(path_or_repo: str, table: str, split: str) -> datasets.Dataset:
    """One table, converted once per content (`table_cache`); a Hub id that cannot be fetched (offline,
    unknown) or a local table whose files are not the declared ones is a one-line error with its cause."""
    cache = table_cache(path_or_repo, table, split) if Path(path_or_repo).is_dir() else None
    if cache is not None:
        _check_files(Path(path_or_repo), table, split)
    logger, level = logging.getLogger("datasets"), logging.getLogger("datasets").level
    logger.setLevel(logging.CRITICAL)      # its errors come back as the exception, said once below
    bars = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()       # its "Generating split" bar, once a table (dozens a demo), says nothing
    try:
        loaded = datasets.load_dataset(path_or_repo, table, split=split, cache_dir=str(cache) if cache else None)
    except datasets.exceptions.NonMatchingSplitsSizesError:     # same files, other rows: edited after generate
        raise ValueError(f"the {table} table of {path_or_repo} (split {split!r}) holds other rows than its card "
                         f"declares; `reasonaudio validate {path_or_repo}` names the file") from None
    except (ValueError, OSError) as error:
        cause = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise ValueError(f"cannot load the {table} table of {path_or_repo} (split {split!r}): {cause}") from None
    except datasets.exceptions.DatasetGenerationError as error:    # a file datasets cannot convert
        raise ValueError(f"cannot load the {table} table of {path_or_repo} (split {split!r}): "
                         f"{damaged_file(path_or_repo, table, split) or error.__cause__ or error}; "
                         f"`reasonaudio validate {path_or_repo}` checks every file") from None
    finally:
        logger.setLevel(level)
        if bars:
            datasets.enable_progress_bars()
    if cache is not None:   # datasets' own fingerprint ignores the content too; what keys on it (map, filter,
        loaded._fingerprint = cache.name[:16]   # the metric's parsed tables) must see the new content
    return loaded
