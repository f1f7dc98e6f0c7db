"""Which files of a folder belong to a ReasonAudio corpus, so that nothing else is ever touched.

A corpus folder holds its records (`.reasonaudio/`), the data files those records declare, and the
dataset card. The writer refuses a folder holding anything else before any work (a user's own
README.md is never overwritten, even with --force), `publish` uploads only the declared files, and
`validate` reports stray files that `load_dataset` would pick up through the card's glob patterns.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from reasonaudio_dataset.card import CARD_RECORD, RECORDS
from reasonaudio_dataset.schema import CONFIGS

from .writer import read_stamp

CARD = "README.md"
DATA_NAME = re.compile(rf"^({'|'.join(CONFIGS)})/[^/]+\.parquet$")
OWN_NAME = re.compile(rf"^({'|'.join(CONFIGS)})/(train|validation|test)-\d{{5}}-of-\d{{5}}\.parquet$")
LEFTOVER = re.compile(rf"^(({'|'.join(CONFIGS)})/)?\.[^/]+\.partial$")   # a killed run's half-written file


class ForeignFiles(FileExistsError):
    """The output folder holds files that are not part of a ReasonAudio corpus."""


def _records(out: Path) -> list[dict]:
    records = []
    for path in sorted((out / RECORDS).glob("*.json")):
        try:
            records.append(json.loads(path.read_text()))
        except (ValueError, OSError):
            continue          # a broken record declares nothing; validate reports it
    return records


def declared_files(out: Path) -> list[str]:
    """The data files that the folder's finished and planned splits declare."""
    return sorted({f for record in _records(out) if isinstance(record, dict) for f in record.get("files", ())})


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


def _is_own_data_file(out: Path, relative: str, declared: set[str]) -> bool:
    if relative in declared:
        return True
    if not OWN_NAME.match(relative):
        return False
    try:
        return bool((read_stamp(out / relative) or {}).get("fingerprint"))
    except Exception:  # unreadable Parquet: not a file of ours
        return False


def survey(out: Path) -> tuple[list[str], list[str]]:
    """(foreign files, stray data files) of `out`: files a corpus does not hold, and files named like
    data files that no record declares (the card's patterns would load them)."""
    if not out.is_dir():
        return [], []
    declared = set(declared_files(out))
    foreign, strays = [], []
    for path in sorted(out.rglob("*")):
        relative = path.relative_to(out).as_posix()
        if path.is_dir() or relative.startswith(f"{RECORDS}/") or LEFTOVER.match(relative):
            continue
        if relative == CARD:
            if not card_is_ours(out):
                foreign.append(relative)
        elif DATA_NAME.match(relative):
            if not _is_own_data_file(out, relative, declared):
                strays.append(relative)
        else:
            foreign.append(relative)
    return foreign, strays


def _listing(files: list[str]) -> str:
    return ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")


def check_output_folder(out: str | Path, force: bool = False) -> None:
    """Refuse, before any work, an output folder that holds files not of a ReasonAudio corpus.

    `force` lets unrelated files stay beside the corpus (untouched, never uploaded), but never a
    foreign README.md (the card would replace it) nor stray data files (the card would load them)."""
    if str(out).strip() == "":
        raise ValueError("--out is empty (an unset shell variable?): name the output folder")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ForeignFiles(f"{out} is a file, not a folder; choose another --out")
    foreign, strays = survey(out)
    if strays:
        raise ForeignFiles(f"{out} holds data files that no ReasonAudio record declares ({_listing(strays)}); "
                           "the card's patterns would load them: move them away or choose another --out")
    if CARD in foreign:
        raise ForeignFiles(f"{out}/{CARD} is not a card this toolkit wrote; it is never overwritten "
                           "(not even with --force): choose another --out")
    if foreign and not force:
        raise ForeignFiles(f"{out} holds files that are not part of a ReasonAudio corpus ({_listing(foreign)}); "
                           "choose an empty or new --out, or pass --force to write beside them (they are left "
                           "untouched and never published)")


def publishable_files(out: Path) -> list[str]:
    """Exactly what `publish` uploads: the card, the finished splits' records and their data files."""
    records = sorted(p.relative_to(out).as_posix() for p in (out / RECORDS).glob("*.json")
                     if not p.name.endswith(".plan.json"))
    finished = [json.loads((out / r).read_text()) for r in records if r != f"{RECORDS}/{CARD_RECORD}"]
    data = sorted({f for record in finished for f in record["files"]})
    return [CARD] + records + data
