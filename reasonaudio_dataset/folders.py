"""Folders a command names, told before `datasets` or torch load, so that a slip is refused at once: what a
`--data` argument names (a generated folder and the splits it holds, from the records `generate` writes:
`{split}.plan.json` once planned, `{split}.json` once finished; or a Hub dataset id), and where a run's results
may go (never into a build's folder, whose files are the dataset)."""
from __future__ import annotations

import json
import os
import re
import shlex
import time
from contextlib import contextmanager, suppress
from pathlib import Path

from .hub import hub_offline, unreachable_hub
from .splits import RECORDS, SPLITS

HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")    # ORG/NAME, as every ReasonAudio build on the Hub is named


def record_files(out: Path, planned: bool = False) -> dict[str, Path]:
    """The record of each split in the folder: finished (`{split}.json`) or planned (`{split}.plan.json`).
    Nothing else in the records folder is a record."""
    paths = {split: out / RECORDS / f"{split}{'.plan' if planned else ''}.json" for split in SPLITS}
    return {split: path for split, path in paths.items() if path.is_file()}


def check_data(data: str, splits: tuple[str, ...] = ()) -> None:
    """`data` is a folder holding each of `splits` finished, or a Hub id with the Hub reachable (or offline use
    asked for: the id is then looked up in the cache when loaded); else a one-line error naming what is missing,
    and for a split whose generation was cut off, how to resume it."""
    folder = Path(data)
    if not folder.exists():
        if data.startswith((".", "/", "~")) or not HUB_ID.fullmatch(data):
            raise ValueError(f"{data}: no such folder (and not a Hub dataset id, which reads ORG/NAME)")
        unreachable = None if hub_offline() else unreachable_hub()     # offline: a cached copy is loaded
        if unreachable:
            raise ValueError(f"{data}: no such folder, and the Hub dataset {data} cannot be fetched ({unreachable}); "
                             "to use a copy already in your Hugging Face cache, set HF_HUB_OFFLINE=1")
        return
    if not folder.is_dir():
        raise ValueError(f"{data} is a file, not a folder written by reasonaudio generate")
    finished, begun = set(record_files(folder)), set(record_files(folder, planned=True))
    if not (finished or begun or (folder / "README.md").is_file()):
        raise ValueError(not_a_corpus(folder))
    for split in splits:
        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}: a build's splits are {list(SPLITS)}")
        if split in finished:
            continue
        if split in begun:
            raise ValueError(f"{data}: split {split!r} is incomplete (its generation was interrupted); run the "
                             f"same `reasonaudio generate --out {data} --split {split} ...` command again to resume it")
        if finished:
            raise ValueError(f"{data} has no split {split!r}; it has {sorted(finished)} "
                             f"({_how_to_make(folder, split, record_files(folder))})")


