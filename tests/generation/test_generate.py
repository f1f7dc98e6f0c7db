"""The generate job end to end: validity, loading, determinism, resumption, sharded jobs, bad input."""
import filecmp
import json
from collections import Counter
import subprocess
import sys
from pathlib import Path

import datasets
import numpy as np
import pyarrow.parquet as pq
import pytest
import soundfile

import reasonaudio.generation.pipeline as pipeline
from reasonaudio.generation.bank import BadSourcesError, build_bank
from reasonaudio.cli import main
from reasonaudio.generation.config import GenerateConfig
from reasonaudio.generation.pipeline import generate
from reasonaudio.generation.tasks import TASKS, PlanningError, check_feasible
from reasonaudio.generation.validate import validate
from reasonaudio_dataset.schema import CONFIGS

from ..conftest import killed_after, small_config, write_tone


def same_tree(a: Path, b: Path) -> bool:
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    return files_a == files_b and all(filecmp.cmp(a / f, b / f, shallow=False) for f in files_a)


@pytest.fixture
def several_files(monkeypatch):
    """Corpus files of 100 clips each, so that a small corpus spans several files."""
    monkeypatch.setattr(pipeline, "MAX_SHARD_BYTES", 100 * 10.0 * 16000 * 2 / 0.9 + 1)


def test_small_corpus_is_valid_and_every_config_loads(small_corpus):
    assert validate(small_corpus) == []
    for config in CONFIGS:
        loaded = datasets.load_dataset(str(small_corpus), config, split="test")
        assert loaded.num_rows > 0
    corpus = datasets.load_dataset(str(small_corpus), "corpus", split="test").cast_column(
        "audio", datasets.Audio(decode=False))
    row = corpus[0]
    samples, rate = soundfile.read(__import__("io").BytesIO(row["audio"]["bytes"]))
    assert rate == 16000 and len(samples) == 10 * 16000 and np.abs(samples).max() < 1.0
    assert isinstance(corpus.features["audio"], datasets.Audio)


def test_thirty_second_clips_state_long_durations_and_validate(tmp_path):
    out = tmp_path / "long"
    generate(small_config(out, clip_seconds=30.0, tasks=("duration", "mix"), queries_per_task=10, events_per_clip=(3, 5)))
    assert validate(out) == []
    queries = pq.read_table(out / "queries" / "test-00000-of-00001.parquet").to_pylist()
    seconds = {a["args"][1] for q in queries for a in json.loads(q["constraint"])["all"]
               if a["relation"] == "lasts"}
    assert seconds and seconds <= {"2", "5", "10", "15", "20"}
    corpus = pq.read_table(sorted(out.glob("corpus/test-*.parquet")), columns=["events", "duration"]).to_pylist()
    assert all(row["duration"] == 30.0 and 3 <= len(row["events"]) <= 5 for row in corpus)


def test_groups_are_minimal_pairs_with_no_hub(small_corpus):
    queries = datasets.load_dataset(str(small_corpus), "queries", split="test")
    corpus = datasets.load_dataset(str(small_corpus), "corpus", split="test").remove_columns("audio")
    events = {row["clip_id"]: row["events"] for row in corpus}
    for query in queries:
        group = [events[c] for c in query["candidates"]]
        assert len({len(e) for e in group}) == 1, "every candidate has the same number of events"
        positive = events[query["positive"]]
        assert query["hard_negatives"] and query["positive"] not in query["hard_negatives"]
        atoms = json.loads(query["constraint"])["all"]
        absent = [a["args"][0] for a in atoms if a["relation"] == "absent"]
        for clip_id in query["hard_negatives"]:
            labels = {e["label"] for e in events[clip_id]}
            if query["task"] in ("order", "overlap", "duration"):  # same sounds, same gains, only timing changed
                assert labels == {e["label"] for e in positive}
                assert sorted(e["gain_db"] for e in events[clip_id]) == sorted(e["gain_db"] for e in positive)
            elif query["task"] == "negation":
                assert len(set(absent) & labels) == 1
        if query["task"] in ("order", "overlap", "duration"):
            # the query's sounds are no hub: another sound of the group occurs in as many clips (their member a
            # part of a closure, as often as its share, they are in fewer)
            counts = Counter(e["label"] for clip in group for e in clip)
            related = {label for atom in atoms for label in atom["args"][:1 if atom["relation"] == "lasts" else 2]}
            others = [n for other, n in counts.items() if other not in related] or list(counts.values())
            assert all(counts[label] <= max(others) for label in related), (query["text"], counts)


