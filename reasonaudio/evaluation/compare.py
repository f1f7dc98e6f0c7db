"""Compare runs of `reasonaudio evaluate` on one build, from the per-query files they wrote: no encoding.

Each run folder holds results.json (what was scored: the build's identity, the model spec, the settings)
and per_query.parquet (every query's metric values). Runs compare only when they scored the same build
(its content digest), mode, split and acoustic condition; the leaderboard gives each run's score per task
with bootstrap intervals, and each run's paired difference from a reference run with a paired bootstrap
interval and p-value, both from the same resamples of queries (one resample serves both runs), so that
the interval excludes 0 exactly when p < 0.05 (up to one resample); per task, and per task x depth.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reasonaudio_metric.functional import HARD_NEGATIVE, bootstrap_intervals, paired_differences, task_means, task_names

from .report import HEADLINE, PER_QUERY, _percent, _table, profile_lines, unfinished

MATCHED = ("mode", "split", "acoustics")    # settings that change what a score means


@dataclass
class Run:
    name: str
    folder: Path
    record: dict
    columns: dict[str, np.ndarray]     # per query, in the reference run's query order once aligned

    @property
    def metrics(self) -> list[str]:
        return [m for m in self.record["metrics"]["average"] if m in self.columns]


def load_run(folder: str | Path) -> Run:
    """A run folder as `evaluate` writes it; one that lacks its per-query file (written before it existed) or
    is no run at all is a one-line error naming the file."""
    import pyarrow.parquet as pq

    folder = Path(folder)
    if unfinished(folder):
        raise ValueError(f"{folder} holds an unfinished set of results (a run stopped while placing "
                         f"{', '.join(unfinished(folder))}): run its evaluate again with this --out to finish it")
    try:
        record = json.loads((folder / "results.json").read_text())
        metrics = record["metrics"]["average"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{folder / 'results.json'} is not a result of `reasonaudio evaluate` "
                         f"({type(error).__name__}): give the --out folders of evaluate runs") from None
    if "build" not in record or not (folder / PER_QUERY).is_file():
        raise ValueError(f"{folder} has no {PER_QUERY} or build identity (a run of an earlier version): evaluate "
                         "it again to compare it")
    try:
        table = pq.read_table(folder / PER_QUERY)
    except (OSError, ValueError) as error:
        raise ValueError(f"{folder / PER_QUERY} is unreadable ({error})") from None
    wanted = [c for c in table.column_names if c in metrics or c in ("query_id", "task", "depth", "shape")]
    columns = {c: np.asarray(table.column(c).to_pylist(), dtype=object if c in ("query_id", "task", "shape") else None)
               for c in wanted}
    for metric in (c for c in wanted if c in metrics):
        columns[metric] = _scores(folder / PER_QUERY, metric, columns[metric], columns.get("query_id"))
    _check_against_record(folder, record["metrics"], columns, [c for c in wanted if c in metrics])
    return Run(folder.name, folder, record, columns)


AGREE = 1e-6    # per-query means against results.json: the same floats, summed in another order


def _check_against_record(folder: Path, metrics: dict, columns: dict[str, np.ndarray], names: list[str]) -> None:
    """Each task's mean of the per-query values is what results.json says it is: a per_query.parquet edited, or
    one of another run, would otherwise be compared as this run's."""
    if "task" not in columns:
        return
    for name in names:
        for task in sorted(set(columns["task"])):
            values = columns[name][columns["task"] == task]
            recorded = metrics.get(task, {}).get(name)
            if recorded is None or np.isnan(values).all():
                continue
            if abs(float(np.nanmean(values)) - recorded) > AGREE:
                raise ValueError(f"{folder / PER_QUERY}: the mean {name} of {task} is {np.nanmean(values):.6g}, "
                                 f"results.json says {recorded:.6g}: the two files are not one run's; evaluate again")


def _scores(path: Path, metric: str, values: np.ndarray, query_ids) -> np.ndarray:
    """A metric's per-query values as numbers, each finite; null only where the metric does not apply
    (hard_negative_pairwise of a query without hard negatives: NaN here, left out of its means)."""
    try:
        numbers = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{path}: {metric} holds values that are not numbers") from None
    not_applicable = np.array([v is None and metric == HARD_NEGATIVE for v in values], dtype=bool)
    bad = np.flatnonzero((~np.isfinite(numbers) | (numbers < 0) | (numbers > 1)) & ~not_applicable)
    if len(bad):
        where = f"query {query_ids[bad[0]]!r}" if query_ids is not None else f"row {bad[0]}"
        raise ValueError(f"{path}: {metric} of {where} is {values[bad[0]]} ({len(bad)} value(s) not a number from 0 "
                         "to 1); every score is: evaluate that run again")
    return numbers


