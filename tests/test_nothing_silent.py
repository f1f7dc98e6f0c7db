"""Issue 34: what used to be silently wrong or lost. Each case reproduces the failure on stand-in data the
test makes; the kills are injected at the file move (a move that raises), not sent as signals."""
import json

import numpy as np
import pytest
import soundfile

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
