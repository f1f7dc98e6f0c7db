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


COMPLEX_MODEL = """import numpy as np

class Complex:
    sampling_rate = 16000

    def encode_text(self, texts):
        return np.ones((len(texts), 8)) * (1 + 1j)

    def encode_audio(self, clips):
        return np.ones((len(clips), 8))

def make():
    return Complex()
"""


def bad_inputs(out: Path, build: Path) -> None:
    """The files the hostile cases read: manifests, a folder source, a build folder with links, a file and a model
    of complex vectors (for the ids of `build`)."""
    import numpy as np
    import pyarrow.parquet as pq
    import soundfile

    ids = {table: [i for path in sorted((build / table).glob("test-*.parquet"))
                   for i in pq.read_table(path, columns=[column])[column].to_pylist()]
           for table, column in (("queries", "query_id"), ("corpus", "clip_id"))}
    np.savez(out / "complex.npz", query_id=np.asarray(ids["queries"]), clip_id=np.asarray(ids["corpus"]),
             query_embedding=np.ones((len(ids["queries"]), 8)) * 1j, clip_embedding=np.ones((len(ids["corpus"]), 8)))
    (out / "complex_model.py").write_text(COMPLEX_MODEL)

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
        "evaluate a file of complex vectors": ["evaluate", "--data", folder, "--model", f"embeddings:{out}/complex.npz",
                                               "--out", f"{out}/r"],
        "evaluate a model returning complex vectors": ["evaluate", "--data", folder, "--model",
                                                       "python:complex_model:make", "--out", f"{out}/r"],
    }


# Cases whose bad input is known only once the vectors are read (a file's dtype, a model's output): after torch and
# datasets load. They are held to TARGET beyond the cost of those imports, measured in the same run (FLOOR).
AFTER_LOADING = {"evaluate a file of complex vectors", "evaluate a model returning complex vectors"}
FLOOR = "import torch, datasets, reasonaudio.evaluation.runner, reasonaudio.evaluation.systems"

# Cases run online, against a Hub endpoint where nothing listens (every other case runs with HF_HUB_OFFLINE=1).
ONLINE = {"evaluate a Hub dataset id, the Hub unreachable": {"HF_ENDPOINT": "http://127.0.0.1:9"}}


def refused(arguments: list[str], repeats: int, environment: dict, where: str) -> tuple[float, int, str]:
    """The median wall time of `repeats` fresh processes, the exit status and the last line they print."""
    times = []
    for _ in range(repeats):
        begun = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "reasonaudio", *arguments], capture_output=True, text=True,
                              env=environment, cwd=where)
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
        bad_inputs(Path(scratch), Path(folder))
        load = os.getloadavg()[0]
        floor = statistics.median(imported(environment) for _ in range(args.repeats))
        print(f"load average {load:.1f} on {os.cpu_count()} cores; target {TARGET} s (cases read after loading: "
              f"{TARGET} s beyond `{FLOOR}`, {floor:.2f} s in this run)\n\n"
              "| mistake | seconds | exit | the line |\n|---|---:|---:|---|")
        for name, arguments in refusals(folder, scratch).items():
            online = {k: v for k, v in environment.items() if k != "HF_HUB_OFFLINE"} | ONLINE.get(name, {})
            took, status, line = refused(arguments, args.repeats, online if name in ONLINE else environment, scratch)
            beyond = took - floor if name in AFTER_LOADING else took
            shown = f"{took:.2f} (floor + {beyond:.2f})" if name in AFTER_LOADING else f"{took:.2f}"
            print(f"| {name} | {shown}{'' if beyond < TARGET else ' MISSED'} | {status} | "
                  f"{line.replace(scratch, '…').replace('|', '/')[:160]} |")


def imported(environment: dict) -> float:
    """The wall time of a fresh process importing what evaluate needs before it reads any vectors."""
    begun = time.perf_counter()
    subprocess.run([sys.executable, "-c", FLOOR], env=environment, check=True)
    return time.perf_counter() - begun


if __name__ == "__main__":
    main()
