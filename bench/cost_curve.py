"""How time and memory grow with the work: every stage at 1x, 4x and 16x the default work, one worker.

    python bench/cost_curve.py [--unit 200] [--scales 1,4,16] [--plan-scales 1,4,16,100] [--stages plan,...]

The default work is the default split (--unit 200 queries a task: 1,000 queries, 10,000 clips of 10 s);
--unit 20 measures the same curve at a tenth of it. Each stage runs as its own process (as a user runs
it), one worker; printed per stage and scale: wall seconds, seconds per query and per clip, peak memory
of the process tree (proportional set size, PSS, which counts the pages of Parquet files Arrow maps as they
are read; and the heap alone, anonymous memory), and each as a ratio against 1x. A stage grows linearly when
its time ratio stays near the scale and its memory ratio near 1; the targets: time at 16x within 18x of
1x, peak memory within 2x (plan alone at 100x within 120x).

Stages: plan (planning alone, no audio), qrels (planning and judging every (query, clip) pair of the
corpus: the qrels, whose rows grow as queries x corpus by the protocol's definition), generate (the whole split: bank, plan, render, FLAC, Parquet,
card), validate, evaluate (a cheap model that reads every clip: bench/cost_models.py; and
`embeddings:` from a file), baselines (with a train split of the same size, made first and not measured, for the audits), metric
(group mode over the build's queries; corpus mode over the build's corpus against 1,000 queries, so
that its work, one score per query and clip, grows with the corpus as the others do) and natural (the
stand-in of 300 recordings per scale and its natural build).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from generate_bench import REASONAUDIO, run_measured, run_sampled

HERE = Path(__file__).resolve().parent
PYTHON = [sys.executable, "-c"]
STANDIN_RECORDINGS = 300      # recordings of the natural stand-in at 1x
CORPUS_QUERIES = 1000         # queries of the corpus-mode metric at every scale

PLAN = """
import sys
from reasonaudio.generation.pipeline import GenerateConfig, plan_split, qrels_batches
plan = plan_split(GenerateConfig(queries_per_task=int(sys.argv[1]), sample_rate=int(sys.argv[2]), progress=False),
                  forbidden=frozenset())
if sys.argv[3] == "qrels":
    sum(len(batch) for batch in qrels_batches(plan))
"""

METRIC = """
import sys
import numpy as np
from reasonaudio_dataset import load_reasonaudio
from reasonaudio_metric.functional import score
split = load_reasonaudio(sys.argv[1], split="test")
queries, mode = split.queries, sys.argv[2]
rng = np.random.default_rng(0)
if mode == "group":
    score(rng.standard_normal((len(queries), len(queries[0]["candidates"]))).astype(np.float32), queries)
else:
    chosen = queries.select(range(min(int(sys.argv[3]), len(queries))))
    kept = set(chosen["query_id"])
    qrels = split.qrels.filter(lambda q: q in kept, input_columns="query_id")
    ids = split.corpus.data.column("clip_id").to_pylist()
    score(rng.standard_normal((len(chosen), len(ids))).astype(np.float32), chosen, corpus_ids=ids, qrels=qrels)
"""

EMBEDDINGS = """
import sys
import numpy as np
from reasonaudio_dataset import load_reasonaudio
from reasonaudio.evaluation.systems.embeddings_file import save_embeddings
split = load_reasonaudio(sys.argv[1], split="test")
rng = np.random.default_rng(0)
queries, clips = split.queries["query_id"], split.corpus.data.column("clip_id").to_pylist()
save_embeddings(sys.argv[2], queries, rng.standard_normal((len(queries), 64)), clips,
                rng.standard_normal((len(clips), 64)))
