"""Nothing lost, nothing silently wrong: bad input to the metric, the loader, the runner and the CLI is a
clear one-line error naming its cause, raised before any work; every dtype scores like float64."""
import argparse
import itertools
import os
import re
from pathlib import Path

import evaluate
import numpy as np
import pytest
import torch

from reasonaudio.evaluation.runner import evaluate_encoders
from reasonaudio.evaluation.systems import EvalData
from reasonaudio.cli import build_parser, main
from reasonaudio_dataset import load_reasonaudio
from reasonaudio_metric.functional import score

from ..metric.test_metric import corpus_case, flat, group_case

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.fixture(scope="module")
def data(small_corpus) -> EvalData:
    return EvalData.load(str(small_corpus))


# ---------------------------------------------------------------- 1. encoders

def _encoder(width=4, wrong_at=None, wrong=None):
    """Random vectors, one per item; its call number `wrong_at` returns `wrong(batch)` instead."""
    calls = itertools.count()

    def encode(batch):
        vectors = np.random.default_rng(len(batch)).standard_normal((len(batch), width))
        return wrong(batch) if next(calls) == wrong_at else vectors
    return encode


@pytest.mark.parametrize("text, audio, message", [
    (_encoder(), _encoder(wrong_at=2, wrong=lambda b: np.ones((3, 4))),
     "encode_audio returned 3 vectors for batch 2 (clips 64-95) of 32 clips"),
    (_encoder(wrong_at=0, wrong=lambda b: np.full((len(b), 4), np.nan)), _encoder(),
     "encode_text returned NaN or inf for batch 0 (queries 0-29) of 30 queries"),
    (_encoder(), _encoder(wrong_at=1, wrong=lambda b: torch.full((len(b), 4), float("inf"))),
     "encode_audio returned NaN or inf for batch 1 (clips 32-63) of 32 clips"),
    (_encoder(), _encoder(width=3), "encode_audio returned 3-dim vectors for batch 0 (clips 0-31) of 32 clips; "
                                    "encode_text gave 4-dim ones"),
    (_encoder(), _encoder(wrong_at=4, wrong=lambda b: np.ones((len(b), 5))),
     "encode_audio returned 5-dim vectors for batch 4 (clips 128-159) of 32 clips; encode_text gave 4-dim ones"),
    (_encoder(wrong_at=0, wrong=lambda b: np.ones(len(b))), _encoder(),
     "encode_text returned an array of shape (30,) for batch 0"),
    (_encoder(wrong_at=0, wrong=lambda b: None), _encoder(), "encode_text returned a NoneType, not vectors, for batch 0"),
])
def test_a_wrong_encoder_batch_is_an_error_naming_it(data, text, audio, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        evaluate_encoders(data, text, audio, bootstrap=0, progress=False)


def test_encoder_settings_are_checked_before_loading_anything():
    for settings, message in [(dict(sampling_rate=0), "sampling_rate must be"), (dict(batch_size=0), "batch_size"),
                              (dict(bootstrap=-5), "bootstrap must be an integer >= 0, got -5"),
                              (dict(mode="ranking"), "mode must be one of")]:
        with pytest.raises(ValueError, match=message):  # the folder does not exist: nothing was loaded
            evaluate_encoders("/no/such/folder", _encoder(), _encoder(), **settings)
    message = ("evaluate_encoders: unknown keyword(s) ['batchsize']; it takes data, encode_text, encode_audio, "
               "sampling_rate, split, name, mode, device, batch_size, bootstrap, seed, progress")
    with pytest.raises(ValueError, match=re.escape(message)):
        evaluate_encoders("/no/such/folder", _encoder(), _encoder(), batchsize=4)


# ---------------------------------------------------------------- 2. dtypes

def _integers(x):
    return np.round(x * 3)


CONVERSIONS = {  # name: matrix (float32 numpy) -> input of that dtype
    "torch bfloat16": lambda x: torch.from_numpy(x).bfloat16(),
    "torch float16": lambda x: torch.from_numpy(x).half(),
    "torch requires_grad": lambda x: torch.from_numpy(x).requires_grad_(),
    "torch int64": lambda x: torch.from_numpy(_integers(x)).long(),
    "torch bool": lambda x: torch.from_numpy(x > 0.5),
    "torch float64": lambda x: torch.from_numpy(x).double(),
    "numpy float16": lambda x: x.astype(np.float16),
    "numpy int64": lambda x: _integers(x).astype(np.int64),
    "numpy bool": lambda x: x > 0.5,
    "numpy float64": lambda x: x.astype(np.float64),
}


def _same(result: dict, expected: dict) -> bool:
    """Equal results, per query included (to float64 rounding)."""
    ours, theirs = result.pop("per_query", {}), expected.pop("per_query", {})
    return flat(result) == pytest.approx(flat(expected), abs=1e-12) and ours.keys() == theirs.keys() and all(
        np.allclose(ours[k], theirs[k], rtol=0, atol=1e-12) for k in ours if k != "query_id")


def _float64(x) -> np.ndarray:
    return x.detach().double().cpu().numpy() if isinstance(x, torch.Tensor) else x.astype(np.float64)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["group", "corpus"])
