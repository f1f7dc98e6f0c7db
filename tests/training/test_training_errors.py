"""`reasonaudio train` on the worst input: damaged files, a full disk, a diverging run, an --out inside
the corpus and a kill after the last epoch each end in one line (exit 2) or a rerun that finishes, and
nothing good on disk is lost. Every run is a few steps of the small model on a tiny build."""
import contextlib
import errno
import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest
import torch

from reasonaudio.cli import build_parser, main
from reasonaudio.training import loop

from ..conftest import killed_after

ROOT = Path(__file__).resolve().parents[2]


def _command(training_splits, out) -> list[str]:
    return ["train", "--data", str(training_splits), "--out", str(out), "--epochs", "2", "--max-steps", "1",
            "--batch-size", "4", "--quiet"]


def _state(out) -> dict:
    return torch.load(Path(out) / ".resume" / "state.pt", weights_only=True)


@pytest.fixture(scope="module")
def trained(training_splits, tmp_path_factory):
    """An uninterrupted 2-epoch run (one step each) and what it printed (its log is on: no --quiet)."""
    out = tmp_path_factory.mktemp("trained") / "model"
    log = io.StringIO()
    with contextlib.redirect_stdout(log):
        assert main(_command(training_splits, out)[:-1]) == 0
    return out, log.getvalue()


def _one_line_error(capsys) -> str:
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "Traceback" not in error, error
    return error


@pytest.mark.slow
def test_epochs_are_numbered_from_one_in_the_log_and_the_record(trained):
    out, log = trained
    record = json.loads((out / "training.json").read_text())
    assert [entry["epoch"] for entry in record["history"]] == [1, 2]
    assert "epoch 1/2:" in log and "epoch 2/2:" in log and "epoch 0" not in log
    assert f"at epoch {record['best']['epoch']};" in log and record["best"]["epoch"] in (1, 2)
    assert json.loads((out / "reasonaudio_model.json").read_text())["best"] == record["best"]
    assert _state(out)["epochs_done"] == 2


def test_the_default_epochs_are_the_readmes_and_the_reference_runs():
    parser, _ = build_parser()
    default = parser.parse_args(["train", "--data", "d", "--out", "o"]).epochs
    readme = (ROOT / "README.md").read_text()
    assert set(re.findall(r"reasonaudio train [^\n]*--epochs (\d+)", readme)) == {str(default)}
    assert f'"--epochs", type=int, default={default},' in (ROOT / "bench" / "train_reference.py").read_text()


