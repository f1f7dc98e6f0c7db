"""What the failure taxonomy and the reasoning profile cost evaluate, as a ratio against evaluate without them,
measured in the same run (rounds interleaved).

    python bench/diagnose_bench.py [--data DIR] [--rounds 7] [--systems random,oracle,...]

With --data (a build; the default split is `reasonaudio generate --out DIR`), each round runs the evaluate
command as a user does (`reasonaudio evaluate --data DIR --model SYSTEM --out ...`: loading the split, scoring
with 1,000 bootstrap resamples, writing results.json, results.md, results.png and per_query.parquet) with the
diagnosis and without it (the kinds column, the taxonomy and the profile left out). Target: under 1.10.
Without --data it times the scoring alone (`run`) on the default split as planned (its tables without the
audio, which these systems do not read): no loading, no writing, so a far smaller denominator, the worst case.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


@contextmanager
def undiagnosed():
    """The runner with no diagnosis: the queries scored as the build has them, no taxonomy."""
    from reasonaudio.evaluation import runner
    from reasonaudio.evaluation.diagnose import BROKEN, CHOSEN

    saved = runner.Annotations, runner.with_hard_negative_kinds, runner.taxonomy
    runner.Annotations = type("NoAnnotations", (), {"of": staticmethod(lambda data: None)})
    runner.with_hard_negative_kinds = lambda queries, corpus, annotations: queries
    runner.taxonomy = lambda scores, data, annotations: {CHOSEN: runner.column(data.queries, "positive"),
                                                         BROKEN: [[]] * len(data.queries)}
    try:
        yield
    finally:
        runner.Annotations, runner.with_hard_negative_kinds, runner.taxonomy = saved


def planned_split():
    """The default test split's tables, planned (no audio)."""
    import datasets

    from reasonaudio.evaluation.systems import EvalData
    from reasonaudio.generation.config import GenerateConfig
    from reasonaudio.generation.pipeline import plan_split, query_row

    with tempfile.TemporaryDirectory() as out:
        plan = plan_split(GenerateConfig(out=out, progress=False), frozenset())
    queries = datasets.Dataset.from_list([query_row(q).to_row() for q in plan.queries])
    corpus = datasets.Dataset.from_list([{"clip_id": c.clip_id, "events": [e.to_dict() for e in c.events]}
                                         for _, c in plan.clips])
    return EvalData(queries, corpus, None, "planned default split")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", help="a build to score (default: the default split, planned)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--systems", help="comma-separated specs (default: random, oracle and the baseline that "
                                          "hears perfectly without reasoning)")
    args = parser.parse_args()

    from reasonaudio.evaluation.runner import RunSettings, run
    from reasonaudio.evaluation.systems import BASELINES, EvalData, open_system

    from reasonaudio.cli import main as command

    settings = RunSettings(progress=False)
    if args.data:
        data = EvalData.load(args.data)
        what = f"the evaluate command on {args.data}"
    else:
        data = planned_split()
        what = f"run() alone (scoring, {settings.bootstrap} bootstrap resamples) on the default split as planned"
    print(f"{len(data.queries)} queries, {len(data.corpus)} clips; {what}; {args.rounds} rounds, interleaved\n")
    print("| system | evaluate without (s) | with the diagnosis (s) | ratio, median [min, max] |")
    print("|---|---:|---:|---:|")
    scratch = tempfile.TemporaryDirectory(prefix="diagnose-bench-")
    hearing = next(found.name for found in BASELINES.values() if found.provides == "recognition")
    for name in (args.systems or f"{hearing},random,oracle").split(","):
        system = open_system(name)

        def once():
            if args.data:
                with contextlib.redirect_stdout(io.StringIO()):      # the table evaluate prints
                    assert command(["evaluate", "--data", args.data, "--model", name, "--out",
                                    f"{scratch.name}/{name}", "--quiet", "--overwrite"]) == 0
            else:
                run(system, data, settings)

        once()                                                # warm-up: caches, imports
        plain, diagnosed = [], []
        for _ in range(args.rounds):
            with undiagnosed():
                start = time.perf_counter()
                once()
                plain.append(time.perf_counter() - start)
            start = time.perf_counter()
            once()
            diagnosed.append(time.perf_counter() - start)
        ratios = [d / p for d, p in zip(diagnosed, plain)]
        print(f"| {name} | {statistics.median(plain):.2f} | {statistics.median(diagnosed):.2f} | "
              f"{statistics.median(ratios):.3f} [{min(ratios):.3f}, {max(ratios):.3f}] |")


if __name__ == "__main__":
    main()
