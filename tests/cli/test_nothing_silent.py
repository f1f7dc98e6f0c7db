"""What could be silently wrong or lost. Each case reproduces the failure on stand-in data the
test makes; the kills are injected at the file move (a move that raises), not sent as signals."""
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile

import reasonaudio.evaluation.report as report
import reasonaudio.generation.pipeline as pipeline
from reasonaudio.cli import main
from reasonaudio.generation.standin import write_standin

from ..conftest import killed_after

NATURAL = ["--queries-per-task", "3", "--sample-rate", "16000", "--quiet"]


def _natural_spec(folder, table="labels.tsv", extra=""):
    return f"strong:{folder}?labels={table}&as_split=test{extra}"


@pytest.mark.slow
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


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_compare_refuses_a_score_that_is_not_a_number_naming_the_file(small_corpus, tmp_path, capsys, bad):
    import pyarrow as pa
    import pyarrow.parquet as pq

    evaluate = ["evaluate", "--data", str(small_corpus), "--bootstrap", "0", "--quiet"]
    for name in ("a", "b"):
        assert main([*evaluate, "--model", "random", "--out", str(tmp_path / name)]) == 0
    per_query = tmp_path / "b" / "per_query.parquet"
    table = pq.read_table(per_query)
    accuracy = table.column("accuracy").to_pylist()
    table = table.set_column(table.column_names.index("accuracy"), "accuracy", pa.array([bad] + accuracy[1:]))
    pq.write_table(table, per_query)
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "cmp")]) == 2
    err = capsys.readouterr().err
    assert str(per_query) in err and "accuracy" in err and len(err.strip().splitlines()) == 1