@pytest.mark.parametrize("dtype", list(CONVERSIONS))
def test_every_dtype_scores_like_its_float64_values_in_both_modes(dtype, mode, device):
    if device != "cpu" and dtype.startswith("numpy"):
        pytest.skip("numpy arrays live on the CPU")
    similarity, *tables = corpus_case(12) if mode == "corpus" else group_case(12)
    matrix = CONVERSIONS[dtype](similarity)
    matrix = matrix.to(device) if isinstance(matrix, torch.Tensor) else matrix
    expected = score(_float64(matrix), *tables, bootstrap=20, per_query=True)
    assert _same(score(matrix, *tables, bootstrap=20, per_query=True), expected)


def _near_ties(rows, columns, seed):
    """float64 scores 1e-12 apart: distinct in float64, all equal once cast to float32."""
    order = np.argsort(np.random.default_rng(seed).random((rows, columns)), axis=1).astype(np.float64)
    return 1.0 + order * 1e-12, order


@pytest.mark.parametrize("mode", ["group", "corpus"])
def test_float64_near_ties_rank_in_float64(mode):
    _, *tables = corpus_case(13) if mode == "corpus" else group_case(13)
    close, order = _near_ties(len(tables[0]["query_id"]), len(tables[1]) if mode == "corpus" else 10, 13)
    expected = score(order, *tables, bootstrap=0, per_query=True)  # the same ranking, far apart
    assert not _same(score(close.astype(np.float32), *tables, bootstrap=0, per_query=True), dict(expected))
    for matrix in (close, torch.from_numpy(close)):
        assert _same(score(matrix, *tables, bootstrap=0, per_query=True), dict(expected))
    if mode == "group":  # the incremental evaluate path keeps float64 too
        metric = evaluate.load("./reasonaudio_metric")
        metric.add_batch(similarity=close.tolist(), query_id=tables[0]["query_id"])
        assert flat(metric.compute(queries=tables[0], bootstrap=0)) == pytest.approx(
            flat(score(order, *tables, bootstrap=0)), abs=1e-12)


def test_unrankable_dtypes_are_clear_errors():
    similarity, queries = group_case(14)
    with pytest.raises(ValueError, match="real numbers"):
        score(similarity.astype(np.complex64), queries, bootstrap=0)
    with pytest.raises(ValueError, match="real numbers"):
        score(similarity.astype(str), queries, bootstrap=0)
    with pytest.raises(ValueError, match=r"integer similarity beyond \+-2\*\*53"):
        score(torch.full(similarity.shape, 2 ** 60), queries, bootstrap=0)


# ---------------------------------------------------------------- 3. the metric's parameters

def test_add_batch_names_a_duplicate_or_unknown_query_id():
    similarity, queries = group_case(15, queries=4)
    metric = evaluate.load("./reasonaudio_metric")
    for ids, message in [(["q0", "q1", "q2", "q3", "q1"], "add_batch received query_id 'q1' twice"),
                         (["q0", "q1", "q2", "q3", "zz"], "add_batch received query_id 'zz', which is not in queries")]:
        for i, query_id in enumerate(ids):
            metric.add_batch(similarity=[similarity[i % 4].tolist()], query_id=[query_id])
        with pytest.raises(ValueError, match=message):
            metric.compute(queries=queries, bootstrap=0)


