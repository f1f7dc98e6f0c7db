"""ReasonAudio as MTEB tasks over a folder or Hub repository (needs `pip install 'reasonaudio[mteb]'`).

    import mteb
    from reasonaudio_dataset.mteb_task import reasonaudio_task
    results = mteb.evaluate(model, tasks=[reasonaudio_task("org/reasonaudio")])           # group protocol
    results = mteb.evaluate(model, tasks=[reasonaudio_task("org/reasonaudio", mode="corpus")])  # whole corpus

The `queries`, `corpus` and `qrels` configs follow MTEB's retrieval convention (`id`, `text` / `audio`,
`query-id`, `corpus-id`, `score`), so MTEB's own loader reads them. Two things make MTEB's scores
ReasonAudio's, both through MTEB's own mechanisms:

* each query's ranking is given as MTEB's `top_ranked` (its reranking input): in `group` mode the query's
  own candidates, in `corpus` mode every clip except its excluded (ambiguous, qrels score -1) ones. MTEB
  then ranks exactly what `reasonaudio_metric` ranks, so on tie-free scores its per-query nDCG@10 is the
  metric's (tested to 1e-6). MTEB's `ndcg_at_10` averages over queries, the metric over tasks: equal when
  the tasks have as many queries each, as builds do;
* `task_specific_scores` adds the metric's scores to MTEB's: `group_accuracy` (the group task's main
  score; ties counted exactly, macro-averaged over tasks), `group_mrr`, per task `group_accuracy_<task>`;
  in corpus mode `reasonaudio_ndcg_at_10` (MTEB's per-query nDCG@10, macro-averaged over tasks) and
  `ndcg_at_10_<task>`.

MTEB caches results by model, model revision and task name, and never checks the dataset when a cached
result covers the task's splits; so each task's name carries its build's identity
(`ReasonAudioT2AGroupRetrieval.<16 hex of the content digest>`, or of the Hub commit) and its dataset revision
is that identity: another build is another task, and no cached score of one build answers for another. A
local folder's tables are read through `load_table`, converted once per content.

Only the columns MTEB encodes are kept (`id`, `text`; `id`, `audio`): the ragged ReasonAudio columns
(hard_negatives, events, ...) would break MTEB's batch collation.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from mteb.abstasks.retrieval import AbsTaskRetrieval
from mteb.abstasks.task_metadata import TaskMetadata

from reasonaudio_metric.functional import HARD_NEGATIVE, score

from .identity import build_identity, hub_revision
from .loading import load_table

CITATION = r"""
@article{reasonaudio2026,
  title = {ReasonAudio: A Benchmark for Reasoning-Intensive Text-to-Audio Retrieval},
  journal = {arXiv preprint arXiv:2605.03361},
  year = {2026},
}
"""
MODES = {"group": "group_accuracy", "corpus": "ndcg_at_10"}   # mode -> the task's main score


class ReasonAudioRetrieval(AbsTaskRetrieval):
    """Text-to-audio retrieval over one split of a ReasonAudio build, scored as `reasonaudio_metric` scores."""

    mode = "group"

    def load_data(self, num_proc=None, **kwargs) -> None:
        """A local folder's tables through `load_table` (datasets' own cache would key them by the folder's name
        and file times); a Hub repository through MTEB's loader, at the task's revision."""
        path = self.metadata.dataset["path"]
        if self.data_loaded or not Path(path).is_dir():
            return super().load_data(num_proc=num_proc, **kwargs)
        self.dataset = {"default": {}}
        for split in self.eval_splits:
            queries, corpus, qrels = (load_table(path, table, split) for table in ("queries", "corpus", "qrels"))
            relevant: dict[str, dict[str, int]] = {}
            for query, clip, grade in zip(qrels["query-id"], qrels["corpus-id"], qrels["score"]):
                relevant.setdefault(query, {})[clip] = int(grade)
            self.dataset["default"][split] = {"queries": queries, "corpus": corpus, "relevant_docs": relevant,
                                              "top_ranked": None}
        self.dataset_transform(num_proc=num_proc)
        self.data_loaded = True

    def dataset_transform(self, num_proc=None, **kwargs) -> None:
        self._queries = {}
        for subset, splits in self.dataset.items():
            for split, data in splits.items():
                queries = data["queries"]
                table = queries.select_columns([c for c in ("id", "task", "candidates", "positive", "hard_negatives")
                                                if c in queries.column_names]).to_dict()
                table["query_id"] = table.pop("id")
                self._queries[subset, split] = table
                data["queries"] = queries.select_columns(["id", "text"])
                data["corpus"] = data["corpus"].select_columns(["id", "audio"])
                excluded = {query: {clip for clip, grade in docs.items() if grade < 0}
                            for query, docs in data["relevant_docs"].items()}
                data["relevant_docs"] = {query: {clip: grade for clip, grade in docs.items() if grade > 0}
                                         for query, docs in data["relevant_docs"].items()}
                if self.mode == "group":
                    data["top_ranked"] = dict(zip(table["query_id"], table["candidates"]))
                else:
                    clips = data["corpus"]["id"]
                    data["top_ranked"] = {query: [c for c in clips if c not in excluded.get(query, ())]
                                          for query in table["query_id"]}

    def task_specific_scores(self, scores, qrels, results, hf_split, hf_subset) -> dict[str, float]:
        """The metric's scores of the ranking MTEB made (its similarity values, ties counted exactly)."""
        queries = self._queries[hf_subset, hf_split]
        ids = queries["query_id"]
        if self.mode == "group":
            matrix = np.array([[results[q].get(clip, -np.inf) for clip in group]
                               for q, group in zip(ids, queries["candidates"])])
            found = score(_finite(matrix), queries, bootstrap=0)
            return {"group_accuracy": found["average"]["accuracy"], "group_mrr": found["average"]["mrr"],
                    **({"group_hard_negative_pairwise": found["average"][HARD_NEGATIVE]}
                       if HARD_NEGATIVE in found["average"] else {}),
                    **{f"group_accuracy_{task}": found[task]["accuracy"] for task in found["num_queries"]}}
        per_task: dict[str, list[float]] = {}
        for query, task in zip(ids, queries["task"]):
            per_task.setdefault(task, []).append(scores[query]["ndcg_cut_10"])
        means = {task: float(np.mean(values)) for task, values in per_task.items()}
        return {"reasonaudio_ndcg_at_10": float(np.mean(list(means.values()))),
                **{f"ndcg_at_10_{task}": value for task, value in means.items()}}


