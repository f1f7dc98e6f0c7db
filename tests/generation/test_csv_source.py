"""CSV manifest rows: nothing lost, nothing silently wrong; and every source's per-recording provenance."""
import json
import logging

import pytest

from reasonaudio.cli import main
from reasonaudio.generation.bank import BadSourcesError, build_bank
from reasonaudio.generation.sources import open_source
from reasonaudio.generation.sources import BadRecording, SourceError

from ..conftest import write_tone

RUN = ["--queries-per-task", "2", "--sample-rate", "16000", "--quiet"]


def manifest(tmp_path, rows: str, header="path,label,start,end", name="sounds.csv", **files) -> str:
    for file, seconds in {"a.wav": 3.0, "b.wav": 3.0, **files}.items():
        write_tone(tmp_path / file, seconds=seconds)
    (tmp_path / name).write_text(f"{header}\n{rows}", encoding="utf-8")
    return f"csv:{tmp_path / name}"


@pytest.mark.parametrize("start, end, column, why", [
    ("-1", "", "start", "'-1' is negative"),
    ("", "inf", "end", "'inf' is not a finite number of seconds"),
    ("abc", "", "start", "'abc' is not a number of seconds"),
    ("nan", "", "start", "'nan' is not a finite number of seconds"),
    ("2", "1.5", "end", "1.5 is not after start 2"),
    ("", "0", "end", "0 is not after start 0"),
])
def test_a_bad_row_fails_when_loaded_naming_file_row_and_column(tmp_path, start, end, column, why):
    recordings = open_source(manifest(tmp_path, f"a.wav,beep,,\nb.wav,hum,{start},{end}\n"))
    assert len(recordings) == 2 and recordings[0].load()[1] == 8000
    with pytest.raises(BadRecording) as error:
        recordings[1].load()
    assert str(error.value) == f"sounds.csv, row 3, column {column}: {why}"


def test_bad_rows_stop_the_bank_or_are_skipped_on_request(tmp_path):
    spec = manifest(tmp_path, "a.wav,beep,,\nb.wav,hum,abc,\n,bell,,\n")
    with pytest.raises(BadSourcesError) as error:
        build_bank(spec, split=None, count=3, sample_rate=8000, progress=False)
    assert "sounds.csv, row 3, column start: 'abc' is not a number of seconds" in str(error.value)
    assert "sounds.csv, row 4, column path: no file named" in str(error.value)
    bank = build_bank(spec, split=None, count=3, sample_rate=8000, skip_bad=True, progress=False)
    assert [s.label for s in bank.sounds] == ["beep"]
    assert sorted(reason.split("sounds.csv, ")[1] for _, reason in bank.skipped) == [
        "row 3, column start: 'abc' is not a number of seconds", "row 4, column path: no file named"]


def test_a_file_listed_twice(tmp_path, caplog):
    rows = ("a.wav,beep,,\n"        # 2
            "./a.wav,beep,,\n"      # 3: the same row again: dropped
            "a.wav,beep,2,3\n"      # 4: another event of the same class: kept, no warning
            "a.wav,hum,0,\n"        # 5: another label, the same sound: dropped
            "a.wav,hum,1,2\n"       # 6: another label, another region: kept
            "b.wav,hum,,\n")
    with caplog.at_level(logging.WARNING, logger="reasonaudio.generation.sources.csv_manifest"):
        recordings = open_source(manifest(tmp_path, rows))
    assert [r.recording_id.split("#")[1] for r in recordings] == ["2", "4", "6", "7"]
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 3
    assert "twice, rows 2 and 3: row 3 is dropped" in warnings[0]
    assert "under two labels ('beep', 'hum') with the same crop, rows 2 and 5: row 5 is dropped" in warnings[1]
    assert "under two labels ('beep', 'hum'), rows 2 and 6: both kept" in warnings[2]
    assert all(w.startswith("sounds.csv lists one file") for w in warnings)


def test_a_byte_order_mark_and_loose_header_are_accepted(tmp_path):
    write_tone(tmp_path / "a.wav")
    (tmp_path / "m.csv").write_text(" Path , Label\na.wav,beep\n", encoding="utf-8-sig")
    assert (tmp_path / "m.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    assert [r.label for r in open_source(f"csv:{tmp_path / 'm.csv'}")] == ["beep"]


def test_license_and_credit_columns_are_kept_per_row(tmp_path):
    spec = manifest(tmp_path, "a.wav,beep,CC-BY-4.0,Ann\nb.wav,hum,,\nc.wav,bell,,\n",
                    header="path,label,license,credit", **{"c.wav": 1.0})
    recordings = open_source(spec + "?license=CC0-1.0")
    assert [(r.license, r.attribution) for r in recordings] == [("CC-BY-4.0", "Ann"), ("CC0-1.0", ""), ("CC0-1.0", "")]
    for column in ("attribution", "author"):
        spec = manifest(tmp_path, "a.wav,beep,Bo\n", header=f"path,label,{column}", name=f"{column}.csv")
        assert open_source(spec)[0].attribution == "Bo"


def test_esc50_names_each_clips_freesound_source(tmp_path):
    write_tone(tmp_path / "audio" / "4-102844-A-49.wav")
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta" / "esc50.csv").write_text(
        "filename,fold,target,category,esc10,src_file,take\n4-102844-A-49.wav,4,49,hand_saw,False,102844,A\n")
    (recording,) = open_source(f"esc50:{tmp_path}")
    assert recording.attribution == "freesound.org/s/102844 (ESC-50, K. J. Piczak)"
    assert recording.license.startswith("CC-BY-NC-3.0")