def test_empty_qrels_and_negative_bootstrap_are_clear_errors():
    similarity, queries, clip_ids, qrels = corpus_case(16)
    with pytest.raises(ValueError, match="qrels is empty: "):
        score(similarity, queries, clip_ids, {k: [] for k in qrels}, bootstrap=0)
    with pytest.raises(ValueError, match="bootstrap must be an integer >= 0, got -5"):
        score(similarity, queries, clip_ids, qrels, bootstrap=-5)
    with pytest.raises(ValueError, match="bootstrap must be an integer >= 0, got -5"):
        evaluate.load("./reasonaudio_metric").compute(similarity=similarity, queries=queries, corpus_ids=clip_ids,
                                                      qrels=qrels, bootstrap=-5)


# ---------------------------------------------------------------- 4. the loader

@pytest.mark.parametrize("rate", [0, 1, -16000, 999, 16000.0, 10 ** 9])
def test_load_reasonaudio_refuses_a_sampling_rate_outside_its_range(rate):
    """10**9 Hz (an encoder's slip) was a bad_alloc inside the resampler."""
    with pytest.raises(ValueError, match=r"sampling_rate must be None \(the stored rate\) or an integer from 1000 to"):
        load_reasonaudio("/no/such/folder", sampling_rate=rate)  # checked before anything loads


def test_a_folder_that_is_not_a_corpus_or_lacks_the_split_is_one_line(small_corpus, tmp_path):
    (tmp_path / "random").mkdir()
    (tmp_path / "random" / "notes.csv").write_text("a,b\n1,2\n")
    for folder in (tmp_path, tmp_path / "random"):
        with pytest.raises(ValueError, match="is not a ReasonAudio corpus"):
            load_reasonaudio(str(folder))
    with pytest.raises(ValueError, match=r"has no split 'train'; it has \['test'\]"):
        load_reasonaudio(str(small_corpus), split="train")


def test_a_folder_whose_generation_was_cut_off_says_so_and_how_to_resume(small_corpus, tmp_path):
    """A split planned but never finished (the run was killed: its `.plan.json` without the record written
    last) is named incomplete, with the command that resumes it, by every loader, not 'not a corpus'."""
    from reasonaudio_dataset import stream_reasonaudio
    from reasonaudio_dataset.card import RECORDS

    killed = tmp_path / "killed"
    (killed / RECORDS).mkdir(parents=True)
    (killed / RECORDS / "test.plan.json").write_text("{}")
    resume = f"split 'test' is incomplete (its generation was interrupted); run the same `reasonaudio generate --out {killed} --split test"
    for load in (load_reasonaudio, stream_reasonaudio, EvalData.load):
        with pytest.raises(ValueError, match=re.escape(resume)):
            load(str(killed))
    (small_corpus / RECORDS / "train.plan.json").write_text("{}")
    try:
        with pytest.raises(ValueError, match="split 'train' is incomplete"):
            load_reasonaudio(str(small_corpus), split="train")
    finally:
        (small_corpus / RECORDS / "train.plan.json").unlink()


# ---------------------------------------------------------------- 5. the command line

def _fails(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"reasonaudio {argv[0]}: ") and "\n" not in err and message in err, err
    return err


@pytest.mark.parametrize("options, message", [
    (["--batch-size", "0"], "--batch-size must be an integer >= 1, got 0"),
    (["--batch-size", "-4"], "--batch-size must be an integer >= 1, got -4"),
    (["--bootstrap", "-5"], "--bootstrap must be an integer >= 0, got -5"),
    (["--device", "gpu"], "unknown device 'gpu'"),
])
def test_evaluate_refuses_bad_parameters_before_any_work(small_corpus, tmp_path, capsys, options, message):
    out = tmp_path / "out"
    _fails(capsys, ["evaluate", "--data", str(small_corpus), "--model", "oracle", "--out", str(out), *options], message)
    assert not out.exists()


