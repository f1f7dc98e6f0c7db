"""Two figures of the scoring paths, each measured in one run:

    python bench/ecosystem_bench.py --data DIR [--model SPEC] [--skip-mteb] [--skip-cache]

1. MTEB against the metric: `mteb.evaluate` (default arguments) on `reasonaudio_task(DIR, mode="corpus")` and
   `reasonaudio_task(DIR)` with `evaluation.mteb_model.mteb_model(SPEC)`, against `reasonaudio_metric` on
   the same model's similarity: the largest difference of nDCG@10 (MTEB's own pytrec_eval values, over
   the ranking MTEB made, and the 5-decimal figure it reports) and of group accuracy.
2. The embedding cache: `reasonaudio evaluate` twice with one cache folder; the anchor is the first
   (cold) run, the ratio is cold / warm. Results must be identical.

The default model is the deterministic toy encoder of the tests (`python:tests.toy_encoder:build`), run
from the repository root; pass a CLAP folder (`clap:DIR`) for a model-sized encoding cost.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def mteb_agreement(data: str, spec: str) -> None:
    import mteb

    from reasonaudio.evaluation.mteb_model import mteb_model
    from reasonaudio.evaluation.runner import RunSettings, run
    from reasonaudio.evaluation.systems import EvalData, open_system
    from reasonaudio_dataset.mteb_task import reasonaudio_task

    split = EvalData.load(data)
    similarity = open_system(spec).similarity(split)     # the metric's side, encoded once
    for mode, ours_key, theirs in (("corpus", "ndcg@10", ["reasonaudio_ndcg_at_10", "ndcg_at_10"]),
                                   ("group", "accuracy", ["group_accuracy"])):
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as cache:
            scores = mteb.evaluate(mteb_model(spec), tasks=[reasonaudio_task(data, mode=mode)], cache=mteb.ResultCache(cache),
                                   show_progress_bar=False).task_results[0].scores["test"][0]
        wall = time.perf_counter() - started
        ours = run(_Fixed(similarity), split, RunSettings(mode, bootstrap=0, progress=False))
        tasks = list(ours["num_queries"])
        prefix = "ndcg_at_10" if mode == "corpus" else "group_accuracy"
        per_task = max(abs(scores[f"{prefix}_{task}"] - ours[task][ours_key]) for task in tasks)
        print(f"MTEB {mode} mode ({len(split.queries)} queries, {len(split.corpus)} clips, {wall:.0f} s): metric "
              f"{ours_key} {ours['average'][ours_key]:.6f}; " +
              "; ".join(f"MTEB {key} {scores[key]:.6f} (|diff| {abs(scores[key] - ours['average'][ours_key]):.1e})"
                        for key in theirs) + f"; largest per-task |diff| {per_task:.1e}")


class _Fixed:
    """A system that returns a similarity computed before (the metric scores the model's own matrix)."""

    name = "fixed"

    def __init__(self, similarity):
        self.matrix = similarity

    def similarity(self, data, device="cpu", batch_size=32, progress=True):
        return self.matrix


def cache_speedup(data: str, spec: str) -> None:
    from reasonaudio.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        walls, results = [], []
        for run_name in ("cold", "warm"):
            started = time.perf_counter()
            assert main(["evaluate", "--data", data, "--model", spec, "--bootstrap", "0", "--quiet",
                         "--cache", f"{tmp}/cache", "--out", f"{tmp}/{run_name}"]) == 0
            walls.append(time.perf_counter() - started)
            results.append(json.loads(Path(f"{tmp}/{run_name}/results.json").read_text())["metrics"])
        assert results[0] == results[1], "the cached run scored differently"
        print(f"embedding cache on {data} with {spec}: cold run {walls[0]:.1f} s (anchor), warm run {walls[1]:.1f} s: "
              f"{walls[0] / walls[1]:.1f}x faster, identical results")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="a generated folder (its test split)")
    parser.add_argument("--model", default="python:tests.toy_encoder:build", help="(default: %(default)s)")
    parser.add_argument("--skip-mteb", action="store_true", help="only the cache figure (default: off)")
    parser.add_argument("--skip-cache", action="store_true", help="only the MTEB figure (default: off)")
    args = parser.parse_args()
    if not args.skip_mteb:
        mteb_agreement(args.data, args.model)
    if not args.skip_cache:
        cache_speedup(args.data, args.model)


if __name__ == "__main__":
    main()
