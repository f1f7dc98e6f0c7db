"""What `reasonaudio evaluate` costs beyond reading the audio, as a ratio against decoding its clips with soundfile
alone, measured in the same run (rounds interleaved), and its peak memory.

    python bench/evaluate_overhead.py --data DIR [--rounds 3]

DIR is a build (the default split: `reasonaudio generate --out DIR`). The anchor reads every clip of the corpus
from its Parquet files and decodes it with soundfile, nothing else. The run is the evaluate command, in a fresh
process, with a trivial encoder (`trivial` below: a constant text vector, two samples of each clip as its
vector, the audio as stored) and no embedding cache: what is left is evaluate's own reading, decoding,
batching, scoring and writing. Targets: at most 1.3x the decode, and under 1.5 GB of memory. Two peaks are
printed: the resident size (`ru_maxrss`, which counts the pages of the memory-mapped Arrow files read, up to the
corpus's size) and the anonymous resident memory alone (sampled every 50 ms: what the process holds itself).
"""
from __future__ import annotations

import argparse
import io
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


class Trivial:
    """An encoder that costs nearly nothing: what remains of a run is evaluate's own."""

    sampling_rate = None            # the audio as stored: no resampling

    def encode_text(self, texts):
        return np.ones((len(texts), 2))

    def encode_audio(self, arrays):
        return np.array([[1.0 + float(a[0]), float(a[len(a) // 2])] for a in arrays])     # two samples a clip


def trivial() -> Trivial:
    return Trivial()


def decode_all(data: Path) -> int:
    """Every clip of the corpus read from Parquet and decoded with soundfile; returns the clips."""
    import pyarrow.parquet as pq
    import soundfile

    clips = 0
    for path in sorted((data / "corpus").glob("test-*.parquet")):
        for batch in pq.ParquetFile(path).iter_batches(columns=["audio"], batch_size=100):
            for cell in batch.column(0).to_pylist():
                soundfile.read(io.BytesIO(cell["bytes"]), dtype="float32")
                clips += 1
    return clips


# run in the child: evaluate, with a thread sampling the anonymous resident memory (the heap: what the process
# holds, not the pages of the memory-mapped Arrow files it reads, which the kernel reclaims at will)
CHILD = """
import re, resource, sys, threading, time
from reasonaudio.cli import main
peak = [0]
def sample():
    while True:
        found = re.search(r"RssAnon:\\s+(\\d+)", open("/proc/self/status").read())
        peak[0] = max(peak[0], int(found.group(1)) if found else 0)
        time.sleep(0.05)
threading.Thread(target=sample, daemon=True).start()
status = main(["evaluate", "--data", sys.argv[1], "--model", "python:evaluate_overhead:trivial", "--out", sys.argv[2],
               "--no-cache", "--quiet", "--overwrite"])
print("PEAK", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, peak[0], file=sys.stderr)
sys.exit(status)
"""


def evaluate_once(data: Path, out: Path) -> tuple[float, float, float]:
    """(seconds, peak resident MB, peak anonymous resident MB) of one evaluate run in a fresh process."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, str(data), str(out)], cwd=HERE, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"evaluate failed: {done.stderr[-2000:]}")
    peak = next(line.split()[1:] for line in done.stderr.splitlines() if line.startswith("PEAK"))
    return seconds, int(peak[0]) / 1024, int(peak[1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    data = args.data.resolve()
    out = Path(tempfile.mkdtemp(prefix="evaluate-overhead-"))
    decodes, runs, peaks, heaps = [], [], [], []
    for _ in range(args.rounds):
        start = time.perf_counter()
        clips = decode_all(data)
        decodes.append(time.perf_counter() - start)
        seconds, peak, heap = evaluate_once(data, out / "run")
        runs.append(seconds)
        peaks.append(peak)
        heaps.append(heap)
    ratios = [r / d for r, d in zip(runs, decodes)]
    print(f"{clips} clips of {data}; {args.rounds} rounds, interleaved; resident peak of this process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB\n")
    print("| soundfile decode (s) | evaluate, trivial encoder (s) | ratio, median [min, max] | evaluate's peak resident "
          "(MB) | of it, its heap (MB) |")
    print("|---:|---:|---:|---:|---:|")
    print(f"| {statistics.median(decodes):.1f} | {statistics.median(runs):.1f} | {statistics.median(ratios):.2f} "
          f"[{min(ratios):.2f}, {max(ratios):.2f}] | {max(peaks):.0f} | {max(heaps):.0f} |")


if __name__ == "__main__":
    main()