"""


def stage_commands(stage: str, folder: Path, queries_per_task: int, scale: int, args) -> list[tuple[str, list[str]]]:
    """The measured command(s) of a stage at one scale (named rows), after any unmeasured preparation."""
    build, runs = folder / "build", folder / "runs"
    sample_rate = str(args.sample_rate)
    if stage == "plan":
        return [("plan", PYTHON + [PLAN, str(queries_per_task), sample_rate, "-"])]
    if stage == "qrels":
        return [("plan + qrels", PYTHON + [PLAN, str(queries_per_task), sample_rate, "qrels"])]
    if stage == "generate":
        return [("generate", REASONAUDIO + ["generate", "--out", str(build), "--queries-per-task", str(queries_per_task),
                                            "--sample-rate", sample_rate, "--workers", "1", "--quiet"])]
    if stage == "validate":
        return [("validate", REASONAUDIO + ["validate", str(build), "--workers", "1", "--quiet"])]
    if stage == "evaluate":
        vectors = folder / "embeddings.npz"
        if not vectors.exists():
            run_measured(PYTHON + [EMBEDDINGS, str(build), str(vectors)])
        common = ["--data", str(build), "--no-cache", "--quiet", "--overwrite"]
        return [("evaluate python:", REASONAUDIO + ["evaluate", "--model", "python:cost_models:clip_statistics",
                                                    "--out", str(runs / "python"), *common]),
                ("evaluate embeddings:", REASONAUDIO + ["evaluate", "--model", f"embeddings:{vectors}",
                                                        "--out", str(runs / "embeddings"), *common])]
    if stage == "baselines":
        if not list(build.glob("queries/train*")):
            run_measured(REASONAUDIO + ["generate", "--out", str(build), "--split", "train", "--seed", "1",
                                        "--queries-per-task", str(queries_per_task), "--sample-rate", sample_rate,
                                        "--workers", "1", "--quiet"])
        return [("baselines", REASONAUDIO + ["baselines", "--data", str(build), "--out", str(runs / "baselines"),
                                             "--overwrite", "--quiet"])]
    if stage == "metric":
        return [("metric group", PYTHON + [METRIC, str(build), "group", "0"]),
                ("metric corpus", PYTHON + [METRIC, str(build), "corpus", str(CORPUS_QUERIES)])]
    if stage == "natural":
        standin = folder / "standin"
        if not standin.exists():
            run_measured(REASONAUDIO + ["standin", str(standin), "--recordings", str(STANDIN_RECORDINGS * scale),
                                        "--quiet"])
        source = f"strong:{standin}?labels=audioset.tsv&ontology=ontology.json&as_split=test"
        return [("natural", REASONAUDIO + ["generate", "--source", source, "--out", str(folder / "natural"),
                                           "--queries-per-task", str(queries_per_task), "--sample-rate", sample_rate,
                                           "--workers", "1", "--quiet"])]
    raise SystemExit(f"unknown stage {stage!r}")


def work_of(name: str, queries_per_task: int, candidates: int = 10) -> tuple[int, int]:
    """(queries, clips) a stage's row handles at this size: what its time is divided by."""
    queries = 5 * queries_per_task
    if name == "metric corpus":
        return min(CORPUS_QUERIES, queries), queries * candidates
    return queries, queries * candidates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--unit", type=int, default=200, help="queries per task at 1x (default: the default split)")
    parser.add_argument("--scales", default="1,4,16")
    parser.add_argument("--plan-scales", default="1,4,16,100", help="scales of planning alone")
    parser.add_argument("--stages", default="plan,qrels,generate,validate,evaluate,baselines,metric,natural")
    parser.add_argument("--sample-rate", type=int, default=44100)
    parser.add_argument("--keep", type=Path, help="build here and keep the folders (default: a temporary folder)")
    args = parser.parse_args()
    stages = args.stages.split(",")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE.parent), str(HERE), os.environ.get("PYTHONPATH", "")])
    base = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        print(f"unit: {args.unit} queries a task ({5 * args.unit} queries, {50 * args.unit} clips) at 1x; "
              f"{args.sample_rate} Hz; one worker")
        print(f"{'stage':22s} {'scale':>5s} {'wall s':>8s} {'ms/query':>9s} {'ms/clip':>8s} {'PSS MiB':>9s} "
              f"{'heap MiB':>9s} {'time/1x':>8s} {'PSS/1x':>7s} {'heap/1x':>7s}")
        scales = sorted({int(s) for s in args.scales.split(",")} | ({int(s) for s in args.plan_scales.split(",")}
                                                                    if "plan" in stages else set()))
        for scale in scales:
            folder = root / f"x{scale}"
            folder.mkdir(parents=True, exist_ok=True)
            for stage in stages:
                wanted = args.plan_scales if stage == "plan" else args.scales
                if str(scale) not in wanted.split(","):
                    continue
                for name, command in stage_commands(stage, folder, args.unit * scale, scale, args):
                    wall, peak = run_sampled(command, ("Pss", "Anonymous"))
                    queries, clips = work_of(name, args.unit * scale)
                    first = base.setdefault(name, (wall, peak))
                    print(f"{name:22s} {scale:>4d}x {wall:8.1f} {1e3 * wall / queries:9.2f} {1e3 * wall / clips:8.3f} "
                          f"{peak['Pss'] / 2**20:9.0f} {peak['Anonymous'] / 2**20:9.0f} {wall / first[0]:8.2f} "
                          f"{peak['Pss'] / first[1]['Pss']:7.2f} {peak['Anonymous'] / first[1]['Anonymous']:7.2f}",
                          flush=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
    main()
