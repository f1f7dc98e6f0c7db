"""Real recordings with strong (onset/offset) labels: the source of a natural build (docs/design.md §13).

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

The table is read as TSV: cells split at tabs, nothing quoted (a `"` in a label is that row's error, never a
quote that swallows the rows after it). A class is one class however its name is written: names differing
only in case or in `_` for a space are one (its first spelling in the table names it; `exhaustive` is
matched the same way), and two ontology ids of one name are refused. A recording path stays in FOLDER:
`./X.wav` is `X.wav`, and a path leaving it (absolute, or through `..`) is that row's error, never opened.

A bad row (an unknown id, a negative or empty length once rounded to the millisecond, a time that is not a
decimal number, a label holding `"` or the classes' separator `|`, a path outside FOLDER, a missing
recording) makes its recording bad: `load()` raises `BadRecording` naming the table and row, and the build
reports it, or skips it with --skip-bad-sources. Offsets beyond the recording are found when it is read.
"""
from __future__ import annotations

import csv
import json
import math
import posixpath
import re
import unicodedata
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from reasonaudio.core.phrases import LABELS_SEPARATOR
from reasonaudio.core.relations import MAX_TOLERANCE, Event

from .base import BadRecording, Recording, SourceError, outside, read_audio_file

LAYOUTS = {
    "dcase": ("filename", "onset", "offset", "event_label"),
    "audioset": ("segment_id", "start_time_seconds", "end_time_seconds", "label"),
}
AUDIO_SUFFIXES = (".wav", ".flac", ".ogg", ".mp3")
DEFAULTS = {"merge_gap": 0.25, "tolerance": 0.2}
NATURAL_KIND = "strong"          # the source kind that makes a build natural
DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")    # what a time is (not Python's 0_1, inf or nan)


def visible(name: str) -> str:
    """A label as it reads: Unicode in one form (NFKC: 'café' typed either way is one word), no zero-width or
    control characters, white space folded to single spaces. Two spellings that look alike are then one class."""
    name = "".join(c for c in unicodedata.normalize("NFKC", name) if unicodedata.category(c) not in ("Cf", "Cc")
                   or c in "\t\n")
    return " ".join(name.split())


def class_key(name: str) -> str:
    """What a class name says, however written: case, `_` for a space and invisible differences aside
    ('Low_hum' = 'low hum'; `visible`)."""
    return " ".join(re.split(r"[_\s]+", visible(name))).casefold()


class ClassNames(frozenset):
    """A set of class names that holds every spelling of each (`class_key`)."""

    def __new__(cls, names):
        return super().__new__(cls, map(class_key, names))

    def __contains__(self, name) -> bool:
        return isinstance(name, str) and super().__contains__(class_key(name))


@dataclass(frozen=True)
class Labelling:
    """What the build needs to know of a strong-label source beyond its recordings."""

    tolerance: float
    exhaustive: ClassNames | None        # None: every class


def _number(text: str, what: str, where: str) -> float:
    value = float(text) if DECIMAL.fullmatch(text) else math.nan
    if math.isnan(value):
        raise BadRecording(f"{where}: {what} {text!r} is not a number of seconds")
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
        names = {entry["id"]: entry["name"] for entry in entries}
    except (OSError, ValueError, TypeError, KeyError) as error:
        raise SourceError(f"{file}: not an AudioSet ontology (a JSON list of {{\"id\", \"name\"}}): {error}") from None
    odd = next(((i, n) for i, n in names.items() if not (isinstance(i, str) and isinstance(n, str) and n.strip())), None)
    if odd is not None:
        raise SourceError(f"{file}: not an AudioSet ontology: id {odd[0]!r} has name {odd[1]!r} (ids and names are "
                          "text)")
    return names


def _one_name_per_class(used: dict[str, str], ontology: str) -> None:
    """Ontology ids the table uses whose names are one class name (`class_key`) would be one class: refused."""
    ids_of: dict[str, list[str]] = {}
    for ontology_id, name in sorted(used.items()):
        ids_of.setdefault(class_key(name), []).append(ontology_id)
    shared = next((ids for ids in ids_of.values() if len(ids) > 1), None)
    if shared:
        raise SourceError(f"{ontology}: ids {', '.join(shared)} are all named "
                          f"{' / '.join(repr(used[i]) for i in shared)}: one name is one class; give each its own")


def _inside(name: str) -> str | None:
    """The recording path `name` as a path inside the source folder ('./X.wav' -> 'X.wav'); None if it leaves it."""
    path = posixpath.normpath(name)
    return None if posixpath.isabs(path) or path == ".." or path.startswith("../") else path


def _recording_path(folder: Path, layout: str, name: str) -> Path | None:
    if layout == "dcase":
        return folder / name
    return next((folder / f"{name}{suffix}" for suffix in AUDIO_SUFFIXES if (folder / f"{name}{suffix}").is_file()),
                None)


def _label(text: str, where: str) -> str:
    text = visible(text)
    if not text:
        raise BadRecording(f"{where}: no event label")
    for mark, meaning in (('"', "a quote (the table is TSV: nothing is quoted)"),
                          (LABELS_SEPARATOR, "the separator of a recording's classes")):
        if mark in text:
            raise BadRecording(f"{where}: label {text!r} holds {meaning}; rename the class")
    return text


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
                     ClassNames(()) if exhaustive == "none" else ClassNames(exhaustive.split("|")))


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
    covered = labelling({"tolerance": tolerance, "exhaustive": exhaustive}).exhaustive   # checked, used by the planner
    table = Path(labels) if Path(labels).is_absolute() else folder / labels
    try:
        with open(table, newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
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
    spelling: dict[str, str] = {}        # class_key -> the class's name: its first spelling in the table
    used: dict[str, str] = {}            # ontology ids the table uses, and their names
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        cells = [cell.strip() for cell in row] + [""] * (4 - len(row))
        given, onset, offset, label = cells[:4]
        where = f"{table.name} row {line}"
        name = _inside(given) if given else given
        if name is None:                                   # never opened: one bad entry under the name given
            name = given
            problems.setdefault(name, f"{where}: recording {given!r} is outside {folder} (recordings are read only "
                                      "from the source folder)")
        events.setdefault(name, [])
        if name in problems:
            continue
        try:
            if not name:
                raise BadRecording(f"{where}: no recording named")
            if not (onset or offset or label) and layout == "dcase":
                continue                                   # a recording without events
            start, end = (round(_number(text, what, where), 3) for text, what in ((onset, "onset"), (offset, "offset")))
            if end <= start:
                raise BadRecording(f"{where}: offset {end:g} s is not after onset {start:g} s (to the millisecond)")
            if layout == "audioset":
                if label not in names:
                    raise BadRecording(f"{where}: unknown label id {label!r} (not in the ontology)")
                used[label], label = names[label], names[label]
            label = spelling.setdefault(class_key(_label(label, where)), label)
            events[name].append(Event(label, name, start, end, 0.0))
        except BadRecording as error:
            problems[name] = str(error)
    if layout == "audioset":
        _one_name_per_class(used, ontology)
    unknown = sorted(set(covered or ()) - set(spelling))
    if unknown:
        raise SourceError(f"exhaustive names {', '.join(map(repr, unknown))}: no class of {table.name} (its classes: "
                          f"{', '.join(sorted(spelling.values()))})")
    out = []
    for name, found in events.items():
        path = None if name in problems and not _inside(name) else _recording_path(folder, layout, name)
        leaves = path is not None and name not in problems and outside(folder, path,
                                                                        f"{table.name}: recording {name!r}")
        if leaves:
            problems[name], path = leaves, None
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