@pytest.mark.slow
def test_same_seed_same_corpus_for_any_workers(tmp_path, several_files):
    generate(small_config(tmp_path / "one", workers=1))
    generate(small_config(tmp_path / "two", workers=2))
    assert same_tree(tmp_path / "one", tmp_path / "two")
    generate(small_config(tmp_path / "other", seed=5))
    assert not filecmp.cmp(tmp_path / "one" / "queries/test-00000-of-00001.parquet",
                           tmp_path / "other" / "queries/test-00000-of-00001.parquet", shallow=False)


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_same_corpus(tmp_path, several_files, monkeypatch):
    generate(small_config(tmp_path / "whole"))
    real = killed_after(monkeypatch, pipeline, "render_rows", 1)   # dies on the second file
    with pytest.raises(KeyboardInterrupt):
        generate(small_config(tmp_path / "killed"))
    killed = tmp_path / "killed"
    assert not (killed / "README.md").exists() and validate(killed)  # nothing looks complete
    assert not list(killed.glob("*/*.parquet"))  # all of it is staged out of view
    with pytest.raises(FileNotFoundError, match="doesn't contain any data files"):
        datasets.load_dataset(str(killed), "corpus", split="test")
    monkeypatch.setattr(pipeline, "render_rows", real)
    generate(small_config(killed))
    for partial in killed.rglob(".*.partial"):
        partial.unlink()  # what the killed run left behind is hidden, and never mistaken for a file
    assert same_tree(tmp_path / "whole", killed)


@pytest.mark.slow
def test_sharded_jobs_merge_into_the_same_corpus(tmp_path, several_files):
    generate(small_config(tmp_path / "whole"))
    for index in range(2):
        record = generate(small_config(tmp_path / f"job{index}", num_shards=2, shard_index=index))
        assert not record["complete"]
    assert main(["merge", str(tmp_path / "merged"), str(tmp_path / "job0"), str(tmp_path / "job1")]) == 0
    assert validate(tmp_path / "merged") == []
    assert same_tree(tmp_path / "whole", tmp_path / "merged")


def test_merge_refuses_a_part_whose_record_names_a_file_outside_the_build(tmp_path, capsys):
    """A part's plan record whose files hold `../../..` had merge write outside --out; validate and publish
    then took it as the build's."""
    import json
    import shutil

    from reasonaudio.generation.layout import publishable_files

    record = generate(small_config(tmp_path / "job", queries_per_task=2, num_shards=2, shard_index=0))
    plan = tmp_path / "job" / ".reasonaudio" / "test.plan.json"
    planned = json.loads(plan.read_text())
    planned["files"][0] = "../../escaped.parquet"
    plan.write_text(json.dumps(planned))
    shutil.copy(tmp_path / "job" / record["files"][1], tmp_path / "escaped.parquet")
    assert main(["merge", str(tmp_path / "merged" / "a"), str(tmp_path / "job")]) == 2
    assert "not a data file of a build" in capsys.readouterr().err
    assert not (tmp_path / "merged").exists() or not list((tmp_path / "merged").rglob("escaped*"))
    finished = tmp_path / "finished"
    generate(small_config(finished, queries_per_task=2))
    done = json.loads((finished / ".reasonaudio" / "test.json").read_text())
    done["files"].append("../outside.parquet")
    (finished / ".reasonaudio" / "test.json").write_text(json.dumps(done))
    assert any("not a data file of a build" in finding for finding in validate(finished))
    with pytest.raises(ValueError, match="not a data file of a build"):
        publishable_files(finished)


def test_other_parameters_never_mix_into_a_folder(tmp_path, small_corpus, several_files):
    generate(small_config(tmp_path / "a"))
    with pytest.raises(FileExistsError, match="different"):
        generate(small_config(tmp_path / "a", seed=9))


