"""Strong-label tables at their worst: every table is read as the TSV it is, every class
name is one class, every recording path stays in the source folder, and whatever cannot be read or planned is
one line naming the table, the row or the option (exit 2), or left out with a note; never a traceback, never a
silently different build. The stand-in (generation/standin.py) is written once; each test edits a copy of
its table."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile

from reasonaudio.generation.sources import BadRecording, open_source
from reasonaudio.cli import main
from reasonaudio.generation.standin import write_standin

RUN = ["--queries-per-task", "2", "--sample-rate", "16000", "--quiet"]


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    folder = tmp_path_factory.mktemp("standin")
    write_standin(folder, recordings=40)
    return folder


def _table(standin, tmp_path, edit, name="labels.tsv"):
    """A copy of the stand-in's table, `edit(lines)` applied (header first)."""
    lines = (standin / name).read_text().splitlines()
    path = tmp_path / name
    path.write_text("\n".join(edit(lines)) + "\n")
    return path


def _generate(capsys, tmp_path, spec, *extra):
    code = main(["generate", "--source", spec, "--out", str(tmp_path / "out"), *RUN, *extra])
    captured = capsys.readouterr()
    return code, captured.err, captured.out


def _one_line(err: str) -> str:
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def _replace_label(lines, old, new, every=1):
    """`old` -> `new` in the label column of every `every`-th row holding it."""
    out, seen = [lines[0]], 0
    for line in lines[1:]:
        cells = line.split("\t")
        if cells[3] == old:
            seen += 1
            if seen % every == 0:
                cells[3] = new
        out.append("\t".join(cells))
    return out


def test_a_stray_quote_in_a_label_is_that_rows_error_and_swallows_nothing(standin, tmp_path, capsys):
    table = _table(standin, tmp_path, lambda lines: [lines[0], '\t"'.join(lines[1].rsplit("\t", 1)), *lines[2:]])
    recordings = open_source(f"strong:{standin}?labels={table}")
    assert len(recordings) == 40                                   # no row swallowed into another
    assert all('"' not in e.label and "\n" not in e.label for r in recordings for e in r.events)
    bad = [r for r in recordings if r.recording_id == lines_first(standin)]
    with pytest.raises(BadRecording, match=r'labels.tsv row 2: label .*quote'):
        bad[0].load()
    code, err, _ = _generate(capsys, tmp_path, f"strong:{standin}?labels={table}&as_split=test")
    assert code == 2 and "row 2" in err and "quote" in err


def lines_first(standin) -> str:
    return (standin / "labels.tsv").read_text().splitlines()[1].split("\t")[0]


def test_labels_differing_only_in_unicode_form_or_invisible_characters_are_one_class(standin, tmp_path):
    """'café' in NFC and NFD, 'knocks' and 'knocks' + a zero-width space were two classes with one visible name:
    "A café, without a café"."""
    import unicodedata

    def variants(lines):
        lines = _replace_label(lines, "knocks", "café")
        lines = _replace_label(lines, "café", unicodedata.normalize("NFD", "café"), 2)
        return _replace_label(lines, "low_hum", "low_hum\u200b", 2)

    table = _table(standin, tmp_path, variants)
    found = {e.label for r in open_source(f"strong:{standin}?labels={table}") for e in r.events}
    assert "café" in found and "low_hum" in found
    assert len(found) == len({unicodedata.normalize("NFKC", label).replace("\u200b", "") for label in found})
    assert all(label == unicodedata.normalize("NFC", label) and "\u200b" not in label for label in found)


def test_labels_differing_in_case_or_underscore_are_one_class(standin, tmp_path):
    original = {e.label for r in open_source(f"strong:{standin}?labels=labels.tsv") for e in r.events}
    table = _table(standin, tmp_path, lambda lines: _replace_label(_replace_label(lines, "knocks", "Knocks", 2),
                                                                   "low_hum", "low hum", 2))
    found = {e.label for r in open_source(f"strong:{standin}?labels={table}") for e in r.events}
    assert found == original                    # the first spelling names the class, the others join it
    only = open_source(f"strong:{standin}?labels={table}&exhaustive=Knocks|LOW_HUM")
    assert {e.label for r in only for e in r.events} == original


def test_an_ontology_giving_two_ids_one_name_is_refused_by_name(standin, tmp_path, capsys):
    ontology = json.loads((standin / "ontology.json").read_text())
    ontology[1]["name"] = ontology[0]["name"].replace("_", " ").upper()
    (tmp_path / "ontology.json").write_text(json.dumps(ontology))
    spec = f"strong:{standin}?labels=audioset.tsv&ontology={tmp_path / 'ontology.json'}&as_split=test"
    code, err, _ = _generate(capsys, tmp_path, spec)
    assert code == 2 and "ontology.json" in _one_line(err) and ontology[0]["id"] in err and ontology[1]["id"] in err


