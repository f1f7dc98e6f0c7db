"""Do a natural build's residual cues shrink as its pool of recordings grows?

A `strong:` source's candidate groups are built from the recordings it finds, as recorded; with few recordings a
split, groups balance only so far, and rules that read no reasoning find the positive by the group's structure.
This plans (no audio rendered) the test split of stand-ins of each size (`reasonaudio standin DIR --recordings N
--seed S`: the same classes per recording and event statistics, more recordings), one stand-in and one plan seed
per seed, and scores the reasoning-free rules of `bench/plan_rules.py` on the plans:

* bag (the named sounds a candidate holds, counted: recognition without reasoning; the tie of the busyness rules);
* fewest unnamed (the bag, ties broken by the fewest classes the query does not name) and fewest events (by the
  fewest events), as points above the bag;
* fewest shared (the candidate whose classes the rest of its group shares least; reads no query, tie 1 /
  candidates = 10 %);
* with --audits, the learned adversaries of `bench/plan_adversaries.py`: the one that knows the named sounds but
  not the relation (against its count tie), the listwise one and shortcut-timeline (the query-blind audit's
  timeline half; both against 10 %), each trained
  on the planned train split of a second stand-in of the same size.

Printed: one table per task and per task x shape, a row per pool size, with the paired bootstrap 95 % interval
of each rule's difference from its tie (stand-ins, then each stand-in's queries, as `plan_adversaries.interval`);
`*` when it excludes 0. On a 2-core machine (the other core busy) one plan takes about 30 s for 300 recordings,
45 s for 1,000 and 70 s for 3,000, so the default run takes about 5 minutes and --audits doubles it (a train split
planned per test split); the wall time of each size is printed. Stand-ins are made once and kept in --work
(about 0.3 GB of audio a 1,000 recordings).

    python bench/pool_size_curve.py [--sizes 300,1000,3000] [--seeds 2] [--queries 200] [--audits] [--work DIR]
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from reasonaudio.generation.config import GenerateConfig                                              # noqa: E402
from reasonaudio.generation.pipeline import plan_split                                                # noqa: E402
from plan_adversaries import ADVERSARIES, BLIND, LISTWISE, group_accuracy, interval, planned, rows    # noqa: E402
from reasonaudio.evaluation.systems.learned import fit_classifier                                    # noqa: E402
from plan_rules import accuracy, rule_scores                                                          # noqa: E402

RULES = ("bag", "fewest-unnamed", "fewest-events", "-shared")   # the names `plan_rules.rule_scores` gives them


def standin(work: Path, size: int, seed: int) -> Path:
    """The stand-in's folder, made on first use; written beside and renamed, so an interrupted run leaves no
    half-made stand-in to be reused."""
    folder = work / f"standin-{size}-{seed}"
    if not folder.exists():
        partial = work / f"partial-{size}-{seed}"
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "reasonaudio", "standin", str(partial), "--recordings", str(size),
                        "--seed", str(seed), "--quiet"], check=True, stdout=subprocess.DEVNULL)
        partial.rename(folder)
    return folder


def spec(folder: Path, split: str) -> str:
    return f"strong:{folder}?labels=audioset.tsv&ontology=ontology.json&as_split={split}"


def scored(folder: Path, seed: int, queries: int, train: Path | None) -> list[tuple[str, str, dict[str, float]]]:
    """(task, shape, rule -> accuracy, with "chance" and, given a train stand-in, each learned adversary and
    "count tie") for each query of the stand-in's planned test split."""
    source = spec(folder, "test")
    with tempfile.TemporaryDirectory() as scratch:
        plan = plan_split(GenerateConfig(source=source, out=scratch, split="test", queries_per_task=queries,
                                         seed=seed, sample_rate=16000, progress=False))
    sounds = {s.source_id: s for s in plan.bank.sounds}
    found = []
    for query in plan.queries:
        positive = [c.clip_id for c in query.candidates].index(query.positive)
        scores = rule_scores(query, sounds)
        row = {name: accuracy(scores[name], positive) for name in RULES}
        row["chance"] = 1 / len(query.candidates)
        found.append((query.task, query.shape, row))
    if train is not None:
        tested = rows(plan.queries, plan.config.clip_seconds)
        trained = rows(planned(spec(train, "train"), "train", queries, seed + 1, plan.config.tasks),
                       plan.config.clip_seconds)
        size = len(plan.queries[0].candidates)
        for name in ADVERSARIES:
            classifier = fit_classifier(trained[name], trained["labels"], seed)
            hits = group_accuracy(classifier.predict_proba(tested[name])[:, 1], tested["labels"], size)
            for (_, _, row), hit in zip(found, hits):
                row[name] = hit
        for (_, _, row), tie in zip(found, tested["count tie"]):
            row["count tie"] = tie
    return found


