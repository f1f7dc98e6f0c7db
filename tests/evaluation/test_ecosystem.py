"""The paths researchers come from: MTEB, evaluate (Space, combine), their own encoders and embeddings,
torchrun, and the embedding cache."""
import json
import os
import subprocess
import sys
from pathlib import Path

import evaluate
import huggingface_hub
import numpy as np
import torch
import pytest
import yaml

from tests import toy_encoder
from ..conftest import killed_after
from reasonaudio.evaluation.runner import evaluate_encoders
from reasonaudio.evaluation.systems import EvalData, open_system
from reasonaudio.evaluation import save_embeddings
from reasonaudio.models import encoding
from reasonaudio.cli import main
from reasonaudio_metric import space

TESTS = Path(__file__).resolve().parents[1]


def _ours(small_corpus, mode):
    toy = toy_encoder.build()
    return evaluate_encoders(str(small_corpus), toy.encode_text, toy.encode_audio, 16000, mode=mode, bootstrap=0,
                             progress=False)


@pytest.mark.parametrize("mode", ["group", "corpus"])
def test_mteb_runs_end_to_end_and_agrees_with_the_metric(small_corpus, mode):
    mteb = pytest.importorskip("mteb")
    from reasonaudio.evaluation.mteb_model import MtebEncoder
    from reasonaudio.evaluation.systems.python_model import build
    from reasonaudio_dataset.mteb_task import reasonaudio_task

    model = MtebEncoder(build("tests.toy_encoder:build"))
    # no result cache: mteb would serve the rounded result another test of the session stored for this corpus
    result = mteb.evaluate(model, tasks=[reasonaudio_task(str(small_corpus), mode=mode)], cache=None)
    scores = result.task_results[0].scores["test"][0]
    ours = _ours(small_corpus, mode)
    tasks = list(ours["num_queries"])
    if mode == "group":
        assert scores["main_score"] == scores["group_accuracy"]
        assert abs(scores["group_accuracy"] - ours["average"]["accuracy"]) < 1e-9
        for task in tasks:
            assert abs(scores[f"group_accuracy_{task}"] - ours[task]["accuracy"]) < 1e-9
        assert 0 < ours["average"]["accuracy"] < 1
    else:   # MTEB's pytrec_eval nDCG@10 over the ranking MTEB made, excluded clips left out as the metric does
        assert abs(scores["reasonaudio_ndcg_at_10"] - ours["average"]["ndcg@10"]) < 1e-6
        for task in tasks:
            assert abs(scores[f"ndcg_at_10_{task}"] - ours[task]["ndcg@10"]) < 1e-6
        assert abs(scores["ndcg_at_10"] - ours["average"]["ndcg@10"]) < 1e-5   # MTEB rounds to 5 decimals
        assert scores["main_score"] == scores["ndcg_at_10"]


def test_python_factory_model_from_the_cli(small_corpus, tmp_path):
    assert main(["evaluate", "--data", str(small_corpus), "--model", "python:tests.toy_encoder:build?sampling_rate=16000",
                 "--bootstrap", "0", "--no-cache", "--quiet", "--out", str(tmp_path)]) == 0
    found = json.loads((tmp_path / "results.json").read_text())["metrics"]
    assert found["average"] == _ours(small_corpus, "group")["average"]
    assert open_system("python:tests.toy_encoder:build").identity is not None       # cached: it has a cache_key
    assert open_system("python:tests.toy_encoder:build?keyed=no").identity is None  # without one, never cached
    with pytest.raises(ValueError, match="does not take these options"):
        open_system("python:tests.toy_encoder:build?size=big")
    with pytest.raises(ValueError, match="cannot import 'no_such_module'"):
        open_system("python:no_such_module:build")
    with pytest.raises(ValueError, match="needs MODULE:FACTORY"):
        open_system("python:toy_encoder")
    with pytest.raises(ValueError, match="lacks encode_text, encode_audio, sampling_rate"):
        open_system("python:json:loads?s=1")


