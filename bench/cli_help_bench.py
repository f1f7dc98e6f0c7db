"""`reasonaudio --help` and every subcommand's `--help`: wall time of a fresh process, against the 0.5 s target
and against the anchor of a bare `python -c pass` measured in the same run (like with like).

    python bench/cli_help_bench.py [--repeats 5]
"""
import argparse
import statistics
import subprocess
import sys
import time

TARGET = 0.5


def seconds(command: list[str], repeats: int) -> float:
    """The median wall time of `repeats` runs of a fresh process."""
    times = []
    for _ in range(repeats):
        begun = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - begun)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5, help="runs per command, the median kept (default: 5)")
    args = parser.parse_args()
    from reasonaudio.cli import build_parser

    commands = [[]] + [[name] for name in build_parser()[1]]
    anchor = seconds([sys.executable, "-c", "pass"], args.repeats)
    print(f"anchor: python -c pass {anchor:.3f} s\n\n| command | seconds | x anchor | target {TARGET} s |\n|---|---:|---:|---|")
    for command in commands:
        took = seconds([sys.executable, "-m", "reasonaudio", *command, "--help"], args.repeats)
        print(f"| reasonaudio {' '.join(command + ['--help'])} | {took:.3f} | {took / anchor:.1f} | "
              f"{'met' if took < TARGET else 'MISSED'} |")


if __name__ == "__main__":
    main()
