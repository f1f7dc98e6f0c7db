"""The reference builds' plan fingerprints against those of this benchmark version (`reasonaudio.versions`).

A change that moves one of them changes the benchmark: record the new fingerprints under a new benchmark version
and say what changed in CHANGELOG.md. Planning only, no audio: about 45 s on a 2-core machine, the stand-in's
recordings included.

    python bench/fingerprints.py [--esc50 PATH_TO_ESC50_SUBSET]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time

from reasonaudio.generation.references import reference_configs, reference_fingerprint
from reasonaudio.versions import BENCHMARK_VERSION, REFERENCE_FINGERPRINTS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--esc50", help="the ESC-50 subset (fold 4, four clips a class); without it that build is "
                                        "left out")
    args = parser.parse_args()
    print(f"benchmark version {BENCHMARK_VERSION}\n\n| build | fingerprint | recorded | same | seconds |\n|---|---|---|---|---:|")
    changed = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in reference_configs(workdir):
            started = time.perf_counter()
            found = reference_fingerprint(workdir, name, args.esc50)
            recorded = REFERENCE_FINGERPRINTS[name]
            same = "not planned (no --esc50)" if found is None else "yes" if found == recorded else "**no**"
            changed += [name] if found not in (None, recorded) else []
            print(f"| {name} | {found or '-'} | {recorded} | {same} | {time.perf_counter() - started:.1f} |", flush=True)
    if changed:
        print(f"\nchanged: {', '.join(changed)}: a new benchmark version (reasonaudio/versions.py, CHANGELOG.md)")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