@pytest.mark.parametrize("names", [[1, 2], None])
def test_an_ontology_whose_names_are_not_text_names_the_file(standin, tmp_path, capsys, names):
    ontology = json.loads((standin / "ontology.json").read_text())
    for entry, name in zip(ontology, names or []):
        entry["name"] = name
    if names is None:
        ontology[0]["id"] = 7
    (tmp_path / "ontology.json").write_text(json.dumps(ontology))
    spec = f"strong:{standin}?labels=audioset.tsv&ontology={tmp_path / 'ontology.json'}&as_split=test"
    code, err, _ = _generate(capsys, tmp_path, spec)
    assert code == 2 and "ontology.json" in _one_line(err) and "bad options" not in err


def test_a_label_holding_the_class_separator_is_that_rows_error(standin, tmp_path, capsys):
    table = _table(standin, tmp_path, lambda lines: _replace_label(lines, "bell_strike", "bell|strike"))
    code, err, _ = _generate(capsys, tmp_path, f"strong:{standin}?labels={table}&as_split=test")
    assert code == 2 and "'bell|strike'" in err and "row" in err and "Traceback" not in err
    code, err, out = _generate(capsys, tmp_path, f"strong:{standin}?labels={table}&as_split=test",
                               "--skip-bad-sources")
    assert code == 0, err


def test_exhaustive_naming_no_class_of_the_table_is_one_line(standin, capsys, tmp_path):
    code, err, _ = _generate(capsys, tmp_path, f"strong:{standin}?labels=labels.tsv&as_split=test&exhaustive=bogus")
    assert code == 2 and "exhaustive" in _one_line(err) and "'bogus'" in err


def test_exhaustive_none_skips_what_needs_absent_with_a_note(standin, capsys, tmp_path, caplog):
    code, err, out = _generate(capsys, tmp_path, f"strong:{standin}?labels=labels.tsv&as_split=test&exhaustive=none")
    assert code == 0 and "Traceback" not in err
    record = json.loads((tmp_path / "out" / ".reasonaudio" / "test.json").read_text())
    assert record["counts"]["queries_per_task"]["negation"] == 0
    assert "negation" in out and "no query" in out
    assert "task negation: 0 of 2 queries" in caplog.text


def test_a_table_from_which_no_query_can_be_planned_is_one_line(standin, tmp_path, capsys):
    """Every class sounding through every recording (what a dense 100,000-row table merges to): no shape can
    be stated, so no query is planned, which must not end in a ZeroDivisionError."""
    classes = sorted({line.split("\t")[3] for line in (standin / "labels.tsv").read_text().splitlines()[1:]})
    names = sorted({line.split("\t")[0] for line in (standin / "labels.tsv").read_text().splitlines()[1:]})
    rows = ["filename\tonset\toffset\tevent_label"] + [f"{name}\t0.000\t9.900\t{label}" for name in names[:12]
                                                       for label in classes]
    (tmp_path / "dense.tsv").write_text("\n".join(rows) + "\n")
    code, err, _ = _generate(capsys, tmp_path, f"strong:{standin}?labels={tmp_path / 'dense.tsv'}&as_split=test",
                             "--tasks", "order", "duration")
    assert code == 2 and "no query" in _one_line(err)
    assert not (tmp_path / "out" / "README.md").exists()


def _inside_and_outside(standin, tmp_path, monkeypatch) -> tuple[Path, list[str]]:
    """A copy of the stand-in (`inside`), a recording beside it (`outside/elsewhere.wav`), and the list of the
    files the strong-label source opens from now on."""
    import reasonaudio.generation.sources.strong_labels as strong

    opened = []
    real = strong.read_audio_file
    monkeypatch.setattr(strong, "read_audio_file", lambda file: opened.append(str(file)) or real(file))
    (tmp_path / "outside").mkdir()
    shutil.copy(standin / "Ystandin0000_0.wav", tmp_path / "outside" / "elsewhere.wav")
    folder = tmp_path / "inside"
    shutil.copytree(standin, folder)
    return folder, opened


@pytest.mark.parametrize("path, message", [
    (p, "read only from the source folder") for p in ("../outside/elsewhere.wav", "../../etc/passwd", "/etc/passwd")
])
def test_a_recording_path_outside_the_source_folder_is_refused_unread(standin, tmp_path, capsys, monkeypatch, path,
                                                                        message):
    folder, opened = _inside_and_outside(standin, tmp_path, monkeypatch)
    table = _table(standin, folder, lambda lines: [lines[0], f"{path}\t1.0\t2.0\tknocks", *lines[1:]])
    code, err, _ = _generate(capsys, tmp_path, f"strong:{folder}?labels={table}&as_split=test")
    assert code == 2 and message in err and path in err
    assert not any("elsewhere" in f or "passwd" in f for f in opened)


