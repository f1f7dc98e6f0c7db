"""Three ESC-50 folders from one, sharing no recording: test, validation and train parts, for training and
testing on disjoint recordings of a source that holds one fold (such as the ESC-50 subset).

    python bench/esc50_parts.py ESC50 OUT

Per class, the clips are grouped by the freesound recording they were cut from (`src_file`: two takes of one
recording never straddle two parts) in the order of `meta/esc50.csv`. Of a class's n groups, the first n // 2
go to test, the next one to validation when n >= 3, the rest to train: a class of one recording is in train
only, and every class of test is one train holds too. Each part is a folder in ESC-50's layout
(`meta/esc50.csv`, `audio/` hard links, or copies across file systems). The source options for
`bench/listen_ladder.py` and `bench/train_reference.py` are printed.
"""
from __future__ import annotations

import argparse
import csv
import os
import shutil
import sys
from collections import defaultdict
from pathlib import Path


def parts(rows: list[dict]) -> dict[str, list[dict]]:
    """The rows of each part, in the file's order."""
    groups: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        if row["src_file"] not in groups[row["category"]]:
            groups[row["category"]].append(row["src_file"])
    part_of = {}
    for sources in groups.values():
        tested = len(sources) // 2
        validated = tested + 1 if len(sources) >= 3 else tested
        part_of.update({source: "test" for source in sources[:tested]})
        part_of.update({source: "validation" for source in sources[tested:validated]})
        part_of.update({source: "train" for source in sources[validated:]})
    return {part: [r for r in rows if part_of[r["src_file"]] == part] for part in ("test", "validation", "train")}


def split_source(split: str, test: str, train: str | None, validation: str | None = None) -> str:
    """The source spec of a split: `test` for the test split, else `validation` (validation only) or `train` with
    every recording put in that split (`as_split`); `test` for every split when neither is given."""
    other = (validation if split == "validation" else None) or train
    if split == "test" or not other:
        return test
    return f"{other}{'&' if '?' in other else '?'}as_split={split}"


def split_seed(split: str, train: str | None) -> int:
    """The plan seed of a split: 0, 1, 2 for test, validation, train when they come from other sources (`train`
    given: their plans share no draws), else 0 for each (the source's recordings carry their splits)."""
    return ("test", "validation", "train").index(split) if train else 0


def write_part(source: Path, out: Path, rows: list[dict], columns: list[str]) -> None:
    (out / "meta").mkdir(parents=True, exist_ok=True)
    (out / "audio").mkdir(exist_ok=True)
    with open(out / "meta" / "esc50.csv", "w", newline="") as table:
        writer = csv.DictWriter(table, columns)
        writer.writeheader()
        writer.writerows(rows)
    for row in rows:
        target = out / "audio" / row["filename"]
        if not target.exists():
            try:
                os.link(source / "audio" / row["filename"], target)
            except OSError:
                shutil.copyfile(source / "audio" / row["filename"], target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("esc50", type=Path, help="an ESC-50 folder (audio/*.wav, meta/esc50.csv)")
    parser.add_argument("out", type=Path, help="where the parts go (OUT/test, OUT/validation, OUT/train)")
    args = parser.parse_args()
    meta = args.esc50 / "meta" / "esc50.csv"
    if not meta.is_file():
        sys.exit(f"{args.esc50} is not an ESC-50 folder: {meta} is missing")
    with open(meta, newline="") as table:
        reader = csv.DictReader(table)
        rows, columns = list(reader), list(reader.fieldnames or [])
    for name, kept in parts(rows).items():
        write_part(args.esc50, args.out / name, kept, columns)
        print(f"{name}: {len(kept)} clips of {len({r['category'] for r in kept})} classes in {args.out / name}")
    print(f"--source 'esc50:{args.out / 'test'}?as_split=test' --validation-source 'esc50:{args.out / 'validation'}' "
          f"--train-source 'esc50:{args.out / 'train'}'")


if __name__ == "__main__":
    main()