def folder_source(records: dict[str, Path]) -> str | None:
    """The source a folder's splits are built from (a folder holds one), from its records; None if unreadable."""
    for path in records.values():
        try:
            return json.loads(path.read_text())["parameters"]["source"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None


def _how_to_make(folder: Path, split: str, records: dict[str, Path]) -> str:
    """A command that makes `split` in `folder` as printed, with the folder's own source; or, where that source
    takes every recording into one split (`as_split`), where the split has to come from instead."""
    source = folder_source(records)
    if source is not None and "as_split=" in source:
        return (f"its source {source} puts every recording in one split, so another split needs other recordings: "
                "generate it into a folder of its own, with as_split naming it")
    given = "" if source in (None, "synthetic:") else f" --source {shlex.quote(source)}"
    return f"make it with `reasonaudio generate --out {shlex.quote(str(folder))} --split {split}{given}`"


def not_a_corpus(folder: Path) -> str:
    return (f"{folder} is not a ReasonAudio corpus: no dataset card (README.md) declaring the queries, corpus, qrels "
            "tables; make one with `reasonaudio generate`")


def check_results_folder(out: str | Path, data: str) -> None:
    """Refuse, before any work, a results folder (`evaluate`'s, `train`'s --out) inside the corpus folder `data`
    (its files would join the dataset, which validate and publish then trip over), a filesystem root or the
    home folder, or a file."""
    out = Path(out)
    if Path(data).is_dir() and out.resolve().is_relative_to(Path(data).resolve()):
        raise ValueError(f"--out {out} is inside the corpus folder {data}: results there would join the dataset's "
                         "files (validate and publish would trip over them); choose a folder outside it")
    if out.resolve() in (Path(out.resolve().anchor), Path.home().resolve()):
        raise ValueError(f"--out {out} is {'the home folder' if out.resolve() == Path.home().resolve() else 'a filesystem root'}: "
                         "results go into a folder of their own, e.g. --out runs/mine")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder")
    check_no_file_above(out)


def check_no_file_above(out: Path) -> None:
    """A folder can be made at `out`: no folder above it is a file (refused before any work, not as [Errno 20]
    after it)."""
    blocking = next((folder for folder in out.parents if folder.exists() and not folder.is_dir()), None)
    if blocking is not None:
        raise ValueError(f"--out {out}: {blocking} is a file, so no folder can be made inside it")


CARD_PARTIAL = ".README.md.partial"    # the card half-written, then moved over README.md


def check_unlinked(out: str | Path, folders: tuple[str, ...] = ()) -> None:
    """Refuse, before any write, a link where a build's writers write inside the folder `out`: the records folder
    or anything in it (the staging folder and what it holds, locks, half-written records), the half-written card,
    or one of `folders` or anything in it. Written through, a build's files would land outside `out`.

    Args:
        out: the build's folder.
        folders: its other entries written into (generate's table folders).

    Raises:
        ValueError: naming the first link found.
    """
    out = Path(out)
    for top in (out / name for name in (RECORDS, CARD_PARTIAL, *folders)):
        link = top if top.is_symlink() else next(_links_below(top), None)     # a linked top is never walked
        if link is not None:
            raise ValueError(f"{link} is a link: a build's files are written only inside its folder, never through "
                             "a link (they would land outside it); remove the link or choose another folder")


def _links_below(folder: Path):
    """The links inside `folder`, in name order, none followed."""
    for root, folders, files in os.walk(folder):
        folders.sort()
        yield from (path for path in (Path(root) / name for name in sorted(folders + files)) if path.is_symlink())


LOCK = ".reasonaudio-lock"    # the file a run holds (flock; on Windows msvcrt.locking) while it writes into a folder
POLL_SECONDS = 0.2            # how often a run waiting its turn retries a Windows lock


def split_lock(split: str) -> str:
    """The lock a split's writers hold in the records folder: `generate` while it makes the split, `baselines
    --certify` while it writes the split's certificate.

    Args:
        split: the split.

    Returns:
        The lock file's name.
    """
    return f".{split}-lock"


@contextmanager
def held(out: str | Path, name: str = LOCK, wait: bool = False, busy: str | None = None):
    """Hold the folder `out` for one run, from its first to its last write: a second run into it (evaluate,
    compare, baselines, train) stops at once with a one-line error (`busy`, or a general one), or, with `wait`,
    waits its turn. An advisory lock on the file `name` in `out`, released by the kernel when a run dies; the
    folders this creates are removed again when the run leaves them empty."""
    out = Path(out)
    created = [folder for folder in (out, *out.parents) if not folder.exists()]
    out.mkdir(parents=True, exist_ok=True)
    lock = _lock(out / name, wait, busy or f"{out} is being written by another run right now; wait for it to "
                                           "finish or choose another --out")
    try:
        yield out
    finally:
        _release(out / name, lock)
        for folder in created:          # innermost first
            if any(folder.iterdir()):
                break
            folder.rmdir()


def _lock(path: Path, wait: bool, busy: str) -> int:
    """An exclusive lock on `path`, the file checked to be the one locked (a run finishing unlinks it; a run
    that opened the old file retries on the new one)."""
    while True:
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        if not _locked(handle, wait):
            os.close(handle)
            raise FileExistsError(busy)
        try:
            if os.fstat(handle).st_ino == os.stat(path).st_ino:
                return handle
        except FileNotFoundError:
            pass
        os.close(handle)


def _posix_locks():
    """fcntl where the platform has it (POSIX), else None (Windows: msvcrt). Imported on use, so that loading a
    build, which locks nothing, works everywhere."""
    try:
        import fcntl
    except ImportError:
        return None
    return fcntl


def _locked(handle: int, wait: bool) -> bool:
    """Whether this run now holds the open lock file `handle` exclusively (False: another run does). On Windows
    its first byte is locked, polled while waiting: msvcrt's own blocking mode gives up after 10 s."""
    fcntl = _posix_locks()
    if fcntl is not None:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        return True
    import msvcrt

    while True:
        try:
            msvcrt.locking(handle, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:             # the byte is locked by another run
            if not wait:
                return False
            time.sleep(POLL_SECONDS)


def _release(path: Path, handle: int) -> None:
    """Unlink the lock file while it is held, then close it, so that a run waiting on the unlinked file retries on
    a new one (`_lock`). Windows unlinks no open file: there it is unlocked and closed first, and stays where
    another run has opened it since (that run then holds it)."""
    if _posix_locks() is not None:
        path.unlink(missing_ok=True)
        os.close(handle)
        return
    import msvcrt

    msvcrt.locking(handle, msvcrt.LK_UNLCK, 1)
    os.close(handle)
    with suppress(PermissionError):
        path.unlink(missing_ok=True)
