"""The simple mistakes a newcomer makes, each refused in a fresh process: the wall time of the refusal
(target: under 2 s, the arguments checked before torch or any data load), its exit status (2) and its
one line. It builds a tiny folder like the demo's (a test and a train split, no validation split) first.

    python bench/refusal_bench.py [--repeats 3]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 2.0


def refusals(folder: str, out: str) -> dict[str, list[str]]:
    """What each case runs (`reasonaudio` arguments)."""
    return {
        "train on a folder without a validation split": ["train", "--data", folder, "--out", f"{out}/model"],
        "generate into a folder of another corpus": ["generate", "--out", folder, "--split", "test",
                                                     "--queries-per-task", "5", "--sample-rate", "16000"],
        "evaluate a missing folder": ["evaluate", "--data", f"{out}/nosuchdir", "--model", "oracle", "--out", f"{out}/r"],
        "evaluate a Hub model offline": ["evaluate", "--data", folder, "--model", "clap:laion/clap-htsat-unfused",
                                         "--out", f"{out}/r"],
        "evaluate an unknown model": ["evaluate", "--data", folder, "--model", "nosuch", "--out", f"{out}/r"],
        "generate at 10 MHz": ["generate", "--out", f"{out}/fast", "--sample-rate", "10000000"],
        "evaluate a Hub dataset id, the Hub unreachable": ["evaluate", "--data", "someorg/build", "--model", "oracle",
                                                           "--out", f"{out}/r"],
    }


# Cases run online, against a Hub endpoint where nothing listens (every other case runs with HF_HUB_OFFLINE=1).
ONLINE = {"evaluate a Hub dataset id, the Hub unreachable": {"HF_ENDPOINT": "http://127.0.0.1:9"}}


def refused(arguments: list[str], repeats: int, environment: dict) -> tuple[float, int, str]:
    """The median wall time of `repeats` fresh processes, the exit status and the last line they print."""
    times = []
    for _ in range(repeats):
        begun = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "reasonaudio", *arguments], capture_output=True, text=True,
                              env=environment)
        times.append(time.perf_counter() - begun)
    lines = (done.stderr or done.stdout).strip().splitlines() or [""]
    return statistics.median(times), done.returncode, lines[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="runs per case, the median kept (default: 3)")
    args = parser.parse_args()
    from reasonaudio.generation.pipeline import GenerateConfig, generate

    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    with tempfile.TemporaryDirectory() as scratch:
        folder = f"{scratch}/demo"
        for split in ("test", "train"):
            generate(GenerateConfig(out=folder, split=split, queries_per_task=2, sample_rate=16000, progress=False))
        load = os.getloadavg()[0]
        print(f"load average {load:.1f} on {os.cpu_count()} cores; target {TARGET} s\n\n"
              "| mistake | seconds | exit | the line |\n|---|---:|---:|---|")
        for name, arguments in refusals(folder, scratch).items():
            online = {k: v for k, v in environment.items() if k != "HF_HUB_OFFLINE"} | ONLINE.get(name, {})
            took, status, line = refused(arguments, args.repeats, online if name in ONLINE else environment)
            print(f"| {name} | {took:.2f}{'' if took < TARGET else ' MISSED'} | {status} | "
                  f"{line.replace(scratch, '…').replace('|', '/')[:160]} |")


if __name__ == "__main__":
    main()
