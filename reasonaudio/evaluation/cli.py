"""The evaluation stage's subcommands of `reasonaudio`: evaluate and baselines."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path

import numpy as np

from reasonaudio_dataset.certificate import MIN_CELL, coverage, coverage_note, too_small
from reasonaudio_dataset.folders import check_data, check_unlinked
from reasonaudio_metric.functional import check_count, check_resamples, paired_differences, task_means

from .compare import check_comparable, compare, load_runs, markdown, plot
from .inspect_page import AUDIO_MODES, LISTEN_QUERIES, MAX_QUERIES
from .report import (MODES, RESULT_FILES, baseline_table, breakdown_table, check_no_foreign_files, check_options,
                     check_out, claimed_out, place_files, results_csv, results_plot, write_results)
from .systems import BASELINES as DECLARED
from .systems import HELP, check_spec, open_system
from .systems.metadata import CHANCE

DEFAULT_CACHE = Path(os.environ.get("REASONAUDIO_CACHE", Path.home() / ".cache" / "reasonaudio")) / "embeddings"

# every baseline as its module declares it (`METADATA`): the spec run, the tie it is held to, the flag's words
BASELINES = tuple(found.spec or found.name for found in DECLARED.values())
LEARNED = tuple(kind for kind, found in DECLARED.items() if found.needs_train)   # trained on the train split
# the systems of the short table and the plot: the bounds, recognition without reasoning, words, captions, audits
MAIN = tuple(sorted((kind for kind, found in DECLARED.items() if found.short), key=lambda kind: DECLARED[kind].short))
VERDICTS = tuple(kind for kind, found in DECLARED.items() if found.verdict)     # a verdict on the whole build
BASELINE_FILES = ("baselines.json", "baselines.md", "baselines.csv", "baselines.png")
FLAG_RESAMPLES = 10000   # enough for the tails of a Bonferroni-adjusted interval


def add_commands(sub) -> dict:
    evaluate = sub.add_parser(
        "evaluate", formatter_class=argparse.RawDescriptionHelpFormatter,
        help="score a model or baseline on a split; writes results.json, results.md, results.png",
        description="Encode the queries and clips of a split in batches, compute the similarity on the device,\n"
                    "score it with the ReasonAudio metric and write OUT/results.{json,md,png}.\n\n"
                    "When the queries carry depth (atoms of each query's constraint; builds before it lack the\n"
                    "column), results.json (metrics.breakdown) and results.md add every task x depth cell, and\n"
                    "results.png a second panel: the headline against depth, one line per task, with the random\n"
                    "baseline.",
        epilog=f"models (--model KIND:LOCATION[?option=value&...]):\n{HELP}")
    evaluate.add_argument("--data", required=True, help="a generated folder or a Hub dataset id")
    evaluate.add_argument("--model", required=True, help="what to score (see below)")
    evaluate.add_argument("--mode", choices=MODES, default="group",
                          help="group: each query ranks its own candidates (the headline); corpus: the whole corpus "
                               "(default: %(default)s)")
    evaluate.add_argument("--split", default="test", help="which split of --data (default: %(default)s)")
    evaluate.add_argument("--acoustics", metavar="CONDITION|all",
                          help="score the clips of one acoustic condition of a robustness build (noisy, reverberant, "
                               "...), or `all`: each condition the split holds, with every condition's drop from "
                               "clean per task and its paired bootstrap interval (a table in results.md, a panel in "
                               "results.png) (default: the main corpus)")
    evaluate.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, ... (default: %(default)s)")
    evaluate.add_argument("--batch-size", type=int, default=32,
                          help="texts or clips per encoder call, at least 1 (default: %(default)s)")
    evaluate.add_argument("--bootstrap", type=int, default=1000,
                          help="resamples for the 95 %% intervals; 0: none (default: %(default)s)")
    evaluate.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default: %(default)s)")
    evaluate.add_argument("--out", required=True,
                          help="folder for results.json, results.md, results.png (not inside --data)")
    evaluate.add_argument("--overwrite", action="store_true",
                          help="replace the results already in --out (default: off: an existing results.json stops "
                               "the run)")
    evaluate.add_argument("--cache", default=str(DEFAULT_CACHE),
                          help="folder for the embedding cache, keyed by model and corpus fingerprint: a second or "
                               "interrupted run loads what was encoded (default: %(default)s; REASONAUDIO_CACHE moves "
                               "it)")
    evaluate.add_argument("--no-cache", action="store_true", help="encode everything afresh, save nothing (default: off)")
    evaluate.add_argument("--quiet", action="store_true", help="no progress bars (default: off)")

    baselines = sub.add_parser(
        "baselines", help="the reference points: " + ", ".join(DECLARED),
        description="Score the diagnostic baselines on a split and print one table (group accuracy per task, with "
                    f"intervals). oracle must reach 100 %; {' and '.join(VERDICTS)}'s interval must contain the "
                    "random baseline, or the generator has a shortcut. When the queries carry shape and depth, a "
                    "second table gives every baseline's group accuracy per task, shape and depth, with a note on "
                    f"any task or cell {rules()} beyond its interval.")
    baselines.add_argument("--data", required=True, help="a generated folder or a Hub dataset id (its test split)")
    baselines.add_argument("--train", help=f"folder with the train split for {', '.join(LEARNED)} (default: --data)")
    baselines.add_argument("--acoustics", metavar="CONDITION",
                           help="score the clips of this acoustic condition of a robustness build; the learned "
                                "audits then train on the train split of the same condition (default: the main "
                                "corpus)")
    baselines.add_argument("--text-model", default="all-MiniLM-L6-v2",
                           help="sentence-transformers model of the two-stage baseline (default: %(default)s)")
    baselines.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, ... (default: %(default)s)")
    baselines.add_argument("--out", help="also write each system's results and the tables here: baselines.md (per task "
                                         "and per shape, with intervals), baselines.csv, baselines.png, baselines.json "
                                         "(not inside --data; default: print only)")
    baselines.add_argument("--overwrite", action="store_true",
                           help="replace the baselines already in --out (default: off: existing ones stop the run)")
    baselines.add_argument("--certify", action="store_true",
                           help="write the figures into --data as its validity certificate: the card's Validity "
                                "section, which `validate` checks against the build (a local folder; with --out) (default: off)")
    baselines.add_argument("--quiet", action="store_true", help="no progress bars (default: off)")

    compare = sub.add_parser(
        "compare", formatter_class=argparse.RawDescriptionHelpFormatter,
        help="a leaderboard of evaluate runs on one build, with paired intervals and p-values against a reference",
        description="Read the results.json and per_query.parquet of each RUN_DIR (evaluate's --out folders) and\n"
                    "print a leaderboard: each run's headline per task with bootstrap 95 % intervals, and its\n"
                    "paired change from the reference run (one resample of queries serves both runs) with its\n"
                    "paired bootstrap interval and the p-value of the same resamples (the interval excludes 0\n"
                    "when p < 0.05), per task and per task x depth. Nothing is encoded again.\n"
                    "Runs of different builds (by content digest), modes, splits or acoustic conditions are\n"
                    "refused by name. With --out, writes OUT/compare.{md,json,png} too.",
        epilog="example:\n  reasonaudio evaluate --data demo --model oracle --out runs/oracle\n"
               "  reasonaudio evaluate --data demo --model random --out runs/random\n"
               "  reasonaudio compare runs/random runs/oracle --reference runs/random --out runs/compare")
    compare.add_argument("runs", nargs="+", metavar="RUN_DIR", help="two or more --out folders of reasonaudio evaluate")
    compare.add_argument("--reference", metavar="RUN_DIR", help="the run every other is compared with (default: the first)")
    compare.add_argument("--out", help="also write compare.md, compare.json, compare.png here (default: print only)")
    compare.add_argument("--bootstrap", type=int, default=1000,
                         help="resamples for the intervals and the p-values; 0: none (default: %(default)s)")
    compare.add_argument("--seed", type=int, default=0, help="seed of the resampling (default: %(default)s)")
    compare.add_argument("--overwrite", action="store_true",
                         help="replace compare.* already in --out (default: off: existing ones stop the run)")

    inspect = sub.add_parser(
        "inspect", formatter_class=argparse.RawDescriptionHelpFormatter,
        help="a static HTML page of a run: per query its candidates' timelines, players and scores, what fails",
        description="Write one HTML page of an evaluate run (RUN_DIR: its --out folder) that opens in a browser with\n"
                    "no server and no network: per query its text, its candidates each drawn as a timeline of its\n"
                    "events, a player for each clip, the model's scores, the positive, the hard negatives and the\n"
                    "clip ranked first, and what each wrong candidate breaks of the query (judged by the relevance\n"
                    "function). Filters by task, shape, depth and outcome; the queries the model gets wrong first.",
        epilog="example:\n  reasonaudio evaluate --data demo --model random --out runs/random\n"
               "  reasonaudio inspect runs/random   # writes runs/random/inspect.html, its clips in runs/random/inspect.audio/")
    inspect.add_argument("run", metavar="RUN_DIR", help="the --out folder of reasonaudio evaluate")
    inspect.add_argument("--out", metavar="PAGE.html",
                         help="the page; its clips go beside it, in PAGE.audio/ (default: RUN_DIR/inspect.html)")
    inspect.add_argument("--limit", type=int, default=MAX_QUERIES,
                         help="the most queries shown, those ranking a wrong clip first before the others "
                              "(default: %(default)s)")
    inspect.add_argument("--listen", type=int, default=LISTEN_QUERIES,
                         help="how many of the queries shown get a player for each candidate, the first ones "
                              "(default: %(default)s)")
    inspect.add_argument("--audio", choices=AUDIO_MODES, default="link",
                         help="link: the clips as FLAC files beside the page; embed: inside the page (a handful of "
                              "queries: at most 20 MB); none: no players (default: %(default)s)")
    inspect.add_argument("--data", help="the build the run scored, where it is not where results.json says "
                                        "(default: results.json's data)")

    return {"evaluate": run_evaluate, "baselines": run_baselines, "compare": run_compare, "inspect": run_inspect}


def run_inspect(args) -> int:
    from .inspect_page import write_page

    page = write_page(args.run, args.out, args.limit, args.audio, args.data, args.listen)
    audio = page.with_name(page.stem + ".audio")
    print(f"wrote {page}" + (f" and its clips in {audio}/" if args.audio == "link" and audio.is_dir() else "")
          + f": open file://{page.resolve()} in a browser")
    return 0


COMPARE_FILES = ("compare.md", "compare.json", "compare.png")


def run_compare(args) -> int:
    check_resamples("--bootstrap", args.bootstrap)
    check_count("--seed", args.seed, 0)
    check_comparable(load_runs(args.runs))    # the slips, before the line saying it starts
    claim = claimed_out(args.out, args.runs[0], COMPARE_FILES, args.overwrite) if args.out else contextlib.nullcontext()
    with claim as out:
        status(f"compare: {len(args.runs)} runs, paired against {args.reference or args.runs[0]} "
               f"({args.bootstrap} resamples)")
        comparison = compare(args.runs, args.reference, args.bootstrap, args.seed)
        text = markdown(comparison)
        if out:
            place_files(out, {"compare.md": lambda path: path.write_text(text),
                              "compare.json": lambda path: path.write_text(json.dumps(comparison, indent=2) + "\n"),
                              "compare.png": lambda path: plot(comparison, path)})
    print(text)
    if out:
        print(wrote(out, COMPARE_FILES))
    return 0


def wrote(out: Path, names) -> str:
    """The closing line of a command that writes files: where each one is."""
    return "wrote " + ", ".join(str(Path(out) / name) for name in names)


def status(text: str) -> None:
    """A status line on stderr, at once: what a long command is doing before its first bar."""
    print(text, file=sys.stderr, flush=True)


def quiet(args) -> None:
    if args.quiet:
        import datasets

        datasets.disable_progress_bars()


def run_evaluate(args) -> int:
    writes = int(os.environ.get("RANK", "0")) == 0     # under a launcher only rank 0 writes (and holds --out)
    check_options(args.mode, args.batch_size, args.bootstrap, args.seed, True, args.device)
    check_data(args.data, (args.split,))   # the slips a user makes most, refused before torch and datasets load
    if writes:
        check_out(args.out, args.data, RESULT_FILES, args.overwrite)
        check_no_foreign_files(args.out, RESULT_FILES)
    check_spec(args.model)
    if writes and not args.quiet:
        status(f"evaluate: {args.model} on {args.data} (split {args.split}, {args.mode} mode) into {args.out}")

    # torch and datasets, imported on use: --help stays fast
    from reasonaudio.models.distributed import close_distributed, distributed, init_distributed

    from .runner import RunSettings, check_settings, run, run_conditions
    from .systems import EmbeddingSystem, EvalData

    from reasonaudio_dataset.identity import build_identity

    check_settings(args.mode, args.device, args.batch_size, args.bootstrap, args.seed, flags=True)
    with claimed_out(args.out, args.data, RESULT_FILES, args.overwrite) if writes else contextlib.nullcontext():
        scored = build_identity(args.data, args.split) if writes else None    # what is read, taken before reading
        device = init_distributed(args.device)   # under torchrun: one process per rank, encoding shared among them
        rank, world = distributed()
        try:
            args.quiet = args.quiet or rank != 0
            quiet(args)
            conditions = _conditions(args.data, args.split, args.acoustics)
            system = open_system(args.model, device=device)
            if isinstance(system, EmbeddingSystem):
                system.cache_root, system.shared = None if args.no_cache else args.cache, world > 1
            settings = RunSettings(args.mode, device, args.batch_size, args.bootstrap, args.seed, not args.quiet)
            if len(conditions) > 1:
                result = run_conditions(system, args.data, conditions, args.split, settings, per_query=True)
            else:
                data = EvalData.load(args.data, args.split, acoustics=conditions[0] if conditions else None)
                result = run(system, data, settings, per_query=True)
        finally:
            close_distributed()
        if rank != 0:   # rank 0 scores and writes
            return 0
        parameters = {key: getattr(args, key) for key in ("mode", "split", "batch_size", "bootstrap", "seed",
                                                          "acoustics")}
        out = write_results(args.out, result, run_record(system, args.model, args.data,
                                                         {**parameters, "device": device}, world, scored))
    print((out / "results.md").read_text())
    print(wrote(out, [name for name in RESULT_FILES if (out / name).is_file()]))
    return 0


def run_record(system, spec: str, data: str, parameters: dict, world: int = 1, scored: dict | None = None) -> dict:
    """What a run scored and with what: the build's identity (content digest and plan fingerprint), the
    model spec exactly as given (with its options) and the system's name, the embedding cache's key (the
    model identity) and folder, the device, and every setting; enough to tell whether two runs compare.
    `scored`: the build's identity taken before the run read it; a build that changed since (regenerated
    while it was scored) is refused rather than recorded under the new build's identity."""
    # torch and datasets, imported on use: --help stays fast
    import torch

    from reasonaudio_dataset.identity import build_identity

    device = torch.device(parameters["device"])
    build = build_identity(data, parameters["split"])
    if scored is not None and (scored["id"], scored["fingerprint"]) != (build["id"], build["fingerprint"]):
        raise ValueError(f"{data} changed while it was scored (build {scored['id']} then {build['id']}: regenerated?); "
                         "nothing was written: run evaluate again on the build as it is now")
    cache = getattr(system, "cache_root", None)
    identity = getattr(system, "identity", None)
    return {"model": system.name, "spec": spec, "data": data, "build": build,
            "benchmark_version": build["benchmark_version"], "parameters": parameters,
            "cache": {"key": identity, "folder": str(cache) if cache and identity else None},
            "device": {"name": str(device), "processes": world,
                       "hardware": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"}}


def _conditions(data: str, split: str, acoustics: str | None) -> list[str]:
    """The conditions `--acoustics` names: none (the main corpus), one, or `all` of the split's, clean first."""
    if acoustics != "all":
        return [acoustics] if acoustics else []
    from reasonaudio_dataset.loading import conditions_of   # datasets, imported on use: --help stays fast

    found = sorted(conditions_of(data, split), key=lambda name: (name != "clean", name))
    if len(found) < 2:
        raise ValueError(f"--acoustics all: split {split!r} of {data} holds {found or 'no recorded'} condition(s); "
                         "make a robustness build with `reasonaudio generate --acoustics all`")
    return found


def audit_verdict(name: str, result: dict) -> str:
    """The verdict of a baseline held to chance on the whole build: whether its interval contains chance."""
    low, high = result["intervals"]["average"]["accuracy"]
    chance = result["random"]["average"]["accuracy"]
    if low <= chance <= high:
        return f"{name}: its interval [{100 * low:.1f}, {100 * high:.1f}] contains {100 * chance:.1f} % (no shortcut found)"
    return (f"{name}: its interval [{100 * low:.1f}, {100 * high:.1f}] misses {100 * chance:.1f} %: clip "
            "acoustics alone find the positive; the generator has a shortcut to fix")


def verdicts(results: dict) -> list[str]:
    """`audit_verdict` of each baseline that declares one (`METADATA.verdict`), found by its kind."""
    return [audit_verdict(name, result) for name, result in results.items() if name.split(":")[0] in VERDICTS]


def reference(kind: str) -> str:
    """What a baseline's flags name as its tie: chance, a tie of `counting.TIES`, or the baseline that provides
    its tie (by name)."""
    held_to = DECLARED[kind].held_to
    return next((other for other, found in DECLARED.items() if found.provides == held_to), held_to)


def rules() -> str:
    """Where a baseline is flagged, each held to its tie, in words: the no-flag note and --help."""
    groups = {}     # the systems under one rule, in the registry's order
    for kind, found in DECLARED.items():
        if found.held_to:
            groups.setdefault((reference(kind), found.flags, found.margin), []).append(kind)
    said = []
    for (tie, flags, margin), kinds in groups.items():
        names = ", ".join(kinds[:-1]) + f" or {kinds[-1]}" if len(kinds) > 1 else kinds[0]
        gain = f" by more than {100 * margin:.0f} points" if margin else ""
        said.append(f"where {names} beats {tie}{gain}" if flags == "above" else f"where {names} is off {tie}")
    return ", ".join(said[:-1]) + f" or {said[-1]}" if len(said) > 1 else "".join(said)


def _labels(result: dict, by: list[str]) -> np.ndarray:
    """Each query's key over the columns `by` ("order/shape=before/depth=1", or just the task)."""
    rows = result["per_query"]
    return np.array(["/".join(str(v) if c == "task" else f"{c}={v}" for c, v in zip(by, values))
                     for values in zip(*(rows[c] for c in by))], dtype=object)


def _significant(values: np.ndarray, tie: np.ndarray, cells: np.ndarray, seed: int = 0) -> dict[str, tuple]:
    """Per cell of at least MIN_CELL queries: (difference from its tie, lower, upper) of a paired bootstrap
    interval at 95 % jointly over the cells tested (Bonferroni: 1 - 0.05 / cells), only where the interval
    excludes zero. So a small build or a handful of noisy cells raise no flag."""
    tested = [c for c in dict.fromkeys(cells.tolist()) if np.sum(cells == c) >= MIN_CELL]
    if not tested:
        return {}
    keep = np.isin(cells, tested)
    found = paired_differences({"v": values[keep]}, {"v": tie[keep]}, cells[keep], FLAG_RESAMPLES, seed,
                               confidence=1 - 0.05 / len(tested))
    out = {}
    for cell in tested:
        low, high = found["intervals"][cell]["v"]
        if low > 0 or high < 0:
            out[cell] = (found["difference"][cell]["v"], low, high)
    return out


def _tie_result(result: dict, values: list[float]) -> dict:
    """A row for the baseline tables holding a tie's per-query values (means per task and per breakdown
    cell, as `result` has them; no intervals)."""
    values = np.asarray(values, dtype=np.float64)
    tie = {**task_means({"accuracy": values}, _labels(result, ["task"])), "random": result["random"],
           "num_queries": result["num_queries"]}
    if "breakdown" in result:
        means = task_means({"accuracy": values}, _labels(result, result["breakdown"]["by"]))
        tie["breakdown"] = {"by": result["breakdown"]["by"],
                            "cells": {key: {**cell, "accuracy": means[key]["accuracy"]}
                                      for key, cell in result["breakdown"]["cells"].items()}}
    return tie


def _checks(results: dict) -> list[tuple[str, np.ndarray, np.ndarray, float | None, str]]:
    """(system, its per-query accuracy, its tie per query, the gain allowed, what a gain means) for every
    reasoning-free system the build must hold at its tie, as its `METADATA` declares it. A gain of None flags
    both sides (an audit below chance marks the positive too); a number, gains above it only (a tie that is
    the best a weaker rule does, not a chance level: below it is no cue). A tie of `counting.TIES` is read from
    the system's per-query `count_tie`; a tie another system provides, from that system's accuracy."""
    def accuracy(name):
        return np.asarray(results[name]["per_query"]["accuracy"], dtype=np.float64)

    checks = []
    for name, found in DECLARED.items():
        if not found.held_to or name not in results:
            continue
        if found.held_to == CHANCE:
            tie = np.full(len(accuracy(name)), results[name]["random"]["average"]["accuracy"])
        elif "count_tie" in results[name]["per_query"]:
            tie = np.asarray(results[name]["per_query"]["count_tie"])
        elif reference(name) in results:
            tie = accuracy(reference(name))
        else:
            continue
        checks.append((name, accuracy(name), tie, found.margin if found.flags == "above" else None, found.flag))
    return checks


def cell_notes(results: dict) -> list[str]:
    """`flagged_cells`, or the one line saying that no task or cell is flagged and by which rules."""
    return flagged_cells(results) or [no_flags()]


def no_flags() -> str:
    """The note when nothing is flagged, naming every rule held."""
    return (f"no task, and no cell of {MIN_CELL} queries or more, {rules()}, beyond its interval (95 % over the "
            "cells tested)")


def flagged_cells(results: dict) -> list[str]:
    """The tasks, and the cells (task, shape, depth), where a reasoning-free system beats its tie beyond its
    interval (see `_significant`), each against the tie its `METADATA` declares (off it either way where it
    flags both: a construction that avoids the positive marks it as well); one line each."""
    notes = []
    for name, values, tie, margin, meaning in _checks(results):
        result = results[name]
        levels = [["task"]] + ([result["breakdown"]["by"]] if "breakdown" in result else [])
        for by in levels:
            cells = _labels(result, by)
            for cell, (difference, low, high) in _significant(values, tie, cells).items():
                if (difference != 0) if margin is None else difference > margin:
                    side = meaning if difference > 0 else "the construction avoids the positive (below its tie)"
                    notes.append(f"{cell} (n={int(np.sum(cells == cell))}): {name} is {100 * difference:+.1f} points "
                                 f"[{100 * low:+.1f}, {100 * high:+.1f}] from {reference(name)}: {side}")
    return notes


def baselines_table(data_path: str, train: str | None, text_model: str, device: str, out: str | None,
                    progress: bool, acoustics: str | None = None) -> tuple[str, dict, list[str]]:
    """The per-task table of every baseline with the audit's verdict, then, when the queries carry shape or
    depth, the same per task x shape x depth, with notes on the cells that fail and on how many are too small to
    test (`coverage`); the results by system; and the tasks and cells flagged (`flagged_cells`)."""
    # torch and datasets, imported on use: --help stays fast
    from .runner import RunSettings, breakdown, run
    from .systems import EvalData
    from .systems.counting import TIES

    data = EvalData.load(data_path, "test", acoustics=acoustics)
    by = breakdown(data, ("shape", "depth"))
    results, notes = {}, []
    for number, (kind, found) in enumerate(DECLARED.items(), 1):
        spec = (found.spec or found.name).format(text_model=text_model)
        if progress:
            status(f"[{number}/{len(BASELINES)}] {spec}")
        if found.needs_train and train:
            spec = f"{spec}:?train={train}"
        try:
            system = open_system(spec, device=device)
        except (ImportError, ValueError) as error:  # e.g. no text model offline: the other rows still count
            notes.append(f"{spec} skipped: {error}")
            continue
        result = run(system, data, RunSettings(device=device, progress=progress), by=by, per_query=True)
        if out:
            parameters = {"mode": "group", "split": "test", "device": device, "batch_size": 32, "bootstrap": 1000,
                          "seed": 0, "acoustics": acoustics}
            write_results(Path(out) / system.name.split(":")[0], result, run_record(system, spec, data_path, parameters))
        results[system.name] = result
        if found.held_to in TIES:
            result["per_query"]["count_tie"] = TIES[found.held_to](data).tolist()
        if found.tie_row:
            results[found.tie_row] = _tie_result(result, result["per_query"]["count_tie"])
        if found.verdict:
            notes.append(audit_verdict(system.name, result))
    table = baseline_table(results, "group") + "\n" + "\n".join(notes) + "\n"
    flagged, untested = flagged_cells(results), coverage_note(coverage(results))
    if len(by) > 1:
        where = f"in {Path(out) / 'baselines.json'}" if out else "with --out, in baselines.json"
        table += (f"\ngroup accuracy (%) per {', '.join(by)}; intervals {where}:\n\n"
                  + breakdown_table(results, "group") + "\n" + "\n".join(flagged or [no_flags()]) + "\n"
                  + (f"{untested}\n" if untested else ""))
    for result in results.values():
        result.pop("per_query", None)
    if out:
        title = f"ReasonAudio baselines on {Path(data_path).name} (test)"
        place_files(Path(out), {"baselines.md": lambda path: path.write_text(table),
                                "baselines.csv": lambda path: results_csv(results, "group", path),
                                "baselines.png": lambda path: results_plot(results, "group", MAIN, title, path),
                                "baselines.json": lambda path: path.write_text(json.dumps(results, indent=2) + "\n")})
    return table, results, flagged


def held_to_of(name: str) -> str:
    """What a system of the baselines' results is held to, by name ("" for one only reported: the bounds, the
    tie rows, the models)."""
    found = DECLARED.get(name.split(":")[0])
    return reference(name.split(":")[0]) if found and found.held_to else ""


def check_certifiable(args) -> None:
    """--certify writes into the build scored, from the figures the run keeps: a local folder, an --out, the
    main corpus."""
    if not Path(args.data).is_dir():
        raise ValueError(f"--certify writes the certificate into the build: --data {args.data} must be a local folder "
                         "(certify before publishing)")
    if not args.out:
        raise ValueError("--certify needs --out: the certificate's figures are reproduced from the results kept there")
    if args.acoustics:
        raise ValueError("--certify certifies the main corpus: leave out --acoustics")
    check_unlinked(args.data)       # the certificate and the card are written into it after scoring


def run_baselines(args) -> int:
    written = BASELINE_FILES
    check_data(args.data, ("test",))   # before torch and datasets load
    if args.certify:
        check_certifiable(args)
    if args.train:
        check_data(args.train, ("train",))
    if args.out:
        check_out(args.out, args.data, written, args.overwrite)
    if not args.quiet:
        status(f"baselines: {len(BASELINES)} systems on {args.data} (test)" + (f" into {args.out}" if args.out else ""))

    from reasonaudio.models.distributed import check_device   # torch, imported on use: --help stays fast

    check_device(args.device)
    try:                   # every prerequisite before the first system runs: the learned audits need a train split
        check_data(args.train or args.data, ("train",))
    except ValueError as error:
        raise ValueError(f"the learned audits ({', '.join(LEARNED)}) learn from a train split of other recordings: "
                         f"{error}; or pass --train DIR") from None
    from reasonaudio_dataset.identity import read_record   # datasets, imported on use: a slip is refused before it

    from .certify import certificate, write_certificate

    fingerprint = read_record(args.data, "test")["fingerprint"] if args.certify else None   # before scoring
    with claimed_out(args.out, args.data, written, args.overwrite) if args.out else contextlib.nullcontext():
        quiet(args)
        table, results, flagged = baselines_table(args.data, args.train, args.text_model, args.device, args.out,
                                                  not args.quiet, args.acoustics)
    print(table)
    if args.certify:
        held_to = {name: held_to_of(name) for name in results}
        command = (f"reasonaudio baselines --data {args.data}" + (f" --train {args.train}" if args.train else "")
                   + f" --out {args.out} --certify")
        path = write_certificate(args.data, fingerprint,
                                 lambda record: certificate(results, held_to, flagged, record, command))
        covered = coverage(results)
        where, note = f"{path} and the Validity section of {Path(args.data) / 'README.md'}", coverage_note(covered)
        if too_small(covered):      # nothing was tested: never called clean
            print(f"not certified: {where} say {note}")
        else:
            print(f"certified: {where} ({len(flagged) or 'no'} cell{'s' if len(flagged) != 1 else ''} flagged"
                  + (f"; {note}" if note else "") + ")")
    if args.out:
        systems = sorted(p.name for p in Path(args.out).iterdir() if p.is_dir())
        print(f"{wrote(args.out, written)}, and each system's results ({', '.join(RESULT_FILES)}) in a folder of its "
              f"own: {', '.join(str(Path(args.out) / name) + '/' for name in systems)}")
    return 0
