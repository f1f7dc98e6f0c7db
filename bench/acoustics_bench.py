"""Cost of the acoustic conditions, as ratios against the clean rendering measured in the same run.

    python bench/acoustics_bench.py [--esc50 ../shared/data/esc50-subset] [--queries 40] [--baseline DIR]
                                    [--full noisy ...]

1. One worker, 44.1 kHz, the whole run (bank, plan, render, FLAC, Parquet) per clip under each preset,
   beside `clean`, the best of --repeats interleaved rounds; targets: noisy and wild at most 1.3x clean,
   reverberant and telephone 1.6x. With --baseline, a checkout of another commit (its code
   on PYTHONPATH) runs beside each run of this one: before and after in the same spells of a shared machine.
2. With --full: the full default split (10,000 clips) under each named preset on 2 workers, against
   the 240 s target.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from generate_bench import DEFAULT_ESC50, REASONAUDIO, run_measured

TARGETS = {"noisy": 1.3, "reverberant": 1.6, "telephone": 1.6, "wild": 1.3}      # at most x clean's cost
PRESETS = ("clean", "noisy", "reverberant", "telephone", "wild")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--esc50", type=Path, default=DEFAULT_ESC50)
    parser.add_argument("--queries", type=int, default=40, help="queries per task of the one-worker runs (x50 clips)")
    parser.add_argument("--repeats", type=int, default=2, help="rounds of the one-worker runs; each preset's best counts")
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit, timed beside this one")
    parser.add_argument("--full", nargs="*", default=[], metavar="PRESET",
                        help="also build the full default split under these presets on 2 workers")
    args = parser.parse_args()
    if not (args.esc50 / "meta" / "esc50.csv").is_file():
        raise SystemExit(f"no ESC-50 folder at {args.esc50}")
    source, clips = f"esc50:{args.esc50.resolve()}", args.queries * 50
    trees = {"this": Path(__file__).resolve().parents[1], **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    with tempfile.TemporaryDirectory() as tmp:
        print(f"one worker, whole run, {clips} clips of 10 s at 44.1 kHz, per preset (best of {args.repeats} "
              "rounds, presets interleaved):")
        cost = {}
        for round_ in range(args.repeats):        # interleaved: a slow spell of the machine hits every preset alike
            for preset in PRESETS:
                for tree, root in trees.items():     # `python -m` puts the working folder first on the path
                    os.chdir(root)
                    os.environ["PYTHONPATH"] = str(root)
                    out = f"{tmp}/{tree}-{preset}-{round_}"
                    wall, _ = run_measured(REASONAUDIO + ["generate", "--source", source, "--out", out, "--workers",
                                                          "1", "--queries-per-task", str(args.queries),
                                                          "--acoustics", preset, "--quiet"])
                    cost[tree, preset] = min(cost.get((tree, preset), wall / clips), wall / clips)
                    shutil.rmtree(out)
        os.chdir(trees["this"])
        os.environ["PYTHONPATH"] = str(trees["this"])
        for tree in trees:
            if len(trees) > 1:
                print(f"{tree} ({trees[tree]}):")
            for preset in PRESETS:
                ratio = cost[tree, preset] / cost[tree, "clean"]
                target = f"   target <= {TARGETS[preset]:.1f}x: {'passes' if ratio <= TARGETS[preset] else 'misses'}" \
                    if preset in TARGETS else ""
                print(f"  {preset:12s} {1e3 * cost[tree, preset]:6.1f} ms/clip   "
                      f"+{1e3 * (cost[tree, preset] - cost[tree, 'clean']):5.1f} ms over clean   {ratio:4.2f}x clean{target}")
        for preset in args.full:
            wall, rss = run_measured(REASONAUDIO + ["generate", "--source", source, "--out", f"{tmp}/full-{preset}",
                                                    "--workers", "2", "--acoustics", preset, "--quiet"])
            print(f"full default split under {preset}, --workers 2: wall {wall:6.1f} s   ratio to the 240 s target "
                  f"{wall / 240:4.2f} (<= 1 passes); peak memory {rss / 2**30:4.2f} GiB")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    main()
