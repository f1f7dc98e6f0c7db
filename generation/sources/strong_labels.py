"""Real recordings with strong (onset/offset) labels: the source of a natural build (docs/design.md §12).

`strong:FOLDER?labels=TABLE` reads a tab-separated table in either layout users have, told by its header:

* DCASE (`filename onset offset event_label`): `filename` relative to FOLDER; a row with no times and
  no label lists a recording without events.
* AudioSet strong (`segment_id start_time_seconds end_time_seconds label`): the recording is
  `FOLDER/<segment_id>.<wav|flac|ogg|mp3>`; labels are ontology ids, named by `ontology=ontology.json`
  (AudioSet's: a list of `{"id", "name"}`).

Options: `merge_gap` (seconds, default 0.25: same-class events closer than this are one event, as
annotators split a continuing sound), `tolerance` (seconds, default 0.2: how far an annotated boundary
may be off; DCASE's event-based metrics use a 200 ms collar), `exhaustive` (`all`, the default: every
class of the table is annotated wherever it sounds, so "no X" may be asked of it; `none`; or
`label1|label2`), `license` and `attribution` (of the whole source, stated on the card).

A bad row (an unknown id, a negative or empty length, a time that is not a number, a missing recording)
makes its recording bad: `load()` raises `BadRecording` naming the table and row, and the build reports it,
or skips it with --skip-bad-sources. Offsets beyond the recording are found when it is read.
"""
from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from ..phrases import LABELS_SEPARATOR
from ..relations import MAX_TOLERANCE, Event
from .base import BadRecording, Recording, SourceError, read_audio_file

LAYOUTS = {
    "dcase": ("filename", "onset", "offset", "event_label"),
    "audioset": ("segment_id", "start_time_seconds", "end_time_seconds", "label"),
}
AUDIO_SUFFIXES = (".wav", ".flac", ".ogg", ".mp3")
DEFAULTS = {"merge_gap": 0.25, "tolerance": 0.2}
NATURAL_KIND = "strong"          # the source kind that makes a build natural


@dataclass(frozen=True)
class Labelling:
    """What the build needs to know of a strong-label source beyond its recordings."""

    tolerance: float
    exhaustive: frozenset[str] | None        # None: every class


