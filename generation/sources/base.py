"""What every sound source yields: labelled recordings that load lazily."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from reasonaudio_dataset.splits import SPLITS  # noqa: F401 - sources assign recordings to these
CREDIT_COLUMNS = ("credit", "attribution", "author")   # where tabular sources name who made a recording
UNKNOWN_LABELS = {"", "nan", "none", "null", "unknown"}  # a label that names no class: the bank reports its recording


class BadRecording(ValueError):
    """Raised by `Recording.load` for a recording its source already knows to be unusable (a malformed
    manifest row, say): the bank reports the message as it is, like an unreadable file."""


class SourceError(ValueError):
    """A source that cannot be read at all (missing folder, malformed manifest)."""


@dataclass(frozen=True)
class Recording:
    """One labelled recording; `load()` returns (samples, sample_rate), samples shaped (n,) or (n, ch)."""

    recording_id: str
    label: str
    origin: str
    load: Callable[[], tuple[np.ndarray, int]] = field(compare=False, repr=False)
    license: str = ""
    attribution: str = ""            # who made it and where it came from (CC-BY requires it), per recording
    group: str = ""                  # recordings sharing a group (same original file) share a split
    split: Optional[str] = None      # the source's official split, if it has one
    phrase: Optional[str] = None     # the source's own description of the class, if it has one
    kind: Optional[str] = None       # "continuous" / "discrete" when the source knows
    start: Optional[float] = None    # seconds: crop before trimming (CSV manifests)
    end: Optional[float] = None
    events: tuple = ()               # strong labels (relations.Event, times in the recording): natural sources

    def split_of(self) -> str:
        """The official split, else a stable hash of the group: 60 % train, 10 % validation, 30 % test."""
        if self.split is not None:
            return self.split
        bucket = int(hashlib.sha1((self.group or self.recording_id).encode()).hexdigest(), 16) % 100
        return "train" if bucket < 60 else "validation" if bucket < 70 else "test"


def inside(folder, path) -> bool:
    """Whether `path`, links followed, lies inside `folder`: a recording a table names is read only from its
    source folder, never through a link or `..` that leaves it."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))


def outside(folder, path, named: str) -> str | None:
    """Why the recording file `path` is not read (it leads outside `folder`, `inside`), or None: one rule and
    one line for every source that reads files by path.

    Args:
        folder: the source's folder of recordings.
        path: the file a source lists.
        named: how the refusal names the file (a table, row and column, say).

    Returns:
        The refusal's line, or None for a file inside `folder`.
    """
    if inside(folder, path):
        return None
    return f"{named} leads outside {folder} (recordings are read only from the source folder)"


def local_file(folder, path, named: str) -> Callable[[], tuple[np.ndarray, int]]:
    """The `Recording.load` of the file `path` of a source read from `folder`: a file that leads outside it is
    a bad recording (`outside`), reported by the bank and never read.

    Args:
        folder: the source's folder of recordings.
        path: the file.
        named: how a refusal names the file.

    Returns:
        A load reading the file, or one raising `BadRecording`.
    """
    problem = outside(folder, path, named)
    return partial(refuse, BadRecording(problem)) if problem else partial(read_audio_file, path)


def refuse(error: Exception):
    """A load for a recording known to be bad: raises `error` when the bank reads it."""
    raise error


def known_bad(recording: Recording) -> str | None:
    """Why a recording its source already knows to be unusable (its load is a `refuse`) is bad, or None: told
    before any audio is read, so that a manifest's own errors are refused at once."""
    load = recording.load
    return str(load.args[0]) if isinstance(load, partial) and load.func is refuse else None


def read_audio_file(path) -> tuple[np.ndarray, int]:
    import soundfile

    samples, rate = soundfile.read(str(path), dtype="float32", always_2d=False)
    return samples, rate
