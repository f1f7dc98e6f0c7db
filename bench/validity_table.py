"""The validity table of docs/results.md from a `reasonaudio baselines --out` folder: per task and per task x
shape, each adversary against its tie with a paired bootstrap interval.

    python bench/validity_table.py RUNS_DIR --data BUILD [--split test]

Columns: queries; bag-of-sounds; relation-blind's count tie (1 / the candidates holding as many named sounds
as the positive); relation-blind with the 95 % interval of its difference from that tie; listwise-audit and
shortcut-audit with the interval of their difference from chance (1 / candidates); first-mentioned-first.
Intervals are per cell (2,000 resamples of the cell's queries, not adjusted for the number of cells; the
command itself flags with a Bonferroni adjustment). Reads each system's `per_query.parquet`; nothing is
scored again.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TASKS = ("negation", "order", "overlap", "duration", "mix")
SYSTEMS = ("bag-of-sounds", "relation-blind", "listwise-audit", "shortcut-audit", "first-mentioned-first")


def interval(difference: np.ndarray, rng) -> tuple[float, float]:
    means = difference[rng.integers(len(difference), size=(2000, len(difference)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", type=Path, help="the --out folder of reasonaudio baselines")
    parser.add_argument("--data", required=True, help="the build it scored (for the count tie)")
    parser.add_argument("--split", default="test", help="(default: test)")
    args = parser.parse_args()

    from evaluation.systems import EvalData
    from evaluation.systems.relation_blind import count_tie

    data = EvalData.load(args.data, args.split)
    tie = dict(zip(data.queries["query_id"], count_tie(data)))
    chance = {q: 1 / len(c) for q, c in zip(data.queries["query_id"], data.queries["candidates"])}
    runs = {name: pq.read_table(args.runs / name / "per_query.parquet").to_pydict() for name in SYSTEMS}
    order = runs["relation-blind"]["query_id"]
    accuracy = {name: dict(zip(run["query_id"], run["accuracy"])) for name, run in runs.items()}
    cells = {}
    for query, task, shape in zip(order, runs["relation-blind"]["task"], runs["relation-blind"]["shape"]):
        cells.setdefault((TASKS.index(task), ""), []).append(query)
        cells.setdefault((TASKS.index(task), shape), []).append(query)
    rng = np.random.default_rng(0)
    print("| task / shape | n | bag-of-sounds | count tie | relation-blind (− tie, 95 % CI) | listwise-audit (− 10 %, CI) "
          "| shortcut-audit (− 10 %, CI) | first-mentioned-first |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for (task, shape), queries in sorted(cells.items()):
        def score(name):
            return np.array([accuracy[name][q] for q in queries])

        def against(name, reference):
            values = score(name)
            low, high = interval(values - reference, rng)
            return f"{100 * values.mean():.1f} [{100 * low:+.1f}, {100 * high:+.1f}]"
        ties, chances = np.array([tie[q] for q in queries]), np.array([chance[q] for q in queries])
        name = TASKS[task] + (f"/{shape}" if shape else "")
        print(f"| {name} | {len(queries)} | {100 * score('bag-of-sounds').mean():.1f} | {100 * ties.mean():.1f} | "
              f"{against('relation-blind', ties)} | {against('listwise-audit', chances)} | "
              f"{against('shortcut-audit', chances)} | {100 * score('first-mentioned-first').mean():.1f} |")


if __name__ == "__main__":
    main()
