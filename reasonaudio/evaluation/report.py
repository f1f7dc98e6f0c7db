"""results.json, results.md and results.png of an evaluation; the baseline table across systems."""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import tempfile
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from statistics import fmean
from typing import Callable, Sequence

from reasonaudio_dataset.folders import LOCK, check_results_folder, held
from reasonaudio_metric.functional import MAX_BATCH, MAX_SEED, check_count, check_resamples

HEADLINE = {"group": "accuracy", "corpus": "ndcg@10"}   # each mode and its headline metric
MODES = tuple(HEADLINE)
DEVICE = re.compile(r"(cpu|cuda|mps|xpu)(:\d+)?")   # the device names a run takes (torch knows more)


def check_options(mode: str, batch_size: int, bootstrap: int, seed: int = 0, flags: bool = False,
                  device: str = "cpu") -> None:
    """A run's settings, checked before anything loads: the device's name too (whether it is there needs
    torch: `runner.check_device`); `flags` names them as CLI options."""
    name = (lambda key: "--" + key.replace("_", "-")) if flags else str
    if not DEVICE.fullmatch(device):
        raise ValueError(f"unknown device {device!r}; use cpu, cuda, cuda:1, mps, ...")
    if mode not in MODES:
        raise ValueError(f"{name('mode')} must be one of {MODES}, got {mode!r}")
    check_count(name("batch_size"), batch_size, 1, MAX_BATCH)
    check_resamples(name("bootstrap"), bootstrap)
    check_count(name("seed"), seed, 0, MAX_SEED)
PACKAGES = ("reasonaudio", "numpy", "torch", "datasets", "evaluate", "transformers", "sentence-transformers")


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for package in PACKAGES:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return found


def tasks_of(result: dict) -> list[str]:
    return list(result["num_queries"]) + ["average"]


def _percent(value: float | None, interval: tuple[float, float] | None = None) -> str:
    if value is None:          # a metric no query of the row applies to (hard_negative_pairwise)
        return "—"
    text = f"{100 * value:.1f}"
    if interval is not None:
        text += f" [{100 * interval[0]:.1f}, {100 * interval[1]:.1f}]"
    return text


def _cell(result: dict, task: str, metric: str) -> str:
    return _percent(result[task][metric], result["intervals"][task][metric] if "intervals" in result else None)


def _table(columns: list[str], rows: list[list[str]], text_columns: int = 1) -> list[str]:
    """A markdown table: the first `text_columns` columns left-aligned, numbers right-aligned."""
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * text_columns + "---:|" * (len(columns) - text_columns),
            *("| " + " | ".join(row) + " |" for row in rows)]


def markdown(result: dict, mode: str, title: str) -> str:
    """The per-task table, then (when the result has a breakdown, e.g. task x depth) one row per cell."""
    headline = HEADLINE[mode]
    metrics = [m for m in result["average"] if m != headline]
    header = ["queries", headline, *metrics, f"random {headline}"]
    rows = []
    for task in tasks_of(result):
        queries = result["num_queries"].get(task, sum(result["num_queries"].values()))
        rows.append([task, str(queries), _cell(result, task, headline), *(_percent(result[task][m]) for m in metrics),
                     _percent(result["random"][task][headline])])
    lines = [f"# {title}", "", f"Values in %, with bootstrap 95 % intervals for {headline}; "
             f"random = the expectation of random ranking.", "", *_table(["task", *header], rows)]
    if "hard_negative_queries" in result:
        counts = result["hard_negative_queries"]
        lines += ["", f"hard_negative_pairwise is over the {sum(counts.values())} of {sum(result['num_queries'].values())} "
                  "queries that have hard negatives (" + ", ".join(f"{t} {n}" for t, n in counts.items()) + ")."]
    if "breakdown" in result:
        by, cells = result["breakdown"]["by"], result["breakdown"]["cells"].values()
        rows = [[*map(str, cell["where"].values()), str(cell["num_queries"]),
                 _percent(cell[headline], cell["intervals"][headline] if "intervals" in cell else None),
                 *(_percent(cell[m]) for m in metrics), _percent(cell["random"][headline])] for cell in cells]
        lines += ["", f"## By {' and '.join(by)}", "", *_table([*by, *header], rows, len(by))]
    if "profile" in result:
        lines += ["", *profile_lines({"ordered right": result})]
    if "failures" in result:
        lines += ["", *_failure_lines(result["failures"])]
    if "acoustics" in result:
        lines += ["", *_acoustics_lines(result, headline)]
    return "\n".join(lines) + "\n"


