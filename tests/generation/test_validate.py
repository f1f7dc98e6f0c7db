"""`validate` re-derives a finished folder: every way of editing it is found and named by file and row."""
import io
import json
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import soundfile

from reasonaudio.cli import main
from reasonaudio.generation.validate import validate
from reasonaudio_dataset.schema import AUDIO_ROWS_PER_GROUP
from reasonaudio.versions import BENCHMARK_VERSION

# the small corpus's 180 clips come in two files of whole row groups; the edits below touch the first
QUERIES, CORPUS, SOURCES = ("queries/test-00000-of-00001.parquet", "corpus/test-00000-of-00002.parquet",
                            "sources/test-00000-of-00001.parquet")


@pytest.fixture
def copy(small_corpus, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(small_corpus, folder)
    assert validate(folder) == []
    return folder


def rewrite(folder, relative, change):
    """Edit a table's rows and write it back with its schema, stamp included (as a careful forger would)."""
    table = pq.read_table(folder / relative)
    rows = table.to_pylist()
    change(rows)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), folder / relative,
                   row_group_size=AUDIO_ROWS_PER_GROUP)


def found(folder, *needles, quick=False):
    findings = validate(folder, quick=quick)
    assert findings, "validate found nothing"
    hits = [f for f in findings if all(n in f for n in needles)]
    assert hits, f"no finding names {needles}: {findings}"
    return findings


def swap_audio(rows):
    rows[0]["audio"], rows[1]["audio"] = rows[1]["audio"], rows[0]["audio"]


def junk_audio(rows):
    rows[2]["audio"] = {"bytes": b"not audio at all", "path": rows[2]["audio"]["path"]}


def shift_event(rows):
    rows[3]["events"][0]["onset"] += 0.07
    rows[3]["events"][0]["offset"] += 0.07