def _finite(matrix: np.ndarray) -> np.ndarray:
    """Candidates MTEB did not return (beyond its top k) rank below every returned one."""
    low = matrix[np.isfinite(matrix)].min(initial=0.0)
    return np.where(np.isfinite(matrix), matrix, low - 1.0)


def reasonaudio_task(path: str, revision: str = "main", split: str = "test", mode: str = "group") -> AbsTaskRetrieval:
    """An MTEB task over one split of a ReasonAudio folder or Hub repository. `mode`: `group` (each query ranks
    its own candidates; main score group_accuracy, the benchmark's headline) or `corpus` (the whole corpus
    without the query's excluded clips; main score ndcg_at_10). The task's name and dataset revision carry
    the build's identity (see the module docstring), so MTEB's result cache is safe across builds."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {sorted(MODES)}, got {mode!r}")
    if Path(path).is_dir():
        identity = build_identity(path, split)["content"]
    else:
        identity = revision if len(revision) == 40 else hub_revision(path, revision)
        if identity is None:
            raise ValueError(f"cannot resolve revision {revision!r} of the Hub dataset {path} (offline or unknown); "
                             "pass the commit hash as revision=")
        revision = identity

    class Task(ReasonAudioRetrieval):
        metadata = TaskMetadata(
            name=f"ReasonAudioT2A{mode.capitalize()}Retrieval.{identity[:16]}",
            description="Reasoning-intensive text-to-audio retrieval: negation, order, overlap, duration, "
                        f"their mix and, where built, counting, over synthesized clips with exact qrels ({mode} "
                        "protocol).",
            reference="https://arxiv.org/abs/2605.03361",
            dataset={"path": path, "revision": revision if not Path(path).is_dir() else f"content-{identity[:16]}"},
            type="Any2AnyRetrieval",
            category="t2a",
            modalities=["text", "audio"],
            eval_splits=[split],
            eval_langs=["eng-Latn"],
            main_score=MODES[mode],
            annotations_creators="derived",
            sample_creation="created",
            bibtex_citation=CITATION,
        )

    Task.mode = mode
    return Task()