def profile_lines(results: dict[str, dict]) -> list[str]:
    """The reasoning profile of one run or several side by side: per kind of minimal pair, the share each run
    orders right, with its 95 % interval and (the first run's) number of pairs."""
    names = list(results)
    kinds = list(dict.fromkeys(kind for result in results.values() for kind in result.get("profile", {})))
    first = next((r["profile"] for r in results.values() if "profile" in r), {})
    rows = [[kind, str(first.get(kind, {}).get("pairs", "—")),
             *(_percent(r["profile"][kind]["share"], r["profile"][kind].get("interval"))
               if kind in r.get("profile", {}) else "—" for r in results.values())] for kind in kinds]
    return ["## Reasoning profile", "", "Per kind of minimal pair (the positive against a hard negative that breaks "
            "that alone), the share ordered right, in %, with its 95 % interval (queries resampled); random = 50.",
            "", *_table(["minimal pair", "pairs", *names], rows)]


def _failure_lines(failures: dict[str, dict]) -> list[str]:
    """Per task, the queries whose first-ranked clip is wrong and what that clip breaks."""
    kinds = list(dict.fromkeys(kind for found in failures.values() for kind in found["kinds"]))
    rows = [[task, str(found["queries"]), str(found["wrong"]), *(str(found["kinds"].get(k, 0)) for k in kinds)]
            for task, found in failures.items()]
    return ["## Why the first-ranked clip is wrong", "", "Queries whose first-ranked candidate (ties: the first in "
            "candidate order) is not the positive, and how many of those break each part of the query, judged by "
            "the relevance function (a clip may break several; `missing`: a named sound it lacks).", "",
            *_table(["task", "queries", "wrong", *kinds], rows)]


def _acoustics_lines(result: dict, headline: str) -> list[str]:
    """Per acoustic condition and task: the headline, then its change from the baseline condition with the
    paired bootstrap interval."""
    acoustics, tasks = result["acoustics"], tasks_of(result)
    rows = []
    for name, scores in acoustics["conditions"].items():
        cells = []
        for task in tasks:
            cell = _percent(scores[task][headline])
            if name in acoustics["differences"]:
                change = acoustics["differences"][name]
                interval = change["intervals"][task][headline] if "intervals" in change else None
                cell += f" ({100 * change['difference'][task][headline]:+.1f}"
                cell += f" [{100 * interval[0]:+.1f}, {100 * interval[1]:+.1f}])" if interval else ")"
            cells.append(cell)
        rows.append([name, *cells])
    return ["## Acoustic conditions", "", f"{headline} (%) per condition; in brackets the change from "
            f"{acoustics['baseline']} on the same queries, with its paired bootstrap 95 % interval.", "",
            *_table(["condition", *tasks], rows)]


def _by_condition(axes, result: dict, headline: str) -> None:
    """Grouped bars: per task, each acoustic condition's change from the baseline condition, with its paired
    bootstrap interval."""
    acoustics, tasks = result["acoustics"], tasks_of(result)
    changes = acoustics["differences"]
    width = 0.8 / max(len(changes), 1)
    for number, (name, change) in enumerate(changes.items()):
        x = [i + (number - (len(changes) - 1) / 2) * width for i in range(len(tasks))]
        values = [100 * change["difference"][t][headline] for t in tasks]
        whiskers = None
        if "intervals" in change:
            whiskers = [[v - 100 * change["intervals"][t][headline][0] for t, v in zip(tasks, values)],
                        [100 * change["intervals"][t][headline][1] - v for t, v in zip(tasks, values)]]
        axes.bar(x, values, width, yerr=whiskers, capsize=2, label=name)
    axes.axhline(0, color="black", linewidth=1)
    axes.set_xticks(range(len(tasks)), tasks)
    axes.set_ylabel(f"change in {headline} (points)")
    axes.set_title(f"change from {acoustics['baseline']} (paired 95 % intervals)")
    axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize="small")