def cell(found: list[dict], seeds: np.ndarray, rng) -> list[str]:
    """n, the bag, then each rule against its tie: value (points for the busyness rules) and interval."""
    values = {name: np.array([row[name] for row in found]) for name in found[0]}
    line = [str(len(found)), f"{100 * values['bag'].mean():.1f}"]
    compared = [("fewest-unnamed", "bag", True), ("fewest-events", "bag", True), ("-shared", "chance", False)]
    if BLIND in values:
        compared += [(name, "count tie" if name == BLIND else "chance", False) for name in ADVERSARIES]
    for name, tie, relative in compared:
        difference = values[name] - values[tie]
        low, high = interval(difference, seeds, rng)
        shown = difference.mean() if relative else values[name].mean()
        mark = "*" if low > 0 or high < 0 else ""
        line.append(f"{100 * shown:{'+' if relative else ''}.1f} [{100 * low:+.1f}, {100 * high:+.1f}]{mark}")
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="300,1000,3000", help="recordings a stand-in (default: 300,1000,3000)")
    parser.add_argument("--seeds", type=int, default=2, help="stand-ins a size, seeds 0.. (--audits: train stand-ins "
                        "1000..; default: 2)")
    parser.add_argument("--queries", type=int, default=200, help="queries per task (default: 200)")
    parser.add_argument("--audits", action="store_true", help="also the learned adversaries (twice the planning)")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "reasonaudio-pool-size",
                        help="where the stand-ins are kept between runs")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)

    sizes = [int(size) for size in args.sizes.split(",")]
    cells = defaultdict(lambda: defaultdict(list))      # (task, shape) -> size -> [(seed, row)]
    for size in sizes:
        started = time.perf_counter()
        for seed in range(args.seeds):
            train = standin(args.work, size, 1000 + seed) if args.audits else None
            for task, shape, row in scored(standin(args.work, size, seed), seed, args.queries, train):
                cells[(task, "")][size].append((seed, row))
                cells[(task, shape)][size].append((seed, row))
        print(f"{size} recordings: {args.seeds} stand-ins made (if new) and planned in "
              f"{time.perf_counter() - started:.0f} s", flush=True)

    rng = np.random.default_rng(0)
    print("\nAccuracy (%); busyness rules in points above the bag, fewest shared against its tie (10 % "
          "for 10 candidates); [95 % interval of rule - tie], * when it excludes 0")
    for (task, shape), by_size in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1] != "", kv[0][1])):
        print(f"\n### {task}/{shape}" if shape else f"\n### {task}")
        audits = [f"{BLIND} (− count tie)", LISTWISE, "shortcut-timeline"] if args.audits else []
        header = ["recordings", "n", "bag", "fewest unnamed − bag", "fewest events − bag", "fewest shared",
                  *audits]
        print("\n| " + " | ".join(header) + " |\n|" + "---:|" * len(header))
        for size in sizes:
            seeds = np.array([seed for seed, _ in by_size[size]])
            if len(seeds):
                line = cell([row for _, row in by_size[size]], seeds, rng)
                print(f"| {size:,} | " + " | ".join(line) + " |")


if __name__ == "__main__":
    main()