@pytest.mark.parametrize("link", ["file", "folder"])
def test_a_recording_behind_a_link_leaving_the_source_folder_is_refused_unread(standin, tmp_path, capsys, monkeypatch,
                                                                               link):
    """Only the path string was checked: a symlinked file or sub-folder inside the folder was read from outside."""
    folder, opened = _inside_and_outside(standin, tmp_path, monkeypatch)
    if link == "file":
        (folder / "linked.wav").symlink_to(tmp_path / "outside" / "elsewhere.wav")
        name = "linked.wav"
    else:
        (folder / "sub").symlink_to(tmp_path / "outside", target_is_directory=True)
        name = "sub/elsewhere.wav"
    table = _table(standin, folder, lambda lines: [lines[0], f"{name}\t1.0\t2.0\tknocks", *lines[1:]])
    code, err, _ = _generate(capsys, tmp_path, f"strong:{folder}?labels={table}&as_split=test")
    assert code == 2 and "leads outside" in err and name in err
    assert not any("elsewhere" in f or "linked" in f for f in opened)


def test_dot_slash_names_the_same_recording(standin, tmp_path):
    folder = tmp_path / "inside"
    shutil.copytree(standin, folder)
    name = lines_first(standin)
    table = _table(standin, folder, lambda lines: [lines[0], f"./{name}\t8.0\t9.0\tlow_hum", *lines[1:]])
    recordings = open_source(f"strong:{folder}?labels={table}")
    assert len(recordings) == 40 and sum(r.recording_id.endswith(name) for r in recordings) == 1
    same = next(r for r in recordings if r.recording_id.endswith(name))
    assert any(e.label == "low_hum" and e.onset == 8.0 for e in same.events)


@pytest.mark.parametrize("onset, offset, message", [
    ("1.0001", "1.0004", "offset 1 s is not after onset 1 s"),
    ("0_1", "2.0", "onset '0_1' is not a number of seconds"),
    ("1e400", "2.0", "onset '1e400' is not a"),
])
def test_times_are_checked_as_published(standin, tmp_path, onset, offset, message):
    name = lines_first(standin)
    table = _table(standin, tmp_path, lambda lines: [lines[0], f"{name}\t{onset}\t{offset}\tlow_hum", *lines[1:]])
    bad = next(r for r in open_source(f"strong:{standin}?labels={table}") if r.recording_id == name)
    with pytest.raises(BadRecording, match=message):
        bad.load()


def test_a_float_recording_above_full_scale_is_refused_not_clipped(standin, tmp_path, capsys):
    folder = tmp_path / "inside"
    shutil.copytree(standin, folder)
    name = lines_first(standin)
    samples, rate = soundfile.read(folder / name)
    soundfile.write(folder / name, 3 * samples / np.abs(samples).max(), rate, subtype="FLOAT")
    code, err, _ = _generate(capsys, tmp_path, f"strong:{folder}?labels=labels.tsv&as_split=test")
    assert code == 2 and name in err and "full scale" in err
    code, err, _ = _generate(capsys, tmp_path, f"strong:{folder}?labels=labels.tsv&as_split=test",
                             "--skip-bad-sources")
    assert code == 0
    record = json.loads((tmp_path / "out" / ".reasonaudio" / "test.json").read_text())
    assert any(name in s["origin"] and "full scale" in s["reason"] for s in record["skipped_sources"])


def test_two_splits_of_one_folder_from_the_same_recordings_are_refused_at_generate(standin, tmp_path, capsys):
    spec = f"strong:{standin}?labels=labels.tsv&as_split="
    assert _generate(capsys, tmp_path, spec + "test")[0] == 0
    code, err, _ = _generate(capsys, tmp_path, spec + "train", "--split", "train")
    assert code == 2 and "recording" in _one_line(err) and "test" in err
    assert not list((tmp_path / "out").glob("*/train-*"))


def test_a_recording_the_resampler_takes_above_full_scale_is_scaled_not_clipped(standin, tmp_path, caplog):
    import soxr

    from reasonaudio.generation.bank import quantise
    from reasonaudio.generation.natural import recording_bank

    folder = tmp_path / "inside"
    shutil.copytree(standin, folder)
    name = lines_first(standin)
    t = np.arange(441000) / 44100
    soundfile.write(folder / name, np.sign(np.sin(2 * np.pi * 440 * t)) * 0.999, 44100, subtype="PCM_16")
    bank, _ = recording_bank(f"strong:{folder}?labels=labels.tsv&as_split=test", "test", 16000, 10.0, False,
                             progress=False)
    raw, _ = soundfile.read(folder / name, dtype="float32")
    resampled = soxr.resample(raw, 44100, 16000, quality="HQ").astype(np.float32)
    assert np.abs(resampled).max() > 1.05                  # the ringing a full-scale square wave has
    np.testing.assert_array_equal(bank[name].samples, quantise(resampled / np.abs(resampled).max()))
    assert "scaled to full scale rather than clipped" in caplog.text and name in caplog.text


def test_a_copy_of_the_recordings_under_another_folder_is_the_same_recordings(standin, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(standin, copy)
    assert _generate(capsys, tmp_path, f"strong:{standin}?labels=labels.tsv&as_split=test")[0] == 0
    code, err, _ = _generate(capsys, tmp_path, f"strong:{copy}?labels=labels.tsv&as_split=train", "--split", "train")
    assert code == 2 and "recording" in _one_line(err) and "40 recording(s)" in err
