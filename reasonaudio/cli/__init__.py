"""The `reasonaudio` command. Each stage registers its own subcommands here, in data-flow order:
generation (generate, merge, validate, publish, standin), training (train), evaluation (evaluate, baselines),
the metric (publish-metric); `demo` runs generation then evaluation. `python -m reasonaudio` is the same command
(what `torchrun -m reasonaudio evaluate ...` launches)."""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from reasonaudio.evaluation import cli as evaluation_cli
from reasonaudio.evaluation.cli import BASELINE_FILES, MAIN, baselines_table, quiet, verdicts
from reasonaudio.evaluation.report import check_out, short_table
from reasonaudio.generation import cli as generation_cli
from reasonaudio.generation.cli import print_summary
from reasonaudio.versions import BENCHMARK_VERSION, __version__
from reasonaudio_metric import space
from reasonaudio.training import cli as training_cli

EXAMPLES = """examples:
  reasonaudio demo                                                  # demo corpus and the baseline table
  reasonaudio generate --out demo --queries-per-task 20            # small demo from the built-in bank
  reasonaudio generate --source esc50:/data/ESC-50 --out reasonaudio --workers 8
  reasonaudio generate --source esc50:/data/ESC-50 --out robust --acoustics all   # + corpus_noisy, ...
  reasonaudio generate --source esc50:/data/ESC-50 --out part3 --num-shards 10 --shard-index 3
  reasonaudio merge reasonaudio part0 part1 ... part9
  reasonaudio validate reasonaudio
  reasonaudio publish reasonaudio --repo-id my-org/reasonaudio --dry-run
  reasonaudio standin standin                                       # a strong-label stand-in: then --source strong:standin?...
  reasonaudio evaluate --data reasonaudio --model clap:laion/clap-htsat-unfused --device cuda --out runs/clap
  reasonaudio evaluate --data reasonaudio --model python:my_models:make_encoder --out runs/mine
  reasonaudio evaluate --data reasonaudio --model embeddings:vectors.npz --out runs/precomputed
  torchrun --nproc-per-node 4 -m reasonaudio evaluate --data reasonaudio --model clap:... --device cuda --out runs/clap
  reasonaudio baselines --data reasonaudio --out runs/baselines
  reasonaudio train --data reasonaudio --out checkpoints/small   # needs its train and validation splits; then --model trained:checkpoints/small
  reasonaudio publish-metric --repo-id my-org/reasonaudio --dry-run --out space/reasonaudio
"""


VERSION_LINE = f"reasonaudio {__version__} (benchmark version {BENCHMARK_VERSION})"
VALIDATION_SOUNDS = 100    # the built-in bank has 104 recordings in its validation split


def _demo_parser(sub) -> None:
    demo = sub.add_parser("demo", help="build a small corpus from the built-in bank and print the baseline table",
                          description="Generate the test, validation and train splits of a small corpus from the "
                                      "built-in synthetic bank (16 kHz), then score every baseline on its test split. "
                                      "The folder then takes every command: evaluate, train (on its train and "
                                      "validation splits), compare.")
    demo.add_argument("--out", default="demo", help="folder for the corpus (default: %(default)s)")
    demo.add_argument("--runs", help="folder for the baselines' tables (Markdown, CSV), plot and each system's results; "
                                     "a demo run again replaces them (default: OUT-baselines)")
    demo.add_argument("--queries-per-task", type=int, default=20,
                      help="queries of each task in the test and train splits; the validation split has a "
                           "quarter as many (default: %(default)s)")
    demo.add_argument("--quiet", action="store_true", help="no progress bars (default: off)")