def _by_depth(axes, cells: list[dict], headline: str) -> None:
    """The headline against depth, one line per task (its interval as a band; tasks dodged sideways a little
    so that equal values stay visible), and the random baseline (per depth, the mean of the cells' own
    expectations: one value in group mode)."""
    tasks = list(dict.fromkeys(cell["where"]["task"] for cell in cells))
    for number, task in enumerate(tasks):
        mine = [cell for cell in cells if cell["where"]["task"] == task]     # depths ascending
        depths = [cell["where"]["depth"] + 0.04 * (number - (len(tasks) - 1) / 2) for cell in mine]
        line, = axes.plot(depths, [100 * cell[headline] for cell in mine], marker="o", label=task)
        if all("intervals" in cell for cell in mine):
            axes.fill_between(depths, *([100 * cell["intervals"][headline][i] for cell in mine] for i in (0, 1)),
                              color=line.get_color(), alpha=0.15, linewidth=0)
    chance: dict[int, list[float]] = {}
    for cell in cells:
        chance.setdefault(cell["where"]["depth"], []).append(100 * cell["random"][headline])
    depths = sorted(chance)
    axes.plot(depths, [fmean(chance[d]) for d in depths], color="black", linestyle="--", linewidth=1, label="random")
    axes.set_xticks(depths)
    axes.set_xlabel("depth (atoms of the query's constraint)")
    axes.set_ylabel(f"{headline} (%)")
    axes.set_ylim(0, 100)
    axes.set_title("by depth")
    axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize="small")