@pytest.mark.slow
def test_validate_reports_a_tampered_corpus(tmp_path, small_corpus):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(small_corpus, copy)
    path = copy / "queries/test-00000-of-00001.parquet"
    table = pq.read_table(path)
    rows = table.to_pylist()
    rows[0]["positive"] = next(c for c in rows[0]["candidates"] if c != rows[0]["positive"])
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), path)
    problems = validate(copy)
    assert any("should be YES" in p for p in problems) and any("should be NO" in p for p in problems)
    done = subprocess.run([sys.executable, "-m", "reasonaudio", "validate", str(copy)], capture_output=True, text=True)
    assert done.returncode == 1 and "problem(s)" in done.stderr, done.stderr[-2000:]
    (copy / "README.md").unlink()
    assert any("card" in p for p in validate(copy))


def bad_folder(root: Path) -> Path:
    for label in ("tone_a", "tone_b", "tone_c", "tone_d", "tone_e", "tone_f"):
        for i in range(3):
            write_tone(root / label / f"{i}.wav", seconds=1.0 + i * 0.3, freq=200 + 90 * len(label) * (i + 1))
    (root / "tone_a" / "broken.wav").write_bytes(b"not audio at all")
    soundfile.write(root / "tone_b" / "empty.wav", np.zeros(0), 8000)
    soundfile.write(root / "tone_c" / "silent.wav", np.zeros(8000), 8000)
    soundfile.write(root / "tone_d" / "nan.wav", np.full(8000, np.nan, dtype=np.float32), 8000, subtype="FLOAT")
    return root


def test_bad_sources_are_reported_by_file_before_rendering(tmp_path):
    root = bad_folder(tmp_path / "sounds")
    with pytest.raises(BadSourcesError) as caught:
        build_bank(f"folder:{root}", split=None, count=1000, sample_rate=8000, progress=False)
    reasons = dict(caught.value.bad)
    assert set(reasons) == {"folder:tone_a/broken.wav", "folder:tone_b/empty.wav", "folder:tone_c/silent.wav",
                            "folder:tone_d/nan.wav"}
    assert "unreadable" in reasons["folder:tone_a/broken.wav"] and "NaN" in reasons["folder:tone_d/nan.wav"]
    assert "silent" in reasons["folder:tone_c/silent.wav"] and "empty" in reasons["folder:tone_b/empty.wav"]


def test_skip_bad_sources_records_them_in_the_card(tmp_path):
    root = bad_folder(tmp_path / "sounds")
    manifest = tmp_path / "manifest.csv"
    lines = ["path,label"] + [f"sounds/{p.parent.name}/{p.name},{p.parent.name}" for p in sorted(root.glob("*/*.wav"))]
    manifest.write_text("\n".join(lines + ["sounds/tone_e/0.wav,"]) + "\n")
    bank = build_bank(f"csv:{manifest}", split=None, count=1000, sample_rate=8000, skip_bad=True, progress=False)
    assert len(bank.skipped) == 5 and any("unknown label" in reason for _, reason in bank.skipped)
    assert len(bank.sounds) == 18
    out = tmp_path / "out"
    generate(small_config(out, source=f"folder:{root}?as_split=test", skip_bad_sources=True, atomic_sounds=100,
                          tasks=("negation", "order")))
    card = (out / "README.md").read_text()
    assert "tone_a/broken.wav" in card and "tone_d/nan.wav" in card and validate(out) == []


def test_too_few_classes_for_a_task_is_a_clear_error(tmp_path):
    root = tmp_path / "sounds"
    for label in ("a", "b", "c"):
        write_tone(root / label / "0.wav", seconds=2.0)
    bank = build_bank(f"folder:{root}", split=None, count=3, sample_rate=8000, progress=False)
    with pytest.raises(PlanningError, match=r"task 'negation' cannot be planned: present-absent: needs \d+ classes"):
        check_feasible(TASKS["negation"], bank.by_label(), 10.0)
    with pytest.raises(PlanningError, match="no query shape of depth 5-5"):
        check_feasible(TASKS["order"], bank.by_label(), 10.0, depths=(5, 5))


