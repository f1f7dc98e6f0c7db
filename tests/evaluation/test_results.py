"""Results you can trust and compare: no cache serves content that is no longer there, a run records what it
scored, `reasonaudio compare`, the hard-negative metric, and result sets that are written whole."""
import io
import itertools
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import soundfile
import torch

from tests import toy_encoder
from reasonaudio.evaluation import report
from reasonaudio.evaluation.report import claimed_out
from reasonaudio.generation.pipeline import generate
from reasonaudio.models import encoding
from reasonaudio.cli import main
from reasonaudio_dataset.identity import build_identity
from reasonaudio_dataset.loading import load_table
from reasonaudio_metric.functional import HARD_NEGATIVE, hard_negative_scores, score

from ..conftest import small_config

MODEL = "python:tests.toy_encoder:build?sampling_rate=16000"
real_encoder = {"text": toy_encoder.ToyEncoder.encode_text, "audio": toy_encoder.ToyEncoder.encode_audio}


@pytest.fixture
def build(small_corpus, tmp_path) -> Path:
    """A private copy of the session's small corpus, free to edit."""
    return Path(shutil.copytree(small_corpus, tmp_path / "build"))


@pytest.fixture
def counted(monkeypatch):
    """How many texts and clips the toy encoder is asked to encode; chunks of 16 so that edits stay local."""
    monkeypatch.setattr(encoding, "CHUNK", 16)
    calls = {"text": 0, "audio": 0}
    real_text, real_audio = toy_encoder.ToyEncoder.encode_text, toy_encoder.ToyEncoder.encode_audio

    def text(self, texts):
        calls["text"] += len(texts)
        return real_text(self, texts)

    def audio(self, arrays):
        calls["audio"] += len(arrays)
        return real_audio(self, arrays)

    monkeypatch.setattr(toy_encoder.ToyEncoder, "encode_text", text)
    monkeypatch.setattr(toy_encoder.ToyEncoder, "encode_audio", audio)
    return calls


def evaluate(folder, out, cache, *extra) -> dict:
    assert main(["evaluate", "--data", str(folder), "--model", MODEL, "--out", str(out), "--cache", str(cache),
                 "--bootstrap", "0", "--batch-size", "16", "--quiet", *extra]) == 0
    return json.loads((Path(out) / "results.json").read_text())


def files(folder: Path, table: str) -> list[Path]:
    return sorted((folder / table).glob("test-*.parquet"))


def independent_scores(folder: Path) -> np.ndarray:
    """The toy encoder's cosine score of every query's candidates computed from the Parquet bytes alone
    (pyarrow, soundfile): no datasets cache, no embedding cache, nothing of the toolkit's loading."""
    queries = pa.concat_tables([pq.read_table(f) for f in files(folder, "queries")]).to_pydict()
    corpus = pa.concat_tables([pq.read_table(f, columns=["clip_id", "audio"]) for f in files(folder, "corpus")])
    audio = {clip: cell["bytes"] for clip, cell in zip(corpus["clip_id"].to_pylist(), corpus["audio"].to_pylist())}
    toy = toy_encoder.ToyEncoder(16000)

    def unit(vectors):
        vectors = np.asarray(vectors, dtype=np.float64)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    texts = unit(real_encoder["text"](toy, queries["text"]))
    return np.array([unit(real_encoder["audio"](toy, [soundfile.read(io.BytesIO(audio[c]), dtype="float32")[0]
                                                       for c in group])) @ text
                     for text, group in zip(texts, queries["candidates"])])


def scored(out: Path) -> np.ndarray:
    return np.array(pq.read_table(out / "per_query.parquet").column("scores").to_pylist())


def rewrite(path: Path, column: str, change) -> None:
    """Rewrite one column of a Parquet file in place, its schema (and datasets' features) kept."""
    table = pq.read_table(path)
    values = change(table.column(column).to_pylist())
    pq.write_table(table.set_column(table.column_names.index(column), column,
                                    pa.array(values, type=table.schema.field(column).type)), path)


