"""Runs inside Scaper's own virtual environment (see generate_bench.py): renders N soundscapes
comparable to ReasonAudio clips (10 s, 44.1 kHz) from ESC-50 and prints the seconds per clip. Like with
like: soundscape i holds as many sounds as ReasonAudio's clip i (a background and the rest as events;
the counts come as a JSON list), and one Scaper object is reused as a user would (a new one per clip
scans the sound folders each time, about doubling Scaper's cost). Standalone on purpose: Scaper 1.6.5
needs numpy<2, which this project does not."""
import csv
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import scaper

esc50, count, sounds = Path(sys.argv[1]), int(sys.argv[2]), json.loads(Path(sys.argv[3]).read_text())
BACKGROUND = {"rain", "wind", "sea_waves", "crickets", "engine", "airplane", "vacuum_cleaner", "washing_machine"}
with tempfile.TemporaryDirectory() as tmp:
    fg, bg, out = Path(tmp, "fg"), Path(tmp, "bg"), Path(tmp, "out")
    with open(esc50 / "meta" / "esc50.csv") as handle:
        for row in csv.DictReader(handle):
            folder = (bg if row["category"] in BACKGROUND else fg) / row["category"]
            folder.mkdir(parents=True, exist_ok=True)
            os.symlink(esc50 / "audio" / row["filename"], folder / row["filename"])
    out.mkdir()
    start = time.perf_counter()
    sc = scaper.Scaper(10.0, str(fg), str(bg), random_state=0)
    sc.sr, sc.ref_db = 44100, -50
    for i in range(count):
        sc.reset_bg_event_spec()
        sc.reset_fg_event_spec()
        sc.add_background(label=("choose", []), source_file=("choose", []), source_time=("const", 0))
        for _ in range(sounds[i % len(sounds)] - 1):
            sc.add_event(label=("choose", []), source_file=("choose", []), source_time=("const", 0),
                         event_time=("uniform", 0, 8), event_duration=("uniform", 0.5, 2.5),
                         snr=("uniform", 6, 20), pitch_shift=None, time_stretch=None)
        sc.generate(str(out / f"{i}.wav"), str(out / f"{i}.jams"), disable_sox_warnings=True)
    print(json.dumps({"seconds_per_clip": (time.perf_counter() - start) / count, "clips": count}))