@pytest.mark.parametrize("suffix", [".npz", ".parquet"])
@pytest.mark.slow
def test_precomputed_embeddings_score_as_the_model_does(small_corpus, tmp_path, suffix):
    data, toy = EvalData.load(str(small_corpus)), toy_encoder.build()
    queries = toy.encode_text(list(data.queries["text"]))
    clips = np.concatenate(list(map(toy.encode_audio, data.audio_batches(16000, 32, progress=False))))
    order = np.random.default_rng(0).permutation(len(clips))       # any row order: rows are matched by id
    ids = np.asarray(data.corpus["clip_id"])
    path = save_embeddings(tmp_path / f"vectors{suffix}", data.queries["query_id"], queries, ids[order], clips[order])
    for mode in ("group", "corpus"):
        out = tmp_path / mode
        assert main(["evaluate", "--data", str(small_corpus), "--model", f"embeddings:{path}", "--mode", mode,
                     "--bootstrap", "0", "--quiet", "--out", str(out)]) == 0
        found = json.loads((out / "results.json").read_text())["metrics"]
        assert found["average"] == pytest.approx(_ours(small_corpus, mode)["average"], abs=1e-9)
    save_embeddings(tmp_path / f"short{suffix}", data.queries["query_id"], queries, ids[:-2], clips[:-2])
    with pytest.raises(ValueError, match=f"no vector for 2 of the split's {len(ids)} clip ids"):
        open_system(f"embeddings:{tmp_path / f'short{suffix}'}").similarity(data)
    with pytest.raises(ValueError, match="one vector"):
        save_embeddings(tmp_path / f"bad{suffix}", data.queries["query_id"], queries[:-1], ids, clips)
    data.acoustics = "noisy"                    # the file cannot say which condition's clips it encodes
    with pytest.raises(ValueError, match="leave out --acoustics"):
        open_system(f"embeddings:{path}").similarity(data)