def plot(result: dict, mode: str, title: str, path: Path) -> None:
    """Bars per task with intervals; a panel of the headline against depth when the result is broken down by
    task and depth, and one of the headline per acoustic condition when it has several."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    headline, tasks = HEADLINE[mode], tasks_of(result)
    values = [100 * result[t][headline] for t in tasks]
    depth = result.get("breakdown", {}).get("by") == ["task", "depth"]
    acoustics = "acoustics" in result
    figure, panels = plt.subplots(1, 1 + depth + acoustics, figsize=(7 + 6 * (depth + acoustics), 3.6), squeeze=False)
    axes = panels[0][0]
    whiskers = None
    if "intervals" in result:
        whiskers = [[v - 100 * result["intervals"][t][headline][0] for t, v in zip(tasks, values)],
                    [100 * result["intervals"][t][headline][1] - v for t, v in zip(tasks, values)]]
    axes.bar(tasks, values, yerr=whiskers, capsize=4, color=["#4C72B0"] * (len(tasks) - 1) + ["#DD8452"])
    axes.axhline(100 * result["random"]["average"][headline], color="black", linestyle="--", linewidth=1,
                 label="random")
    axes.set_ylabel(f"{headline} (%)")
    axes.set_ylim(0, 100)
    axes.set_title(title)
    axes.legend(loc="upper right")
    if depth:
        _by_depth(panels[0][1], list(result["breakdown"]["cells"].values()), headline)
    if acoustics:
        _by_condition(panels[0][-1], result, headline)
    figure.tight_layout()
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)


RESULT_FILES = ("results.json", "results.md", "results.png", "per_query.parquet")
INSPECT_FILES = ("inspect.html", "inspect.audio")    # `reasonaudio inspect RUN`'s page of the run, and its clips
PER_QUERY = "per_query.parquet"
JOURNAL, STAGING = ".reasonaudio-placing.json", ".reasonaudio-staging-"


def check_out(out: str | Path, data: str, written: Sequence[str], overwrite: bool) -> None:
    """Refuse, before any work, an --out `check_results_folder` refuses, or one already holding any of the files
    a run writes (a user's own results.md as much as a results.json), unless overwriting. Files a killed run
    was placing (its journal lists them) are its own, not the user's."""
    out = Path(out)
    check_results_folder(out, data)
    placing = set(_journal(out))
    clash = [name for name in written if (out / name).exists() and name not in placing]
    if clash and not overwrite:
        raise FileExistsError(f"{out / clash[0]} already exists; choose another --out or pass --overwrite")


def check_no_foreign_files(out: str | Path, written: Sequence[str]) -> None:
    """Refuse an --out holding anything but a run's own files (`written`, and the lock, journal and staging of
    a run): results written beside a user's files would be taken for theirs, or theirs for a run's."""
    out = Path(out)
    if not out.is_dir():
        return
    own = {*written, *INSPECT_FILES, LOCK, JOURNAL}
    foreign = sorted(path.name for path in out.iterdir() if path.name not in own and not path.name.startswith(STAGING))
    if foreign:
        raise FileExistsError(f"--out {out} holds files that are not a run's results ({', '.join(foreign[:3])}"
                              f"{', ...' if len(foreign) > 3 else ''}); choose a new or empty folder")


def unfinished(out: str | Path) -> list[str]:
    """The files a killed run was placing in `out` (its journal lists them): until a run finishes them, the
    folder holds a mix of two runs' files, which nothing may read as one run."""
    return _journal(Path(out)) if (Path(out) / JOURNAL).exists() else []


def _journal(out: Path) -> list[str]:
    try:
        names = json.loads((out / JOURNAL).read_text())
    except (OSError, ValueError):
        return []
    return [name for name in names if isinstance(name, str) and "/" not in name] if isinstance(names, list) else []


@contextmanager
def claimed_out(out: str | Path, data: str, written: Sequence[str], overwrite: bool):
    """Hold --out for one run from its check to its last write: a second run into the same folder stops at
    once (an advisory lock, released by the kernel when a run dies); a killed run's staging folder is
    cleared. A folder this creates is removed again when the run fails before writing anything."""
    out = Path(out)
    check_out(out, data, written, overwrite)
    with held(out):
        check_out(out, data, written, overwrite)        # again, now that no other run can be placing files
        for leftover in out.glob(STAGING + "*"):
            shutil.rmtree(leftover, ignore_errors=True)
        yield out


def place_files(out: Path, writers: dict[str, Callable[[Path], None]]) -> None:
    """Write every file into a staging folder, then move them into `out` (results.json last); a journal names
    the files being moved, so that a run killed between two moves is rerun as its own files, not refused as
    a user's, and its mixed set is never read as a run (`unfinished`). Names of an earlier killed run that
    this one does not place stay in the journal."""
    staging = Path(tempfile.mkdtemp(dir=out, prefix=STAGING))
    try:
        for name, write in writers.items():
            write(staging / name)
        others = [name for name in unfinished(out) if name not in writers]
        (out / JOURNAL).write_text(json.dumps(sorted([*writers, *others])))
        for name in sorted(writers, key=lambda name: name == "results.json"):
            os.replace(staging / name, out / name)
        if others:
            (out / JOURNAL).write_text(json.dumps(others))
        else:
            (out / JOURNAL).unlink()
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def per_query_table(per_query: dict[str, list]):
    """The per-query values as an Arrow table (one row per query)."""
    import pyarrow as pa

    return pa.table(per_query)


def write_results(out: str | Path, result: dict, record: dict) -> Path:
    """results.json (the metrics and `record`: what was scored, with what), results.md, results.png, and
    per_query.parquet when the result carries per-query values; placed by `place_files`."""
    import pyarrow.parquet as pq

    out, result = Path(out), dict(result)
    per_query = result.pop("per_query", None)
    mode = record["parameters"]["mode"]
    title = f"ReasonAudio ({mode} mode): {record['model']}"
    files = [*RESULT_FILES[:3], *([PER_QUERY] if per_query else [])]
    document = {"metrics": result, **record, "versions": versions(), "files": files}
    writers = {"results.json": lambda path: path.write_text(json.dumps(document, indent=2) + "\n"),
               "results.md": lambda path: path.write_text(markdown(result, mode, title)),
               "results.png": lambda path: plot(result, mode, title, path)}
    if per_query:
        writers[PER_QUERY] = lambda path: pq.write_table(per_query_table(per_query), path)
    out.mkdir(parents=True, exist_ok=True)
    place_files(out, writers)
    for stale in (out / name for name in INSPECT_FILES):     # a page of the results replaced would mislead
        shutil.rmtree(stale) if stale.is_dir() else stale.unlink(missing_ok=True)
    return out


def baseline_table(results: dict[str, dict], mode: str) -> str:
    """One row per system: the headline per task and on average, with intervals."""
    headline = HEADLINE[mode]
    tasks = tasks_of(next(iter(results.values())))
    rows = [[name, *(_cell(result, t, headline) for t in tasks)] for name, result in results.items()]
    return "\n".join(_table(["system", *tasks], rows)) + "\n"


def _by_kind(results: dict[str, dict], systems: tuple[str, ...]) -> dict[str, dict]:
    """The results of the systems of these kinds (`two-stage` for `two-stage:MODEL?...`), in their order."""
    return {kind: result for kind in systems for name, result in results.items() if name.split(":")[0] == kind}


def short_table(results: dict[str, dict], mode: str, systems: tuple[str, ...]) -> str:
    """One row per task (and the average), one column per system of `systems` found (by its kind): the
    headline only, a table that fits a terminal (the intervals are in the full tables)."""
    headline = HEADLINE[mode]
    chosen = _by_kind(results, systems)
    tasks = tasks_of(next(iter(chosen.values())))
    rows = [[task, *(_percent(result[task][headline]) for result in chosen.values())] for task in tasks]
    return "\n".join(_table(["task", *chosen], rows)) + "\n"


def results_csv(results: dict[str, dict], mode: str, path: Path) -> None:
    """Every system's headline per task and per breakdown cell, with its interval, one row each (for a
    spreadsheet or pandas): system, cell, queries, value, low, high, random (percentages)."""
    import csv

    headline = HEADLINE[mode]
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["system", "cell", "queries", headline, "low", "high", "random"])
        for name, result in results.items():
            cells = [(task, result["num_queries"].get(task, sum(result["num_queries"].values())), result[task],
                      result.get("intervals", {}).get(task, {}).get(headline), result["random"].get(task, {}))
                     for task in tasks_of(result)]
            cells += [(key, cell["num_queries"], cell, cell.get("intervals", {}).get(headline), cell.get("random", {}))
                      for key, cell in result.get("breakdown", {}).get("cells", {}).items()]
            for key, queries, values, interval, chance in cells:
                low, high = interval if interval else (None, None)
                writer.writerow([name, key, queries, *(None if v is None else round(100 * v, 2)
                                                       for v in (values[headline], low, high, chance.get(headline)))])


