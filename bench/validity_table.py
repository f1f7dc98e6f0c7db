"""The validity table of docs/results.md from a `reasonaudio baselines --out` folder: per task and per task x
shape, each adversary against its tie with a paired bootstrap interval.

    python bench/validity_table.py RUNS_DIR --data BUILD [--split test]

The columns derive from each baseline's `METADATA` (evaluation/systems): queries; the baseline that provides a
tie (recognition without reasoning); each tie row (a tie per task, such as a count tie); every adversary held to
chance (1 / candidates) or to a tie of `counting.TIES`, with the 95 % interval of its difference from it; then
each baseline held to another's accuracy, raw. Intervals are per cell (2,000 resamples of the cell's queries). A
cell's mark: `*` its per-cell interval excludes the tie; `**` so does its simultaneous interval, 95 % jointly over
every (adversary, cell of at least 30 queries) of the table (Bonferroni), the reading under which a construction
with no cue shows no mark at all (per cell, about one in twenty marks by luck alone). An adversary that flags
above its tie only is marked above it only: its tie is the best a counting rule can do, not a chance level.
Reads each system's `per_query.parquet`; nothing is scored again (a runs folder without one of them lacks its
column: score it into the folder with `reasonaudio evaluate --model KIND --data BUILD --out RUNS/KIND`). The more
columns are checked, the more pairs the simultaneous intervals cover, and the stricter their `**` marks.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reasonaudio.evaluation.systems import BASELINES                                           # noqa: E402
from reasonaudio.evaluation.systems.metadata import CHANCE                                      # noqa: E402
from reasonaudio.generation.tasks import TASKS as REGISTERED                                    # noqa: E402

TASKS = tuple(REGISTERED)       # the tasks in registry order, the opt-in ones included
PROVIDERS = tuple(kind for kind, found in BASELINES.items() if found.provides)      # raw: the ties they provide
PROVIDED = {BASELINES[kind].provides for kind in PROVIDERS}
# each against chance or a tie of `counting.TIES`; then the baselines held to a provider's accuracy, raw
CHECKED = tuple(kind for kind, found in BASELINES.items()
                if found.held_to and not found.provides and found.held_to not in PROVIDED)
HELD = tuple(kind for kind, found in BASELINES.items() if found.held_to in PROVIDED)
TIE_ROWS = tuple(kind for kind in CHECKED if BASELINES[kind].tie_row)
SYSTEMS = PROVIDERS + CHECKED + HELD
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
    from reasonaudio.evaluation.systems.counting import TIES

    data = EvalData.load(args.data, args.split)
    ids = data.queries["query_id"]
    chance = {q: 1 / len(c) for q, c in zip(ids, data.queries["candidates"])}
    ties = {kind: chance if BASELINES[kind].held_to == CHANCE else dict(zip(ids, TIES[BASELINES[kind].held_to](data)))
            for kind in CHECKED}
    runs = {name: pq.read_table(args.runs / name / "per_query.parquet").to_pydict() for name in SYSTEMS}
    first = runs[CHECKED[0]]
    accuracy = {name: dict(zip(run["query_id"], run["accuracy"])) for name, run in runs.items()}
    cells = {}
    for query, task, shape in zip(first["query_id"], first["task"], first["shape"]):
        cells.setdefault((TASKS.index(task), ""), []).append(query)
        cells.setdefault((TASKS.index(task), shape), []).append(query)
    tested = sum(len(queries) >= MIN_CELL for queries in cells.values()) * len(CHECKED)
    joint = 1 - 0.05 / tested
    rng = np.random.default_rng(0)
    marked = {"*": 0, "**": 0}
    columns = [*PROVIDERS, *(BASELINES[kind].tie_row for kind in TIE_ROWS),
               *(f"{kind} (− {'chance' if BASELINES[kind].held_to == CHANCE else 'its tie'}, 95 % CI)" for kind in CHECKED),
               *HELD]
    print("| task / shape | n | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * (len(columns) + 1))
    for (task, shape), queries in sorted(cells.items()):
        def score(name):
            return np.array([accuracy[name][q] for q in queries])

        def against(name):
            values = score(name)
            difference = values - np.array([ties[name][q] for q in queries])
            low, high = interval(difference, rng)
            mark = ""
            both = BASELINES[name].flags == "both"
            if len(queries) >= MIN_CELL and (low > 0 or (high < 0 and both)):
                joint_low, joint_high = interval(difference, rng, joint)
                mark = "**" if joint_low > 0 or (joint_high < 0 and both) else "*"
                marked[mark] += 1
            return f"{100 * values.mean():.1f} [{100 * low:+.1f}, {100 * high:+.1f}]{mark}"
        name = TASKS[task] + (f"/{shape}" if shape else "")
        print(f"| {name} | {len(queries)} | "
              + " | ".join([*(f"{100 * score(kind).mean():.1f}" for kind in PROVIDERS),
                            *(f"{100 * np.mean([ties[kind][q] for q in queries]):.1f}" for kind in TIE_ROWS),
                            *(against(kind) for kind in CHECKED), *(f"{100 * score(kind).mean():.1f}" for kind in HELD)])
              + " |")
    print(f"\n{tested} (adversary, cell) pairs of at least {MIN_CELL} queries tested: {marked['*'] + marked['**']} "
          f"per-cell intervals exclude their tie (about {0.05 * tested:.1f} expected by luck alone), "
          f"{marked['**']} simultaneous ones ({100 * joint:.2f} % each, 95 % jointly)")


if __name__ == "__main__":
    main()
