"""The validity table of docs/results.md from a `reasonaudio baselines --out` folder: per task and per task x
shape, each adversary against its tie with a paired bootstrap interval.

    python bench/validity_table.py RUNS_DIR --data BUILD [--split test]

Columns: queries; bag-of-sounds; relation-blind's count tie (1 / the candidates holding as many named sounds
as the positive); relation-blind with the 95 % interval of its difference from that tie; least-busy (the
named sounds, then the fewest events) against bag-of-sounds' count tie (the named sounds counted alone);
listwise-audit, shortcut-audit and shared-sounds with the interval of their difference from chance (1 /
candidates);
first-mentioned-first. Intervals are per cell (2,000 resamples of the cell's queries). A cell's mark: `*`
its per-cell interval excludes the tie; `**` so does its simultaneous interval, 95 % jointly over every
(adversary, cell of at least 30 queries) of the table (Bonferroni), the reading under which a construction
with no cue shows no mark at all (per cell, about one in twenty marks by luck alone). Relation-blind is marked
above its tie only: the tie is the best a counting rule can do, not a chance level. Reads each system's
`per_query.parquet`; nothing is scored again (a runs folder without `shared-sounds` lacks its column: score it
into the folder with `reasonaudio evaluate --model shared-sounds --data BUILD --out RUNS/shared-sounds`). The more
columns are checked, the more pairs the simultaneous intervals cover, and the stricter their `**` marks.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TASKS = ("negation", "order", "overlap", "duration", "mix")
SYSTEMS = ("bag-of-sounds", "relation-blind", "least-busy", "listwise-audit", "shortcut-audit", "shared-sounds",
           "first-mentioned-first")
CHECKED = ("relation-blind", "least-busy", "listwise-audit", "shortcut-audit", "shared-sounds")   # each against its tie
QUERY_BLIND = ("listwise-audit", "shortcut-audit", "shared-sounds")                             # tie: 1 / candidates
MIN_CELL = 30
RESAMPLES = 20000   # enough for the tails of a Bonferroni-adjusted interval


def interval(difference: np.ndarray, rng, confidence: float = 0.95) -> tuple[float, float]:
    means = difference[rng.integers(len(difference), size=(RESAMPLES, len(difference)))].mean(axis=1)
    tail = 100 * (1 - confidence) / 2
    return float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", type=Path, help="the --out folder of reasonaudio baselines")
    parser.add_argument("--data", required=True, help="the build it scored (for the count ties)")
    parser.add_argument("--split", default="test", help="(default: test)")
    args = parser.parse_args()

    from reasonaudio.evaluation.systems import EvalData
    from reasonaudio.evaluation.systems import bag_of_sounds
    from reasonaudio.evaluation.systems.relation_blind import count_tie

    data = EvalData.load(args.data, args.split)
    ids = data.queries["query_id"]
    ties = {"relation-blind": dict(zip(ids, count_tie(data))),
            "least-busy": dict(zip(ids, bag_of_sounds.count_tie(data))),
            **dict.fromkeys(QUERY_BLIND,
                            {q: 1 / len(c) for q, c in zip(ids, data.queries["candidates"])})}
    runs = {name: pq.read_table(args.runs / name / "per_query.parquet").to_pydict() for name in SYSTEMS}
    order = runs["relation-blind"]["query_id"]
    accuracy = {name: dict(zip(run["query_id"], run["accuracy"])) for name, run in runs.items()}
    cells = {}
    for query, task, shape in zip(order, runs["relation-blind"]["task"], runs["relation-blind"]["shape"]):
        cells.setdefault((TASKS.index(task), ""), []).append(query)
        cells.setdefault((TASKS.index(task), shape), []).append(query)
    tested = sum(len(queries) >= MIN_CELL for queries in cells.values()) * len(CHECKED)
    joint = 1 - 0.05 / tested
    rng = np.random.default_rng(0)
    marked = {"*": 0, "**": 0}
    print("| task / shape | n | bag-of-sounds | count tie | relation-blind (− tie, 95 % CI) | least-busy (− its tie, CI) "
          "| listwise-audit (− 10 %, CI) | shortcut-audit (− 10 %, CI) | shared-sounds (− 10 %, CI) | first-mentioned-first |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (task, shape), queries in sorted(cells.items()):
        def score(name):
            return np.array([accuracy[name][q] for q in queries])

        def against(name):
            values = score(name)
            difference = values - np.array([ties[name][q] for q in queries])
            low, high = interval(difference, rng)
            mark = ""
            if len(queries) >= MIN_CELL and (low > 0 or (high < 0 and name != "relation-blind")):
                joint_low, joint_high = interval(difference, rng, joint)
                mark = "**" if joint_low > 0 or (joint_high < 0 and name != "relation-blind") else "*"
                marked[mark] += 1
            return f"{100 * values.mean():.1f} [{100 * low:+.1f}, {100 * high:+.1f}]{mark}"
        name = TASKS[task] + (f"/{shape}" if shape else "")
        relation_tie = np.mean([ties["relation-blind"][q] for q in queries])
        print(f"| {name} | {len(queries)} | {100 * score('bag-of-sounds').mean():.1f} | {100 * relation_tie:.1f} | "
              + " | ".join(against(name) for name in CHECKED)
              + f" | {100 * score('first-mentioned-first').mean():.1f} |")
    print(f"\n{tested} (adversary, cell) pairs of at least {MIN_CELL} queries tested: {marked['*'] + marked['**']} "
          f"per-cell intervals exclude their tie (about {0.05 * tested:.1f} expected by luck alone), "
          f"{marked['**']} simultaneous ones ({100 * joint:.2f} % each, 95 % jointly)")


if __name__ == "__main__":
    main()