def test_evaluate_and_baselines_without_cuda_say_so(small_corpus, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    _fails(capsys, ["evaluate", "--data", str(small_corpus), "--model", "oracle", "--out", str(tmp_path / "o"),
                    "--device", "cuda", "--quiet"], "device 'cuda': CUDA is not available")   # (no status line first)
    _fails(capsys, ["baselines", "--data", str(small_corpus), "--device", "cuda", "--quiet"], "CUDA is not available")


@pytest.mark.parametrize("model", ["clap:some/unknown-repo", "two-stage:some/unknown-repo?captions=oracle"])
def test_a_model_that_cannot_be_fetched_offline_is_one_line(small_corpus, tmp_path, capsys, monkeypatch, model):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    err = _fails(capsys, ["evaluate", "--data", str(small_corpus), "--model", model, "--out", str(tmp_path / "o"),
                          "--quiet"], f"cannot load model {model}: not found, or cannot be fetched")
    assert "HF_HUB_OFFLINE" in err


def test_evaluate_refuses_data_that_is_not_a_corpus(tmp_path, capsys):
    (tmp_path / "random").mkdir()
    (tmp_path / "random" / "x.txt").write_text("hello")
    for folder in (tmp_path / "random", tmp_path / "empty"):
        folder.mkdir(exist_ok=True)
        _fails(capsys, ["evaluate", "--data", str(folder), "--model", "oracle", "--out", str(tmp_path / "o")],
               f"{folder} is not a ReasonAudio corpus")


def test_results_never_land_in_the_corpus_folder(small_corpus, capsys):
    for command in (["evaluate", "--model", "oracle"], ["baselines"]):
        _fails(capsys, [*command, "--data", str(small_corpus), "--out", str(small_corpus / "runs")],
               "is inside the corpus folder")
    assert not (small_corpus / "runs").exists()


def test_existing_results_are_kept_unless_overwrite(small_corpus, tmp_path, capsys):
    (tmp_path / "results.json").write_text("{}")
    # the model would fail to load: the refusal comes first, before any model or encoding work
    _fails(capsys, ["evaluate", "--data", str(small_corpus), "--model", "clap:some/unknown-repo", "--out",
                    str(tmp_path)],
           f"{tmp_path / 'results.json'} already exists; choose another --out or pass --overwrite")
    assert main(["evaluate", "--data", str(small_corpus), "--model", "oracle", "--out", str(tmp_path), "--overwrite",
                 "--bootstrap", "0", "--quiet"]) == 0
    assert '"model": "oracle"' in (tmp_path / "results.json").read_text()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "baselines.json").write_text("{}")
    _fails(capsys, ["baselines", "--data", str(small_corpus), "--out", str(tmp_path / "b")], "already exists")


def test_every_option_says_what_it_does_and_its_default(capsys):
    commands = next(a for a in build_parser()[0]._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name in commands:
        for action in commands[name]._actions:
            assert action.help, (name, action.dest)
            optional = action.option_strings and not action.required or action.nargs in ("*", "?")
            if optional and not isinstance(action, argparse._HelpAction):
                assert "default" in action.help, (name, action.dest)
        with pytest.raises(SystemExit):
            main([name, "--help"])
        assert "%%" not in capsys.readouterr().out


def test_stage_clis_register_into_one_command_without_importing_each_other():
    import subprocess
    import sys

    for module, other in (("reasonaudio.generation.cli", "reasonaudio.evaluation"), ("reasonaudio.evaluation.cli", "reasonaudio.generation.cli")):
        code = f"import sys, {module}; sys.exit({other!r} in sys.modules)"
        assert subprocess.run([sys.executable, "-c", code]).returncode == 0, f"{module} imports {other}"


def test_the_common_slips_are_refused_before_torch_or_datasets_load(small_corpus, tmp_path):
    """The mistakes a newcomer makes most are refused from the arguments and the folder's records alone
    (bench/refusal_bench.py times them): a missing folder, a split the folder lacks, another corpus's
    folder, an unknown model or option, a model folder that is not there, a Hub model offline."""
    import json
    import subprocess
    import sys

    data, out = str(small_corpus), str(tmp_path / "out")
    cases = [(["evaluate", "--data", str(tmp_path / "nosuchdir"), "--model", "oracle", "--out", out],
              "nosuchdir: no such folder (and not a Hub dataset id, which reads ORG/NAME)"),
             (["evaluate", "--data", "nosuchdir", "--model", "oracle", "--out", out], "nosuchdir: no such folder"),
             (["train", "--data", data, "--out", out], f"{data} has no split 'train'; it has ['test'] (make it with "
                                                       f"`reasonaudio generate --out {data} --split train --source "
                                                       "'synthetic:?variants=12'`)"),
             (["generate", "--out", data, "--queries-per-task", "5", "--sample-rate", "16000"],
              "its split 'test' belongs to a different corpus (atomic_sounds 96 there, 200 now, candidates 6 there, 10 now"),
             (["evaluate", "--data", data, "--model", "nosuch", "--out", out], "unknown model 'nosuch'"),
             (["evaluate", "--data", data, "--model", "oracle:?seed=1", "--out", out],
              "bad options for model 'oracle': unknown option(s) ['seed']; it takes no options"),
             (["evaluate", "--data", data, "--model", f"trained:{tmp_path / 'none'}", "--out", out], "no folder"),
             (["evaluate", "--data", data, "--model", "clap:some/unknown-repo", "--out", out],
              "cannot load model clap:some/unknown-repo: not found, or cannot be fetched while HF_HUB_OFFLINE is set")]
    code = ("import contextlib, io, json, sys; from reasonaudio.cli import main\n"
            f"said = []\nfor argv in {[argv for argv, _ in cases]!r}:\n"
            "    err = io.StringIO()\n    with contextlib.redirect_stderr(err):\n        status = main(argv)\n"
            "    said.append([status, err.getvalue()])\n"
            "print(json.dumps([said, [m for m in ('torch', 'datasets') if m in sys.modules]]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ,
                                                                                             "HF_HUB_OFFLINE": "1"})
    said, loaded = json.loads(done.stdout.strip().splitlines()[-1])
    for (argv, message), (status, err) in zip(cases, said):
        assert status == 2 and message in err and err.count("\n") == 1, (argv, err)
    assert loaded == [] and not (tmp_path / "out").exists()


