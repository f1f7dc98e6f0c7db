"""Issue 34: what used to be silently wrong or lost. Each case reproduces the failure on stand-in data the
test makes; the kills are injected at the file move (a move that raises), not sent as signals."""
import json
import os
from pathlib import Path

import numpy as np
import pytest
import soundfile

import evaluation.report as report
import generation.pipeline as pipeline
from reasonaudio_cli import main
from tests.strong_standin import write_standin

from .conftest import killed_after

NATURAL = ["--queries-per-task", "3", "--sample-rate", "16000", "--quiet"]


def _natural_spec(folder, table="labels.tsv", extra=""):
    return f"strong:{folder}?labels={table}&as_split=test{extra}"


def test_a_natural_build_resumed_after_its_recordings_changed_is_refused(tmp_path, monkeypatch, capsys):
    """Killed after its first corpus file, the recordings edited, the same command again: the plan's
    fingerprint holds every recording's content, so the files of the old recordings are never combined
    with the new ones."""
    folder, out = tmp_path / "standin", tmp_path / "build"
    write_standin(folder, recordings=40)
    argv = ["generate", "--source", _natural_spec(folder), "--out", str(out), *NATURAL]
    killed_after(monkeypatch, pipeline, "write_table", calls=4)        # queries, qrels, sources, one corpus file
    with pytest.raises(KeyboardInterrupt):
        main(argv)
    monkeypatch.undo()
    for path in sorted(folder.glob("*.wav")):
        samples, rate = soundfile.read(path)
        soundfile.write(path, 0.5 * samples, rate)                         # same length, same labels
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "belongs to a different corpus" in err and len(err.strip().splitlines()) == 1


def _kill_at_move(monkeypatch, module, name: str):
    """Moves into place go as usual until the one onto `name`, which dies (a kill between two moves)."""
    real = os.replace

    def move(source, target, *args, **kwargs):
        if Path(target).name == name:
            raise KeyboardInterrupt("killed")
        return real(source, target, *args, **kwargs)

    monkeypatch.setattr(module.os, "replace", move)


def test_an_overwrite_killed_between_its_moves_is_never_read_as_a_run(small_corpus, tmp_path, monkeypatch, capsys):
    """evaluate --overwrite killed before its last move leaves the new per_query.parquet and results.md beside
    the old results.json: compare refuses that folder by name, and the same evaluate again finishes it."""
    evaluate = ["evaluate", "--data", str(small_corpus), "--bootstrap", "0", "--quiet"]
    runs = {name: tmp_path / name for name in ("a", "b")}
    for name, model in (("a", "oracle"), ("b", "random")):
        assert main([*evaluate, "--model", model, "--out", str(runs[name])]) == 0
    _kill_at_move(monkeypatch, report, "results.json")
    with pytest.raises(KeyboardInterrupt):
        main([*evaluate, "--model", "bag-of-sounds", "--out", str(runs["a"]), "--overwrite"])
    monkeypatch.undo()
    assert json.loads((runs["a"] / "results.json").read_text())["model"] == "oracle"      # the mix is there
    capsys.readouterr()
    compare = ["compare", str(runs["a"]), str(runs["b"]), "--bootstrap", "0", "--out"]
    assert main([*compare, str(tmp_path / "cmp")]) == 2
    err = capsys.readouterr().err
    assert str(runs["a"]) in err and "unfinished" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "cmp").exists()
    assert main([*evaluate, "--model", "bag-of-sounds", "--out", str(runs["a"])]) == 0    # its own files: finished
    assert main([*compare, str(tmp_path / "cmp")]) == 0
    names = {e["name"]: e["model"] for e in json.loads((tmp_path / "cmp" / "compare.json").read_text())["runs"]}
    assert names == {"a": "bag-of-sounds", "b": "random"}


def test_a_journal_of_an_unfinished_set_survives_other_files_placed_beside_it(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / report.JOURNAL).write_text(json.dumps(["per_query.parquet", "results.json"]))
    report.place_files(out, {"compare.md": lambda path: path.write_text("x")})
    assert json.loads((out / report.JOURNAL).read_text()) == ["per_query.parquet", "results.json"]
    report.place_files(out, {name: (lambda path: path.write_text("y")) for name in ("results.json", "per_query.parquet")})
    assert not (out / report.JOURNAL).exists()