def test_an_edited_query_text_is_read_and_scored_afresh_encoding_only_its_chunk(build, tmp_path, counted):
    first = evaluate(build, tmp_path / "a", tmp_path / "cache")
    assert counted["text"] > 16 and counted["audio"] > 0
    counted.update(text=0, audio=0)
    rewrite(files(build, "queries")[0], "text", lambda texts: ["a dog barking, then silence"] + texts[1:])
    assert load_table(str(build), "queries", "test")[0]["text"] == "a dog barking, then silence"
    second = evaluate(build, tmp_path / "b", tmp_path / "cache")
    assert counted == {"text": 16, "audio": 0}                      # one chunk of texts, no clip
    np.testing.assert_allclose(scored(tmp_path / "b"), independent_scores(build), atol=1e-5)
    assert not np.allclose(scored(tmp_path / "a")[0], scored(tmp_path / "b")[0])
    assert second["build"]["content"] != first["build"]["content"]


@pytest.mark.slow
def test_swapped_audio_is_scored_afresh_encoding_only_the_chunks_it_touches(build, tmp_path, counted):
    evaluate(build, tmp_path / "a", tmp_path / "cache")
    counted.update(text=0, audio=0)

    def swap(cells):
        cells[0], cells[40] = cells[40], cells[0]
        return cells

    rewrite(files(build, "corpus")[0], "audio", swap)
    evaluate(build, tmp_path / "b", tmp_path / "cache")
    assert counted == {"text": 0, "audio": 32}                      # the two chunks holding clips 0 and 40
    np.testing.assert_allclose(scored(tmp_path / "b"), independent_scores(build), atol=1e-5)
    assert not np.allclose(scored(tmp_path / "a"), scored(tmp_path / "b"))


def test_an_unchanged_rerun_and_a_copied_or_renamed_folder_hit_every_cache(build, tmp_path, counted, monkeypatch):
    first = evaluate(build, tmp_path / "a", tmp_path / "cache")
    tables = Path(os.environ["HF_DATASETS_CACHE"]) / "reasonaudio"
    converted = sorted(tables.iterdir())
    counted.update(text=0, audio=0)
    again = evaluate(build, tmp_path / "b", tmp_path / "cache")
    assert counted == {"text": 0, "audio": 0} and sorted(tables.iterdir()) == converted
    copy = Path(shutil.copytree(build, tmp_path / "renamed"))
    moved = evaluate(copy, tmp_path / "c", tmp_path / "cache")
    assert counted == {"text": 0, "audio": 0}                       # same content: nothing encoded again
    assert first["metrics"] == again["metrics"] == moved["metrics"]
    assert moved["build"]["id"] == first["build"]["id"]
    rewrite(files(copy, "queries")[0], "text", lambda texts: [t.upper() for t in texts])
    assert load_table(str(copy), "queries", "test")[0]["text"].isupper()
    assert not load_table(str(build), "queries", "test")[0]["text"].isupper()   # the original keeps its own


@pytest.mark.slow
def test_a_build_regenerated_with_another_seed_in_the_same_folder_is_scored_afresh(tmp_path, counted):
    folder = tmp_path / "same-name"
    generate(small_config(folder, queries_per_task=3))
    first = evaluate(folder, tmp_path / "a", tmp_path / "cache")
    shutil.rmtree(folder)
    generate(small_config(folder, queries_per_task=3, seed=11))
    second = evaluate(folder, tmp_path / "b", tmp_path / "cache")
    assert second["build"]["id"] != first["build"]["id"]
    np.testing.assert_allclose(scored(tmp_path / "b"), independent_scores(folder), atol=1e-5)


