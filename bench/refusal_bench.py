"""The simple mistakes a newcomer makes, and the hostile inputs found refused, each in a fresh process: the wall
time of the refusal (target: under 1.5 s, the arguments checked before torch or any data load), its exit status
(2) and its last line. It builds a tiny folder like the demo's (a test and a train split, no validation split) and
the bad inputs (`bad_inputs`) first.

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

TARGET = 1.5


def bad_inputs(out: Path) -> None:
    """The files the hostile cases read: manifests, a folder source and a build folder with links."""
    import numpy as np
    import soundfile

    for name in ("a", "b"):
        soundfile.write(out / f"{name}.wav", np.sin(np.arange(24000) / 8 * (1 + (name == "b"))) / 2, 8000)
    (out / "cased.csv").write_text("path,label\na.wav,chainsaw\nb.wav,Chainsaw\n")
    (out / "huge.csv").write_text("path,label,start,end\na.wav,beep,,\nb.wav,hum,0,1e306\n")
    for folder in ("root/dog", "elsewhere/cat"):
        (out / folder).mkdir(parents=True)
    soundfile.write(out / "root/dog/0.wav", soundfile.read(out / "a.wav")[0], 8000)
    soundfile.write(out / "elsewhere/cat/0.wav", soundfile.read(out / "b.wav")[0], 8000)
    (out / "root/cat").symlink_to(out / "elsewhere/cat")
    (out / "linked/.reasonaudio").mkdir(parents=True)
    (out / "linked/.reasonaudio/staging").symlink_to(out / "elsewhere", target_is_directory=True)


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
        "generate with a malformed number": ["generate", "--out", f"{out}/x", "--sample-rate", "16k"],
        "train a mistyped model": ["train", "--data", folder, "--out", f"{out}/model", "--model", "smal"],
        "generate from labels said alike": ["generate", "--source", f"csv:{out}/cased.csv?as_split=test",
                                            "--out", f"{out}/x"],
        "generate from a manifest ending 1e306 s in": ["generate", "--source", f"csv:{out}/huge.csv?as_split=test",
                                                       "--out", f"{out}/x"],
        "generate from a class folder linked outside": ["generate", "--source", f"folder:{out}/root?as_split=test",
                                                        "--out", f"{out}/x"],
        "generate through a linked staging folder": ["generate", "--out", f"{out}/linked", "--queries-per-task", "2"],
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
        bad_inputs(Path(scratch))
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
