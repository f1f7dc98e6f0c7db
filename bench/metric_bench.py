"""Metric speed, as ratios against anchors measured in the same run.

    python bench/metric_bench.py [--queries 1000] [--clips 10000] [--device cpu|cuda]

Prints: the evaluate module (corpus mode, all metrics, no intervals) against a bare numpy
rank-of-positive computation (target: within 5x), torchmetrics' RetrievalNormalizedDCG (target: at
least 25x faster) and pytrec_eval including building its dict input (target: at least 50x faster),
and what 1,000 bootstrap resamples add (target: at most 200 ms).
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import datasets
import numpy as np

TASKS = ("negation", "order", "overlap", "duration", "mix")


def timed(fn, repeat: int) -> float:
    fn()  # warm-up
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def benchmark_data(queries: int, clips: int, seed: int = 0):
    """A matrix and qrels shaped like the default split: ~600 relevant clips for negation, ~8 otherwise."""
    rng = np.random.default_rng(seed)
    similarity = rng.standard_normal((queries, clips), dtype=np.float32)
    query_ids, clip_ids = [f"q{i:04d}" for i in range(queries)], [f"c{j:05d}" for j in range(clips)]
    tasks = [TASKS[i * len(TASKS) // queries] for i in range(queries)]
    rows = {"query_id": [], "clip_id": [], "score": []}
    for i, task in enumerate(tasks):
        relevant = int(clips * 0.06) if task == "negation" else 8
        chosen = rng.choice(clips, relevant + 2, replace=False)
        for n, j in enumerate(chosen):
            rows["query_id"].append(query_ids[i])
            rows["clip_id"].append(clip_ids[j])
            rows["score"].append(-1 if n >= relevant else 1)
    return similarity, datasets.Dataset.from_dict({"query_id": query_ids, "task": tasks}), clip_ids, \
        datasets.Dataset.from_dict(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--clips", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--device", default="cpu", help="cpu, or cuda to also time a CUDA tensor")
    parser.add_argument("--skip-slow", action="store_true", help="leave out torchmetrics and pytrec_eval")
    args = parser.parse_args()

    import evaluate

    metric = evaluate.load(str(Path(__file__).resolve().parents[1] / "reasonaudio_metric"))
    similarity, queries, clip_ids, qrels = benchmark_data(args.queries, args.clips)
    rel = qrels.filter(lambda row: row["score"] == 1)
    first_relevant = {}
    for q, c in zip(rel["query_id"], rel["clip_id"]):
        first_relevant.setdefault(q, int(c[1:]))
    positive = np.array([first_relevant[q] for q in queries["query_id"]])

    def anchor():
        rows = np.arange(len(positive))
        return (similarity > similarity[rows, positive][:, None]).sum(axis=1) + 1

    def ours(bootstrap=0, matrix=similarity):
        return metric.compute(similarity=matrix, queries=queries, corpus_ids=clip_ids, qrels=qrels, bootstrap=bootstrap)

    def first_call() -> float:
        """One call on tables the metric has not parsed yet (new Datasets get new fingerprints)."""
        fresh_queries, fresh_qrels = (datasets.Dataset.from_dict(t.to_dict()) for t in (queries, qrels))
        start = time.perf_counter()
        metric.compute(similarity=similarity, queries=fresh_queries, corpus_ids=clip_ids, qrels=fresh_qrels,
                       bootstrap=0)
        return time.perf_counter() - start

    t_anchor = timed(anchor, args.repeat)
    t_ours = timed(ours, args.repeat)
    t_first = statistics.median(first_call() for _ in range(args.repeat))
    t_boot = timed(lambda: ours(1000), args.repeat)
    print(f"matrix {args.queries} x {args.clips} float32, corpus mode, all metrics")
    print(f"  anchor (numpy rank of positive) {t_anchor * 1e3:8.1f} ms")
    print(f"  reasonaudio_metric via evaluate {t_ours * 1e3:8.1f} ms   ratio to anchor {t_ours / t_anchor:5.2f}x (target <= 5x)"
          "  [tables already parsed, as in an eval loop]")
    print(f"  same, first call on new tables  {t_first * 1e3:8.1f} ms   ratio to anchor {t_first / t_anchor:5.2f}x")
    print(f"  1,000 bootstrap resamples add   {(t_boot - t_ours) * 1e3:8.1f} ms   (target <= 200 ms)")
    if args.device != "cpu":
        import torch

        tensor = torch.from_numpy(similarity).to(args.device)

        def on_device():
            ours(0, tensor)
            torch.cuda.synchronize()

        t_device = timed(on_device, args.repeat)
        print(f"  same on {args.device} tensor           {t_device * 1e3:8.1f} ms   ratio to CPU anchor {t_device / t_anchor:5.2f}x")
    if args.skip_slow:
        return
    import pytrec_eval
    import torch
    from torchmetrics.retrieval import RetrievalNormalizedDCG

    excluded = {(q, c) for q, c, s in zip(qrels["query_id"], qrels["clip_id"], qrels["score"]) if s == -1}
    relevant = {}
    for q, c in zip(rel["query_id"], rel["clip_id"]):
        relevant.setdefault(q, {})[c] = 1
    query_ids = queries["query_id"]
    target = np.zeros_like(similarity, dtype=bool)
    keep = np.ones_like(similarity, dtype=bool)
    column = {c: j for j, c in enumerate(clip_ids)}
    row = {q: i for i, q in enumerate(query_ids)}
    for q, c in zip(rel["query_id"], rel["clip_id"]):
        target[row[q], column[c]] = True
    for q, c in excluded:
        keep[row[q], column[c]] = False

    def torchmetrics_ndcg():
        ndcg = RetrievalNormalizedDCG(top_k=10)
        indexes = torch.arange(len(query_ids))[:, None].expand(-1, len(clip_ids))
        mask = torch.from_numpy(keep)
        return ndcg(torch.from_numpy(similarity)[mask], torch.from_numpy(target)[mask], indexes=indexes[mask])

    def pytrec():
        run = {}
        for i, q in enumerate(query_ids):
            scores = similarity[i].tolist()
            run[q] = {c: scores[j] for j, c in enumerate(clip_ids) if (q, c) not in excluded}
        return pytrec_eval.RelevanceEvaluator(relevant, {"ndcg_cut_10", "recall_1", "recall_5", "recall_10",
                                                         "recip_rank", "map_cut_100", "success_10"}).evaluate(run)

    t_tm = timed(torchmetrics_ndcg, 1)
    t_trec = timed(pytrec, 1)
    check = pytrec()
    ndcg = np.mean([check[q]["ndcg_cut_10"] for q in query_ids])
    print(f"  torchmetrics RetrievalNormalizedDCG {t_tm * 1e3:8.1f} ms   ours is {t_tm / t_ours:6.1f}x faster (target >= 25x)")
    print(f"  pytrec_eval incl. its dict input    {t_trec * 1e3:8.1f} ms   ours is {t_trec / t_ours:6.1f}x faster (target >= 50x)")
    print(f"  (pytrec_eval mean nDCG@10 {ndcg:.6f}; ours {metric.compute(similarity=similarity, queries=queries, corpus_ids=clip_ids, qrels=qrels, bootstrap=0)['average']['ndcg@10']:.6f} macro over tasks)")


if __name__ == "__main__":
    main()