@pytest.mark.slow
def test_mteb_scores_a_second_build_afresh_with_its_result_cache_on(small_corpus, tmp_path):
    mteb = pytest.importorskip("mteb")
    from reasonaudio.evaluation.mteb_model import MtebEncoder
    from reasonaudio.evaluation.runner import evaluate_encoders
    from reasonaudio.evaluation.systems.python_model import build as python_build
    from reasonaudio_dataset.mteb_task import reasonaudio_task

    other = tmp_path / "other"
    generate(small_config(other, seed=9))
    model = MtebEncoder(python_build("tests.toy_encoder:build"))
    toy = toy_encoder.build()
    for folder in (small_corpus, other, small_corpus):      # the default result cache stays on throughout
        found = mteb.evaluate(model, tasks=[reasonaudio_task(str(folder))]).task_results[0].scores["test"][0]
        ours = evaluate_encoders(str(folder), toy.encode_text, toy.encode_audio, 16000, bootstrap=0, progress=False)
        assert found["group_accuracy"] == pytest.approx(ours["average"]["accuracy"], abs=1e-6)   # cached: 6 digits
        assert found["group_hard_negative_pairwise"] == pytest.approx(ours["average"][HARD_NEGATIVE], abs=1e-6)
    assert reasonaudio_task(str(small_corpus)).metadata.name != reasonaudio_task(str(other)).metadata.name


def test_a_run_records_the_build_the_full_spec_and_every_query(build, tmp_path):
    record = evaluate(build, tmp_path / "run", tmp_path / "cache")
    assert record["spec"] == MODEL and record["model"] == "python:tests.toy_encoder:build"
    assert record["build"] == build_identity(str(build)) and record["build"]["fingerprint"]
    assert record["cache"]["key"].endswith("#toy-16000") and record["device"]["name"] == "cpu"
    assert record["files"] == ["results.json", "results.md", "results.png", "per_query.parquet"]
    rows = pq.read_table(tmp_path / "run" / "per_query.parquet").to_pydict()
    queries = load_table(str(build), "queries", "test")
    assert rows["query_id"] == queries["query_id"] and rows["task"] == queries["task"]
    for accuracy, rank, scores, candidates, positive in zip(rows["accuracy"], rows["positive_rank"], rows["scores"],
                                                            rows["candidates"], rows["positive"]):
        assert (rank == 1) == (accuracy == 1) and len(scores) == len(candidates)
        assert rank == 1 + sum(s > scores[candidates.index(positive)] for s in scores)
    means = {task: np.mean([a for a, t in zip(rows["accuracy"], rows["task"]) if t == task]) for task in set(rows["task"])}
    assert all(record["metrics"][task]["accuracy"] == pytest.approx(value) for task, value in means.items())