def check_comparable(runs: list[Run]) -> None:
    """Runs of one build, mode, split and condition, over the same queries; anything else is refused by name."""
    first = runs[0]
    for run in runs[1:]:
        if run.record["build"]["id"] != first.record["build"]["id"]:
            raise ValueError(f"{run.folder} scored build {run.record['build']['id']} ({run.record['data']}), "
                             f"{first.folder} scored {first.record['build']['id']} ({first.record['data']}): runs "
                             "compare only on the same build")
        for key in MATCHED:
            mine, theirs = run.record["parameters"].get(key), first.record["parameters"].get(key)
            if mine != theirs:
                raise ValueError(f"{run.folder} ran with {key}={mine!r}, {first.folder} with {key}={theirs!r}: "
                                 f"runs compare only with the same {key}")
        if sorted(run.columns["query_id"]) != sorted(first.columns["query_id"]):
            raise ValueError(f"{run.folder} and {first.folder} scored different queries")


def _aligned(run: Run, order: dict) -> Run:
    index = np.argsort([order[q] for q in run.columns["query_id"]])
    return Run(run.name, run.folder, run.record, {c: v[index] for c, v in run.columns.items()})


def _names(folders: list[Path]) -> list[str]:
    """Each run by its folder's name, or by more of its path where two names are alike."""
    names = [folder.name for folder in folders]
    return [str(folder) if names.count(name) > 1 else name for folder, name in zip(folders, names)]


def load_runs(folders: list[str | Path]) -> list[Run]:
    """Two or more run folders, each once (by where it is), loaded and named."""
    if len(folders) < 2:
        raise ValueError("compare needs at least two run folders")
    seen = {}
    for folder in folders:
        if seen.setdefault(Path(folder).resolve(), folder) is not folder:
            raise ValueError(f"{folder} is given twice (as {seen[Path(folder).resolve()]}): compare each run once")
    runs = [load_run(folder) for folder in folders]
    for run, name in zip(runs, _names([run.folder for run in runs])):
        run.name = name
    return runs


def compare(folders: list[str | Path], reference: str | Path | None = None, resamples: int = 1000,
            seed: int = 0) -> dict:
    """The leaderboard of runs (highest average headline first) as a dict: per run its scores per task,
    intervals and task x depth cells, and against the reference run (default: the first) the paired
    difference with its paired bootstrap interval and p-value (of the same resamples), per task and per cell."""
    runs = load_runs(folders)
    check_comparable(runs)
    ref = runs[0] if reference is None else next((r for r in runs if r.folder.resolve() == Path(reference).resolve()), None)
    if ref is None:
        raise ValueError(f"--reference {reference} is not among the runs compared")
    order = {q: i for i, q in enumerate(ref.columns["query_id"])}
    runs = [_aligned(run, order) for run in runs]
    ref = next(run for run in runs if run.folder == ref.folder)
    mode = ref.record["parameters"]["mode"]
    metrics = [m for m in ref.metrics if all(m in run.columns for run in runs)]
    tasks = ref.columns["task"]
    cells, cell_order = _cells(ref.columns)
    entries = []
    for run in runs:
        values = {m: run.columns[m].astype(np.float64) for m in metrics}
        reference_values = {m: ref.columns[m].astype(np.float64) for m in metrics}
        entry = {"name": run.name, "folder": str(run.folder), "model": run.record["model"], "spec": run.record["spec"],
                 "scores": task_means(values, tasks)}
        if "profile" in run.record["metrics"]:        # the reasoning profile, as the run's results.json holds it
            entry["profile"] = run.record["metrics"]["profile"]
        if resamples:
            entry["intervals"] = bootstrap_intervals(values, tasks, resamples, seed)
        if cells is not None:
            entry["cells"] = {key: value[HEADLINE[mode]] for key, value in task_means(values, cells).items()
                              if key != "average"}
        if run is not ref:
            entry["versus_reference"] = paired_differences(values, reference_values, tasks, resamples, seed)
            if cells is not None:
                by_cell = paired_differences(values, reference_values, cells, resamples, seed)
                entry["cells_versus_reference"] = {key: {"difference": by_cell["difference"][key][HEADLINE[mode]],
                                                         **({"interval": by_cell["intervals"][key][HEADLINE[mode]]}
                                                            if resamples else {})}
                                                   for key in by_cell["difference"] if key != "average"}
        entries.append(entry)
    entries.sort(key=lambda e: -e["scores"]["average"][HEADLINE[mode]])
    return {"build": ref.record["build"], "data": ref.record["data"],
            "parameters": {k: ref.record["parameters"].get(k) for k in MATCHED}, "headline": HEADLINE[mode],
            "metrics": metrics, "tasks": task_names(tasks), "reference": ref.name, "resamples": resamples,
            "cells": cell_order, "runs": entries}


def _cells(columns: dict) -> tuple[np.ndarray | None, list[str]]:
    """Each query's task x depth cell ("order/depth=2"), and the cells in reading order (tasks as the
    benchmark orders them, depths ascending); (None, []) without a depth column."""
    if "depth" not in columns:
        return None, []
    order = {t: i for i, t in enumerate(task_names(columns["task"]))}
    labels = np.array([f"{t}/depth={int(d)}" for t, d in zip(columns["task"], columns["depth"])], dtype=object)
    keys = sorted({(t, int(d)) for t, d in zip(columns["task"], columns["depth"])}, key=lambda k: (order[k[0]], k[1]))
    return labels, [f"{t}/depth={d}" for t, d in keys]


