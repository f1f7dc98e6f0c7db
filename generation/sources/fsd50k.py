"""FSD50K: single-label clips from `FSD50K.ground_truth/{dev,eval}.csv` and the audio folders."""
from __future__ import annotations

import csv
from functools import partial
from pathlib import Path

from .base import Recording, SourceError, read_audio_file

LICENSE = "CC-BY-4.0 / CC0 / CC-BY-NC per clip (FSD50K; see FSD50K.metadata/*_clips_info_FSD50K.json)"


def _ancestors(label_sets: list[list[str]]) -> dict[str, set[str]]:
    """FSD50K propagates labels up the ontology: P is an ancestor of L if every clip with L has P."""
    together: dict[str, set[str]] = {}
    for labels in label_sets:
        for label in labels:
            together[label] = together.get(label, set(labels)) & set(labels)
    return {label: common - {label} for label, common in together.items()}


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
    ancestors = _ancestors([row["labels"].split(",") for _, row in rows])
    found = []
    for part, row in rows:
        labels = set(row["labels"].split(","))
        leaves = [label for label in labels if not any(label in ancestors[other] for other in labels)]
        if len(leaves) != 1:
            continue
        split = "test" if part == "eval" else "validation" if row.get("split") == "val" else "train"
        found.append(Recording(
            recording_id=f"fsd50k/{part}/{row['fname']}", label=leaves[0], origin=f"fsd50k:{part}/{row['fname']}.wav",
            load=partial(read_audio_file, root / f"FSD50K.{part}_audio" / f"{row['fname']}.wav"), license=LICENSE,
            group=f"fsd50k/{row['fname']}", split=split,
        ))
    return found