@pytest.mark.slow
def test_compare_ranks_three_runs_with_paired_intervals_and_refuses_another_build(build, tmp_path, capsys):
    for model in ("oracle", "random", "bag-of-sounds"):
        assert main(["evaluate", "--data", str(build), "--model", model, "--out", str(tmp_path / model),
                     "--bootstrap", "200", "--quiet"]) == 0
    capsys.readouterr()
    runs = [str(tmp_path / name) for name in ("random", "oracle", "bag-of-sounds")]
    assert main(["compare", *runs, "--out", str(tmp_path / "cmp"), "--bootstrap", "200"]) == 0
    printed = capsys.readouterr().out
    assert "| 1 | oracle | oracle | 100.0 [100.0, 100.0]" in printed and "vs random" in printed
    assert printed.strip().splitlines()[-1] == "wrote " + ", ".join(str(tmp_path / "cmp" / name) for name in
                                                                     ("compare.md", "compare.json", "compare.png"))
    before = sorted(tmp_path.rglob("*"))
    assert main(["compare", *runs, "--bootstrap", "0"]) == 0            # without --out: printed, nothing written
    assert "| 1 | oracle | oracle |" in capsys.readouterr().out and sorted(tmp_path.rglob("*")) == before
    comparison = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    averages = [e["scores"]["average"]["accuracy"] for e in comparison["runs"]]
    assert comparison["runs"][0]["name"] == "oracle" and averages == sorted(averages, reverse=True)
    oracle, random = comparison["runs"][0], next(e for e in comparison["runs"] if e["name"] == "random")
    change = oracle["versus_reference"]
    assert change["difference"]["average"]["accuracy"] == pytest.approx(
        oracle["scores"]["average"]["accuracy"] - random["scores"]["average"]["accuracy"])
    low, high = change["intervals"]["average"]["accuracy"]
    assert 0 < low <= change["difference"]["average"]["accuracy"] <= high and change["p_values"]["average"]["accuracy"] < 0.05
    assert "order/depth=1" in oracle["cells_versus_reference"] and (tmp_path / "cmp" / "compare.png").is_file()

    other = tmp_path / "other-build"
    generate(small_config(other, queries_per_task=3, seed=8))
    assert main(["evaluate", "--data", str(other), "--model", "oracle", "--out", str(tmp_path / "elsewhere"),
                 "--bootstrap", "0", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["compare", runs[0], str(tmp_path / "elsewhere"), "--out", str(tmp_path / "cmp2")]) == 2
    error = capsys.readouterr().err.strip()
    assert "elsewhere" in error and "same build" in error and len(error.splitlines()) == 1
    assert not (tmp_path / "cmp2").exists()


def _reference_pairwise(row, positive, negatives):
    """The share of hard negatives ranked below the positive, averaged over every tie-breaking order."""
    wins = []
    for order in itertools.permutations(range(len(row))):
        place = {column: (-row[column], order[column]) for column in range(len(row))}
        wins.append(np.mean([place[positive] < place[n] for n in negatives]))
    return np.mean(wins)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_hard_negative_pairwise_counts_ties_exactly(backend):
    rng = np.random.default_rng(3)
    matrix = rng.integers(0, 3, size=(40, 5)).astype(np.float32)      # many ties
    positive = rng.integers(0, 5, size=40)
    negatives = [list(rng.choice([c for c in range(5) if c != p], size=rng.integers(1, 4), replace=False))
                 for p in positive]
    expected = [_reference_pairwise(row, p, n) for row, p, n in zip(matrix, positive, negatives)]
    given = torch.as_tensor(matrix) if backend == "torch" else matrix
    np.testing.assert_allclose(hard_negative_scores(given, positive, negatives), expected, atol=1e-12)
    queries = {"query_id": [f"q{i}" for i in range(40)], "task": ["order"] * 40,
               "candidates": [[f"c{i}-{j}" for j in range(5)] for i in range(40)],
               "positive": [f"c{i}-{p}" for i, p in enumerate(positive)],
               "hard_negatives": [[f"c{i}-{j}" for j in n] for i, n in enumerate(negatives)]}
    result = score(given, queries, bootstrap=0)
    assert result["order"][HARD_NEGATIVE] == pytest.approx(np.mean(expected))
    assert score(np.zeros((40, 5)), queries, bootstrap=0)["average"][HARD_NEGATIVE] == 0.5   # constant: random
    assert result["random"]["order"][HARD_NEGATIVE] == 0.5
    queries["hard_negatives"][0] = ["nowhere"]
    with pytest.raises(ValueError, match="'nowhere' is not among its candidates"):
        score(given, queries, bootstrap=0)


def test_a_killed_evaluate_reruns_cleanly_and_a_users_own_results_md_survives(build, tmp_path, monkeypatch, capsys):
    command = ["evaluate", "--data", str(build), "--model", "oracle", "--bootstrap", "0", "--quiet"]
    out = tmp_path / "run"
    real, moves = os.replace, []

    def dies_after_one_move(source, target):     # killed between placing the first result file and the next
        if Path(target).parent == out:
            moves.append(target)
            if len(moves) > 1:
                raise KeyboardInterrupt("killed")
        real(source, target)

    monkeypatch.setattr(report.os, "replace", dies_after_one_move)
    with pytest.raises(KeyboardInterrupt):
        main(command + ["--out", str(out)])
    monkeypatch.undo()
    assert not (out / "results.json").exists() and len([p for p in out.iterdir() if not p.name.startswith(".")]) == 1
    assert main(command + ["--out", str(out)]) == 0                  # its own half-placed files are no obstacle
    assert sorted(p.name for p in out.iterdir()) == sorted(report.RESULT_FILES)   # no staging, journal or lock left

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "results.md").write_text("my notes\n")
    capsys.readouterr()
    assert main(command + ["--out", str(mine)]) == 2
    assert "results.md already exists" in capsys.readouterr().err
    assert (mine / "results.md").read_text() == "my notes\n" and sorted(os.listdir(mine)) == ["results.md"]
    assert main(command + ["--out", str(mine), "--overwrite"]) == 0 and (mine / "results.json").is_file()


