"""ReasonAudio: group accuracy and corpus retrieval scores for reasoning-intensive text-to-audio retrieval.

An `evaluate` module over the plain functions of `functional.py`. The similarity matrix never enters
evaluate's Arrow cache: `compute(similarity=S, queries=Q, ...)` hands it straight to the functional
core, which reduces it on its own device. `add_batch(similarity=rows, query_id=ids)` also works (the
standard incremental path, slower for large matrices). `evaluate.combine([...])` works, one-shot and
incremental, with modules that take the same inputs (it hands every module predictions=None and
references=None, which are ignored).
"""
import datasets
import evaluate
import numpy as np

from .functional import score

_CITATION = """\
@article{reasonaudio2026,
  title   = {ReasonAudio: A Benchmark for Reasoning-Intensive Text-to-Audio Retrieval},
  journal = {arXiv preprint arXiv:2605.03361},
  year    = {2026}
}
"""

_DESCRIPTION = """\
Scores a text-to-audio retrieval model on ReasonAudio from its query-by-clip similarity matrix.
Group mode (the headline): for each query, is its positive ranked first among its own candidates
(accuracy) and the reciprocal rank (mrr), per task and macro-averaged over tasks; when the queries list
their hard negatives, hard_negative_pairwise: the share of its own minimal-pair hard negatives that the
positive outscores (random 0.5), in both modes, over the queries that list some (how many per task in
hard_negative_queries when not all do); when the queries also name what each hard negative breaks
(hard_negative_kinds), the reasoning profile: per kind of minimal pair, the share ordered right. Corpus mode: every
query ranks the whole corpus against exact qrels (ndcg@10, recall@1/5/10, hit@10, mrr, map@100),
excluded (ambiguous) pairs dropped before ranking. Ties count by their exact expectation under random
tie-breaking, so constant scores give exactly the random baseline.
"""

_KWARGS_DESCRIPTION = """
Args:
    similarity: (num_queries, num_columns) numpy array or torch tensor on any device, of any real dtype
        (bool, integers, float16/bfloat16 to float64; float64 is compared in float64). Group mode: row i
        scores queries["candidates"][i] in order. Corpus mode: column j is clip corpus_ids[j].
    queries: the `queries` config (datasets.Dataset or dict of lists): query_id, task, and in group
        mode candidates and positive; with hard_negatives (and positive) the pairwise hard-negative score
        is added (group mode: each one among the query's candidates; corpus mode: a corpus id); with
        hard_negative_kinds (one kind per hard negative: "negation", "order", ...), "profile".
    corpus_ids: corpus mode only, the clip id of each column.
    qrels: corpus mode only, the `qrels` config: query_id, clip_id, score (1 relevant, -1 excluded); or
        BEIR's and pytrec_eval's {query_id: {clip_id: score}}.
    baseline_similarity: a second system's matrix, same shape: adds paired randomization p-values.
    bootstrap: number of bootstrap resamples for 95 % intervals, >= 0 (0: none). Default 1000.
    seed: seed of the bootstrap and the significance test. Default 0.
    per_query: also return every query's values. Default False.
    by: query columns to break the scores down by, e.g. ("task", "depth") or ("task", "shape"). Default
        ("task",): the headline only. Any other adds "breakdown"; the headline is unchanged. A column the
        queries lack (e.g. depth in a build older than it) is a ValueError naming it.
Returns:
    {task: {metric: value}, "average": {...}, "random": {task: {...}}, "num_queries": {task: n},
     "intervals": {task: {metric: (low, high)}}, and "p_values", "per_query" when asked}; with
    hard_negative_kinds, "profile": {kind: {"share": s, "pairs": n, "queries": q, "random": 0.5,
    "interval": (low, high)}}; with `by`,
    "breakdown": {"by": [columns], "cells": {"negation/depth=2": {"where": {"task": "negation", "depth": 2},
    "num_queries": n, metric: value, ..., "random": {metric: value}, "intervals": {metric: (low, high)}}}}.
Examples:
    >>> import numpy as np, evaluate
    >>> metric = evaluate.load("./reasonaudio_metric")
    >>> queries = {"query_id": ["q0", "q1"], "task": ["order", "negation"],
    ...            "candidates": [["a", "b"], ["c", "d"]], "positive": ["a", "d"]}
    >>> result = metric.compute(similarity=np.array([[0.9, 0.1], [0.5, 0.5]]), queries=queries, bootstrap=0)
    >>> result["order"]["accuracy"], result["negation"]["accuracy"], result["average"]["accuracy"]
    (1.0, 0.5, 0.75)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ReasonAudio(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"similarity": datasets.Sequence(datasets.Value("float64")),
                                        "query_id": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2605.03361"],
        )

    def compute(self, *, similarity=None, query_id=None, predictions=None, references=None, **kwargs):
        """Score a whole similarity matrix directly (the fast path), or what `add_batch` collected.
        `evaluate.combine` passes predictions=None and references=None to every module: they are ignored."""
        if predictions is not None or references is not None:
            raise ValueError("ReasonAudio scores a similarity matrix (similarity=, queries=), not predictions/"
                             "references: combine it only with modules that take similarity, or score it alone")
        if similarity is not None and query_id is None:
            return score(similarity, **kwargs)
        return super().compute(similarity=similarity, query_id=query_id, **kwargs)

    def _compute(self, similarity, query_id, queries=None, **kwargs):
        if queries is None:
            raise ValueError("compute() needs queries= (the queries table)")
        ids, order = list(queries["query_id"]), {}
        known = set(ids)
        for i, q in enumerate(query_id):
            if q in order or q not in known:
                problem = " twice" if q in order else ", which is not in queries"
                raise ValueError(f"add_batch received query_id {q!r}{problem}")
            order[q] = i
        missing = [q for q in ids if q not in order]
        if missing:
            raise ValueError(f"add_batch received no similarity row for {len(missing)} queries, e.g. {missing[:3]}")
        return score(np.asarray([similarity[order[q]] for q in ids]), queries, **kwargs)
