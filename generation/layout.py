"""Which files of a folder belong to a ReasonAudio corpus, so that nothing else is ever touched.

A corpus folder holds its records (`.reasonaudio/`), the data files those records declare, and the
dataset card. The writer (`BuildFolder.check`) refuses a folder holding anything else before any work (a user's own
README.md is never overwritten, even with --force), `publish` uploads only the declared files, and
`validate` reports stray files that `load_dataset` would pick up through the card's glob patterns.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from reasonaudio_dataset.card import CARD_RECORD, RECORDS, load_records, record_files
from reasonaudio_dataset.certificate import CERTIFICATE
from reasonaudio_dataset.schema import CONDITION_CONFIG, CONFIGS, check_data_file, is_config
from reasonaudio_dataset.folders import CARD_PARTIAL

CARD = "README.md"
CONFIG_NAME = "|".join(CONFIGS + (CONDITION_CONFIG.pattern.strip("^$"),))
DATA_NAME = re.compile(rf"^({CONFIG_NAME})/[^/]+\.parquet$")
LEFTOVER = re.compile(rf"^(({CONFIG_NAME})/)?\.[^/]+\.partial$")   # a killed run's half-written file


def declared_files(out: Path) -> set[str]:
    """The data files that the folder's finished and planned splits declare (a broken record declares
    nothing; validate reports it)."""
    declared = set()
    for path in [*record_files(out).values(), *record_files(out, planned=True).values()]:
        try:
            files = json.loads(path.read_text()).get("files", [])
            declared.update(f for f in files if isinstance(f, str))
        except (ValueError, OSError, AttributeError):
            continue
    return declared


def card_is_ours(out: Path) -> bool:
    """True when README.md is absent or is exactly the card this toolkit last wrote there."""
    card = out / CARD
    if not card.is_file():
        return not card.exists()
    try:
        written = json.loads((out / RECORDS / CARD_RECORD).read_text())["sha256"]
    except (ValueError, OSError, KeyError, TypeError):
        return False
    return hashlib.sha256(card.read_bytes()).hexdigest() in written


def survey(out: Path) -> tuple[list[str], list[str]]:
    """(foreign files, stray data files) of `out`: what a corpus does not hold (a foreign folder is named,
    not walked), and files named like data files that no record declares (the card's patterns would
    load them; a file of the corpus is always declared, by its plan before it is written)."""
    if not out.is_dir():
        return [], []
    declared = declared_files(out)
    foreign, strays = [], []
    for entry in sorted(out.iterdir()):
        if entry.name in (RECORDS, CARD_PARTIAL):
            continue
        if entry.name == CARD and not entry.is_dir():
            if not card_is_ours(out):
                foreign.append(CARD)
        elif is_config(entry.name) and entry.is_dir():
            for path in sorted(entry.rglob("*")):
                relative = path.relative_to(out).as_posix()
                if path.is_dir() or LEFTOVER.match(relative):
                    continue
                if not DATA_NAME.match(relative):
                    foreign.append(relative)
                elif relative not in declared:
                    strays.append(relative)
        else:
            foreign.append(entry.name + ("/" if entry.is_dir() else ""))
    return foreign, strays


def publishable_files(out: Path) -> list[str]:
    """Exactly what `publish` uploads: the card, its record, the finished splits' records and the data
    files they declare."""
    records = [f"{RECORDS}/{name}" for name in (CARD_RECORD, CERTIFICATE) if (out / RECORDS / name).is_file()]
    records += [path.relative_to(out).as_posix() for path in record_files(out).values()]
    data = sorted({f for record in load_records(out).values() for f in record["files"]})
    for relative in data:
        check_data_file(relative, f"a record in {out / RECORDS}")
    return [CARD] + records + data
