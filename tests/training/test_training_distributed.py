"""`torchrun --nproc-per-node 2 -m reasonaudio train`: two gloo processes sharing the global batch take the
steps one process takes on it (the same weights within float rounding), and only rank 0 writes."""
import json
import os
import subprocess
import sys

import pytest
import torch

from reasonaudio.cli import main

# The global batch's loss of the first epoch agrees to float rounding (relative 1e-6), later ones within 0.1 %, and
# every weight within 0.02: AdamW turns the rounding noise of near-zero gradients (a convolution's bias before
# batch normalisation, which the loss does not depend on) into steps of about the learning rate, and the loss
# then drifts apart slowly. Without the gathered embeddings or the global batch statistics the first epoch's
# loss differs in the first digit.
FIRST_EPOCH, LATER, WEIGHTS = 1e-6, 1e-3, 0.02


def arguments(build, out):
    """Without dropout (its masks depend on how a batch is split) every step is deterministic."""
    return ["train", "--data", str(build), "--out", str(out), "--model", "small:?dropout=0", "--epochs", "2",
            "--batch-size", "4",
            "--max-steps", "3", "--lr", "0.003", "--quiet"]


def weights(out):
    return torch.load(out / ".resume" / "state.pt", weights_only=False)["model"]


@pytest.mark.slow
def test_two_processes_take_the_steps_one_process_takes(training_splits, tmp_path):
    assert main(arguments(training_splits, tmp_path / "one")) == 0
    environment = {**os.environ, "OMP_NUM_THREADS": "1"}
    subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-port", "29531",
                    "-m", "reasonaudio", *arguments(training_splits, tmp_path / "two")], check=True, env=environment,
                   timeout=600, capture_output=True)
    first, second = ([epoch["loss"] for epoch in json.loads((tmp_path / run / "training.json").read_text())["history"]]
                     for run in ("one", "two"))
    assert second[0] == pytest.approx(first[0], rel=FIRST_EPOCH) and second == pytest.approx(first, rel=LATER)
    one, two = weights(tmp_path / "one"), weights(tmp_path / "two")
    assert one.keys() == two.keys()
    assert max(float((one[name].float() - two[name].float()).abs().max()) for name in one) <= WEIGHTS
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == sorted(p.name for p in (tmp_path / "one").iterdir())


@pytest.mark.slow
def test_the_global_batch_must_split_evenly(training_splits, tmp_path):
    result = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-port",
                             "29532", "-m", "reasonaudio", *arguments(training_splits, tmp_path / "odd")[:-5],
                             "--batch-size",
                             "5", "--quiet"], env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=600, capture_output=True,
                            text=True)
    assert result.returncode != 0 and "must be a multiple of the 2 processes" in result.stderr


def test_the_small_models_dropout_is_an_option():
    from reasonaudio.models.registry import create

    assert create("small:?dropout=0", ["a dog barking"]).config.dropout == 0.0
    assert create("small", ["a dog barking"]).config.dropout == 0.1
    for wrong in ("small:?dropout=1.5", "small:?dropout=abc", "small:?width=3"):
        with pytest.raises(ValueError, match="--model"):
            create(wrong, ["a dog barking"])
