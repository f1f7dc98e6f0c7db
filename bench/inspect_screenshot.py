"""The screenshot of the inspect page in docs (docs/inspect.png), made from scratch.

    python bench/inspect_screenshot.py [--workdir DIR] [--out docs/inspect.png] [--fragment "#task=negation"]

Builds the demo's test split (`reasonaudio demo`: the built-in bank, 20 queries a task, 16 kHz), scores the
baseline that hears perfectly without reasoning on it (`reasonaudio evaluate`), as the demo does, writes its page (`reasonaudio inspect`) and photographs it in headless
Chromium, filtered by the page address's fragment (default: the negation queries, where hearing without reasoning
fails). About a minute on 2 cores.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", help="where the build and the run go (default: a temporary folder)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "inspect.png"))
    parser.add_argument("--fragment", default="#task=negation&outcome=wrong")
    parser.add_argument("--size", default="1280,1100", help="the window, WIDTH,HEIGHT in pixels")
    args = parser.parse_args()
    browser = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome")
                    if shutil.which(name)), None)
    if browser is None:
        sys.exit("no Chromium found (apt-get install chromium)")

    from reasonaudio.cli import main as command
    from reasonaudio.evaluation.systems import BASELINES

    hearing = next(found.name for found in BASELINES.values() if found.provides == "recognition")

    work = Path(args.workdir or tempfile.mkdtemp(prefix="inspect-screenshot-")).resolve()
    out = Path(args.out).resolve()
    work.mkdir(parents=True, exist_ok=True)
    os.chdir(work)                      # the page names the build as a user's run does: `demo`
    build, run = Path("demo"), Path("runs") / hearing
    if not (build / "README.md").is_file():
        assert command(["generate", "--out", str(build), "--queries-per-task", "20", "--sample-rate", "16000",
                        "--quiet"]) == 0
    assert command(["evaluate", "--data", str(build), "--model", hearing, "--out", str(run), "--quiet",
                    "--overwrite"]) == 0
    assert command(["inspect", str(run)]) == 0
    page = run / "inspect.html"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--window-size={args.size}", f"--screenshot={out}",
                    page.resolve().as_uri() + args.fragment], check=True, capture_output=True)
    print(f"wrote {out} (the page of {work / run}, {args.fragment})")


if __name__ == "__main__":
    main()
