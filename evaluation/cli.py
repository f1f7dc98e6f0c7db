"""`reasonaudio evaluate`, `reasonaudio baselines` and `reasonaudio demo`."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

BASELINES = ("random", "oracle", "bag-of-sounds", "timeline-rule", "shortcut-audit", "two-stage:{text_model}?captions=oracle")


def add_commands(sub) -> dict:
    from .runner import MODES
    from .systems import HELP

    evaluate = sub.add_parser(
        "evaluate", formatter_class=argparse.RawDescriptionHelpFormatter,
        help="score a model or baseline on a split; writes results.json, results.md, results.png",
        description="Encode the queries and clips of a split in batches, compute the similarity on the device, "
                    "score it with the ReasonAudio metric and write OUT/results.{json,md,png}.",
        epilog=f"models (--model KIND:LOCATION[?option=value&...]):\n{HELP}")
    evaluate.add_argument("--data", required=True, help="a generated folder or a Hub dataset id")
    evaluate.add_argument("--model", required=True, help="what to score (see below)")
    evaluate.add_argument("--mode", choices=MODES, default="group",
                          help="group: each query ranks its own candidates (the headline); corpus: the whole corpus "
                               "(default: %(default)s)")
    evaluate.add_argument("--split", default="test", help="which split of --data (default: %(default)s)")
    evaluate.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, ... (default: %(default)s)")
    evaluate.add_argument("--batch-size", type=int, default=32,
                          help="texts or clips per encoder call, at least 1 (default: %(default)s)")
    evaluate.add_argument("--bootstrap", type=int, default=1000,
                          help="resamples for the 95 %% intervals; 0: none (default: %(default)s)")
    evaluate.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default: %(default)s)")
    evaluate.add_argument("--out", required=True,
                          help="folder for results.json, results.md, results.png (not inside --data)")
    evaluate.add_argument("--overwrite", action="store_true", help="replace the results already in --out")
    evaluate.add_argument("--quiet", action="store_true", help="no progress bars")

    baselines = sub.add_parser(
        "baselines", help="the reference points: random, oracle, bag-of-sounds, shortcut-audit, two-stage",
        description="Score the diagnostic baselines on a split and print one table (group accuracy per task, with "
                    "intervals). oracle must reach 100 %; shortcut-audit's interval must contain the random "
                    "baseline, or the generator has a shortcut.")
    baselines.add_argument("--data", required=True, help="a generated folder or a Hub dataset id (its test split)")
    baselines.add_argument("--train", help="folder with the train split for shortcut-audit (default: --data)")
    baselines.add_argument("--text-model", default="all-MiniLM-L6-v2",
                           help="sentence-transformers model of the two-stage baseline (default: %(default)s)")
    baselines.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, ... (default: %(default)s)")
    baselines.add_argument("--out", help="also write each system's results and baselines.md here (not inside --data; "
                                         "default: print only)")
    baselines.add_argument("--overwrite", action="store_true", help="replace the baselines already in --out")
    baselines.add_argument("--quiet", action="store_true", help="no progress bars")

    demo = sub.add_parser("demo", help="build a small corpus from the built-in bank and print the baseline table")
    demo.add_argument("--out", default="demo", help="folder for the corpus (default: %(default)s)")
    demo.add_argument("--queries-per-task", type=int, default=20,
                      help="queries of each task in the test and train splits (default: %(default)s)")
    demo.add_argument("--quiet", action="store_true", help="no progress bars")
    return {"evaluate": run_evaluate, "baselines": run_baselines, "demo": run_demo}


def _quiet(args) -> None:
    if args.quiet:
        import datasets

        datasets.disable_progress_bars()


def run_evaluate(args) -> int:
    from .report import check_out, write_results
    from .runner import check_settings, run
    from .systems import EvalData, open_system

    check_settings(args.mode, args.device, args.batch_size, args.bootstrap, flags=True)
    check_out(args.out, args.data, "results.json", args.overwrite)
    _quiet(args)
    data = EvalData.load(args.data, args.split)
    system = open_system(args.model, device=args.device)
    result = run(system, data, args.mode, args.device, args.batch_size, args.bootstrap, args.seed, not args.quiet)
    parameters = {key: getattr(args, key) for key in ("mode", "split", "device", "batch_size", "bootstrap", "seed")}
    out = write_results(args.out, result, system.name, args.data, parameters)
    print((out / "results.md").read_text())
    return 0


def _audit_verdict(result: dict) -> str:
    low, high = result["intervals"]["average"]["accuracy"]
    chance = result["random"]["average"]["accuracy"]
    if low <= chance <= high:
        return f"shortcut-audit: its interval [{100 * low:.1f}, {100 * high:.1f}] contains {100 * chance:.1f} % (no shortcut found)"
    return (f"shortcut-audit: its interval [{100 * low:.1f}, {100 * high:.1f}] misses {100 * chance:.1f} %: clip "
            "acoustics alone find the positive; the generator has a shortcut to fix")


def baselines_table(data_path: str, train: str | None, text_model: str, device: str, out: str | None,
                    progress: bool) -> str:
    from .report import baseline_table, write_results
    from .runner import run
    from .systems import EvalData, open_system

    data = EvalData.load(data_path, "test")
    results, notes = {}, []
    for spec in BASELINES:
        spec = spec.format(text_model=text_model)
        if spec == "shortcut-audit" and train:
            spec = f"shortcut-audit:?train={train}"
        try:
            system = open_system(spec, device=device)
        except (ImportError, ValueError) as error:  # e.g. no text model offline: the other rows still count
            notes.append(f"{spec} skipped: {error}")
            continue
        result = run(system, data, "group", device, progress=progress)
        results[system.name] = result
        if out:
            write_results(Path(out) / system.name.split(":")[0], result, system.name, data_path,
                          {"mode": "group", "split": "test", "device": device, "bootstrap": 1000, "seed": 0})
        if system.name.startswith("shortcut-audit"):
            notes.append(_audit_verdict(result))
    table = baseline_table(results, "group") + "\n" + "\n".join(notes) + "\n"
    if out:
        (Path(out) / "baselines.md").write_text(table)
        (Path(out) / "baselines.json").write_text(json.dumps(results, indent=2) + "\n")
    return table


def run_baselines(args) -> int:
    from .report import check_out
    from .runner import check_device

    check_device(args.device)
    if args.out:
        check_out(args.out, args.data, "baselines.json", args.overwrite)
    _quiet(args)
    print(baselines_table(args.data, args.train, args.text_model, args.device, args.out, not args.quiet))
    return 0


def run_demo(args) -> int:
    _quiet(args)
    from generation.cli import print_summary
    from generation.pipeline import GenerateConfig, generate

    for split in ("test", "train"):  # the train split feeds the shortcut audit; test first, so train avoids its texts
        record = generate(GenerateConfig(out=args.out, split=split, queries_per_task=args.queries_per_task,
                                         sample_rate=16000, progress=not args.quiet))
        print_summary(record, split, args.out)
    print(f"\nbaselines on {args.out} (test): group accuracy (%) per task, 95 % intervals; random = 10 %\n")
    print(baselines_table(args.out, None, "all-MiniLM-L6-v2", "cpu", None, not args.quiet))
    return 0
