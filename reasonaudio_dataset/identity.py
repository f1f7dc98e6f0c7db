"""What a build *is*: hashes of the bytes its tables are read from, so that no cache answers for other content.

`datasets` keys a local folder's converted tables by the folder's name and its files' times, an embedding
cache keyed by the plan fingerprint would key clips by what was planned, MTEB keys results by task name: each
could hand back a score for data that is no longer there. Everything that caches or records what it read uses
these digests instead. A file's SHA-256 is remembered by its stat (inode, size, mtime and ctime in ns: ctime
changes on every write and cannot be set back), in memory and on disk, so a 2 GB build is hashed once
(about 1.5 s at 1.4 GB/s) and each later run costs one `stat` per file.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .card import RECORDS
from .schema import CONFIGS, data_pattern

DIGESTS = Path(os.environ.get("REASONAUDIO_CACHE", Path.home() / ".cache" / "reasonaudio")) / "digests"
_BLOCK = 1 << 22
_known: dict[tuple, str] = {}


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file's bytes, computed once per version of the file (see the module docstring)."""
    path = Path(path).resolve()
    stat = path.stat()
    key = (str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    if key in _known:
        return _known[key]
    memo = DIGESTS / hashlib.sha256(json.dumps(key).encode()).hexdigest()[:32]
    try:
        digest = memo.read_text().strip()
    except OSError:
        digest = ""
    if len(digest) != 64:
        hasher = hashlib.sha256()
        with path.open("rb") as handle:
            while block := handle.read(_BLOCK):
                hasher.update(block)
        digest = hasher.hexdigest()
        try:   # the memo is a convenience: a read-only or full cache disk costs a re-hash, never an error
            memo.parent.mkdir(parents=True, exist_ok=True)
            partial = memo.with_name(f".{memo.name}.{os.getpid()}.partial")
            partial.write_text(digest)
            partial.replace(memo)
        except OSError:
            pass
    _known[key] = digest
    return digest


def table_files(folder: str | Path, config: str, split: str) -> list[Path]:
    """The files `load_dataset(folder, config, split=split)` reads: the card's pattern for them, sorted."""
    return sorted(Path(folder).glob(data_pattern(config, split)))


def table_digest(folder: str | Path, config: str, split: str) -> str:
    """One digest of a table's content: its files' names and bytes."""
    files = table_files(folder, config, split)
    items = [[path.name, file_digest(path)] for path in files]
    return hashlib.sha256(json.dumps([config, split, items]).encode()).hexdigest()


def _configs(folder: Path) -> list[str]:
    """The four tables and any `corpus_<condition>` config the folder holds."""
    extra = sorted(p.name for p in folder.glob("corpus_*") if p.is_dir())
    return [*CONFIGS, *extra]


def read_record(path_or_repo: str, split: str = "test") -> dict:
    """The record `generate` wrote for a split (fingerprint, counts, acoustics, ...), from a local folder or
    the Hub repository; {} when there is none (offline, or not a ReasonAudio build)."""
    relative = f"{RECORDS}/{split}.json"
    path = Path(path_or_repo) / relative
    if not Path(path_or_repo).exists():
        try:
            from huggingface_hub import hf_hub_download

            path = Path(hf_hub_download(path_or_repo, relative, repo_type="dataset"))
        except Exception:  # offline, or no such repository
            return {}
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def build_identity(path_or_repo: str, split: str = "test") -> dict:
    """What identifies one split of a build: {"id", "fingerprint", "benchmark_version" (None: built before
    versions were stamped), "content" (local folders: SHA-256 over every table's digest), "revision" (Hub
    repositories: the resolved commit, when reachable)}. `id` is the short name caches and records use:
    `content:<16 hex>` or `hub:<repo>@<commit>`."""
    record = read_record(path_or_repo, split)
    fingerprint, version = record.get("fingerprint"), record.get("benchmark_version")
    folder = Path(path_or_repo)
    if folder.is_dir():
        tables = {config: table_digest(folder, config, split) for config in _configs(folder)
                  if table_files(folder, config, split)}
        content = hashlib.sha256(json.dumps(tables, sort_keys=True).encode()).hexdigest()
        return {"id": f"content:{content[:16]}", "fingerprint": fingerprint, "benchmark_version": version,
                "content": content, "tables": tables,
                "split": split}
    revision = hub_revision(path_or_repo)
    return {"id": f"hub:{path_or_repo}@{revision or 'unresolved'}", "fingerprint": fingerprint, "benchmark_version": version,
            "content": None,
            "revision": revision, "split": split}


def hub_revision(repo: str, revision: str = "main") -> str | None:
    """The commit a Hub dataset's `revision` resolves to (None offline or unknown)."""
    try:
        from huggingface_hub import HfApi

        return HfApi().dataset_info(repo, revision=revision).sha
    except Exception:   # offline, private, or no such repository: the record's fingerprint still identifies it
        return None


__all__ = ["build_identity", "file_digest", "read_record", "table_digest", "table_files"]