def test_fsd50k_takes_license_and_uploader_from_its_metadata(tmp_path):
    (tmp_path / "FSD50K.ground_truth").mkdir()
    (tmp_path / "FSD50K.ground_truth" / "eval.csv").write_text("fname,labels,mids\n99,Rain,m\n100,Rain,m\n")
    (tmp_path / "FSD50K.metadata").mkdir()
    (tmp_path / "FSD50K.metadata" / "eval_clips_info_FSD50K.json").write_text(json.dumps(
        {"99": {"title": "t", "license": "http://creativecommons.org/licenses/by/3.0/", "uploader": "plagasul"}}))
    found = {r.recording_id: (r.license, r.attribution) for r in open_source(f"fsd50k:{tmp_path}")}
    assert found["fsd50k/eval/99"] == ("http://creativecommons.org/licenses/by/3.0/",
                                       "plagasul, freesound.org/s/99 (FSD50K)")
    assert found["fsd50k/eval/100"][1] == "freesound.org/s/100 (FSD50K)"


def test_hf_license_and_credit_columns(tmp_path):
    for i in range(2):
        write_tone(tmp_path / "data" / f"{i}.wav")
    (tmp_path / "data" / "metadata.csv").write_text(
        "file_name,label,license,author\n0.wav,bell,CC-BY-4.0,Ann\n1.wav,horn,,\n")
    recordings = sorted(open_source(f"hf:{tmp_path / 'data'}?license=CC0-1.0"), key=lambda r: r.label)
    assert [(r.label, r.license, r.attribution) for r in recordings] == [
        ("bell", "CC-BY-4.0", "Ann"), ("horn", "CC0-1.0", "")]
    assert open_source(f"hf:{tmp_path / 'data'}?attribution_column=license")[0].attribution == "CC-BY-4.0"


@pytest.mark.parametrize("where", ["../elsewhere.wav", "ABSOLUTE", "linked.wav"])
def test_a_manifest_row_leaving_its_folder_is_a_row_error_never_read(tmp_path, where):
    """csv: opened `../`, absolute and symlinked paths: files are read only from the manifest's folder."""
    folder = tmp_path / "sounds"
    folder.mkdir()
    write_tone(tmp_path / "elsewhere.wav", seconds=3.0)
    (folder / "linked.wav").symlink_to(tmp_path / "elsewhere.wav")
    path = str(tmp_path / "elsewhere.wav") if where == "ABSOLUTE" else where
    recordings = open_source(manifest(folder, f"a.wav,beep,,\n{path},hum,,\n"))
    assert recordings[0].load()[1] == 8000
    with pytest.raises(BadRecording, match="leads outside"):
        recordings[1].load()


@pytest.mark.parametrize("kind", ["csv", "folder"])
def test_labels_said_alike_are_refused_naming_both(tmp_path, kind):
    """'chainsaw' and 'Chainsaw' are both "a chainsaw": two classes with one phrase would ask "a chainsaw,
    but not a chainsaw"; every source is refused, naming the two labels and the source."""
    if kind == "csv":
        spec = manifest(tmp_path, "a.wav,chainsaw,,\nb.wav,Chainsaw,,\n")
    else:
        for label in ("chainsaw", "Chainsaw"):
            write_tone(tmp_path / label / "0.wav")
        spec = f"folder:{tmp_path}"
    with pytest.raises(SourceError) as error:
        open_source(spec)
    message = str(error.value)
    assert len(message.splitlines()) == 1 and spec in message
    assert "'chainsaw'" in message and "'Chainsaw'" in message and "'a chainsaw'" in message


def test_labels_said_alike_stop_generate_with_one_line(tmp_path, capsys):
    spec = manifest(tmp_path, "a.wav,dog,,\nb.wav,Dog barking,,\n")    # "a dog barking" twice
    code = main(["generate", "--source", spec, "--out", str(tmp_path / "out"), *RUN])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "'dog' and 'Dog barking'" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("start, end, column", [("", "1e306", "end"), ("1e306", "", "start")])
def test_a_time_beyond_any_recording_is_a_row_error_exit_2(tmp_path, capsys, start, end, column):
    """A finite but huge time (1e306 s) is that row's error, naming the file and row, not an OverflowError."""
    spec = manifest(tmp_path, f"a.wav,beep,,\nb.wav,hum,{start},{end}\n")
    with pytest.raises(BadRecording) as error:
        open_source(spec)[1].load()
    assert str(error.value) == (f"sounds.csv, row 3, column {column}: '1e306' is more than a day (86400 s) into "
                                "the recording")
    code = main(["generate", "--source", f"{spec}?as_split=test", "--out", str(tmp_path / "out"), *RUN])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and f"sounds.csv, row 3, column {column}: '1e306'" in err