def test_cli_help_teaches_and_bad_arguments_fail_cleanly(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["generate", "--help"])
    assert caught.value.code == 0
    text = capsys.readouterr().out
    for words in ("--num-shards", "esc50", "csv", "hf", "synthetic", "resumes"):
        assert words in text
    for words in ("--events-per-clip", "--depth", "--text-style", "MIN-MAX"):
        assert words in text
    assert main(["generate", "--out", "x", "--candidates", "1"]) == 2
    assert "candidates must be from 2 to 100 (one positive, one negative at least)" in capsys.readouterr().err
    assert main(["generate", "--out", "x", "--events-per-clip", "1-3"]) == 2
    assert "events-per-clip starts at 2" in capsys.readouterr().err
    assert main(["generate", "--out", "x", "--depth", "3-1"]) == 2
    assert "depth must be a range MIN-MAX" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["generate", "--out", "x", "--depth", "deep"])
    assert "expected MIN-MAX" in capsys.readouterr().err


def test_summary_of_the_main_command(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["generate", "--out", str(out), "--queries-per-task", "4", "--sample-rate", "16000",
                 "--atomic-sounds", "60", "--quiet"]) == 0
    printed = capsys.readouterr().out
    for task in ("negation", "order", "overlap", "duration", "mix"):
        assert task in printed
    assert json.loads((out / ".reasonaudio" / "test.json").read_text())["counts"]["queries"] == 20


def test_qrels_written_in_batches_are_the_corpus_judged_whole(tmp_path, monkeypatch):
    """Qrels are judged and written a query at a time in batches (their rows grow as queries x corpus):
    the rows are those of judging the whole corpus at once, in any batch size."""
    from reasonaudio.generation import pipeline
    from reasonaudio.generation.pipeline import plan_split, qrels_batches
    from reasonaudio.core.relations import judge_corpus

    plan = plan_split(GenerateConfig(out=str(tmp_path), queries_per_task=3, sample_rate=16000, progress=False),
                      forbidden=frozenset())
    whole = judge_corpus([(q.query_id, q.atoms) for q in plan.queries], [(c.clip_id, c.events) for _, c in plan.clips])
    for size in (1, 7, pipeline.QRELS_BATCH):
        monkeypatch.setattr(pipeline, "QRELS_BATCH", size)
        batches = list(qrels_batches(plan))
        assert all(len(b) >= size for b in batches[:-1])
        assert {(r["query_id"], r["clip_id"]): r["score"] for b in batches for r in b} == \
            {pair: v.value for pair, v in whole.items()}
        assert sum(map(len, batches)) == len(whole)


def test_sources_are_made_a_row_group_at_a_time(tmp_path, monkeypatch):
    """The sources table's FLAC rows are made as each row group is written, not all first (a natural bank is
    every recording of the split): no more than one row group's rows exist before the first is written."""
    from reasonaudio.generation import pipeline, writer
    from reasonaudio.generation.folder import BuildFolder
    from reasonaudio.generation.pipeline import plan_split, write_tables
    from reasonaudio_dataset.schema import AUDIO_ROWS_PER_GROUP

    plan = plan_split(GenerateConfig(out=str(tmp_path), queries_per_task=1, sample_rate=16000, progress=False),
                      forbidden=frozenset())
    made, written = [], []
    real_row = pipeline.source_row

    class Recording(writer.pq.ParquetWriter):
        def write_table(self, table, row_group_size=None):
            written.append((len(made), table.num_rows))
            super().write_table(table, row_group_size=row_group_size)

    monkeypatch.setattr(pipeline, "source_row", lambda sound: made.append(1) or real_row(sound))
    monkeypatch.setattr(writer.pq, "ParquetWriter", Recording)
    write_tables(plan, BuildFolder(tmp_path))
    sources = [(before, rows) for before, rows in written if before]
    assert len(plan.bank.sounds) > AUDIO_ROWS_PER_GROUP and len(sources) == -(-len(plan.bank.sounds) // AUDIO_ROWS_PER_GROUP)
    assert all(before == (k + 1) * AUDIO_ROWS_PER_GROUP or before == len(plan.bank.sounds)
               for k, (before, _) in enumerate(sources))