def test_two_runs_cannot_both_claim_one_out_and_odd_outs_are_refused(build, tmp_path, capsys):
    command = ["evaluate", "--data", str(build), "--model", "oracle", "--bootstrap", "0", "--quiet"]
    with claimed_out(tmp_path / "busy", str(build), report.RESULT_FILES, False):
        assert main(command + ["--out", str(tmp_path / "busy")]) == 2
        assert "being written by another run" in capsys.readouterr().err
    assert main(command + ["--out", "/"]) == 2 and "filesystem root" in capsys.readouterr().err
    assert main(["evaluate", "--data", str(build), "--model", "nonsense", "--out", str(tmp_path / "new")]) == 2
    assert not (tmp_path / "new").exists()                          # a failed run leaves no folder behind


def test_a_corrupt_cache_chunk_or_a_full_cache_disk_is_one_line_naming_the_cache(build, tmp_path, capsys, monkeypatch):
    command = ["evaluate", "--data", str(build), "--model", MODEL, "--bootstrap", "0", "--quiet",
               "--cache", str(tmp_path / "cache")]
    assert main(command + ["--out", str(tmp_path / "a")]) == 0
    chunk = sorted((tmp_path / "cache").rglob("*.npy"))[0]
    chunk.write_bytes(chunk.read_bytes()[:50])                       # truncated
    capsys.readouterr()
    assert main(command + ["--out", str(tmp_path / "b")]) == 2
    error = capsys.readouterr().err.strip()
    assert str(chunk) in error and "delete it" in error and len(error.splitlines()) == 1
    shutil.rmtree(tmp_path / "cache")

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(encoding.np, "save", full)
    assert main(command + ["--out", str(tmp_path / "c")]) == 2
    error = capsys.readouterr().err.strip()
    assert "cannot write the embedding cache" in error and "No space left" in error and len(error.splitlines()) == 1
    assert not list((tmp_path / "cache").rglob("*.partial")) and not (tmp_path / "c").exists()


@pytest.mark.parametrize("content, name", [(b"\x00garbage" * 20, "vectors.npz"), (b"PK\x03\x04broken", "vectors.npz"),
                                           (b"PAR1 not parquet", "vectors.parquet")])