def quiet_clip(rows):
    data, rate = soundfile.read(io.BytesIO(rows[4]["audio"]["bytes"]), dtype="int16")
    buffer = io.BytesIO()
    soundfile.write(buffer, (data // 2).astype(np.int16), rate, format="FLAC")
    rows[4]["audio"] = {"bytes": buffer.getvalue(), "path": rows[4]["audio"]["path"]}


@pytest.mark.parametrize("edit, needles", [
    (swap_audio, (CORPUS, "row 0", "audio differs")),
    (junk_audio, (CORPUS, "row 2", "does not decode")),
    (shift_event, (CORPUS, "row 3", "audio differs")),
    (quiet_clip, (CORPUS, "row 4", "audio differs")),
])
def test_edited_audio_is_found_by_re_rendering(copy, edit, needles):
    rewrite(copy, CORPUS, edit)
    found(copy, *needles)


def test_quick_mode_skips_the_audio(copy):
    rewrite(copy, CORPUS, swap_audio)
    assert not any("audio" in f for f in validate(copy, quick=True))


def test_a_shifted_event_changes_the_fingerprint(copy):
    rewrite(copy, CORPUS, shift_event)
    found(copy, "fingerprint", quick=True)


def test_a_build_of_another_benchmark_version_is_one_finding_naming_both(copy):
    record = copy / ".reasonaudio" / "test.json"
    record.write_text(json.dumps({**json.loads(record.read_text()), "benchmark_version": "0.9.0"}))
    findings = validate(copy, quick=True)
    assert len(findings) == 1 and "made at benchmark version 0.9.0" in findings[0], findings
    assert f"checks version {BENCHMARK_VERSION}" in findings[0]


@pytest.mark.parametrize("column, value, needle", [
    ("caption", "A dog barking from 0.0 to 1.0 s.", "caption"),
    ("duration", 9.5, "duration 9.5"),
    ("task", "order", "task 'order' should be"),
    ("query_id", "test-negation-0099", "query_id 'test-negation-0099' should be"),
])
def test_edited_clip_fields_are_found(copy, column, value, needle):
    def change(rows):
        rows[7][column] = value if rows[7][column] != value else "other"
    rewrite(copy, CORPUS, change)
    found(copy, CORPUS, "row 7", needle, quick=True)


def test_another_source_for_an_event_is_found(copy):
    sources = pq.read_table(copy / SOURCES).to_pylist()
    changed = []

    def change(rows):
        """The first event from row 5 on whose class has another recording takes that one."""
        for number, row in enumerate(rows[5:], 5):
            for event in row["events"]:
                other = [s["source_id"] for s in sources
                         if s["label"] == event["label"] and s["source_id"] != event["source_id"]]
                if other:
                    event["source_id"] = other[0]
                    changed.append(number)
                    return
    rewrite(copy, CORPUS, change)
    found(copy, CORPUS, f"row {changed[0]}", "audio differs")
    found(copy, "fingerprint")


def test_an_event_naming_a_sound_of_another_class_is_found(copy):
    sources = pq.read_table(copy / SOURCES).to_pylist()

    def change(rows):
        event = rows[5]["events"][0]
        event["source_id"] = next(s["source_id"] for s in sources if s["label"] != event["label"])
    rewrite(copy, CORPUS, change)
    found(copy, CORPUS, "row 5", "is not a sound of class", quick=True)


def test_an_edited_query_text_is_found(copy):
    def change(rows):
        rows[1]["text"] = rows[1]["text"] + " and a cat"
    rewrite(copy, QUERIES, change)
    found(copy, QUERIES, "row 1", "is not what its constraint renders to", quick=True)
    found(copy, "fingerprint", quick=True)


@pytest.mark.parametrize("column, value, needle", [
    ("depth", 7, "depth 7 should be"),
    ("shape", "chain", "shape 'chain' should be"),
    ("num_sounds", 4, "num_sounds 4 should be"),
])
def test_an_edited_shape_depth_or_sound_count_is_found(copy, column, value, needle):
    rewrite(copy, QUERIES, lambda rows: rows[1].update({column: value}))
    found(copy, QUERIES, "row 1", needle, quick=True)


def test_a_constraint_no_shape_states_is_found(copy):
    def change(rows):
        rows[1]["constraint"] = '{"all": [{"relation": "lasts", "args": ["x", "5"]}, {"relation": "absent", "args": ["y"]}]}'
    rewrite(copy, QUERIES, change)
    found(copy, QUERIES, "row 1", "no query shape of task", quick=True)


def test_a_broken_constraint_is_one_finding(copy):
    def change(rows):
        rows[2]["constraint"] = '{"all": [{"relation": "before", "args": ['
    rewrite(copy, QUERIES, change)
    found(copy, QUERIES, "row 2", "broken constraint", quick=True)


def test_edited_or_dropped_sources_are_found(copy):
    def rename(rows):
        rows[0]["phrase"] = "a mysterious sound"
    rewrite(copy, SOURCES, rename)
    found(copy, "fingerprint", quick=True)
    rewrite(copy, SOURCES, lambda rows: rows.pop())
    found(copy, "sounds; the record says", quick=True)


def test_an_edited_source_sound_is_found(copy):
    used = {e["source_id"] for row in pq.read_table(copy / CORPUS, columns=["events"]).to_pylist()
            for e in row["events"]}
    ids = pq.read_table(copy / SOURCES, columns=["source_id"]).column(0).to_pylist()
    index = next(i for i, source_id in enumerate(ids) if source_id in used)

    def change(rows):
        data, rate = soundfile.read(io.BytesIO(rows[index]["audio"]["bytes"]), dtype="int16")
        buffer = io.BytesIO()
        soundfile.write(buffer, data[::-1].copy(), rate, format="FLAC")
        rows[index]["audio"] = {"bytes": buffer.getvalue(), "path": rows[index]["audio"]["path"]}
    rewrite(copy, SOURCES, change)
    found(copy, "audio differs")


@pytest.mark.parametrize("old, new", [
    ("dtype: float32", "dtype: float64"),                     # a feature type
    ("path: queries/test-*", "path: queries/train-*"),         # a config path
    ("license: cc0-1.0", "license: mit"),                      # the licence
    ("num_examples: ", "num_examples: 1"),                     # a count
])
def test_an_edited_card_is_found(copy, old, new):
    card = copy / "README.md"
    text = card.read_text()
    assert old in text
    card.write_text(text.replace(old, new, 1))
    found(copy, "README.md line", "differs from the card", quick=True)


def test_broken_files_are_one_line_findings_not_tracebacks(copy, capsys):
    (copy / "README.md").write_text("---\nconfigs: [unclosed\n---\n")
    data = (copy / QUERIES).read_bytes()
    (copy / QUERIES).write_bytes(data[: len(data) // 2])
    findings = validate(copy)
    assert any("README.md: broken YAML" in f for f in findings)
    assert sum(QUERIES in f and "unreadable Parquet" in f for f in findings) == 1       # listed once, not twice
    (copy / ".reasonaudio" / "test.json").write_text("{broken")
    assert any(".reasonaudio/test.json: broken JSON" in f for f in validate(copy))
    assert main(["validate", str(copy), "--quiet"]) == 1
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("name", ["test-x.parquet", "test-00001-of-00002.parquet"])
def test_a_stray_data_file_is_reported_in_one_line(copy, name):
    shutil.copy2(copy / QUERIES, copy / "queries" / name)      # stamped like the corpus's own, even so
    findings = validate(copy, quick=True)
    assert [f for f in findings if f"queries/{name}" in f] == [
        f"queries/{name}: a data file that no record declares (the card's patterns would load it)"]


def test_validate_cli_says_what_it_checks(copy, capsys):
    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    help_text = capsys.readouterr().out
    for what in ("fingerprint", "relevance", "captions", "card", "--quick", "re-rendering"):
        assert what in help_text
    assert main(["validate", str(copy), "--quiet"]) == 0
    assert json.loads((copy / ".reasonaudio" / "test.json").read_text())["fingerprint"]


@pytest.mark.parametrize("record", ['{}', '[1]', '{"fingerprint": "x", "parameters": {}, "files": [], "counts": {}, "licenses": []}'])
def test_a_malformed_record_is_one_finding(copy, record):
    (copy / ".reasonaudio" / "test.json").write_text(record)
    found(copy, ".reasonaudio/test.json: not a split record", quick=True)


@pytest.mark.parametrize("edit", [
    lambda rows: rows[0].update(candidates=None),
    lambda rows: rows[0].update(constraint='{"all": [{"relation": "before", "args": 3}]}'),
    lambda rows: rows[0].update(constraint='{"all": [{"relation": "lasts", "args": ["x", "soon"]}]}'),
])
def test_malformed_query_rows_are_findings_not_tracebacks(copy, edit, capsys):
    rewrite(copy, QUERIES, edit)
    assert validate(copy, quick=True)
    assert main(["validate", str(copy), "--quick", "--quiet"]) == 1
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("edit", [
    lambda rows: rows[0].update(events=[]),
    lambda rows: rows[0]["events"][0].update(label="no_such_class"),
])
def test_malformed_clip_rows_are_findings_not_tracebacks(copy, edit):
    rewrite(copy, CORPUS, edit)
    found(copy, CORPUS, "row 0")


def test_stray_json_in_the_records_folder_is_no_record(copy):
    (copy / ".reasonaudio" / "secrets.json").write_text('{"files": ["secrets.txt"]}')
    (copy / "secrets.txt").write_text("token")
    from reasonaudio.generation.publish import files_to_upload

    assert validate(copy, quick=True) == []
    assert not {path for path, _ in files_to_upload(copy)} & {".reasonaudio/secrets.json", "secrets.txt"}


def test_the_audio_bar_counts_the_clips_there_are(small_corpus, capsys):
    """Row groups of a file's end are short: the bar's total is the clips' count, not groups x group size."""
    assert validate(small_corpus, progress=True) == []
    bars = capsys.readouterr().err.replace("\r", "\n").splitlines()
    last = [line for line in bars if line.startswith("checking audio (test)")][-1]
    assert " 180/180 " in last


QRELS = "qrels/test-00000-of-00001.parquet"


def test_qrels_are_checked_a_query_at_a_time_in_any_row_order(copy):
    """The qrels are compared as streamed, a query at a time (their rows grow as queries x corpus); in
    another row order they are compared whole, with the same verdict; every changed pair is counted."""
    def qrels_findings():
        return [f for f in validate(copy, quick=True) if QRELS in f]

    rewrite(copy, QRELS, lambda rows: rows.reverse())              # the whole comparison
    assert qrels_findings() == []
    rewrite(copy, QRELS, lambda rows: rows.reverse())
    first = pq.read_table(copy / QRELS).to_pylist()[0]["query_id"]

    def drop_and_flip(rows):
        rows[:] = [r for r in rows if r["query_id"] != first or r["score"] != 1][:-1]
        rows[-1]["score"] = -rows[-1]["score"]
    before = len(pq.read_table(copy / QRELS))
    rewrite(copy, QRELS, drop_and_flip)                             # streamed: the writer's order
    changed = before - len(pq.read_table(copy / QRELS)) + 2        # dropped pairs, the flipped one twice
    streamed = qrels_findings()
    assert len(streamed) == 1 and f"differs from the annotations in {changed} pair(s)" in streamed[0]
    rewrite(copy, QRELS, lambda rows: rows.reverse())
    whole = qrels_findings()
    assert len(whole) == 1 and f"differs from the annotations in {changed} pair(s)" in whole[0]


@pytest.mark.parametrize("relative, column, own", [
    (QUERIES, "id", "query_id"), (CORPUS, "id", "clip_id"), (QRELS, "query-id", "query_id"), (QRELS, "corpus-id", "clip_id"),
])
def test_mteb_columns_that_disagree_with_the_ids_are_found(copy, relative, column, own):
    """MTEB's loader reads only `id` (queries, corpus) and `query-id`/`corpus-id` (qrels): two rows' values swapped
    there, the ids and the file's size unchanged, would have it score other pairs than the tables describe."""
    rows = pq.read_table(copy / relative).to_pylist()
    first, second = next((0, i) for i, row in enumerate(rows) if row[own] != rows[0][own])

    def swap(rows):
        rows[first][column], rows[second][column] = rows[second][column], rows[first][column]
    rewrite(copy, relative, swap)
    found(copy, f"{relative} row {first} (", f"{column} {rows[second][column]!r} is not its {own} {rows[first][own]!r}",
          quick=True)
    found(copy, f"{relative} row {second} (", quick=True)