def markdown(comparison: dict) -> str:
    """The leaderboard, then the task x depth cells, then the other metrics' averages."""
    headline, tasks, reference = comparison["headline"], comparison["tasks"], comparison["reference"]
    rows = []
    for number, entry in enumerate(comparison["runs"], 1):
        cells = [_percent(entry["scores"][t][headline], entry.get("intervals", {}).get(t, {}).get(headline))
                 for t in [*tasks, "average"]]
        if "versus_reference" in entry:
            change = entry["versus_reference"]
            interval = change.get("intervals", {}).get("average", {}).get(headline)
            versus = f"{100 * change['difference']['average'][headline]:+.1f}"
            versus += f" [{100 * interval[0]:+.1f}, {100 * interval[1]:+.1f}]" if interval else ""
            p_value = change.get("p_values", {}).get("average", {}).get(headline)
            p_text = f"{p_value:.3g}" if p_value is not None else "—"
        else:
            versus, p_text = "reference", "—"
        rows.append([str(number), entry["name"], entry["spec"], *cells, versus, p_text])
    parameters = ", ".join(f"{k}={v}" for k, v in comparison["parameters"].items() if v is not None)
    lines = [f"# ReasonAudio comparison: {headline} on build {comparison['build']['id']}", "",
             f"Data: {comparison['data']} ({parameters}). Values in %, bootstrap 95 % intervals over queries; "
             f"the change from the reference run ({reference}) on the same queries, with its paired bootstrap "
             "interval and the two-sided p-value of the same resamples (the interval excludes 0 when p < 0.05).", "",
             *_table(["#", "run", "model", *tasks, "average", f"vs {reference}", "bootstrap p"], rows, 3)]
    if comparison["cells"]:
        rows = [[cell, *(_cell_text(entry, cell) for entry in comparison["runs"])] for cell in comparison["cells"]]
        lines += ["", f"## {headline} by task and depth (change from {reference} in brackets)", "",
                  *_table(["cell", *(e["name"] for e in comparison["runs"])], rows)]
    profiles = {entry["name"]: entry for entry in comparison["runs"] if "profile" in entry}
    if profiles:
        lines += ["", *profile_lines(profiles)]
    others = [m for m in comparison["metrics"] if m != headline]
    if others:
        rows = [[entry["name"], *(_percent(entry["scores"]["average"][m]) for m in others)] for entry in comparison["runs"]]
        lines += ["", "## Other metrics (macro average over tasks)", "", *_table(["run", *others], rows)]
    return "\n".join(lines) + "\n"


def _cell_text(entry: dict, cell: str) -> str:
    text = _percent(entry["cells"][cell])
    change = entry.get("cells_versus_reference", {}).get(cell)
    if change:
        text += f" ({100 * change['difference']:+.1f}"
        text += f" [{100 * change['interval'][0]:+.1f}, {100 * change['interval'][1]:+.1f}])" if "interval" in change else ")"
    return text


def plot(comparison: dict, path: Path) -> None:
    """Each run's average with its interval, and its paired change from the reference with that interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    headline, entries = comparison["headline"], comparison["runs"]
    names = [entry["name"] for entry in entries]
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 0.5 * len(entries) + 2.4))
    values = [100 * entry["scores"]["average"][headline] for entry in entries]
    whiskers = None
    if all("intervals" in entry for entry in entries):
        whiskers = [[v - 100 * e["intervals"]["average"][headline][0] for v, e in zip(values, entries)],
                    [100 * e["intervals"]["average"][headline][1] - v for v, e in zip(values, entries)]]
    left.barh(names, values, xerr=whiskers, capsize=3, color="#4C72B0")
    left.invert_yaxis()
    left.set_xlabel(f"{headline}, macro average (%)")
    left.set_title("leaderboard (95 % intervals)")
    changes = [100 * e["versus_reference"]["difference"]["average"][headline] if "versus_reference" in e else 0.0
               for e in entries]
    whiskers = None
    if comparison["resamples"]:
        low = [100 * e["versus_reference"]["intervals"]["average"][headline][0] if "versus_reference" in e else 0.0
               for e in entries]
        high = [100 * e["versus_reference"]["intervals"]["average"][headline][1] if "versus_reference" in e else 0.0
                for e in entries]
        whiskers = [[c - lo for c, lo in zip(changes, low)], [hi - c for c, hi in zip(changes, high)]]
    right.barh(names, changes, xerr=whiskers, capsize=3, color="#DD8452")
    right.axvline(0, color="black", linewidth=1)
    right.invert_yaxis()
    right.set_xlabel(f"change from {comparison['reference']} (points)")
    right.set_title("paired difference (95 % intervals)")
    figure.tight_layout()
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)