def test_a_garbage_embeddings_file_is_one_line(build, tmp_path, capsys, content, name):
    (tmp_path / name).write_bytes(content)
    assert main(["evaluate", "--data", str(build), "--model", f"embeddings:{tmp_path / name}", "--quiet",
                 "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err.strip()
    assert name in error and "not a readable" in error and len(error.splitlines()) == 1


def test_a_build_regenerated_while_it_is_scored_is_refused_not_recorded(build, tmp_path, monkeypatch, capsys):
    """The identity was taken after scoring: the old build's scores went out under the new build's identity."""
    import pyarrow.parquet as pq

    from reasonaudio.evaluation import runner

    real = runner.run

    def regenerated_meanwhile(*args, **kwargs):
        result = real(*args, **kwargs)
        for path in build.rglob("qrels/*.parquet"):             # another build's tables land under the same names
            table = pq.read_table(path)
            pq.write_table(table.replace_schema_metadata({"regenerated": "yes"}), path)
        return result

    monkeypatch.setattr(runner, "run", regenerated_meanwhile)
    out = tmp_path / "run"
    assert main(["evaluate", "--data", str(build), "--model", "oracle", "--out", str(out), "--quiet"]) == 2
    assert "changed while it was scored" in capsys.readouterr().err and not (out / "results.json").exists()


def test_evaluate_refuses_an_out_holding_the_users_files(build, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("my notes")
    assert main(["evaluate", "--data", str(build), "--model", "oracle", "--out", str(out), "--quiet"]) == 2
    assert "holds files that are not a run's results (notes.txt)" in capsys.readouterr().err
    assert sorted(path.name for path in out.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("edit, message", [
    ({"mrr": 7.0}, "not a number from 0 to 1"),                  # printed as "mrr 112.0"
    ({"accuracy": 0.0, "mrr": 1.0}, "results.json says"),         # the oracle's first query, contradicting the run
])
def test_compare_refuses_per_query_values_out_of_range_or_against_results_json(build, tmp_path, capsys, edit, message):
    import pyarrow as pa
    import pyarrow.parquet as pq

    for model in ("oracle", "random"):
        assert main(["evaluate", "--data", str(build), "--model", model, "--out", str(tmp_path / model),
                     "--bootstrap", "0", "--quiet"]) == 0
    path = tmp_path / "oracle" / "per_query.parquet"
    table = pq.read_table(path)
    for column, value in edit.items():
        values = table.column(column).to_pylist()
        values[0] = value
        table = table.set_column(table.schema.get_field_index(column), column, pa.array(values, pa.float64()))
    pq.write_table(table, path)
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "random"), str(tmp_path / "oracle"), "--bootstrap", "0"]) == 2
    error = capsys.readouterr().err.strip()
    assert message in error and "per_query.parquet" in error and len(error.splitlines()) == 1


def _run_folder(folder: Path, tasks: list[str], accuracy: np.ndarray) -> str:
    """A run folder as evaluate writes it (results.json and per_query.parquet), from per-query accuracies."""
    folder.mkdir()
    means = {task: {"accuracy": float(accuracy[np.asarray(tasks) == task].mean())} for task in dict.fromkeys(tasks)}
    means["average"] = {"accuracy": float(np.mean([m["accuracy"] for m in means.values()]))}
    record = {"build": {"id": "b"}, "data": "demo", "model": folder.name, "spec": folder.name, "metrics": means,
              "parameters": {"mode": "group", "split": "test", "acoustics": None}}
    (folder / "results.json").write_text(json.dumps(record))
    pq.write_table(pa.table({"query_id": [f"q{i}" for i in range(len(tasks))], "task": tasks,
                             "accuracy": accuracy}), folder / "per_query.parquet")
    return str(folder)


@pytest.mark.parametrize("seed", range(8))
def test_compare_calls_a_change_significant_exactly_when_its_interval_excludes_zero(tmp_path, seed):
    """The interval of the change and its p-value come from the same paired bootstrap resamples, so they agree
    up to one resample (a paired randomization p-value beside the bootstrap interval disagrees on these runs)."""
    from reasonaudio.evaluation.compare import compare, markdown

    rng = np.random.default_rng(seed)
    tasks = ["order"] * 20 + ["negation"] * 20
    before = (rng.random(40) < 0.5).astype(np.float64)
    after = np.where(rng.random(40) < 0.3, 1.0, before)
    resamples = 1000
    runs = [_run_folder(tmp_path / "before", tasks, before), _run_folder(tmp_path / "after", tasks, after)]
    comparison = compare(runs, resamples=resamples)
    change = next(e for e in comparison["runs"] if e["name"] == "after")["versus_reference"]
    for task in ["order", "negation", "average"]:
        (low, high), p = change["intervals"][task]["accuracy"], change["p_values"][task]["accuracy"]
        assert (low > 0 or high < 0) == (p < 0.05) or abs(p - 0.05) <= 2 / resamples, (task, low, high, p)
    assert "| bootstrap p |" in markdown(comparison) and "p-value of the same resamples" in markdown(comparison)
