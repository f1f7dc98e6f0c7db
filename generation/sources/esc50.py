"""ESC-50 in its official layout: `audio/*.wav` and `meta/esc50.csv`.

Each clip is cut from a Freesound recording (`src_file`, its id), which is what its attribution names."""
from __future__ import annotations

import csv
from functools import partial
from pathlib import Path

from ..phrases import ESC50_PHRASES
from .base import Recording, SourceError, read_audio_file

LICENSE = "CC-BY-NC-3.0 (ESC-50, K. J. Piczak; per-clip attribution in the dataset's LICENSE)"
FOLD_SPLITS = {"1": "train", "2": "train", "3": "validation", "4": "test", "5": "test"}


def recordings(location: str) -> list[Recording]:
    """ESC-50 official layout (audio/*.wav + meta/esc50.csv); folds 1-2 train, 3 validation, 4-5 test."""
    root = Path(location)
    meta = root / "meta" / "esc50.csv"
    if not meta.is_file():
        raise SourceError(f"{root} is not an ESC-50 folder: {meta} is missing")
    with open(meta, newline="") as handle:
        rows = list(csv.DictReader(handle))
    missing = {"filename", "fold", "category"} - set(rows[0] if rows else {})
    if missing:
        raise SourceError(f"{meta} lacks the columns {sorted(missing)}")
    return [
        Recording(
            recording_id=f"esc50/{row['filename']}", label=row["category"], origin=f"esc50:{row['filename']}",
            load=partial(read_audio_file, root / "audio" / row["filename"]), license=LICENSE,
            attribution=f"freesound.org/s/{row['src_file']} (ESC-50, K. J. Piczak)" if row.get("src_file") else "",
            group=f"esc50/{row.get('src_file') or row['filename']}", split=FOLD_SPLITS.get(row["fold"]),
            phrase=ESC50_PHRASES.get(row["category"]),
        )
        for row in rows
    ]
