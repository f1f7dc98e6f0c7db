"""The reference training run of the README table, from scratch on CPU:

    python bench/train_reference.py [--out DIR] [--queries 100] [--train-queries 400] [--epochs 5]
                                    [--workers 2] [--source SPEC [--train-source SPEC]]

1. A build at 16 kHz (default: the synthetic bank, test, validation and train from disjoint
   recordings; --train-source for a source that holds test recordings only, such as the ESC-50 subset:
   validation and train from its other parts, `bench/esc50_parts.py`): --queries per task in test, a fifth of that
   in validation, both in groups of 10 candidates; --train-queries per task in train, in groups of 3
   (training reads only each query's positive and hard negatives: about three times the queries per
   clip).
2. `reasonaudio train --model small` without and with hard negatives (same seed, same epochs).
3. Each scored on the test split per task with bootstrap 95 % intervals, beside random and
   the recognition baseline (recognition without reasoning: the one whose `METADATA` provides a tie); the markdown table and the wall times are printed.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from esc50_parts import split_seed, split_source                                             # noqa: E402
from reasonaudio.evaluation.systems import BASELINES                                           # noqa: E402

RECOGNITION = next(kind for kind, found in BASELINES.items() if found.provides)   # recognition without reasoning

TASKS = ("negation", "order", "overlap", "duration", "mix")


def cell(result: dict, task: str) -> str:
    low, high = result["intervals"][task]["accuracy"]
    return f"{100 * result[task]['accuracy']:.1f} [{100 * low:.1f}, {100 * high:.1f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="keep the build and models here (default: a temporary folder)")
    parser.add_argument("--queries", type=int, default=100, help="queries per task in test (default: 100)")
    parser.add_argument("--train-queries", type=int, default=400, help="queries per task in train (default: 400)")
    parser.add_argument("--epochs", type=int, default=5, help="(default: 5)")
    parser.add_argument("--batch-size", type=int, default=32, help="(default: 32)")
    parser.add_argument("--lr", type=float, default=1e-3, help="(default: 0.001)")
    parser.add_argument("--workers", type=int, default=2, help="rendering processes (default: 2)")
    parser.add_argument("--source", default="synthetic:", help="sound source (default: synthetic:, whose splits "
                        "hold disjoint recordings)")
    parser.add_argument("--train-source", help="validation and train from this source instead (each of its "
                        "recordings put in that split, seeds 1 and 2), e.g. the train part of the ESC-50 subset "
                        "(`bench/esc50_parts.py`) (default: --source, whose recordings carry their splits)")
    parser.add_argument("--validation-source", help="validation from this source (its recordings put in that "
                        "split; default: --train-source)")
    args = parser.parse_args()

    from reasonaudio.evaluation.report import profile_lines
    from reasonaudio.evaluation.runner import RunSettings, run
    from reasonaudio.evaluation.systems import EvalData, open_system
    from reasonaudio.generation.pipeline import GenerateConfig, generate
    from reasonaudio.training.loop import TrainConfig, train

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.out or Path(scratch)
        data = str(root / "build")
        splits = (("test", args.queries, 10), ("validation", max(4, args.queries // 5), 10), ("train", args.train_queries, 3))
        for split, queries, candidates in splits:
            source = split_source(split, args.source, args.train_source, args.validation_source)
            generate(GenerateConfig(source=source, out=data, split=split, queries_per_task=queries, candidates=candidates,
                                    seed=split_seed(split, args.train_source), sample_rate=16000, workers=args.workers,
                                    progress=False))
        built = time.perf_counter()
        print(f"build of {args.source} (test, validation, train at 16 kHz"
              f"{f'; validation and train from {args.train_source}' if args.train_source else ''}): "
              f"{built - started:.0f} s")
        test = EvalData.load(data, "test")
        quiet = RunSettings(progress=False)
        rows = {name: run(open_system(name), test, quiet) for name in ("random", RECOGNITION)}
        for hard in (False, True):
            name = f"small, {'with' if hard else 'without'} hard negatives"
            begun = time.perf_counter()
            record = train(TrainConfig(data=data, out=str(root / ("small-hn" if hard else "small")), hard_negatives=hard,
                                       epochs=args.epochs, batch_size=args.batch_size, lr=args.lr, progress=False))
            trained = time.perf_counter() - begun
            rows[name] = run(open_system(f"trained:{root / ('small-hn' if hard else 'small')}"), test, quiet)
            print(f"{name}: trained {trained:.0f} s, best validation accuracy "
                  f"{100 * record['best']['accuracy']:.1f} % at epoch {record['best']['epoch']}")
        print(f"\ntest split: {len(test.queries)} queries; group accuracy (%) with 95 % bootstrap intervals\n")
        print("| system | " + " | ".join(TASKS) + " | average |")
        print("|---|" + "---|" * (len(TASKS) + 1))
        for name, result in rows.items():
            print(f"| {name} | " + " | ".join(cell(result, t) for t in TASKS + ("average",)) + " |")
        print("\n" + "\n".join(profile_lines(rows)))
    print(f"\nwall time: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
