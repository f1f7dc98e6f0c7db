"""The reference builds whose plans define a benchmark version (`reasonaudio.versions`).

Each is planned (no audio) from sources named relative to a working folder, so that its fingerprint, which holds
the source as written, is the same in every clone: the built-in bank with the default settings, the paper's
profile, the ESC-50 subset (fold 4, four clips a class; needs the recordings), a natural stand-in with known
truth, and the opt-in count task from the built-in bank and from the ESC-50 subset. `bench/fingerprints.py` prints
them; the tests hold them to `REFERENCE_FINGERPRINTS`."""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

from .config import GenerateConfig

RATE = 16000
NATURAL_SEED = 2
COUNT = {"tasks": ("count",)}
STANDIN_RECORDINGS = 300
ESC50_SOURCE = "esc50:ESC-50?as_split=test"       # ESC-50 folder named ESC-50 in the working folder
NATURAL_SOURCE = "strong:st2?labels=audioset.tsv&ontology=ontology.json&as_split=test"


def reference_configs(workdir: str | Path) -> dict[str, GenerateConfig]:
    """The reference builds' settings, sources relative to `workdir`.

    Args:
        workdir: the folder the sources are read from (`ESC-50` and `st2` inside it, see `prepare`).

    Returns:
        build name -> its `GenerateConfig` (test split, 16 kHz, no progress bars).
    """
    out = str(Path(workdir) / "unused-out")       # planning only: nothing is written there
    common = {"out": out, "sample_rate": RATE, "progress": False}
    return {"synthetic": GenerateConfig(**common),
            "paper": GenerateConfig.from_profile("paper", **common),
            "esc50-subset": GenerateConfig(source=ESC50_SOURCE, **common),
            "natural-standin": GenerateConfig(source=NATURAL_SOURCE, seed=NATURAL_SEED, **common),
            "count-synthetic": GenerateConfig(seed=4, **COUNT, **common),
            "count-esc50": GenerateConfig(source=ESC50_SOURCE, seed=2, **COUNT, **common)}


def prepare(workdir: str | Path, name: str, esc50: str | Path | None = None) -> bool:
    """Lay out in `workdir` what build `name` reads: a link `ESC-50` to the ESC-50 subset, or the stand-in `st2`.

    Returns:
        False where the build's recordings are not to be had (an ESC-50 build without `esc50`).
    """
    workdir = Path(workdir)
    if reference_configs(workdir)[name].source == ESC50_SOURCE:
        if esc50 is None:
            return False
        link = workdir / "ESC-50"
        if not link.exists():
            link.symlink_to(Path(esc50).resolve(), target_is_directory=True)
    if name == "natural-standin" and not (workdir / "st2").exists():
        from .standin import write_standin

        write_standin(workdir / "st2", recordings=STANDIN_RECORDINGS, seed=NATURAL_SEED)
    return True


@contextmanager
def working_in(folder: str | Path):
    """Run the block with `folder` as the working directory (the relative sources resolve there)."""
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def reference_fingerprint(workdir: str | Path, name: str, esc50: str | Path | None = None) -> str | None:
    """Build `name`'s plan fingerprint, planned in `workdir` (None: its recordings are not to be had).

    Args:
        workdir: an empty folder of the caller's to plan in.
        name: a key of `reference_configs`.
        esc50: the ESC-50 subset's folder (audio/ and meta/esc50.csv), for "esc50-subset".

    Returns:
        The 16 hex digits of the plan's fingerprint, or None.
    """
    from .pipeline import plan_split

    if not prepare(workdir, name, esc50):
        return None
    with working_in(workdir):
        return plan_split(reference_configs(".")[name], frozenset()).fingerprint
