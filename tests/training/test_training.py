"""`reasonaudio train`: the contrastive recipe runs end to end for both model kinds, checkpoints reload
and score as validated, and a killed run resumes to the same weights."""
import json

import pytest
import torch

from reasonaudio.evaluation.runner import RunSettings, run
from reasonaudio.evaluation.systems import EvalData, open_system
from reasonaudio.models.registry import create
from reasonaudio.cli import main
from reasonaudio.training import loop
from reasonaudio.training.loss import info_nce
from reasonaudio.training.triplets import ContrastiveTriplets

from ..conftest import killed_after


def _steps_lower_the_loss(model, splits, hard_negatives: bool) -> tuple[float, float]:
    """The loss on one batch before and after a few AdamW steps on it."""
    triplets = ContrastiveTriplets(str(splits), split="train", sampling_rate=model.sampling_rate)
    texts, positives, negatives = next(iter(torch.utils.data.DataLoader(triplets, batch_size=6)))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    temperature = torch.tensor(0.07)

    def loss():
        audio = model.encode_audio(list(torch.cat([positives, negatives]).numpy()))
        return info_nce(model.encode_text(list(texts)), audio[:6], audio[6:] if hard_negatives else None, temperature)

    first = loss()
    for _ in range(6):
        optimizer.zero_grad()
        value = loss()
        value.backward()
        optimizer.step()
    return first.item(), loss().item()


@pytest.mark.parametrize("kind", ["small", "clap"])
@pytest.mark.slow
def test_a_few_steps_lower_the_loss(splits, tiny_clap, kind):
    torch.manual_seed(0)
    texts = ContrastiveTriplets(str(splits), split="train").queries["text"]
    model = create("small" if kind == "small" else f"clap:{tiny_clap}", texts)
    before, after = _steps_lower_the_loss(model, splits, hard_negatives=True)
    assert after < before


def test_info_nce_counts_each_querys_hard_negative():
    texts, positives = torch.eye(3), torch.eye(3)
    hard = torch.eye(3)                     # each hard negative as close to its text as the positive
    temperature = torch.tensor(0.1)
    assert info_nce(texts, positives, hard, temperature) > info_nce(texts, positives, None, temperature) + 0.3


@pytest.mark.parametrize("kind", ["small", "clap"])
@pytest.mark.slow
def test_train_end_to_end_keeps_the_best_checkpoint_that_scores_as_validated(splits, tiny_clap, tmp_path, kind):
    out = tmp_path / "model"
    model = "small" if kind == "small" else f"clap:{tiny_clap}"
    assert main(["train", "--data", str(splits), "--out", str(out), "--model", model, "--epochs", "2",
                 "--batch-size", "4", "--max-steps", "2", "--quiet"]) == 0
    record = json.loads((out / "reasonaudio_model.json").read_text())
    assert record["kind"] == kind and len(json.loads((out / "training.json").read_text())["history"]) == 2
    validation = EvalData.load(str(splits), "validation")
    again = run(open_system(f"trained:{out}"), validation, RunSettings(batch_size=4, bootstrap=0, progress=False))
    assert again["average"]["accuracy"] == pytest.approx(record["best"]["accuracy"], abs=1e-12)
    assert main(["evaluate", "--data", str(splits), "--model", f"trained:{out}", "--bootstrap", "0", "--quiet",
                 "--out", str(tmp_path / "scored")]) == 0
    if kind == "clap":   # a plain ClapModel folder: the clap: adapter scores it the same
        clap = run(open_system(f"clap:{out}"), validation, RunSettings(batch_size=4, bootstrap=0, progress=False))
        assert clap["average"]["accuracy"] == pytest.approx(again["average"]["accuracy"], abs=1e-12)


def test_train_without_hard_negatives_reads_no_negative(splits, tmp_path, monkeypatch):
    reads = []
    clip = ContrastiveTriplets.clip
    monkeypatch.setattr(ContrastiveTriplets, "clip", lambda self, clip_id: reads.append(clip_id) or clip(self, clip_id))
    out = tmp_path / "pairs"      # 2 epochs x 5 steps: a 10-step run (one warm-up step, then the cosine)
    assert main(["train", "--data", str(splits), "--out", str(out), "--no-hard-negatives", "--epochs", "2",
                 "--max-steps", "5", "--batch-size", "2", "--quiet"]) == 0
    history = json.loads((out / "training.json").read_text())["history"]
    assert len(history) == 2 and all(entry["loss"] > 0 for entry in history)
    positives = set(ContrastiveTriplets(str(splits), split="train").queries["positive"])
    assert len(reads) == 2 * 5 * 2 and set(reads) <= positives


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_weights_of_an_uninterrupted_one(splits, tmp_path, monkeypatch):
    command = ["train", "--data", str(splits), "--epochs", "3", "--batch-size", "4", "--max-steps", "2", "--quiet"]
    assert main(command + ["--out", str(tmp_path / "whole")]) == 0
    killed_after(monkeypatch, loop, "info_nce", 3)                       # dies in the second epoch
    with pytest.raises(KeyboardInterrupt):
        main(command + ["--out", str(tmp_path / "resumed")])
    monkeypatch.undo()
    assert main(command + ["--out", str(tmp_path / "resumed")]) == 0
    whole, resumed = (torch.load(tmp_path / run / ".resume" / "state.pt", weights_only=True) for run in ("whole", "resumed"))
    assert whole["history"] == resumed["history"]
    assert all(torch.equal(whole["model"][k], resumed["model"][k]) for k in whole["model"])
    killed_after(monkeypatch, loop, "info_nce", 0)                       # dies at its very first step
    with pytest.raises(KeyboardInterrupt):
        main(command + ["--out", str(tmp_path / "early")])
    monkeypatch.undo()
    assert main(command + ["--out", str(tmp_path / "early")]) == 0
    early = torch.load(tmp_path / "early" / ".resume" / "state.pt", weights_only=True)
    assert all(torch.equal(whole["model"][k], early["model"][k]) for k in whole["model"])
    assert main(command + ["--out", str(tmp_path / "early")]) == 0       # a finished run: nothing more to do


def test_train_refuses_what_it_would_overwrite_or_cannot_use(splits, tmp_path, capsys):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("my notes")
    assert main(["train", "--data", str(splits), "--out", str(tmp_path / "mine"), "--quiet"]) == 2
    assert "not empty" in capsys.readouterr().err and (tmp_path / "mine" / "notes.txt").read_text() == "my notes"
    out = tmp_path / "run"
    assert main(["train", "--data", str(splits), "--out", str(out), "--epochs", "1", "--max-steps", "1",
                 "--batch-size", "4", "--quiet"]) == 0
    assert main(["train", "--data", str(splits), "--out", str(out), "--epochs", "1", "--lr", "0.01", "--quiet"]) == 2
    assert "other settings (batch_size, lr, max_steps)" in capsys.readouterr().err
    for bad, message in ((["--batch-size", "1"], "--batch-size must be an integer >= 2"),
                         (["--model", "bert"], "unknown --model 'bert'")):
        assert main(["train", "--data", str(splits), "--out", str(tmp_path / "x"), "--quiet", *bad]) == 2
        assert message in capsys.readouterr().err
