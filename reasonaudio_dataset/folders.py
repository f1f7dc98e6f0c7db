"""Where a run's results may go: never into a build's folder, whose files are the dataset (a module of its own,
light to import, so that the CLI's parser and `train` check it without loading `datasets`)."""
from __future__ import annotations

from pathlib import Path


def check_results_folder(out: str | Path, data: str) -> None:
    """Refuse, before any work, a results folder (`evaluate`'s, `train`'s --out) inside the corpus folder `data`
    (its files would join the dataset, which validate and publish then trip over), a filesystem root or the
    home folder, or a file."""
    out = Path(out)
    if Path(data).is_dir() and out.resolve().is_relative_to(Path(data).resolve()):
        raise ValueError(f"--out {out} is inside the corpus folder {data}: results there would join the dataset's "
                         "files (validate and publish would trip over them); choose a folder outside it")
    if out.resolve() in (Path(out.resolve().anchor), Path.home().resolve()):
        raise ValueError(f"--out {out} is {'the home folder' if out.resolve() == Path.home().resolve() else 'a filesystem root'}: "
                         "results go into a folder of their own, e.g. --out runs/mine")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder")
