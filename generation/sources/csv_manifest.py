"""A CSV manifest with columns `path,label` and optional `start,end` (seconds); paths relative to it."""
from __future__ import annotations

import csv
from functools import partial
from pathlib import Path

from .base import Recording, SourceError, read_audio_file


def _seconds(value: str | None) -> float | None:
    return float(value) if value not in (None, "") else None


def recordings(location: str, license: str = "") -> list[Recording]:
    """CSV manifest (path,label[,start,end]; paths relative to the file): `csv:sounds.csv?license=CC0-1.0`."""
    manifest = Path(location)
    if not manifest.is_file():
        raise SourceError(f"CSV manifest {manifest} does not exist")
    with open(manifest, newline="") as handle:
        reader = csv.DictReader(handle)
        missing = {"path", "label"} - set(reader.fieldnames or ())
        if missing:
            raise SourceError(f"{manifest} lacks the columns {sorted(missing)} (header: {reader.fieldnames})")
        rows = list(reader)
    found = []
    for line, row in enumerate(rows, start=2):
        path = manifest.parent / row["path"]
        found.append(Recording(
            recording_id=f"csv/{row['path']}#{line}", label=(row["label"] or "").strip(), origin=f"csv:{row['path']}",
            load=partial(read_audio_file, path), license=license, group=f"csv/{row['path']}",
            start=_seconds(row.get("start")), end=_seconds(row.get("end")),
        ))
    return found