@pytest.mark.slow
def test_second_and_interrupted_runs_reuse_the_embedding_cache(small_corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(encoding, "CHUNK", 16)
    command = ["evaluate", "--data", str(small_corpus), "--model", "python:tests.toy_encoder:build", "--bootstrap", "0",
               "--batch-size", "16", "--cache", str(tmp_path / "cache"), "--quiet", "--overwrite"]
    killed_after(monkeypatch, toy_encoder.ToyEncoder, "encode_audio", 3)     # killed after 3 chunks of clips
    with pytest.raises(KeyboardInterrupt):
        main(command + ["--out", str(tmp_path / "a")])
    monkeypatch.undo()
    monkeypatch.setattr(encoding, "CHUNK", 16)
    calls = []
    real = toy_encoder.ToyEncoder.encode_audio
    monkeypatch.setattr(toy_encoder.ToyEncoder, "encode_audio", lambda self, arrays: calls.append(len(arrays)) or real(self, arrays))
    assert main(command + ["--out", str(tmp_path / "a")]) == 0
    clips = len(EvalData.load(str(small_corpus)).corpus)
    assert sum(calls) == clips - 3 * 16                                      # the resumed run encodes the rest only
    calls.clear()
    assert main(command + ["--out", str(tmp_path / "b")]) == 0
    assert calls == []                                                        # a second run encodes nothing
    results = [json.loads((tmp_path / run / "results.json").read_text())["metrics"] for run in "ab"]
    assert results[0] == results[1] and results[0]["average"] == _ours(small_corpus, "group")["average"]


@pytest.mark.slow
def test_torchrun_two_processes_give_the_one_process_similarity(small_corpus, tmp_path):
    environment = {**os.environ, "PYTHONPATH": str(TESTS.parent)}
    command = ["evaluate", "--data", str(small_corpus), "--model", "python:tests.toy_encoder:build", "--mode", "corpus",
               "--bootstrap", "0", "--quiet"]
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
                "-m", "reasonaudio"]
    shown = [word for word in command if word != "--quiet"]     # rank 0's bars: they say they count its share
    done = subprocess.run(torchrun + shown + ["--out", str(tmp_path / "two"), "--cache", str(tmp_path / "cache")],
                          env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    clips = len(EvalData.load(str(small_corpus)).corpus)
    assert f"encoding clips (rank 0's share of {clips:,}, 2 processes)" in done.stderr
    assert main(command + ["--out", str(tmp_path / "one"), "--no-cache"]) == 0
    two, one = (json.loads((tmp_path / run / "results.json").read_text())["metrics"] for run in ("two", "one"))
    assert two == one
    shared = sorted(p.name for p in (tmp_path / "cache").rglob("*.npy"))     # both ranks' chunks were saved
    assert len(shared) == -(-clips // encoding.CHUNK) + 1


def test_metric_space_folder_loads_offline_and_uploads_as_a_gradio_space(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "reasonaudio"
    assert main(["publish-metric", "--repo-id", "my-org/reasonaudio", "--out", str(folder), "--dry-run"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "app.py", "functional.py", "reasonaudio.py",
                                                        "requirements.txt"]
    queries = {"query_id": ["q0", "q1"], "task": ["order", "negation"], "candidates": [["a", "b"], ["c", "d"]],
               "positive": ["a", "d"]}
    similarity = np.array([[0.9, 0.1], [0.5, 0.5]])
    loaded = evaluate.load(str(folder)).compute(similarity=similarity, queries=queries, bootstrap=0)
    assert loaded == evaluate.load("./reasonaudio_metric").compute(similarity=similarity, queries=queries, bootstrap=0)
    namespace = {"__name__": "app"}                                            # imported, not run: no network
    exec(compile((folder / "app.py").read_text(), "app.py", "exec"), namespace)
    assert namespace["MODULE"] == "my-org/reasonaudio"
    page = namespace["score"](namespace["EXAMPLE_SIMILARITY"], namespace["EXAMPLE_QUERIES"], metric=evaluate.load(str(folder)))
    assert page["average"]["accuracy"] == 0.75
    pins = (folder / "requirements.txt").read_text().splitlines()
    assert f"evaluate=={evaluate.__version__}" in pins and f"gradio=={space.GRADIO}" in pins
    assert f"huggingface-hub=={huggingface_hub.__version__}" in pins
    card = (folder / "README.md").read_text()
    front = yaml.safe_load(card.split("---\n")[1])
    assert front["sdk"] == "gradio" and front["sdk_version"] == space.GRADIO and front["app_file"] == "app.py"
    assert front["python_version"] == f"{sys.version_info.major}.{sys.version_info.minor}"   # numpy 2.3+ needs 3.11
    assert 'evaluate.load("my-org/reasonaudio")' in card and "# Metric Card for ReasonAudio" in card
    for repo_id, out, message in [("my-org/reasonaudio", folder, "not empty"),
                                  ("my-org/other", tmp_path / "x", "must be named 'other'"),
                                  ("reasonaudio", tmp_path / "reasonaudio2", "ORG/NAME")]:
        assert main(["publish-metric", "--repo-id", repo_id, "--out", str(out), "--dry-run"]) == 2
        assert message in capsys.readouterr().err
    monkeypatch.setattr(space, "GRADIO_HUB", "<0.1")     # an environment whose huggingface-hub gradio cannot use
    assert main(["publish-metric", "--repo-id", "my-org/reasonaudio", "--out", str(tmp_path / "old" / "reasonaudio"),
                 "--dry-run"]) == 2
    assert "needs huggingface-hub<0.1" in capsys.readouterr().err and not (tmp_path / "old").exists()
    monkeypatch.undo()

    calls = []

    class FakeApi:
        def create_repo(self, repo_id, **kwargs):
            calls.append(("create_repo", repo_id, kwargs))
            return f"https://huggingface.co/spaces/{repo_id}"

        def upload_folder(self, **kwargs):
            calls.append(("upload_folder", sorted(p.name for p in Path(kwargs["folder_path"]).iterdir()), kwargs["repo_type"]))

    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    assert main(["publish-metric", "--repo-id", "my-org/reasonaudio"]) == 0
    assert calls[0] == ("create_repo", "my-org/reasonaudio", {"repo_type": "space", "space_sdk": "gradio",
                                                              "private": False, "exist_ok": True})
    assert calls[1] == ("upload_folder", sorted(p.name for p in folder.iterdir()), "space")


def test_the_metric_card_names_the_gradio_the_space_gets():
    """reasonaudio_metric/README.md is the Space's card as shipped: its sdk_version is the one
    publish-metric writes."""
    front = yaml.safe_load((Path(space.__file__).parent / "README.md").read_text().split("---\n")[1])
    assert front["sdk"] == "gradio" and str(front["sdk_version"]) == space.GRADIO


def _pypi_reachable() -> bool:
    import urllib.request

    try:
        urllib.request.urlopen("https://pypi.org/simple/gradio/", timeout=10).close()
        return True
    except OSError:
        return False


@pytest.mark.slow
def test_the_space_requirements_install_together_and_its_app_starts(tmp_path):
    """What the Space does at start: install its pins and gradio (the card's sdk_version), import gradio, build
    the page; about a minute and 600 MB in a scratch venv. (gradio 4.44.1 beside datasets 5 installs, then
    fails right here: `cannot import name 'HfFolder' from 'huggingface_hub'`.)"""
    if not _pypi_reachable():
        pytest.skip("needs PyPI (CI has it): installs the Space's requirements")
    folder = space.build_space("my-org/reasonaudio", tmp_path / "reasonaudio")
    front = yaml.safe_load((folder / "README.md").read_text().split("---\n")[1])
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    installed = subprocess.run([python, "-m", "pip", "install", "-q", "-r", str(folder / "requirements.txt"),
                                f"gradio[oauth]=={front['sdk_version']}"], capture_output=True, text=True, timeout=1200)
    assert installed.returncode == 0, installed.stderr[-3000:]
    started = subprocess.run(
        [python, "-c", "import sys, evaluate, app; app.page(); "
                       "print(app.score(app.EXAMPLE_SIMILARITY, app.EXAMPLE_QUERIES, metric=evaluate.load(sys.argv[1]))"
                       "['average']['accuracy'])", str(folder)],
        cwd=folder, capture_output=True, text=True, timeout=300, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert started.returncode == 0, started.stderr[-3000:]
    assert started.stdout.split()[-1] == "0.75"


def test_metric_combines_one_shot_and_incrementally():
    metric = evaluate.load("./reasonaudio_metric")
    queries = {"query_id": ["q0", "q1"], "task": ["order", "negation"], "candidates": [["a", "b"], ["c", "d"]],
               "positive": ["a", "d"]}
    similarity = np.array([[0.9, 0.1], [0.5, 0.5]])
    alone = metric.compute(similarity=similarity, queries=queries, bootstrap=0)
    combined = evaluate.combine([metric])
    assert combined.compute(similarity=similarity, queries=queries, bootstrap=0) == alone
    for row in range(2):
        combined.add_batch(similarity=similarity[row:row + 1], query_id=queries["query_id"][row:row + 1])
    assert combined.compute(queries=queries, bootstrap=0) == alone
    with pytest.raises(ValueError, match="not predictions/references"):
        evaluate.combine([metric]).compute(predictions=[1], references=[1], similarity=similarity, queries=queries)


@pytest.mark.parametrize("scale", [1e30, 1e-35])
@pytest.mark.slow
def test_cosine_is_the_same_at_any_scale_of_the_features(small_corpus, tmp_path, scale):
    """Features x 1e30 overflow float32 squares, x 1e-35 underflow them: either scored at chance, silently."""
    from reasonaudio.evaluation.runner import evaluate_encoders

    toy = toy_encoder.build()

    def scaled(encode):
        return lambda items: (np.asarray(encode(items), np.float64) * scale).astype(np.float32)

    def average(text, audio):
        return evaluate_encoders(str(small_corpus), text, audio, toy.sampling_rate, bootstrap=0, progress=False)["average"]

    assert average(scaled(toy.encode_text), scaled(toy.encode_audio)) == average(toy.encode_text, toy.encode_audio)
    data = EvalData.load(str(small_corpus))
    queries = toy.encode_text(list(data.queries["text"]))
    clips = np.concatenate(list(map(toy.encode_audio, data.audio_batches(16000, 32, progress=False))))
    ids = data.corpus["clip_id"]
    plain = save_embeddings(tmp_path / "plain.npz", data.queries["query_id"], queries, ids, clips)
    large = save_embeddings(tmp_path / "large.npz", data.queries["query_id"], queries * min(scale, 1e25),
                            ids, clips * min(scale, 1e25))
    assert torch.allclose(open_system(f"embeddings:{large}").similarity(data),
                          open_system(f"embeddings:{plain}").similarity(data), atol=1e-6)


@pytest.mark.parametrize("suffix", [".npz", ".parquet"])
@pytest.mark.slow
def test_embeddings_of_one_build_are_refused_on_another(small_corpus, tmp_path, capsys, suffix):
    """Vectors saved on one build scored another (regenerated with another seed: the same ids) with exit 0."""
    from reasonaudio.generation.pipeline import generate

    from ..conftest import small_config

    data, toy = EvalData.load(str(small_corpus)), toy_encoder.build()
    queries = toy.encode_text(list(data.queries["text"]))
    clips = np.concatenate(list(map(toy.encode_audio, data.audio_batches(16000, 32, progress=False))))
    path = save_embeddings(tmp_path / f"vectors{suffix}", data.queries["query_id"], queries, data.corpus["clip_id"],
                           clips, build=str(small_corpus))
    assert main(["evaluate", "--data", str(small_corpus), "--model", f"embeddings:{path}", "--bootstrap", "0",
                 "--quiet", "--out", str(tmp_path / "same")]) == 0
    other = tmp_path / "other"
    generate(small_config(other, seed=11))
    assert set(EvalData.load(str(other)).queries["query_id"]) == set(data.queries["query_id"])
    capsys.readouterr()
    assert main(["evaluate", "--data", str(other), "--model", f"embeddings:{path}", "--bootstrap", "0", "--quiet",
                 "--out", str(tmp_path / "other-run")]) == 2
    assert "holds vectors of another build" in capsys.readouterr().err
