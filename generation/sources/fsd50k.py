"""FSD50K: single-label clips from `FSD50K.ground_truth/{dev,eval}.csv` and the audio folders."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from .base import Recording, SourceError, local_file

LICENSE = "CC-BY-4.0 / CC0 / CC-BY-NC per clip (FSD50K; see FSD50K.metadata/*_clips_info_FSD50K.json)"


def _clips_info(root: Path, part: str) -> dict:
    """Each clip's Freesound license and uploader (`FSD50K.metadata`, when it was downloaded too)."""
    path = root / "FSD50K.metadata" / f"{part}_clips_info_FSD50K.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _single_leaf(label_rows: list[list[str]]) -> list[str | None]:
    """FSD50K propagates labels up its ontology, so a clip with one sound lists its ancestors too.

    A label's ancestors are the labels on a strict superset of its clips; a clip is single-label when
    the labels on its smallest clip sets are all one node (then the first listed, FSD50K's leaf, names it)."""
    clips: dict[str, set[int]] = {}
    for index, labels in enumerate(label_rows):
        for label in labels:
            clips.setdefault(label, set()).add(index)
    found = []
    for labels in label_rows:
        leaves = [label for label in labels if not any(clips[other] < clips[label] for other in labels)]
        found.append(leaves[0] if len({frozenset(clips[leaf]) for leaf in leaves}) == 1 else None)
    return found


def recordings(location: str) -> list[Recording]:
    """FSD50K (FSD50K.ground_truth/ + FSD50K.{dev,eval}_audio/): single-leaf clips; eval is test."""
    root = Path(location)
    tables = {"dev": root / "FSD50K.ground_truth" / "dev.csv", "eval": root / "FSD50K.ground_truth" / "eval.csv"}
    if not any(path.is_file() for path in tables.values()):
        raise SourceError(f"{root} is not an FSD50K folder: no FSD50K.ground_truth/dev.csv or eval.csv")
    rows = []
    for part, path in tables.items():
        if path.is_file():
            with open(path, newline="") as handle:
                rows += [(part, row) for row in csv.DictReader(handle)]
    found, info = [], {part: _clips_info(root, part) for part in tables}
    for (part, row), leaf in zip(rows, _single_leaf([row["labels"].split(",") for _, row in rows])):
        if leaf is None:
            continue
        split = "test" if part == "eval" else "validation" if row.get("split") == "val" else "train"
        clip = info[part].get(row["fname"], {})   # FSD50K file names are Freesound ids
        audio = root / f"FSD50K.{part}_audio"     # clips are read only from here (itself a link, say)
        found.append(Recording(
            recording_id=f"fsd50k/{part}/{row['fname']}", label=leaf, origin=f"fsd50k:{part}/{row['fname']}.wav",
            load=local_file(audio, audio / f"{row['fname']}.wav", f"{part}.csv, clip {row['fname']!r}"),
            license=clip.get("license") or LICENSE, group=f"fsd50k/{row['fname']}", split=split,
            attribution=", ".join(filter(None, (clip.get("uploader"), f"freesound.org/s/{row['fname']} (FSD50K)"))),
        ))
    return found