def _demo_configs(args) -> dict:
    """The demo's splits, each checked before any work: test, a small validation split (for `train`), and
    train (it also feeds the learned audits); each split avoids the texts of those before it."""
    from reasonaudio.generation.config import GenerateConfig

    sizes = {"test": args.queries_per_task, "validation": max(1, args.queries_per_task // 4),
             "train": args.queries_per_task}
    sounds = {"validation": VALIDATION_SOUNDS}    # the built-in bank's validation share: all of it, said quietly
    configs = {split: GenerateConfig(out=args.out, split=split, queries_per_task=size, sample_rate=16000,
                                     progress=not args.quiet, atomic_sounds=sounds.get(split, GenerateConfig.atomic_sounds))
               for split, size in sizes.items()}
    for config in configs.values():
        config.check_same_corpus()
    return configs


def _run_demo(args) -> int:
    from reasonaudio.generation.folder import BuildFolder

    configs = _demo_configs(args)
    BuildFolder(args.out).check()                               # an empty --out, a file: before the runs folder
    runs = args.runs or f"{Path(args.out)}-baselines"
    check_out(runs, args.out, BASELINE_FILES, overwrite=True)    # not inside the corpus: before any work
    if not args.quiet:
        print(f"demo: the test, validation and train splits of {args.out} from the built-in bank (16 kHz), then "
              "every baseline on the test split", file=sys.stderr, flush=True)

    from reasonaudio.generation.pipeline import generate   # datasets and pyarrow, imported on use: --help stays fast

    quiet(args)
    records = {}
    for split, config in configs.items():
        records[split] = generate(config)
        print_summary(records[split], split, args.out)
    _, results, _ = baselines_table(args.out, None, "all-MiniLM-L6-v2", "cpu", runs, not args.quiet)
    from reasonaudio.evaluation.inspect_page import write_page
    from reasonaudio.evaluation.systems import BASELINES

    # the page of the baseline that hears perfectly and cannot reason: what reasoning alone gets right
    hearing = next(found.name for found in BASELINES.values() if found.provides == "recognition")
    page = write_page(Path(runs) / hearing)
    print(demo_summary(args.out, records["test"], results, runs, (hearing, page)))
    return 0


def demo_summary(out: str, record: dict, results: dict, runs: str, page: tuple[str, Path] | None = None) -> str:
    """What the demo built, the main systems per task in one short table, where the full tables are and (`page`:
    the system and its page) the inspect page it wrote."""
    counts = record["counts"]
    verdict = [f"  audit  {line}" for line in verdicts(results)]
    return "\n".join([
        f"\nbuilt  {out}: test {counts['queries']} queries over {counts['clips']} clips (and validation and train "
        "splits), 16 kHz, from the built-in bank",
        f"\ngroup accuracy (%) on {out} (test); random = 10 %, the oracle must reach 100 %, and no system that cannot "
        "reason should beat random on negation:\n",
        short_table(results, "group", MAIN).rstrip(),
        "",
        *verdict,
        f"  wrote  {runs}/baselines.md (every system per task and per shape, with 95 % intervals), baselines.csv, "
        f"baselines.png, and each system's results in {runs}/SYSTEM/",
        "  note   a few queries a cell are noisy: the published size (200 queries a task) gives tight intervals",
        *([f"  look   {page[1]}: what {page[0]} gets wrong, query by query (open it in a browser; "
           "`reasonaudio inspect RUN` makes one for any run)"] if page else []),
        f"  next   reasonaudio evaluate --data {out} --model python:my_module:make_encoder --out runs/mine",
        f"         reasonaudio train --data {out} --out checkpoints/demo --epochs 1; docs/concepts.md explains the terms",
    ]) + "\n"


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a bad argument refused in one line (exit 2) as every other bad input is, instead of the whole
    usage block above the one line that matters; `--help` still shows everything. Subcommands' parsers inherit it."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (`{self.prog} --help` lists the options)\n")


def build_parser() -> tuple[argparse.ArgumentParser, dict]:
    """The parser and each subcommand's runner."""
    parser = OneLineParser(prog="reasonaudio", formatter_class=argparse.RawDescriptionHelpFormatter,
                                     description="ReasonAudio: a benchmark for reasoning in text-to-audio retrieval.",
                                     epilog=EXAMPLES)
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error (default: off)")
    parser.add_argument("--version", action="version", version=VERSION_LINE,
                        help="the package version and the benchmark version that builds made now carry, then exit")
    sub = parser.add_subparsers(dest="command", required=True)
    commands = {**generation_cli.add_commands(sub), **training_cli.add_commands(sub), **evaluation_cli.add_commands(sub),
                **space.add_commands(sub)}
    _demo_parser(sub)
    return parser, {**commands, "demo": _run_demo}


def main(argv=None) -> int:
    parser, commands = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    try:
        return commands[args.command](args)
    except (ValueError, OSError) as error:   # bad input: one line naming the cause (the traceback with --debug)
        if args.debug:
            raise
        _close_progress_bars()
        print(f"reasonaudio {args.command}: {error}", file=sys.stderr)
        return 2


def _close_progress_bars() -> None:
    """Close the progress bars an error left open, so that its message starts a line of its own."""
    from tqdm import tqdm

    for bar in list(getattr(tqdm, "_instances", ())):
        bar.close()


def entry() -> int:
    """The `reasonaudio` command as a process runs it: Ctrl-C (or a kill's SIGINT) is one line, exit 130,
    not a traceback (`main` lets KeyboardInterrupt through, as a killed run's tests need)."""
    try:
        return main()
    except KeyboardInterrupt:
        print("reasonaudio: interrupted; files are written whole or not at all, so running the same command "
              "again resumes generate and train where they stopped", file=sys.stderr)
        return 130