def results_plot(results: dict[str, dict], mode: str, systems: tuple[str, ...], title: str, path: Path) -> None:
    """Grouped bars: per task, the headline of each system of `systems` found, with intervals; chance dashed."""
    import matplotlib
    import numpy as np

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    headline = HEADLINE[mode]
    chosen = _by_kind(results, systems)
    tasks = tasks_of(next(iter(chosen.values())))
    width = 0.8 / len(chosen)
    figure, axes = plt.subplots(figsize=(10, 4))
    for k, (kind, result) in enumerate(chosen.items()):
        values = np.array([100 * result[t][headline] for t in tasks])
        whiskers = None
        if "intervals" in result:
            whiskers = np.array([[v - 100 * result["intervals"][t][headline][0], 100 * result["intervals"][t][headline][1] - v]
                                 for t, v in zip(tasks, values)]).T
        axes.bar(np.arange(len(tasks)) + (k - (len(chosen) - 1) / 2) * width, values, width, yerr=whiskers,
                 capsize=2, label=kind)
    chance = next(iter(chosen.values()))["random"]["average"][headline]
    axes.axhline(100 * chance, color="black", linestyle="--", linewidth=1, label="chance")
    axes.set_xticks(np.arange(len(tasks)), tasks)
    axes.set_ylabel(f"{headline} (%)")
    axes.set_ylim(0, 100)
    axes.set_title(title)
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)


def breakdown_table(results: dict[str, dict], mode: str) -> str:
    """One row per cell of the systems' breakdown (its columns, its queries), one column per system (by
    its kind, such as two-stage): the headline, without intervals (they are in the results)."""
    headline = HEADLINE[mode]
    first = next(iter(results.values()))["breakdown"]
    rows = [[*map(str, cell["where"].values()), str(cell["num_queries"]),
             *(_percent(result["breakdown"]["cells"][key][headline]) for result in results.values())]
            for key, cell in first["cells"].items()]
    columns = [*first["by"], "queries", *(name.split(":")[0] for name in results)]
    return "\n".join(_table(columns, rows, len(first["by"]))) + "\n"
