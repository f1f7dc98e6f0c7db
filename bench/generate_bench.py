"""Generator speed and memory, as ratios against targets and an anchor measured in the same run.

    python bench/generate_bench.py [--esc50 ../shared/data/esc50-subset] [--scaper-clips 100]

1. The full default split (1,000 queries, 10,000 x 10 s clips at 44.1 kHz) from the ESC-50 subset
   with --workers 2: wall time against the 120 s target and peak memory of the whole process tree
   (proportional set size, shared pages counted once) against the 2 GB target.
2. With one worker, the whole-run cost per clip (sound bank, planning, qrels, rendering, FLAC,
   Parquet) of the default split's size against Scaper 1.6.5 rendering comparable soundscapes in the same
   run (10 s, 44.1 kHz, as many sounds as each of our clips, one Scaper object reused); target: at least 8x
   cheaper. A run of a fifth of the size beside it splits the cost into what a run pays once (imports,
   the bank, the card) and what each further clip costs. Scaper lives in its own virtual environment
   (bench/.scaper-venv, made on first use; it needs the `sox` program).
3. `reasonaudio validate --workers 2` of the full split from 1. (tables re-derived, every clip decoded
   and re-rendered) against the 45 s target.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_ESC50 = HERE.parents[1] / "shared" / "data" / "esc50-subset"
SCAPER_VENV = HERE / ".scaper-venv"
REASONAUDIO = [sys.executable, "-m", "reasonaudio"]


def tree_memory(pid: int, fields: tuple[str, ...] = ("Pss",)) -> dict[str, int]:
    """Memory of a process and all its descendants, in bytes, per field of Linux's smaps_rollup: `Pss` (the
    proportional set size: pages forked workers share with their parent count once, not per process; file
    pages a process maps, as Arrow maps Parquet, count as they are touched) or `Anonymous` (the heap alone)."""
    total, stack = dict.fromkeys(fields, 0), [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/smaps_rollup") as handle:
                for line in handle:
                    name, _, value = line.partition(":")
                    if name in total:
                        total[name] += int(value.split()[0]) * 1024
            with open(f"/proc/{current}/task/{current}/children") as handle:
                stack += [int(child) for child in handle.read().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def run_sampled(command: list[str], fields: tuple[str, ...] = ("Pss",)) -> tuple[float, dict[str, int]]:
    """Wall seconds of a command and the peak of each memory field of its process tree (`tree_memory`)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    peak = dict.fromkeys(fields, 0)

    def sample():
        while process.poll() is None:
            for name, value in tree_memory(process.pid, fields).items():
                peak[name] = max(peak[name], value)
            time.sleep(0.1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    code = process.wait()
    sampler.join()
    if code:
        raise SystemExit(f"{' '.join(command)} failed with exit code {code}")
    return time.perf_counter() - start, peak


def run_measured(command: list[str]) -> tuple[float, int]:
    """Wall seconds and peak process-tree proportional set size of a command."""
    wall, peak = run_sampled(command)
    return wall, peak["Pss"]


def sounds_per_clip(folder: str) -> list[int]:
    """How many sounds each clip of a build holds, in corpus order (Scaper renders as many)."""
    import pyarrow.parquet as pq

    return [len(events) for path in sorted(Path(folder, "corpus").glob("*.parquet"))
            for events in pq.read_table(path, columns=["events"]).column("events").to_pylist()]


def scaper_seconds_per_clip(esc50: Path, clips: int, sounds: list[int]) -> float | None:
    if shutil.which("sox") is None:
        print("  Scaper needs the sox program (apt-get install sox); skipping the Scaper anchor")
        return None
    python = SCAPER_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(SCAPER_VENV)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run(pip + ["--no-deps", "scaper==1.6.5"], check=True)
        subprocess.run(pip + ["jams", "sox==1.4.0", "pyloudnorm", "soundfile", "scipy", "numpy<2"], check=True)
    with tempfile.NamedTemporaryFile("w", suffix=".json") as counts:
        json.dump(sounds, counts)
        counts.flush()
        result = subprocess.run([str(python), "-W", "ignore", str(HERE / "scaper_worker.py"), str(esc50), str(clips),
                                 counts.name], check=True, capture_output=True, text=True)
    return json.loads(result.stdout.strip().splitlines()[-1])["seconds_per_clip"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--esc50", type=Path, default=DEFAULT_ESC50)
    parser.add_argument("--scaper-clips", type=int, default=100)
    parser.add_argument("--single-worker-queries", type=int, default=200,
                        help="queries per task of the one-worker run (x5 tasks x10 clips; default: the default "
                             "split's 10,000 clips)")
    parser.add_argument("--skip-full", action="store_true", help="only the per-clip comparison")
    args = parser.parse_args()
    if not (args.esc50 / "meta" / "esc50.csv").is_file():
        raise SystemExit(f"no ESC-50 folder at {args.esc50}")
    source = f"esc50:{args.esc50}"
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_full:
            wall, rss = run_measured(REASONAUDIO + ["generate", "--source", source, "--out", f"{tmp}/full",
                                                    "--workers", "2", "--quiet"])
            print("full default split (1,000 queries, 10,000 clips of 10 s at 44.1 kHz), --workers 2:")
            print(f"  wall {wall:6.1f} s   ratio to the 120 s target {wall / 120:5.2f} (<= 1 passes)")
            print(f"  peak memory (PSS of the process tree) {rss / 2**30:5.2f} GiB   ratio to the 2 GB target "
                  f"{rss / 2e9:5.2f} (<= 1 passes)")
            wall, rss = run_measured(REASONAUDIO + ["validate", f"{tmp}/full", "--workers", "2", "--quiet"])
            print("validate that split (tables re-derived, every clip decoded and re-rendered), --workers 2:")
            print(f"  wall {wall:6.1f} s   ratio to the 45 s target {wall / 45:5.2f} (<= 1 passes); "
                  f"peak memory {rss / 2**30:5.2f} GiB")
            shutil.rmtree(f"{tmp}/full")
        walls, queries = {}, args.single_worker_queries
        for size in sorted({max(1, queries // 5), queries}):     # one run when a fifth rounds to the same size
            command = ["generate", "--source", source, "--out", f"{tmp}/one-{size}", "--workers", "1",
                       "--queries-per-task", str(size), "--quiet"]
            walls[size * 50], _ = run_measured(REASONAUDIO + command)
            if size != queries:
                shutil.rmtree(f"{tmp}/one-{size}")
        clips, wall = queries * 50, walls[queries * 50]
        ours, split = wall / clips, ""
        if len(walls) > 1:
            (small, small_wall), _ = sorted(walls.items())
            each = (wall - small_wall) / (clips - small)
            split = (f"; {small} clips: {small_wall / small * 1e3:.1f} ms per clip; from the two, "
                     f"{wall - each * clips:.1f} s a run pays once and {each * 1e3:.1f} ms each clip")
        sounds = sounds_per_clip(f"{tmp}/one-{queries}")
        shutil.rmtree(f"{tmp}/one-{queries}")
        print(f"one worker, whole run: {ours * 1e3:6.1f} ms per clip ({clips} clips, "
              f"{sum(sounds) / len(sounds):.2f} sounds per clip{split})")
        picked = sounds[::max(1, len(sounds) // args.scaper_clips)][:args.scaper_clips]   # spread over every task
        scaper = scaper_seconds_per_clip(args.esc50, args.scaper_clips, picked)
        if scaper is not None:
            print(f"Scaper 1.6.5, one object reused, as many sounds per clip ({sum(picked) / len(picked):.2f}: a "
                  f"background and events): {scaper * 1e3:6.1f} ms per clip ({args.scaper_clips} clips)")
            verdict = "passes" if scaper / ours >= 8 else "misses"
            print(f"  ReasonAudio is {scaper / ours:5.1f}x cheaper per clip (target >= 8x: {verdict})")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    main()
