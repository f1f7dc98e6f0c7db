"""Splits of one folder share no query text, in whatever order they are generated, and `validate` checks
exactly that (README's recipe: test, then validation, then train, into one folder)."""
import json
import shlex

import pyarrow.parquet as pq
import pytest

from reasonaudio.generation.pipeline import generate
from reasonaudio.generation.validate import validate
from reasonaudio.cli import main
from reasonaudio_dataset.card import RECORDS
from reasonaudio_dataset.schema import data_pattern

from .conftest import small_config

# small enough to render in seconds, large enough that an unguarded validation and train share a text
TINY = dict(queries_per_task=6, candidates=2)


def texts(out, split) -> set[str]:
    return {t for f in out.glob(data_pattern("queries", split)) for t in pq.read_table(f).column("text").to_pylist()}


@pytest.mark.parametrize("order", [("test", "validation", "train"), ("train", "test", "validation")])
def test_splits_generated_in_any_order_share_no_text_and_validate(tmp_path, order):
    for split in order:
        generate(small_config(tmp_path, split=split, **TINY))
    made = {split: texts(tmp_path, split) for split in order}
    assert all(len(t) > 20 for t in made.values())
    assert not made["test"] & made["validation"] and not made["test"] & made["train"]
    assert not made["validation"] & made["train"]
    assert validate(tmp_path, quick=True) == []


def test_a_split_generated_again_plans_the_same_queries(tmp_path):
    """Generating validation again after train (a resumed or repeated run) plans the same validation, though
    it now avoids train's texts too: train avoided all of validation's (this build's would share one)."""
    for split in ("validation", "train"):
        generate(small_config(tmp_path, split=split, **TINY))
    first = json.loads((tmp_path / RECORDS / "validation.json").read_text())
    again = generate(small_config(tmp_path, split="validation", **TINY))
    assert again["complete"] and again["fingerprint"] == first["fingerprint"]


def test_the_readme_recipe_builds_a_valid_folder(tmp_path, monkeypatch, capsys):
    """README's "Train on it" commands, verbatim but for 4 queries per task (enough that validation and
    train would share a text if train avoided test's alone), then `validate`."""
    monkeypatch.chdir(tmp_path)
    recipe = """
        reasonaudio generate --out mybench --split test --sample-rate 16000
        reasonaudio generate --out mybench --split validation --sample-rate 16000
        reasonaudio generate --out mybench --split train --sample-rate 16000 --queries-per-task 400 --candidates 3
    """
    for line in recipe.strip().splitlines():
        words = shlex.split(line)[1:]
        if "--queries-per-task" in words:
            del words[words.index("--queries-per-task"):words.index("--queries-per-task") + 2]
        assert main(words + ["--queries-per-task", "4", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["validate", "mybench", "--quick", "--quiet"]) == 0, capsys.readouterr().err
