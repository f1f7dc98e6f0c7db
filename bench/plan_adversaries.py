"""The adversaries that read timelines, on plans alone: the construction checked in a minute, before any audio.

    python bench/plan_adversaries.py [--source SPEC] [--queries 200] [--train-queries 200] [--seeds 0]
                                     [--train-source SPEC] [--tasks TASK ...]

The learned adversary that reads the named sounds (which sounds the query names, not what it says of them; held to
its count tie), the one that reads nothing but compares a group's candidates (chance 1 / candidates), both found by
their `METADATA`, and `shortcut-timeline` (one clip's timeline, no query: the timeline half of the learned audit that
hears the clips, whose other half hears the audio; chance 1 / candidates) are the systems of `reasonaudio baselines`, with their own features and classifier, trained on a planned train split and
scored on a planned test split (both from `--source`, the train split's recordings from its own split) — nothing
rendered, so a change to a planner is measured in a minute instead of a build. Printed per task and per task x
shape: queries, each adversary's accuracy, its tie and the paired bootstrap 95 % interval of the difference (2,000
resamples, per cell; seeds, then each seed's queries). `--seeds 0,1,2` pools the test queries of independent builds
(each adversary trained on its own build's train split): tighter intervals for the same question, as wide as the
builds differ. The full check (audio, the query-blind audit, every baseline) stays `reasonaudio baselines` on a
built folder; this is its fast half, for construction work.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reasonaudio.evaluation.systems.annotations import timeline_features                             # noqa: E402
from reasonaudio.evaluation.systems.learned import fit_classifier                                    # noqa: E402
from reasonaudio.evaluation.systems import BASELINES, SYSTEMS                                  # noqa: E402
from reasonaudio.evaluation.systems.counting import group_count_tie                                   # noqa: E402
from reasonaudio.generation.config import GenerateConfig                                              # noqa: E402
from reasonaudio.generation.pipeline import plan_split                                                # noqa: E402
from reasonaudio.core.relations import mentioned                                                # noqa: E402
from reasonaudio.generation.tasks import TASKS                                                        # noqa: E402


TASK_NAMES = tuple(TASKS)
BLIND, LISTWISE = (next(kind for kind, found in BASELINES.items() if found.needs_train and found.reads == reads)
                   for reads in ("the named sounds", "nothing"))
pair_features = importlib.import_module(f"reasonaudio.evaluation.systems.{SYSTEMS[BLIND]}").pair_features
candidate_features = importlib.import_module(f"reasonaudio.evaluation.systems.{SYSTEMS[LISTWISE]}").candidate_features
ADVERSARIES = (BLIND, LISTWISE, "shortcut-timeline")


def planned(source: str, split: str, queries: int, seed: int, tasks: tuple[str, ...], sample_rate: int = 16000) -> list:
    with tempfile.TemporaryDirectory() as scratch:
        return plan_split(GenerateConfig(source=source, out=scratch, split=split, queries_per_task=queries,
                                         seed=seed, tasks=tasks, sample_rate=sample_rate, progress=False)).queries


def rows(plans: list, clip_seconds: float) -> dict[str, np.ndarray]:
    """The adversaries' features, the labels (1: the positive) and each query's count tie."""
    blind, listwise, timeline, labels, ties = [], [], [], [], []
    for plan in plans:
        named = set(mentioned(plan.atoms))
        group = [candidate.events for candidate in plan.candidates]
        positive = [c.clip_id for c in plan.candidates].index(plan.positive)
        blind += [pair_features(named, events, clip_seconds) for events in group]
        listwise += candidate_features(group)
        timeline += [timeline_features(events, clip_seconds) for events in group]
        labels += [i == positive for i in range(len(group))]
        ties.append(group_count_tie(named, group, positive))
    return {BLIND: np.asarray(blind), LISTWISE: np.asarray(listwise),
            "shortcut-timeline": np.asarray(timeline), "labels": np.asarray(labels, dtype=int),
            "count tie": np.asarray(ties)}


def group_accuracy(scores: np.ndarray, labels: np.ndarray, size: int) -> np.ndarray:
    """Per group: 1 / the candidates tied at the top when the positive is among them, else 0 (ties by
    their expectation, as the metric counts them)."""
    scores, labels = scores.reshape(-1, size), labels.reshape(-1, size).astype(bool)
    top = np.isclose(scores, scores.max(axis=1, keepdims=True), rtol=0, atol=1e-12)
    return np.where((top & labels).any(axis=1), 1 / top.sum(axis=1), 0.0)


def interval(difference: np.ndarray, seeds: np.ndarray, rng, resamples: int = 2000) -> tuple[float, float]:
    """Bootstrap 95 % interval of the mean, in two stages: seeds drawn with replacement, then each drawn seed's
    queries. A seed's adversary is trained once and its queries share one split's draws, so they vary together:
    resampled as independent queries, pooled seeds give intervals too narrow, which flag cells at their tie.
    One seed: the plain bootstrap."""
    by_seed = [difference[seeds == seed] for seed in np.unique(seeds)]
    drawn = rng.integers(len(by_seed), size=(resamples, len(by_seed)))
    sums, counts = np.zeros(resamples), np.zeros(resamples)
    for slot in range(len(by_seed)):
        for seed, values in enumerate(by_seed):
            hits = np.flatnonzero(drawn[:, slot] == seed)
            sums[hits] += values[rng.integers(len(values), size=(len(hits), len(values)))].sum(axis=1)
            counts[hits] += len(values)
    means = sums / counts
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", default="synthetic:", help="sound source (default: synthetic:)")
    parser.add_argument("--train-source", help="the train split's source (default: --source; e.g. "
                        "esc50:PATH?as_split=train for a source that holds one fold)")
    parser.add_argument("--queries", type=int, default=200, help="test queries per task (default: 200)")
    parser.add_argument("--train-queries", type=int, default=200, help="train queries per task (default: 200)")
    parser.add_argument("--tasks", nargs="+", choices=TASK_NAMES, default=TASK_NAMES, help="only these tasks "
                        "planned, each seeded by its place in the list as `generate --tasks` is (default: all five)")
    parser.add_argument("--seeds", default="0", help="comma-separated build seeds, pooled; each test split's "
                        "train split uses seed + 1 (default: 0)")
    args = parser.parse_args()

    started = time.perf_counter()
    test, seed_of = [], []
    accuracy = {name: [] for name in ADVERSARIES}
    ties = {name: [] for name in ADVERSARIES}
    for seed in map(int, args.seeds.split(",")):
        tested = planned(args.source, "test", args.queries, seed, tuple(args.tasks))
        train = planned(args.train_source or args.source, "train", args.train_queries, seed + 1, tuple(args.tasks))
        size = len(tested[0].candidates)
        test_rows, train_rows = rows(tested, 10.0), rows(train, 10.0)
        for name in accuracy:
            classifier = fit_classifier(train_rows[name], train_rows["labels"], seed)
            accuracy[name].append(group_accuracy(classifier.predict_proba(test_rows[name])[:, 1], test_rows["labels"], size))
        ties[BLIND].append(test_rows["count tie"])
        for name in ADVERSARIES:
            if name != BLIND:                 # the query-blind ones: chance
                ties[name].append(np.full(len(tested), 1 / size))
        test += tested
        seed_of += [seed] * len(tested)
    seed_of = np.asarray(seed_of)
    accuracy = {name: np.concatenate(values) for name, values in accuracy.items()}
    ties = {name: np.concatenate(values) for name, values in ties.items()}

    cells = defaultdict(list)
    for index, plan in enumerate(test):
        cells[(plan.task, "")].append(index)
        cells[(plan.task, plan.shape)].append(index)
    rng = np.random.default_rng(0)
    print(f"plans of {args.source}, seeds {args.seeds}: test {len(test)} queries, train {len(train)} a seed "
          f"({time.perf_counter() - started:.0f} s); accuracy (%) - tie, paired bootstrap 95 % interval\n")
    print(f"| task / shape | n | {BLIND} | count tie | (- tie, CI) | {LISTWISE} | (- 10 %, CI) "
          "| shortcut-timeline | (- 10 %, CI) |")
    print("|---|---:|---:|---:|---|---:|---|---:|---|")
    for (task, shape), members in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1] != "", kv[0][1])):
        members = np.asarray(members)
        line = [f"{task}/{shape}" if shape else task, str(len(members))]
        for name in ADVERSARIES:
            difference = accuracy[name][members] - ties[name][members]
            low, high = interval(difference, seed_of[members], rng)
            flag = " **" if low > 0 or high < 0 else ""
            line += [f"{100 * accuracy[name][members].mean():.1f}"]
            if name == BLIND:
                line += [f"{100 * ties[name][members].mean():.1f}"]
            line += [f"[{100 * low:+.1f}, {100 * high:+.1f}]{flag}"]
        print("| " + " | ".join(line) + " |")
    print(f"\n** the interval excludes the tie (per cell, not adjusted for the number of cells); "
          f"wall time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
