"""A CSV manifest: columns `path,label`, optional `start,end` (seconds), `license` and `credit` (or
`attribution`, `author`); paths relative to the manifest. UTF-8, with or without a byte-order mark.

A row that cannot be used (no path; a start or end that is not a finite, non-negative number of seconds
of at most a day; an end not after its start; a path leading outside the manifest's folder) still yields
its recording, whose `load()` raises `BadRecording` naming the file, row (its line number) and column: the
bank reports it, or skips it with --skip-bad-sources, like unreadable audio, so nothing is lost silently
and a typo never stops a whole run unasked.

One file on several rows: a row with the same crop as an earlier one (same label, or another label,
which one sound cannot carry) is warned about and dropped, the first kept; under another label with a
different crop it is warned about and kept (two labelled regions of one recording); the same label with
a different crop is another event of the recording, kept silently. A row without a label is left to
the bank, which reports it.
"""
from __future__ import annotations

import csv
import logging
import math
import os
from functools import partial
from pathlib import Path

from .base import BadRecording, CREDIT_COLUMNS, Recording, SourceError, local_file, refuse

log = logging.getLogger(__name__)
MAX_SECONDS = 24 * 3600.0    # a time into a recording beyond a day is a typo: the bank reads recordings whole


def _seconds(row: dict, column: str, where: str) -> float | None:
    text = (row.get(column) or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise BadRecording(f"{where}, column {column}: {text!r} is not a number of seconds") from None
    if not math.isfinite(value):
        raise BadRecording(f"{where}, column {column}: {text!r} is not a finite number of seconds")
    if value < 0:
        raise BadRecording(f"{where}, column {column}: {text!r} is negative")
    if value > MAX_SECONDS:
        raise BadRecording(f"{where}, column {column}: {text!r} is more than a day ({MAX_SECONDS:g} s) into the "
                           "recording")
    return value


def _crop(row: dict, where: str) -> tuple[float | None, float | None]:
    if not (row.get("path") or "").strip():
        raise BadRecording(f"{where}, column path: no file named")
    start, end = _seconds(row, "start", where), _seconds(row, "end", where)
    if end is not None and end <= (start or 0.0):
        raise BadRecording(f"{where}, column end: {end:g} is not after start {start or 0:g}")
    return start, end


def _keep(earlier: list, line: int, label: str, crop: tuple, where: str) -> bool:
    """Whether a row of a file listed on `earlier` rows [(line, label, crop)] is kept (module docstring)."""
    same = next((e for e in earlier if e[2] == crop), None)
    if same:
        twice = "twice" if same[1] == label else f"under two labels ({same[1]!r}, {label!r}) with the same crop"
        log.warning("%s lists one file %s, rows %d and %d: row %d is dropped", where, twice, same[0], line, line)
        return False
    other = next((e for e in earlier if e[1] != label), None)
    if other:
        log.warning("%s lists one file under two labels (%r, %r), rows %d and %d: both kept, as their crops differ",
                    where, other[1], label, other[0], line)
    earlier.append((line, label, crop))
    return True


def recordings(location: str, license: str = "") -> list[Recording]:
    """CSV manifest (path,label[,start,end,license,credit]; paths relative to it): `csv:sounds.csv?license=CC0-1.0`."""
    manifest = Path(location)
    if not manifest.is_file():
        raise SourceError(f"CSV manifest {manifest} does not exist")
    try:
        with open(manifest, newline="", encoding="utf-8-sig") as handle:   # spreadsheets often write a BOM
            reader = csv.DictReader(handle)
            reader.fieldnames = [name.strip().lower() for name in reader.fieldnames or ()]
            missing = {"path", "label"} - set(reader.fieldnames)
            if missing:
                raise SourceError(f"{manifest} lacks the columns {sorted(missing)} (header: {reader.fieldnames})")
            rows = [(reader.line_num, row) for row in reader]
    except (UnicodeDecodeError, csv.Error) as error:
        raise SourceError(f"{manifest} is not a readable UTF-8 CSV file: {error}") from None
    found, listed = [], {}          # file -> [(line, label, crop)] of its rows kept so far
    for line, row in rows:
        name, label = (row.get("path") or "").strip(), (row.get("label") or "").strip()
        file = os.path.normpath(name)
        try:
            start, end = _crop(row, f"{manifest.name}, row {line}")
        except BadRecording as error:
            start, end, load = None, None, partial(refuse, error)
        else:
            if label and not _keep(listed.setdefault(file, []), line, label, (start or 0.0, end), manifest.name):
                continue
            load = local_file(manifest.parent, manifest.parent / name,
                              f"{manifest.name}, row {line}, column path: {name!r}")
        found.append(Recording(
            recording_id=f"csv/{name}#{line}", label=label, origin=f"csv:{name or manifest.name}", load=load,
            license=(row.get("license") or "").strip() or license,
            attribution=next((row[c].strip() for c in CREDIT_COLUMNS if (row.get(c) or "").strip()), ""),
            group=f"csv/{file}", start=start, end=end,
        ))
    return found
