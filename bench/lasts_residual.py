"""Does where the named sound sits find the positive of `duration/lasts` beyond recognising the named sounds
("bag": the named sounds a clip holds, counted)? Plans only.

    python bench/lasts_residual.py [--source SPEC] [--queries 200] [--seeds 0,1,2,3,4] [--tasks duration]

Two rules that ignore the relation (the position features `first_mentioned` and `last_mentioned` of the audit that
knows the named sounds but not the relation), each used to break the bag's ties (bag + 1e-3 * rule; the rule alone
too): `not-first` (the clip's first event, by onset, is no named sound) and `last` (the event that ends last is a
named sound). Per task/shape: n, each rule's accuracy (ties by expectation, as the metric scores), the rule - bag
difference in points with a paired 95 % interval (two-stage bootstrap: seeds, then each seed's queries, as
plan_adversaries.interval; and the plain bootstrap over pooled queries), the discordant queries (rule above /
below bag) with an exact two-sided sign test; then per seed. Last, for `lasts`: how often the named sound is first
/ last in the positive and in the bag-tied negatives.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from math import comb
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from reasonaudio.generation.config import GenerateConfig                                          # noqa: E402
from reasonaudio.generation.pipeline import plan_split                                            # noqa: E402
from reasonaudio.core.relations import mentioned                                                  # noqa: E402
from plan_adversaries import interval                                                             # noqa: E402
from plan_rules import accuracy                                                                   # noqa: E402


def positions(events, named):
    """(first event is named, last-ending event is named), as that audit's features read them."""
    if not events:
        return 0.0, 0.0
    first = min(events, key=lambda e: (e.onset, e.offset))
    last = max(events, key=lambda e: (e.offset, e.onset))
    return float(first.label in named), float(last.label in named)


def sign_test(above: int, below: int) -> float:
    n = above + below
    if n == 0:
        return 1.0
    k = min(above, below)
    return min(1.0, 2 * sum(comb(n, i) for i in range(k + 1)) / 2 ** n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", default="synthetic:")
    parser.add_argument("--queries", type=int, default=200, help="queries per task (default: 200)")
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--tasks", nargs="+", default=["duration"])
    parser.add_argument("--split", default="test")
    args = parser.parse_args()

    started = time.perf_counter()
    rows = defaultdict(list)          # column -> one value per query
    cells = defaultdict(list)
    where = defaultdict(list)         # shape -> (positive first, positive last, negatives' first, negatives' last)
    for seed in map(int, args.seeds.split(",")):
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory() as scratch:
            plan = plan_split(GenerateConfig(source=args.source, out=scratch, split=args.split,
                                             queries_per_task=args.queries, seed=seed, sample_rate=16000,
                                             progress=False, tasks=tuple(args.tasks)))
        print(f"seed {seed}: {len(plan.queries)} queries planned in {time.perf_counter() - t0:.0f} s", flush=True)
        for query in plan.queries:
            ids = [c.clip_id for c in query.candidates]
            positive = ids.index(query.positive)
            named = set(mentioned(query.atoms))
            bag = np.array([len(named & {e.label for e in c.events}) for c in query.candidates], dtype=float)
            first, last = np.array([positions(c.events, named) for c in query.candidates]).T
            scores = {"bag": bag, "not-first": bag + 1e-3 * (1 - first), "last": bag + 1e-3 * last,
                      "not-first alone": 1 - first, "last alone": last}
            row = len(rows["seed"])
            rows["seed"].append(seed)
            for name, score in scores.items():
                rows[name].append(accuracy(score, positive))
            tied = [i for i in range(len(bag)) if i != positive and bag[i] == bag[positive]]
            where[(query.task, query.shape)].append((first[positive], last[positive],
                                                     np.mean(first[tied]) if tied else np.nan,
                                                     np.mean(last[tied]) if tied else np.nan, len(tied)))
            cells[(query.task, "")].append(row)
            cells[(query.task, query.shape)].append(row)
    rows = {k: np.asarray(v) for k, v in rows.items()}
    seeds = rows["seed"]
    rng = np.random.default_rng(0)
    print(f"\nplans of {args.source}, tasks {' '.join(args.tasks)}, seeds {args.seeds}: {len(seeds)} queries "
          f"({time.perf_counter() - started:.0f} s)\n")
    print("| task / shape | n | bag | rule | rule % | rule - bag (pts) | 95 % CI seeds+queries | 95 % CI queries | "
          "above / below bag | sign test p |\n|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for (task, shape), members in sorted(cells.items()):
        members = np.asarray(members)
        for name in ("not-first", "last", "not-first alone", "last alone"):
            d = rows[name][members] - rows["bag"][members]
            low, high = interval(d, seeds[members], rng)
            boot = d[rng.integers(len(d), size=(4000, len(d)))].mean(axis=1)
            plain = np.percentile(boot, [2.5, 97.5])
            above, below = int((d > 1e-9).sum()), int((d < -1e-9).sum())
            mark = "**" if low > 0 or high < 0 else ""
            print(f"| {task}/{shape or '*'} | {len(members)} | {100 * rows['bag'][members].mean():.1f} | {name} | "
                  f"{100 * rows[name][members].mean():.1f} | {100 * d.mean():+.1f}{mark} | [{100 * low:+.1f}, "
                  f"{100 * high:+.1f}] | [{100 * plain[0]:+.1f}, {100 * plain[1]:+.1f}] | {above} / {below} | "
                  f"{sign_test(above, below):.3g} |")
    print("\nper seed:\n\n| task / shape | seed | n | bag | not-first (- bag, 95 % CI) | last (- bag, 95 % CI) |"
          "\n|---|---:|---:|---:|---:|---:|")
    for (task, shape), members in sorted(cells.items()):
        if not shape:
            continue
        members = np.asarray(members)
        for seed in np.unique(seeds):
            m = members[seeds[members] == seed]
            cols = []
            for name in ("not-first", "last"):
                d = rows[name][m] - rows["bag"][m]
                boot = d[rng.integers(len(d), size=(4000, len(d)))].mean(axis=1) if len(d) else np.zeros(1)
                lo, hi = np.percentile(boot, [2.5, 97.5])
                cols.append(f"{100 * rows[name][m].mean():.1f} ({100 * d.mean():+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}])")
            print(f"| {task}/{shape} | {seed} | {len(m)} | {100 * rows['bag'][m].mean():.1f} | {' | '.join(cols)} |")
    print("\nwhere the named sound sits: positive vs the negatives tied with it on bag (mean over queries)\n\n"
          "| task / shape | n | bag-tied negatives per query | named first: positive | named first: tied negs | "
          "named last: positive | named last: tied negs |\n|---|---:|---:|---:|---:|---:|---:|")
    for (task, shape), values in sorted(where.items()):
        v = np.asarray(values, dtype=float)
        print(f"| {task}/{shape} | {len(v)} | {np.mean(v[:, 4]):.2f} | {100 * np.nanmean(v[:, 0]):.1f} | "
              f"{100 * np.nanmean(v[:, 2]):.1f} | {100 * np.nanmean(v[:, 1]):.1f} | {100 * np.nanmean(v[:, 3]):.1f} |")


if __name__ == "__main__":
    main()