def _queries(hard_negatives):
    n = len(hard_negatives)
    return {"query_id": [f"q{i}" for i in range(n)], "task": ["order", "negation"] * (n // 2),
            "candidates": [[f"c{i}-{j}" for j in range(4)] for i in range(n)],
            "positive": [f"c{i}-0" for i in range(n)],
            "hard_negatives": [[f"c{i}-{j}" for j in negatives] for i, negatives in enumerate(hard_negatives)]}


def test_hard_negative_pairwise_is_scored_over_the_queries_that_have_them_saying_how_many():
    from reasonaudio_metric.functional import HARD_NEGATIVE, score

    rng = np.random.default_rng(0)
    similarity = rng.normal(size=(8, 4))
    every = [[1], [1, 2], [3], [2], [1, 3], [2], [3], [1]]
    full = score(similarity, _queries(every), bootstrap=50, per_query=True)
    assert "hard_negative_queries" not in full                       # every query has them: as before
    some = [n if i not in (0, 3) else [] for i, n in enumerate(every)]
    partial = score(similarity, _queries(some), bootstrap=50, per_query=True, baseline_similarity=-similarity,
                    by=("task", "query_id"))
    assert partial["hard_negative_queries"] == {"order": 3, "negation": 3}
    kept = [i for i in range(8) if i not in (0, 3)]
    by_query = dict(zip(full["per_query"]["query_id"], full["per_query"][HARD_NEGATIVE]))
    for task in ("order", "negation"):
        mine = [by_query[f"q{i}"] for i in kept if _queries(every)["task"][i] == task]
        assert partial[task][HARD_NEGATIVE] == pytest.approx(np.mean(mine))
        assert partial[task]["accuracy"] == full[task]["accuracy"]       # the other metrics keep every query
        low, high = partial["intervals"][task][HARD_NEGATIVE]
        assert 0 <= low <= high <= 1 and 0 <= partial["p_values"][task][HARD_NEGATIVE] <= 1
    assert partial["per_query"][HARD_NEGATIVE][0] is None and partial["breakdown"]["cells"]["order/query_id=q0"][
        HARD_NEGATIVE] is None
    json.dumps(partial, allow_nan=False)                                  # no NaN reaches a results.json
    none = score(similarity, _queries([[]] * 8), bootstrap=0)
    assert HARD_NEGATIVE not in none["average"]


def test_a_build_where_some_queries_have_no_hard_negative_still_scores_and_compares_them(small_corpus, tmp_path,
                                                                                       capsys):
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    build = Path(shutil.copytree(small_corpus, tmp_path / "build"))
    path = next((build / "queries").glob("*.parquet"))
    table = pq.read_table(path)
    negatives = table.column("hard_negatives").to_pylist()
    table = table.set_column(table.column_names.index("hard_negatives"), "hard_negatives",
                             pa.array([[]] + negatives[1:], type=table.schema.field("hard_negatives").type))
    pq.write_table(table, path)
    for model in ("oracle", "random"):
        assert main(["evaluate", "--data", str(build), "--model", model, "--bootstrap", "20", "--quiet",
                     "--out", str(tmp_path / model)]) == 0
    printed = capsys.readouterr().out
    assert f"hard_negative_pairwise is over the {len(negatives) - 1} of {len(negatives)} queries" in printed
    metrics = json.loads((tmp_path / "oracle" / "results.json").read_text())["metrics"]
    assert metrics["average"]["hard_negative_pairwise"] == 1.0
    assert main(["compare", str(tmp_path / "oracle"), str(tmp_path / "random"), "--bootstrap", "20",
                 "--out", str(tmp_path / "cmp")]) == 0


def _training_build(out, seed):
    from reasonaudio.generation.pipeline import generate

    from ..conftest import small_config

    shutil.rmtree(out, ignore_errors=True)
    for split in ("validation", "train"):
        generate(small_config(out, split=split, source="synthetic:?variants=30", queries_per_task=3, seed=seed))


@pytest.mark.parametrize("finished", [False, True])
@pytest.mark.slow
def test_train_never_resumes_onto_data_regenerated_at_the_same_path(tmp_path, monkeypatch, capsys, finished):
    """Killed after epoch 1 (or finished), the data regenerated with another seed at the same --data: the
    same command is refused by name, not continued (or its old score reprinted) on the new data."""
    from reasonaudio.training import loop

    data, out = tmp_path / "data", tmp_path / "model"
    _training_build(data, seed=1)
    command = ["train", "--data", str(data), "--out", str(out), "--epochs", "2", "--max-steps", "1",
               "--batch-size", "4", "--quiet"]
    if finished:
        assert main(command) == 0
    else:
        killed_after(monkeypatch, loop, "validate_epoch", calls=1)
        with pytest.raises(KeyboardInterrupt):
            main(command)
        monkeypatch.undo()
    before = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    _training_build(data, seed=2)
    capsys.readouterr()
    assert main(command) == 2
    err = capsys.readouterr().err
    assert "other data" in err and str(data) in err and len(err.strip().splitlines()) == 1
    assert {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before     # nothing lost


@pytest.mark.parametrize("transforms, refused", [
    ([{"AddGaussianSNR": {"min_snr_db": 0, "max_snr_db": 0}}] * 30, True),
    ([{"AddGaussianSNR": {"min_snr_db": 3.02, "max_snr_db": 10}}, {"AddColorNoise": {"min_snr_db": 3.02, "max_snr_db": 10}}],
     False),                                                                    # just above 0 dB together
    ([{"AddGaussianSNR": {"min_snr_db": 2, "max_snr_db": 10}}, {"AddColorNoise": {"min_snr_db": 2, "max_snr_db": 10}}],
     True),
    ([{"OneOf": {"transforms": [{"AddGaussianSNR": {"min_snr_db": 0, "max_snr_db": 0}}] * 30}}], False),
    ([{"SomeOf": {"num_transforms": [1, 2], "transforms": [{"AddGaussianSNR": {"min_snr_db": 1, "max_snr_db": 1}}] * 5}}],
     True),
    ([{"AddGaussianSNR": {"min_snr_db": 0, "max_snr_db": 0, "p": 0.0}}] * 30 + [{"Gain": {"min_gain_db": 0, "max_gain_db": 0}}],
     False),
])
def test_chained_noise_is_judged_as_the_noise_of_the_whole_chain(tmp_path, capsys, transforms, refused):
    """30 x AddGaussianSNR at 0 dB, each judged alone, would pass clips far below 0 dB SNR; every noise of a
    chain that can play together is summed (each at its lowest SNR), and the total must stay at the rules' floor."""
    pytest.importorskip("audiomentations")
    from reasonaudio.generation.acoustics.spec import ConditionError, load_condition

    path = tmp_path / "stacked.yaml"
    path.write_text(json.dumps({"name": "stacked", "transforms": transforms}))        # JSON is YAML, without aliases
    if not refused:
        load_condition(str(path))
        return
    with pytest.raises(ConditionError, match="together"):
        load_condition(str(path))
    assert main(["generate", "--out", str(tmp_path / "out"), "--acoustics", str(path), "--queries-per-task", "1",
                 "--sample-rate", "16000", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "stacked.yaml" in err and "together" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("damage", ["deleted", "extra", "rows"])
def test_evaluate_on_a_folder_with_a_deleted_or_extra_shard_names_the_file(small_corpus, tmp_path, capsys, damage):
    import pyarrow.parquet as pq

    build = Path(shutil.copytree(small_corpus, tmp_path / "build"))
    shards = sorted((build / "corpus").glob("test-*.parquet"))
    assert len(shards) > 1
    if damage == "rows":                       # the same files, rows dropped: the card's split sizes differ
        path = next((build / "qrels").glob("*.parquet"))
        table = pq.read_table(path)
        pq.write_table(table.slice(0, table.num_rows - 3), path)
        named = "qrels table"
    elif damage == "deleted":
        shards[-1].unlink()
        named = shards[-1].name
    else:
        named = "test-00009-of-00009.parquet"
        shutil.copy(shards[0], build / "corpus" / named)
    assert main(["evaluate", "--data", str(build), "--model", "oracle", "--out", str(tmp_path / "run"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert named in err and "validate" in err and len(err.strip().splitlines()) == 1


def _small_queries():
    return {"query_id": ["a", "b"], "task": ["order", "order"], "candidates": [["x", "y"], ["z", "w"]],
            "positive": ["x", "z"]}


QRELS = {"query_id": ["a", "b"], "clip_id": ["x", "z"], "score": [1, 1]}


@pytest.mark.parametrize("call, message", [
    (lambda score: score(np.zeros((2, 2)), {**_small_queries(), "task": ["order"]}), "task has 1 value"),
    (lambda score: score(np.zeros((2, 2)), _small_queries(), by=("task", "candidates")), "candidates"),
    (lambda score: score(np.zeros((2, 4)), _small_queries(), [1, 2, 3, 4], QRELS), "corpus id"),
    (lambda score: score(np.zeros((2, 2)), _small_queries(), seed="x"), "seed"),
    (lambda score: score(np.zeros((2, 2)), _small_queries(), seed=-1), "seed"),
    (lambda score: score(np.zeros((2, 2)), _small_queries(), bootstrap=10 ** 12), "bootstrap"),
    (lambda score: score(np.zeros((2, 2)), {**_small_queries(), "candidates": [["x", "x"], ["z", "w"]]}),
     "candidate 'x' twice"),
    (lambda score: score(np.zeros((2, 2)), {**_small_queries(), "candidates": ["xy", "zw"]}), "list of clip ids"),
    (lambda score: score(np.zeros((2, 2)), {**_small_queries(), "hard_negatives": ["y", "w"]}), "list of clip ids"),
    (lambda score: score(np.zeros((2, 4)), _small_queries(), ["x", "y", "z", "w"], {**QRELS, "clip_id": ["x"]}),
     "clip_id has 1 value"),
])
def test_the_metric_refuses_bad_input_with_a_value_error_naming_it(call, message):
    from reasonaudio_metric.functional import score

    with pytest.raises(ValueError, match=message):
        call(score)


def test_the_bootstrap_is_bounded_by_the_memory_it_draws():
    from reasonaudio_metric.functional import MAX_RESAMPLES, bootstrap_intervals

    tasks = np.array(["order"] * 2000)
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_intervals({"accuracy": np.zeros(2000)}, tasks, MAX_RESAMPLES, 0)


def _refused(capsys, argv, *named):
    """`argv` ends in one line naming each of `named`, exit 2, before any work (quickly, nothing written)."""
    import time

    start = time.time()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert all(name in err for name in named), err
    return time.time() - start


@pytest.mark.parametrize("argv, named", [
    (["generate", "--seed", "-1"], ["seed"]),
    (["evaluate", "--model", "oracle", "--seed", "-1"], ["--seed"]),
    (["evaluate", "--model", "oracle", "--bootstrap", str(10 ** 12)], ["--bootstrap"]),
    (["evaluate", "--model", "random:?seed=abc"], ["seed", "'abc'"]),
    (["evaluate", "--model", "shortcut-audit:?workers=two"], ["workers", "'two'"]),
    (["evaluate", "--model", "listwise-audit:?seed=-3"], ["seed", "'-3'"]),
    (["evaluate", "--model", f"random:?seed={10 ** 20}"], ["seed", str(10 ** 20)]),
])
def test_a_bad_number_is_one_line_naming_its_option(small_corpus, tmp_path, capsys, argv, named):
    where = ["--out", str(tmp_path / "out")] + (["--data", str(small_corpus)] if argv[0] == "evaluate" else
                                               ["--queries-per-task", "1", "--sample-rate", "16000"])
    assert _refused(capsys, [*argv, *where, "--quiet"], *named) < 30
    assert not (tmp_path / "out").exists()


def test_compare_refuses_one_run_given_twice(small_corpus, tmp_path, capsys):
    assert main(["evaluate", "--data", str(small_corpus), "--model", "random", "--bootstrap", "0", "--quiet",
                 "--out", str(tmp_path / "a")]) == 0
    capsys.readouterr()
    _refused(capsys, ["compare", str(tmp_path / "a"), str(tmp_path / "x" / ".." / "a"), "--out", str(tmp_path / "c")],
             "twice")


def test_compare_checks_its_numbers_first(tmp_path, capsys):
    for option, value in (("--seed", "-1"), ("--bootstrap", str(10 ** 12))):
        _refused(capsys, ["compare", "a", "b", option, value, "--out", str(tmp_path / "cmp")], option)
    assert not (tmp_path / "cmp").exists()


@pytest.mark.slow
def test_dual_with_a_bad_option_value_names_it(training_splits, tmp_path, capsys):
    assert main(["train", "--data", str(training_splits), "--out", str(tmp_path / "m"), "--model",
                 f"dual:{tmp_path}?adapter_layers=x", "--quiet"]) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]         # after datasets' own progress lines
    assert "adapter_layers" in error and "'x'" in error and "invalid literal" not in error


@pytest.mark.parametrize("content", ["not json\n", "[1, 2]\n", '{"clip_id": "a", "caption": 3}\n', b"\xff\xfe\x00"])
def test_a_bad_captions_file_is_one_line_naming_it(small_corpus, tmp_path, capsys, content):
    from reasonaudio.evaluation.systems.two_stage import read_captions

    path = tmp_path / "captions.jsonl"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ValueError, match="captions.jsonl"):
        read_captions(str(path), {"clip_id": ["a"], "caption": ["x"]})


def test_publish_refuses_a_repo_id_that_is_none_before_validating(small_corpus, capsys):
    _refused(capsys, ["publish", str(small_corpus), "--repo-id", "not a repo", "--dry-run"], "--repo-id", "not a repo")