def _number(text: str, what: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise BadRecording(f"{where}: {what} {text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise BadRecording(f"{where}: {what} {text!r} is not a non-negative number of seconds")
    return value


def merged(events: list[Event], gap: float) -> tuple[Event, ...]:
    """Same-class events closer than `gap` (or overlapping) as one; times in milliseconds."""
    out: list[Event] = []
    for event in sorted(events, key=lambda e: (e.label, e.onset, e.offset)):
        last = out[-1] if out else None
        if last is not None and last.label == event.label and event.onset - last.offset < gap:
            out[-1] = Event(last.label, last.source_id, last.onset, max(last.offset, event.offset), 0.0)
        else:
            out.append(event)
    return tuple(sorted(out, key=lambda e: (e.onset, e.offset, e.label)))


def _ontology(path: str, labels_file: Path) -> dict[str, str]:
    if not path:
        return {}
    file = Path(path) if Path(path).is_absolute() else labels_file.parent / path
    try:
        entries = json.loads(file.read_text(encoding="utf-8"))
        return {entry["id"]: entry["name"] for entry in entries}
    except (OSError, ValueError, TypeError, KeyError) as error:
        raise SourceError(f"{file}: not an AudioSet ontology (a JSON list of {{\"id\", \"name\"}}): {error}") from None


def _recording_path(folder: Path, layout: str, name: str) -> Path | None:
    if layout == "dcase":
        return folder / name
    return next((folder / f"{name}{suffix}" for suffix in AUDIO_SUFFIXES if (folder / f"{name}{suffix}").is_file()),
                None)


def _load(path: Path, problem: str | None, events: tuple[Event, ...]):
    """The recording's samples, after checking its rows: a bad row or an event past its end makes it bad."""
    if problem:
        raise BadRecording(problem)
    samples, rate = read_audio_file(path)
    seconds = len(samples) / rate
    late = next((e for e in events if e.offset > seconds + 0.01), None)
    if late is not None:
        raise BadRecording(f"{path.name}: event {late.label!r} ends at {late.offset:g} s, beyond the recording's "
                           f"{seconds:.3f} s")
    return samples, rate


def labelling(options: dict[str, str]) -> Labelling:
    """The tolerance and the exhaustively labelled classes a strong-label spec's options state."""
    tolerance = _option(options, "tolerance")
    if tolerance > MAX_TOLERANCE:
        raise SourceError(f"tolerance must be at most {MAX_TOLERANCE} s, got {tolerance:g}")
    exhaustive = options.get("exhaustive") or "all"
    return Labelling(tolerance, None if exhaustive == "all" else
                     frozenset() if exhaustive == "none" else frozenset(exhaustive.split("|")))


def _option(options: dict, name: str) -> float:
    """A seconds option (DEFAULTS where not given), checked."""
    text = options.get(name) or str(DEFAULTS[name])
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (math.isfinite(value) and value >= 0):
        raise SourceError(f"{name} must be a non-negative number of seconds, got {text!r}")
    return value


def recordings(location: str, labels: str = "", ontology: str = "", merge_gap: str = "", tolerance: str = "",
               exhaustive: str = "all", license: str = "unknown (state it with ?license=)",
               attribution: str = "") -> list[Recording]:
    """a natural build over strongly-labelled recordings: `strong:DIR?labels=T.tsv[&ontology=ontology.json]`.

    DCASE or AudioSet TSV; options tolerance, merge_gap, exhaustive, license, attribution (module docstring)."""
    folder = Path(location)
    if not folder.is_dir():
        raise SourceError(f"strong-label source: {folder} is not a folder of recordings")
    if not labels:
        raise SourceError("strong-label source: name its table, e.g. strong:FOLDER?labels=labels.tsv")
    gap = _option({"merge_gap": merge_gap}, "merge_gap")
    labelling({"tolerance": tolerance, "exhaustive": exhaustive})     # checked here, used by the planner
    table = Path(labels) if Path(labels).is_absolute() else folder / labels
    try:
        with open(table, newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.reader(handle, delimiter="\t"))
    except (OSError, UnicodeDecodeError) as error:
        raise SourceError(f"{table}: cannot be read ({error})") from None
    header = tuple(cell.strip() for cell in rows[0]) if rows else ()
    layout = next((name for name, columns in LAYOUTS.items() if header[:4] == columns), None)
    if layout is None:
        raise SourceError(f"{table}: header {list(header)} is neither DCASE's {list(LAYOUTS['dcase'])} nor "
                          f"AudioSet's {list(LAYOUTS['audioset'])} (tab-separated)")
    names = _ontology(ontology, table) if layout == "audioset" else {}
    if layout == "audioset" and not names:
        raise SourceError(f"{table}: AudioSet labels are ontology ids; name the ontology, e.g. "
                          "strong:FOLDER?labels=TABLE&ontology=ontology.json")
    events: dict[str, list[Event]] = {}
    problems: dict[str, str] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        cells = [cell.strip() for cell in row] + [""] * (4 - len(row))
        name, onset, offset, label = cells[:4]
        where = f"{table.name} row {line}"
        events.setdefault(name, [])
        if name in problems:
            continue
        try:
            if not name:
                raise BadRecording(f"{where}: no recording named")
            if not (onset or offset or label) and layout == "dcase":
                continue                                   # a recording without events
            start, end = _number(onset, "onset", where), _number(offset, "offset", where)
            if end <= start:
                raise BadRecording(f"{where}: offset {end:g} s is not after onset {start:g} s")
            if layout == "audioset":
                if label not in names:
                    raise BadRecording(f"{where}: unknown label id {label!r} (not in the ontology)")
                label = names[label]
            if not label:
                raise BadRecording(f"{where}: no event label")
            events[name].append(Event(label, name, round(start, 3), round(end, 3), 0.0))
        except BadRecording as error:
            problems[name] = str(error)
    out = []
    for name, found in events.items():
        path = _recording_path(folder, layout, name)
        problem = problems.get(name) or (None if path is not None and path.is_file() else
                                         f"{table.name}: recording {name!r} is not in {folder}")
        timeline = () if problem else merged(found, gap)
        out.append(Recording(
            recording_id=name, label=LABELS_SEPARATOR.join(sorted({e.label for e in timeline})), origin=str(path or folder / name),
            load=partial(_load, path, problem, timeline), license=license, attribution=attribution, events=timeline,
            kind="recording"))
    if not out:
        raise SourceError(f"{table}: lists no recordings")
    return out
