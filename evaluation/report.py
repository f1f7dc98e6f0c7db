"""results.json, results.md and results.png of an evaluation; the baseline table across systems."""
from __future__ import annotations

import json
import platform
from importlib import metadata
from pathlib import Path

HEADLINE = {"group": "accuracy", "corpus": "ndcg@10"}
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


def _cell(result: dict, task: str, metric: str) -> str:
    value = f"{100 * result[task][metric]:.1f}"
    if "intervals" in result:
        low, high = result["intervals"][task][metric]
        value += f" [{100 * low:.1f}, {100 * high:.1f}]"
    return value


def markdown(result: dict, mode: str, title: str) -> str:
    headline = HEADLINE[mode]
    metrics = [m for m in result["average"] if m != headline]
    lines = [f"# {title}", "", f"Values in %, with bootstrap 95 % intervals for {headline}; "
             f"random = the expectation of random ranking.", "",
             "| task | queries | " + " | ".join([headline] + metrics + [f"random {headline}"]) + " |",
             "|---|---:|" + "---:|" * (len(metrics) + 2)]
    for task in tasks_of(result):
        queries = result["num_queries"].get(task, sum(result["num_queries"].values()))
        cells = [_cell(result, task, headline)] + [f"{100 * result[task][m]:.1f}" for m in metrics]
        cells.append(f"{100 * result['random'][task][headline]:.1f}")
        lines.append(f"| {task} | {queries} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(result: dict, mode: str, title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    headline, tasks = HEADLINE[mode], tasks_of(result)
    values = [100 * result[t][headline] for t in tasks]
    figure, axes = plt.subplots(figsize=(7, 3.6))
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
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def check_out(out: str | Path, data: str, written: str, overwrite: bool) -> None:
    """Refuse, before any work, an --out inside the corpus folder (its files would join the dataset, which
    validate and publish then trip over) or one already holding `written`, unless overwriting."""
    if Path(data).is_dir() and Path(out).resolve().is_relative_to(Path(data).resolve()):
        raise ValueError(f"--out {out} is inside the corpus folder {data}: results there would join the dataset's "
                         "files (validate and publish would trip over them); choose a folder outside it")
    if (Path(out) / written).exists() and not overwrite:
        raise FileExistsError(f"{Path(out) / written} already exists; choose another --out or pass --overwrite")


def write_results(out: str | Path, result: dict, model: str, data: str, parameters: dict) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    mode, title = parameters["mode"], f"ReasonAudio ({parameters['mode']} mode): {model}"
    record = {"metrics": result, "model": model, "data": data, "parameters": parameters, "versions": versions()}
    (out / "results.json").write_text(json.dumps(record, indent=2) + "\n")
    (out / "results.md").write_text(markdown(result, mode, title))
    plot(result, mode, title, out / "results.png")
    return out


def baseline_table(results: dict[str, dict], mode: str) -> str:
    """One row per system: the headline per task and on average, with intervals."""
    headline = HEADLINE[mode]
    tasks = tasks_of(next(iter(results.values())))
    lines = ["| system | " + " | ".join(tasks) + " |", "|---|" + "---:|" * len(tasks)]
    for name, result in results.items():
        lines.append(f"| {name} | " + " | ".join(_cell(result, t, headline) for t in tasks) + " |")
    return "\n".join(lines) + "\n"
