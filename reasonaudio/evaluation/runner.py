"""Score a system on a split: similarity on the device, reduced by the metric's functional core."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from reasonaudio.models.distributed import check_device, distributed
from reasonaudio.models.scoring import EmbeddingSystem, EvalData, System, group_matrix, whole_similarity
from reasonaudio.models.system import column
from reasonaudio_metric.functional import keyword_group, paired_differences, score

from .diagnose import BROKEN, CHOSEN, Annotations, failure_counts, taxonomy, with_hard_negative_kinds
from .report import check_options


def check_settings(mode: str, device: str, batch_size: int, bootstrap: int, seed: int = 0, flags: bool = False) -> None:
    """Every setting of a run, checked before any data or model loads; `flags` names them as CLI options."""
    check_options(mode, batch_size, bootstrap, seed, flags, device)
    check_device(device)


@dataclass(frozen=True)
class RunSettings:
    """How a run scores, the same for every split and condition it covers; checked on creation, before any
    data or model loads.

    Args:
        mode: "group" (each query ranks its own candidates: the headline) or "corpus" (the whole corpus).
        device, batch_size: where, and how many items are encoded at once.
        bootstrap, seed: resamples (0: none) and seed of the 95 % intervals.
        progress: show progress bars.
    """

    mode: str = "group"
    device: str = "cpu"
    batch_size: int = 32
    bootstrap: int = 1000
    seed: int = 0
    progress: bool = True

    def __post_init__(self):
        check_settings(self.mode, self.device, self.batch_size, self.bootstrap, self.seed)


def breakdown(data: EvalData, columns: tuple[str, ...] = ("depth",)) -> tuple[str, ...]:
    """The metric's `by`: per task, and by those of `columns` the queries carry (builds that predate the
    depth and shape columns lack them, and get the per-task headline only)."""
    return ("task", *(c for c in columns if c in data.queries.column_names))


def run(system: System, data: EvalData, settings: RunSettings = RunSettings(), by: tuple[str, ...] | None = None,
        per_query: bool = False) -> dict:
    """The metric's result dict for `system` on `data` under `settings`, broken down `by` those query columns
    (default: task x depth where the queries carry depth); with each query's values when `per_query`. None
    on the ranks other than 0 of a launcher's process group when the system shares its encoding (`shared`)."""
    by = by or breakdown(data)
    device, batch_size, progress = settings.device, settings.batch_size, settings.progress
    if settings.mode == "group":     # each query's candidates alone: queries x candidates, whatever the corpus
        group = system.group_similarity(data, device=device, batch_size=batch_size, progress=progress)
    else:
        full = whole_similarity(system, data, device, batch_size, progress)
        group = group_matrix(full, data)
    if getattr(system, "shared", False) and distributed()[0] != 0:
        return None   # a launcher's other ranks helped encode; rank 0 scores
    intervals = {"bootstrap": settings.bootstrap, "seed": settings.seed}
    annotations = Annotations.of(data)
    queries = with_hard_negative_kinds(data.queries, data.corpus, annotations)   # the metric's reasoning profile
    if settings.mode == "group":
        result = score(group, queries, by=by, per_query=per_query, **intervals)
    else:
        result = score(full, queries, list(data.corpus["clip_id"]), data.qrels, by=by, per_query=per_query,
                       **intervals)
    found = taxonomy(group.double().cpu().numpy(), data, annotations)
    result["failures"] = failure_counts(column(data.queries, "task"), found[BROKEN],
                                        [c != p for c, p in zip(found[CHOSEN], column(data.queries, "positive"))])
    if per_query:
        result["per_query"] = {**query_columns(data, by), **result["per_query"], **candidate_scores(group, data),
                               **found}
    return result


def query_columns(data: EvalData, by: tuple[str, ...]) -> dict[str, list]:
    """What each per-query row is about: its id, task, the breakdown's columns, its positive."""
    return {column: list(data.queries[column]) for column in dict.fromkeys(("query_id", *by, "positive"))}


def candidate_scores(group: torch.Tensor, data: EvalData) -> dict[str, list]:
    """Each query's candidates, their scores in that order, and the positive's rank among them (ties: the
    expected rank under random tie-breaking, 1 + above + (tied - 1) / 2): enough to compare two runs, or
    rescore any group metric, without encoding again."""
    scores = group.double().cpu().numpy()
    positive = np.array([clips.index(p) for clips, p in zip(data.queries["candidates"], data.queries["positive"])])
    own = scores[np.arange(len(scores)), positive][:, None]
    rank = 1 + (scores > own).sum(axis=1) + ((scores == own).sum(axis=1) - 1) / 2
    return {"candidates": list(data.queries["candidates"]), "scores": scores.tolist(), "positive_rank": rank.tolist()}


def run_conditions(system: System, source: str, conditions: list[str], split: str = "test",
                   settings: RunSettings = RunSettings(), per_query: bool = False) -> dict:
    """`run` on the clips of each acoustic condition of a robustness build (the queries are shared). The
    result is the first condition's (normally clean; its per-query values when `per_query`), with
    "acoustics": every condition's scores per task, and each further condition's paired difference from
    the first, with paired bootstrap intervals."""
    results, tasks = {}, None
    for condition in conditions:
        data = EvalData.load(source, split, acoustics=condition)
        tasks = tasks if tasks is not None else np.asarray(data.queries["task"])
        results[condition] = run(system, data, settings, per_query=True)
    if any(result is None for result in results.values()):
        return None   # not rank 0 of a launcher's process group
    first, *others = conditions
    per_query = {c: results[c].pop("per_query") for c in conditions}
    values = {c: {m: np.asarray(per_query[c][m]) for m in results[c]["average"]} for c in conditions}
    combined = {**results[first], **({"per_query": per_query[first]} if per_query else {})}
    combined["acoustics"] = {
        "baseline": first,
        "conditions": {c: {k: v for k, v in r.items() if k != "breakdown"} for c, r in results.items()},
        "differences": {c: paired_differences(values[c], values[first], tasks, settings.bootstrap, settings.seed)
                        for c in others},
    }
    return combined


def evaluate_encoders(data: str | EvalData, encode_text, encode_audio, sampling_rate: int | None = None, *,
                      split: str = "test", name: str = "custom", **settings) -> dict:
    """Score any model given as two encoders, e.g. an audio-language embedder on your GPU.

    A batch with the wrong number of vectors, NaN or inf, or a width unlike the text vectors' is an error
    naming that batch. Candidates are ranked by cosine similarity.

    Args:
        data: a build's folder or Hub id (or an `EvalData` already loaded).
        encode_text: list[str] -> (len, width) array or tensor.
        encode_audio: list of mono float32 arrays at `sampling_rate` -> (len, width) array or tensor.
        sampling_rate: the rate `encode_audio` expects (None: as stored).
        split: what is scored; name: the system's name in the result.
        **settings: `RunSettings`' keywords, checked before anything loads:
            mode: "group" (each query ranks its own candidates: the headline) or "corpus" (the whole corpus).
            device, batch_size: where, and how many items are encoded at once.
            bootstrap, seed: resamples and seed of the 95 % intervals.
            progress: show progress bars.

    Returns:
        The metric's result (`reasonaudio.score`): per task and "average" (macro over tasks) accuracy, MRR
        and more, with "intervals", "random" and "num_queries".
    """
    settings = keyword_group(RunSettings, settings, evaluate_encoders)
    system = EmbeddingSystem(name, encode_text, encode_audio, sampling_rate)
    data = data if isinstance(data, EvalData) else EvalData.load(data, split)
    return run(system, data, settings)