@pytest.mark.parametrize("damage", ["truncated", "empty"])
def test_a_damaged_state_or_model_file_is_one_line_naming_it(trained, training_splits, tmp_path, capsys, damage):
    folder, _ = trained
    out = tmp_path / "copy"
    shutil.copytree(folder, out)
    for name in (".resume/state.pt", "small_weights.pt", "reasonaudio_model.json"):
        whole = (folder / name).read_bytes()
        (out / name).write_bytes(whole[:len(whole) // 2] if damage == "truncated" else b"")
    assert main(_command(training_splits, out)) == 2        # resuming reads the state
    error = _one_line_error(capsys)
    assert f"{out / '.resume' / 'state.pt'} is damaged" in error and "choose another --out" in error
    for name in ("reasonaudio_model.json", "small_weights.pt"):   # scoring reads the record, then the weights
        assert main(["evaluate", "--data", str(training_splits), "--split", "validation", "--model", f"trained:{out}",
                     "--quiet", "--out", str(tmp_path / "scored")]) == 2
        error = _one_line_error(capsys)
        assert f"{out / name} is damaged" in error and "train it again" in error
        (out / name).write_bytes((folder / name).read_bytes())


FULL_DISK = {"os": (OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), "No space left on device"),   # how the
             "torch": (RuntimeError("[enforce fail at inline_container.cc:672] . PytorchStreamWriter failed writing "
                                    "file data/0: file write failed"),       # error reaches us: the OS's, or
                       "writing file data/0: file write failed: is the disk full?")}   # torch's zip writer's


@pytest.mark.parametrize("failure", FULL_DISK)
@pytest.mark.slow
def test_a_full_disk_mid_save_keeps_the_last_good_state_and_the_rerun_finishes(trained, training_splits, tmp_path, capsys,
                                                                                 monkeypatch, failure):
    """torch.save writes half the state after epoch 1, then the disk is full; the state before it stays."""
    real_save, saves = torch.save, []
    raised, said = FULL_DISK[failure]

    def disk_full_at_the_third_save(value, file):
        saves.append(1)
        if len(saves) < 3:           # the state before the first step, epoch 1's model, then epoch 1's state
            return real_save(value, file)
        written = io.BytesIO()
        real_save(value, written)
        file.write(written.getvalue()[:written.tell() // 2])
        raise raised

    out = tmp_path / "model"
    monkeypatch.setattr(torch, "save", disk_full_at_the_third_save)
    assert main(_command(training_splits, out)) == 2
    monkeypatch.undo()
    error = _one_line_error(capsys)
    assert f"could not write {out / '.resume' / 'state.pt'} ({said})" in error
    assert "rerun the same command" in error
    assert _state(out)["epochs_done"] == 0 and not list(out.rglob("*.partial"))
    assert main(_command(training_splits, out)) == 0
    whole, resumed = _state(trained[0]), _state(out)
    assert resumed["history"] == whole["history"]
    assert all(torch.equal(whole["model"][k], resumed["model"][k]) for k in whole["model"])


def test_a_huge_event_weight_stops_at_its_first_step_in_one_line(training_splits, tmp_path, capsys):
    out = tmp_path / "model"
    assert main(_command(training_splits, out) + ["--event-weight", "1e308"]) == 2
    error = _one_line_error(capsys)
    assert "training diverged at epoch 1, step 1: the loss is inf" in error and "--event-weight" in error
    assert _state(out)["epochs_done"] == 0 and not (out / "reasonaudio_model.json").exists()


@pytest.mark.parametrize("where", ["loss", "gradient"])
def test_divergence_in_epoch_two_keeps_epoch_ones_model_and_state(training_splits, tmp_path, capsys, monkeypatch, where):
    """Epoch 1 trains; epoch 2's first loss is NaN, or finite with a NaN gradient (sqrt's slope at 0)."""
    real_loss, calls = loop.info_nce, []

    def diverges_in_epoch_two(texts, *rest):
        calls.append(1)
        loss = real_loss(texts, *rest)
        if len(calls) < 2:
            return loss
        return loss * float("nan") if where == "loss" else loss + (texts.sum() * 0).sqrt()

    out = tmp_path / "model"
    monkeypatch.setattr(loop, "info_nce", diverges_in_epoch_two)
    assert main(_command(training_splits, out)) == 2
    error = _one_line_error(capsys)
    assert "training diverged at epoch 2, step 1" in error
    assert ("the loss is nan" if where == "loss" else "non-finite gradient") in error
    assert "the best model so far (epoch 1) and the state after epoch 1" in error
    state = _state(out)
    assert state["epochs_done"] == 1 and all(torch.isfinite(v).all() for v in state["model"].values())
    assert json.loads((out / "reasonaudio_model.json").read_text())["best"]["epoch"] == 1


def test_train_refuses_an_out_inside_the_corpus(training_splits, capsys):
    inside = training_splits / "models" / "small"
    assert main(_command(training_splits, inside)) == 2
    assert "inside the corpus folder" in _one_line_error(capsys) and not (training_splits / "models").exists()


def test_a_run_killed_before_its_first_save_or_after_its_last_finishes_on_rerun(trained, training_splits, tmp_path,
                                                                               monkeypatch):
    out = tmp_path / "model"
    killed_after(monkeypatch, loop, "write_torch", 0)          # killed before anything is saved
    with pytest.raises(KeyboardInterrupt):
        main(_command(training_splits, out))
    monkeypatch.undo()
    assert [path.name for path in out.iterdir()] == [".resume"]
    killed_after(monkeypatch, loop, "write_record", 0)        # killed after the last epoch's state is saved
    with pytest.raises(KeyboardInterrupt):
        main(_command(training_splits, out))
    monkeypatch.undo()
    assert _state(out)["epochs_done"] == 2 and not (out / "training.json").exists()
    killed_after(monkeypatch, loop, "info_nce", 0)             # the rerun trains no step: it only writes the record
    assert main(_command(training_splits, out)) == 0
    record = json.loads((out / "training.json").read_text())
    assert record == json.loads((trained[0] / "training.json").read_text())


@pytest.mark.parametrize("edit, said", [
    (lambda config: [config], "it holds a JSON list, where reasonaudio writes an object"),
    (lambda config: {**config, "layers_of_tomorrow": 3}, "has settings this version does not know (layers_of_tomorrow)"),
    (lambda config: {**config, "width": 2 ** 40}, "sets width = 1.09951e+12, beyond any size a model is built at"),
])
def test_a_model_folder_whose_config_is_not_this_versions_is_one_line(trained, training_splits, tmp_path, capsys,
                                                                      edit, said):
    out = tmp_path / "copy"
    shutil.copytree(trained[0], out)
    config = out / "small_config.json"
    config.write_text(json.dumps(edit(json.loads(config.read_text()))))
    assert main(["evaluate", "--data", str(training_splits), "--split", "validation", "--model", f"trained:{out}",
                 "--quiet", "--out", str(tmp_path / "scored")]) == 2
    error = _one_line_error(capsys)
    assert f"{config} " in error and said in error


@pytest.mark.parametrize("layers", ["-1", "x", "100000"])
def test_a_dual_encoder_of_a_size_it_cannot_have_is_one_line(training_splits, tmp_path, capsys, layers):
    assert main(["train", "--data", str(training_splits), "--out", str(tmp_path / "dual"), "--model",
                 f"dual:{tmp_path}?adapter_layers={layers}", "--event-weight", "0", "--quiet"]) == 2
    assert "adapter_layers must be a whole number from 0 to 12" in _one_line_error(capsys)
    assert not (tmp_path / "dual").exists()


def test_a_second_train_into_the_same_out_is_refused_while_the_first_runs(training_splits, tmp_path, capsys):
    """Two runs into one --out at once both exited 0 and one model was lost: train holds --out as evaluate does."""
    from reasonaudio_dataset.folders import held

    out = tmp_path / "model"
    with held(out):                                  # the first run, still writing
        assert main(_command(training_splits, out)) == 2
        assert "is being written by another run right now" in _one_line_error(capsys)
    assert not any(path.name != ".reasonaudio-lock" for path in out.iterdir()) if out.exists() else True


def test_an_out_below_a_file_is_refused_before_any_work(training_splits, tmp_path, capsys):
    (tmp_path / "afile").write_text("mine")
    assert main(_command(training_splits, tmp_path / "afile" / "sub")) == 2
    assert "afile is a file, so no folder can be made inside it" in _one_line_error(capsys)
