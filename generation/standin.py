"""A stand-in for a strongly-labelled corpus (AudioSet strong, DESED), `reasonaudio standin DIR`: real
recordings are not always at hand (and never offline), so users, tests and benches render recordings whose
truth is known and write the tables users have.

`write_standin(folder, recordings=N)` renders N recordings of `seconds` from an atomic bank (the built-in
synthetic one, or any source spec) in which classes repeat and overlap freely at levels that differ, then
writes what an annotator would: every event with its onset and offset jittered by up to `jitter` seconds,
some split in two by a short gap (as annotators split a continuing sound), in DCASE's TSV
(`labels.tsv`: filename onset offset event_label) and AudioSet's strong TSV (`audioset.tsv`: segment_id
start_time_seconds end_time_seconds label, ids named by `ontology.json`). It returns the true timelines.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import soundfile

from tqdm.auto import tqdm

from reasonaudio.core.relations import Event

from .bank import build_bank
from .render import render

RATE = 16000
MAX_RECORDINGS = 100_000
MIN_SECONDS, MAX_SECONDS = 5.0, 600.0    # room for a 4 s event; the length generate's clips may have


def _timeline(rng, bank, classes: list[str], seconds: float) -> list[Event]:
    """2-4 classes, each heard 1-3 times at random places (repeats and overlaps as they fall)."""
    events = []
    for label in rng.choice(classes, int(rng.integers(2, 5)), replace=False):
        sounds = bank.by_label()[str(label)]
        sound = sounds[int(rng.integers(len(sounds)))]
        for _ in range(int(rng.integers(1, 4))):
            length = float(rng.uniform(0.5, 4.0)) if sound.kind == "continuous" else min(sound.seconds, 3.0)
            onset = round(float(rng.uniform(0, seconds - length)), 3)
            events.append(Event(str(label), sound.source_id, onset, round(onset + length, 3),
                                round(float(rng.uniform(-12, 0)), 1)))
    return sorted(events, key=lambda e: (e.onset, e.label))


def _annotated(rng, event: Event, jitter: float, seconds: float) -> list[tuple[float, float]]:
    onset = min(max(0.0, event.onset + float(rng.uniform(-jitter, jitter))), event.offset - 0.2)
    offset = max(min(seconds, event.offset + float(rng.uniform(-jitter, jitter))), onset + 0.2)
    if offset - onset > 1.5 and rng.uniform() < 0.25:        # split by a gap shorter than the merge gap
        cut = float(rng.uniform(onset + 0.5, offset - 0.5))
        return [(onset, cut), (cut + 0.1, offset)]
    return [(onset, offset)]


def write_standin(folder: str | Path, recordings: int = 120, seconds: float = 10.0, jitter: float = 0.1,
                  source: str = "synthetic:", classes: int = 12, seed: int = 0,
                  progress: bool = False) -> dict[str, list[Event]]:
    if not 1 <= recordings <= MAX_RECORDINGS:
        raise ValueError(f"recordings must be from 1 to {MAX_RECORDINGS}, got {recordings}")
    if not MIN_SECONDS <= seconds <= MAX_SECONDS:      # NaN fails too
        raise ValueError(f"seconds must be from {MIN_SECONDS:g} to {MAX_SECONDS:g}, got {seconds}")
    if seed < 0:
        raise ValueError(f"seed must be at least 0, got {seed}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    bank = build_bank(source, None, 4 * classes, RATE, seed, progress=False)
    vocabulary = sorted(bank.by_label())[:classes]
    ids = {label: f"/m/standin{k:02d}" for k, label in enumerate(vocabulary)}
    rng = np.random.default_rng(seed)
    truth, dcase, audioset = {}, [], []
    for index in tqdm(range(recordings), desc="stand-in recordings", unit="recording", disable=not progress):
        name = f"Ystandin{index:04d}_0"
        events = _timeline(rng, bank, vocabulary, seconds)
        try:
            soundfile.write(folder / f"{name}.wav", np.clip(render(tuple(events), bank, seconds), -1, 1), RATE)
        except (soundfile.LibsndfileError, RuntimeError) as error:     # libsndfile's own error, not an OSError
            raise OSError(f"cannot write {folder / name}.wav ({error}); is {folder} writable?") from None
        truth[name] = events
        for event in events:
            for onset, offset in _annotated(rng, event, jitter, seconds):
                dcase.append([f"{name}.wav", f"{onset:.3f}", f"{offset:.3f}", event.label])
                audioset.append([name, f"{onset:.3f}", f"{offset:.3f}", ids[event.label]])
    for file, header, rows in (("labels.tsv", ["filename", "onset", "offset", "event_label"], dcase),
                               ("audioset.tsv", ["segment_id", "start_time_seconds", "end_time_seconds", "label"],
                                audioset)):
        with open(folder / file, "w", newline="") as handle:
            csv.writer(handle, delimiter="\t", lineterminator="\n").writerows([header] + rows)
    (folder / "ontology.json").write_text(json.dumps([{"id": i, "name": label} for label, i in ids.items()]))
    return truth

