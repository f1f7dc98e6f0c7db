"""ESC-50 in its official layout: `audio/*.wav` and `meta/esc50.csv`.

Each clip is cut from a Freesound recording (`src_file`, its id), which is what its attribution names. Clips
are read only from `audio/` (itself a link, say, to a download elsewhere): a file name leading out of it is a
bad recording."""
from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

from reasonaudio.core.phrases import ESC50_PHRASES

from .base import Recording, SourceError, local_file

LICENSE = "CC-BY-NC-3.0 (ESC-50, K. J. Piczak; per-clip attribution in the dataset's LICENSE)"
FOLD_SPLITS = {"1": "train", "2": "train", "3": "validation", "4": "test", "5": "test"}


def recordings(location: str, fold: str = "", per_class: str = "") -> list[Recording]:
    """ESC-50 (audio/*.wav + meta/esc50.csv): folds 1-2 train, 3 validation, 4-5 test; `?fold=4&per_class=4`: fold 4's first 4 clips a class.

    The first clips in the file's order: the 200 of README's reference results, from the full download."""
    root = Path(location)
    meta = root / "meta" / "esc50.csv"
    if not meta.is_file():
        raise SourceError(f"{root} is not an ESC-50 folder: {meta} is missing")
    with open(meta, newline="") as handle:
        rows = list(csv.DictReader(handle))
    missing = {"filename", "fold", "category"} - set(rows[0] if rows else {})
    if missing:
        raise SourceError(f"{meta} lacks the columns {sorted(missing)}")
    return [_recording(root, row) for row in _selected(rows, fold, per_class, meta)]


def _selected(rows: list[dict], fold: str, per_class: str, meta: Path) -> list[dict]:
    """The rows of one fold (all folds without `fold`), at most `per_class` of each class, in the file's
    order: a stated rule, so that a subset of the dataset can be named and rebuilt from the full download."""
    if fold:
        if fold not in {row["fold"] for row in rows}:
            raise SourceError(f"fold={fold!r}: {meta} has folds {sorted({row['fold'] for row in rows})}")
        rows = [row for row in rows if row["fold"] == fold]
    if per_class:
        if not per_class.isdigit() or int(per_class) < 1:
            raise SourceError(f"per_class={per_class!r}: expected a whole number of clips, at least 1")
        kept, taken = [], Counter()
        for row in rows:
            taken[row["category"]] += 1
            if taken[row["category"]] <= int(per_class):
                kept.append(row)
        rows = kept
    return rows


def _recording(root: Path, row: dict) -> Recording:
    return Recording(
        recording_id=f"esc50/{row['filename']}", label=row["category"], origin=f"esc50:{row['filename']}",
        load=local_file(root / "audio", root / "audio" / row["filename"], f"esc50.csv, clip {row['filename']!r}"),
        license=LICENSE,
        attribution=f"freesound.org/s/{row['src_file']} (ESC-50, K. J. Piczak)" if row.get("src_file") else "",
        group=f"esc50/{row.get('src_file') or row['filename']}", split=FOLD_SPLITS.get(row["fold"]),
        phrase=ESC50_PHRASES.get(row["category"]),
    )
