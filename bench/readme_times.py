"""Wall time of README's long commands, as a newcomer runs them: the demo, then the command-line quickstart,
each command as README writes it (full size), in a fresh folder, one after another; with --tests, README's test
command and its fast tier instead. README's times come from here, with the machine's load beside each: a time
measured on an idle machine grows two- or threefold beside other work on 2 cores.

    python bench/readme_times.py [--workdir DIR] [--skip-demo] [--only WORD]
    python bench/readme_times.py --tests

The quickstart's `python:my_models:make_encoder` is README's own encoder block, saved as my_models.py. `--only`
runs the commands holding WORD alone (after the ones they need: give a workdir where those were run). Prints a
Markdown table: command, seconds, exit status, the 1-minute load average before the command (the other work on
the machine) and after it (with the command's own), and its last line of output. Takes about half an hour on a
2-core machine (--tests: 20 min).
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_readme import block_with, commands     # noqa: E402  README's blocks, as its tests read them


def timed(words: list[str], folder: Path) -> tuple[float, int, str]:
    """The command's wall time, exit status and last line of output (pytest's counts)."""
    started = time.perf_counter()
    done = subprocess.run(words, cwd=folder, capture_output=True, text=True)
    if done.returncode:
        print(f"  {shlex.join(words)} failed: {(done.stdout + done.stderr).strip().splitlines()[-30:]}", file=sys.stderr)
    return time.perf_counter() - started, done.returncode, (done.stdout.strip().splitlines() or [""])[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", help="folder to run in (default: a new temporary one, removed after)")
    parser.add_argument("--skip-demo", action="store_true", help="leave out `reasonaudio demo`")
    parser.add_argument("--only", help="time only the commands holding this word (`--only demo`: the demo alone)")
    parser.add_argument("--tests", action="store_true",
                        help="time README's test command (pytest -q) and its fast tier (-m 'not slow') in the checkout")
    args = parser.parse_args()
    if args.tests:
        return table([[sys.executable, "-m", "pytest", "-q", *tier] for tier in
                      ([], ["-m", "not slow"])], ROOT)
    binary = Path(sys.executable).parent / "reasonaudio"
    work = Path(args.workdir or tempfile.mkdtemp(prefix="readme-times-"))
    work.mkdir(parents=True, exist_ok=True)
    (work / "my_models.py").write_text(block_with("python", "class MyEncoder"))
    lines = [words for words in commands(block_with("bash", "reasonaudio compare")) if words[0] == "reasonaudio"]
    if not args.skip_demo:
        lines.insert(0, ["reasonaudio", "demo"])
    if args.only:
        lines = [words for words in lines if args.only in words]
    os.environ.setdefault("TQDM_DISABLE", "1")
    return table([[str(binary), *words[1:]] for words in lines], work)


def table(lines: list[list[str]], folder: Path) -> int:
    """Run each command in `folder`, one after another, printing its row as it ends; 1 if any failed."""
    print(f"in {folder}, {os.cpu_count()} cores\n\n| command | seconds | exit | load before | load after | last line |\n"
          "|---|---:|---:|---:|---:|---|", flush=True)
    failed = 0
    for words in lines:
        before = os.getloadavg()[0]
        seconds, status, last = timed(words, folder)
        failed += status != 0
        shown = ["reasonaudio" if Path(words[0]).name == "reasonaudio" else "python", *words[1:]]
        print(f"| `{shlex.join(shown)}` | {seconds:.0f} | {status} | {before:.1f} | {os.getloadavg()[0]:.1f} | "
              f"{last[:100].replace('|', '/')} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