def test_a_ray_address_nothing_answers_is_one_line_before_any_work(tmp_path, capsys):
    """ray.init would retry for minutes; the address is tried first (no Ray needed to be told so)."""
    import socket

    with socket.socket() as probe:      # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "out"
    _fails(capsys, ["generate", "--out", str(out), "--executor", f"ray:127.0.0.1:{port}", "--queries-per-task", "2",
                    "--quiet"], f"--executor ray:127.0.0.1:{port}: no Ray cluster answers at 127.0.0.1:{port} within 5 s")
    assert not out.exists()


def test_a_truncated_corpus_file_is_named_with_the_command_that_checks_the_folder(small_corpus, tmp_path, capsys):
    import shutil

    build = Path(shutil.copytree(small_corpus, tmp_path / "build"))
    damaged = sorted((build / "corpus").glob("test-*.parquet"))[0]
    damaged.write_bytes(damaged.read_bytes()[:damaged.stat().st_size // 2])      # a copy cut short
    error = _fails(capsys, ["evaluate", "--data", str(build), "--model", "oracle", "--out", str(tmp_path / "run"),
                            "--quiet"], f"cannot load the corpus table of {build} (split 'test'): {damaged} is damaged (")
    assert error.endswith(f"`reasonaudio validate {build}` checks every file")


@pytest.mark.parametrize("command, options, message", [
    ("generate", ["--sample-rate", "10000000"], "sample-rate must be at most 192000 Hz, got 10000000"),
    ("generate", ["--clip-seconds", "600", "--sample-rate", "192000"], "make a group of 4.3 GiB; at most 2 GiB"),
    ("generate", ["--queries-per-task", "100000000"], "queries-per-task must be from 1 to 100,000"),
    ("generate", ["--candidates", "1000"], "candidates must be from 2 to 100"),
    ("generate", ["--atomic-sounds", "0"], "atomic-sounds must be from 1 to 100,000"),
    ("generate", ["--workers", "100000"], "workers must be from 1 to 256"),
    ("generate", ["--seed", "-1"], "seed must be from 0 to 4,294,967,295"),
    ("demo", ["--queries-per-task", "0"], "queries-per-task must be from 1 to 100,000"),
    ("validate", ["--workers", "0"], "--workers must be from 1 to 256"),
    ("evaluate", ["--batch-size", "100000"], "--batch-size must be at most 4,096"),
    ("evaluate", ["--bootstrap", "10000000"], "--bootstrap must be at most 100,000"),
    ("evaluate", ["--seed", "-3"], "--seed must be an integer >= 0"),
    ("compare", ["--seed", "-1"], "--seed must be an integer >= 0"),
    ("train", ["--epochs", "100000"], "--epochs must be at most 10,000"),
    ("train", ["--batch-size", "100000"], "--batch-size must be at most 4,096"),
    ("train", ["--workers", "1000"], "--workers must be at most 256"),
    ("standin", ["--recordings", "1000000"], "recordings must be from 1 to 100000"),
])
@pytest.mark.slow
def test_every_numeric_option_is_bounded_to_what_audio_and_memory_allow(training_splits, tmp_path, capsys, command,
                                                                        options, message):
    data, out = str(training_splits), str(tmp_path / "out")
    where = {"generate": ["--out", out], "demo": ["--out", out], "validate": [data], "standin": [out],
             "evaluate": ["--data", data, "--split", "validation", "--model", "oracle", "--out", out],
             "compare": [str(tmp_path), str(tmp_path)], "train": ["--data", data, "--out", out]}[command]
    _fails(capsys, [command, *where, *options, *(["--quiet"] if command != "compare" else [])], message)
    assert not (tmp_path / "out").exists()


def _hint(error: str) -> list[str] | None:
    """The command a one-line error suggests (between backticks), as words, if any."""
    import re
    import shlex

    found = re.search(r"`(reasonaudio [^`]+)`", error)
    return shlex.split(found.group(1))[1:] if found else None


def _built_from(build, folder, source: str):
    """A copy of `build` whose record says it was built from `source` (what the folder checks read)."""
    import json
    import shutil

    shutil.copytree(build, folder)
    record = folder / ".reasonaudio" / "test.json"
    record.write_text(json.dumps({**(written := json.loads(record.read_text())),
                                  "parameters": {**written["parameters"], "source": source}}))
    return folder


def test_every_hint_to_make_a_split_parses_and_keeps_the_folders_source(small_corpus, tmp_path, capsys):
    """A natural folder's hint once wrote a full-size synthetic train split into it; `--split dev` was suggested."""
    from reasonaudio_dataset.folders import check_data

    parser, _ = build_parser()
    with pytest.raises(ValueError) as refused:
        check_data(str(small_corpus), ("train",))
    words = _hint(str(refused.value))
    parser.parse_args(words)                                       # it parses: every option is a real one
    assert words[words.index("--source") + 1] == "synthetic:?variants=12"
    with pytest.raises(ValueError, match="unknown split 'dev'"):
        check_data(str(small_corpus), ("dev",))
    natural = _built_from(small_corpus, tmp_path / "natural", "strong:st2?labels=audioset.tsv&as_split=test")
    with pytest.raises(ValueError) as refused:
        check_data(str(natural), ("train",))
    assert _hint(str(refused.value)) is None and "needs other recordings" in str(refused.value)


def test_a_folder_holds_one_kind_of_source(small_corpus, tmp_path, capsys):
    """`generate --out NATURAL --split train`, --source left out, wrote a full-size synthetic train split into a
    natural build (validate then said valid): it is refused before any work."""
    folder = _built_from(small_corpus, tmp_path / "build", "strong:st2?labels=audioset.tsv")
    _fails(capsys, ["generate", "--out", str(folder), "--split", "train", "--queries-per-task", "2", "--quiet"],
           "holds splits built from strong:st2?labels=audioset.tsv: a folder holds one kind of source")
    assert not (folder / ".reasonaudio" / "train.plan.json").exists()


def test_a_hub_dataset_id_is_refused_at_once_when_the_hub_cannot_be_reached(monkeypatch, tmp_path, capsys):
    """Not offline, and nothing answers at the Hub's endpoint: one line naming the id, the host and the way to
    use a cached copy, from the loader and from the command line alike (datasets would retry for ~25 s)."""
    import huggingface_hub

    from reasonaudio import load_reasonaudio
    from reasonaudio.cli import main

    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", "http://127.0.0.1:9")    # the discard port: refused
    with pytest.raises(ValueError, match=r"someorg/build: no such folder, and the Hub dataset someorg/build cannot "
                                         r"be fetched \(127\.0\.0\.1 cannot be reached: .*HF_HUB_OFFLINE=1"):
        load_reasonaudio("someorg/build")
    assert main(["evaluate", "--data", "someorg/build", "--model", "oracle", "--out", str(tmp_path / "r")]) == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "127.0.0.1 cannot be reached" in said and not (tmp_path / "r").exists()
    from reasonaudio.evaluation.systems import check_spec

    with pytest.raises(ValueError, match=r"cannot load model clap:someorg/model: .*127\.0\.0\.1 cannot be reached"):
        check_spec("clap:someorg/model")          # a model id, told by the same check
