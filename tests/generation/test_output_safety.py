"""Nothing of the user's is lost and no corpus is silently wrong: refusals before any work, one line, exit 2."""
import os
import shutil
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

import reasonaudio.generation.render as render
from reasonaudio.generation.bank import BadSourcesError, build_bank
from reasonaudio.cli import main
from reasonaudio.generation.pipeline import GenerateConfig
from reasonaudio.generation.publish import files_to_upload
from reasonaudio.generation.validate import validate

from ..conftest import SMALL, write_tone

TINY = ["--source", SMALL["source"], "--queries-per-task", "1", "--candidates", "4", "--atomic-sounds", "60",
        "--sample-rate", "16000", "--tasks", "order", "--quiet"]


def run(capsys, *argv):
    code = main(list(argv))
    err = capsys.readouterr().err
    return code, err


def folder_state(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("command", ["generate", "merge", "demo"])
def test_a_users_readme_is_never_overwritten_even_with_force(tmp_path, capsys, command):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "README.md").write_text("# my project\n")
    before = folder_state(out)
    argv = {"generate": ["generate", "--out", str(out), *TINY], "merge": ["merge", str(out), str(tmp_path)],
            "demo": ["demo", "--out", str(out), "--quiet"]}[command]
    for force in ([], ["--force"]) if command != "demo" else ([],):
        code, err = run(capsys, *argv, *force)
        assert code == 2 and "README.md" in err and "never overwritten" in err and len(err.strip().splitlines()) == 1
        assert folder_state(out) == before and sorted(os.listdir(out)) == ["README.md"]


def test_foreign_files_are_refused_and_force_writes_beside_them(tmp_path, capsys):
    out = tmp_path / "sounds"
    write_tone(out / "dog" / "bark.wav")
    before = folder_state(out)
    code, err = run(capsys, "generate", "--out", str(out), *TINY)
    assert code == 2 and "dog/" in err and "--force" in err and folder_state(out) == before   # named, not walked
    assert run(capsys, "generate", "--out", str(out), *TINY, "--force")[0] == 0
    assert folder_state(out)["dog/bark.wav"] == before["dog/bark.wav"] and validate(out, quick=True) == []
    assert "dog/bark.wav" not in dict(files_to_upload(out))
    # the folder is ours now, the user's file aside: a re-run resumes without --force? no: still refused
    assert run(capsys, "generate", "--out", str(out), *TINY)[0] == 2


def test_a_finished_corpus_is_no_foreign_folder(small_corpus, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(small_corpus, copy)
    config = GenerateConfig(out=str(copy), **{k: v for k, v in SMALL.items()})
    from reasonaudio.generation.folder import BuildFolder
    from reasonaudio.generation.layout import survey

    assert survey(copy) == ([], [])
    BuildFolder(copy).check()     # resuming or adding a split is allowed
    (copy / "README.md").write_text((copy / "README.md").read_text() + "\nmy notes\n")
    with pytest.raises(FileExistsError, match="README.md"):
        BuildFolder(config.out).check()


@pytest.mark.parametrize("out", ["", "  "])
def test_an_empty_out_is_refused(capsys, out, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for argv in (["generate", "--out", out, *TINY], ["merge", out], ["demo", "--out", out, "--quiet"]):
        code, err = run(capsys, *argv)
        assert code == 2 and "empty" in err
    assert os.listdir(tmp_path) == []


def test_a_stray_data_file_is_refused_up_front(tmp_path, capsys):
    out = tmp_path / "out"
    (out / "queries").mkdir(parents=True)
    (out / "queries" / "test-x.parquet").write_bytes(b"PAR1 not ours")
    code, err = run(capsys, "generate", "--out", str(out), *TINY, "--force")
    assert code == 2 and "queries/test-x.parquet" in err and "no ReasonAudio record declares" in err
    assert sorted(p.name for p in out.rglob("*")) == ["queries", "test-x.parquet"]


def test_publish_sends_only_the_declared_files_and_names_the_rest(small_corpus, tmp_path, capsys):
    folder = tmp_path / "folder"
    shutil.copytree(small_corpus, folder)
    (folder / "credentials.txt").write_text("hf_secret")
    write_tone(folder / "audio" / "source.wav")
    listed = [path for path, _ in files_to_upload(folder)]
    assert "credentials.txt" not in listed and "audio/source.wav" not in listed
    assert set(listed) == {"README.md", ".reasonaudio/card.json", ".reasonaudio/test.json"} | {
        p.relative_to(folder).as_posix() for p in folder.glob("*/test-*.parquet")}
    assert main(["publish", str(folder), "--repo-id", "org/x", "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert "credentials.txt" not in captured.out and "credentials.txt" in captured.err
    with mock.patch("huggingface_hub.HfApi.create_repo"), \
            mock.patch("huggingface_hub.HfApi.upload_folder") as upload_folder:
        assert main(["publish", str(folder), "--repo-id", "org/x"]) == 0
    assert sorted(upload_folder.call_args.kwargs["allow_patterns"]) == sorted(listed)


def test_scratch_audio_is_private_and_never_left_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(render, "SCRATCH", tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / f"reasonaudio-{os.getpid()}.flac").symlink_to(victim)   # the old, predictable name
    flac = render.encode_flac(np.zeros(16000, dtype=np.float32) + 0.1, 16000)
    assert flac[:4] == b"fLaC" and victim.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["victim.txt", f"reasonaudio-{os.getpid()}.flac"])
    with mock.patch.object(render.soundfile, "write", side_effect=RuntimeError("killed")):
        with pytest.raises(RuntimeError):
            render.encode_flac(np.zeros(100, dtype=np.float32), 16000)
    assert len(list(tmp_path.iterdir())) == 2


@pytest.mark.parametrize("argv, message", [
    (["--tasks", "order", "order"], "listed 2 times"),
    (["--sample-rate", "4000"], "at least 16000 Hz"),
    (["--sample-rate", "100"], "at least 16000 Hz"),
    (["--clip-seconds", "nan"], "clip-seconds must be a number"),
    (["--clip-seconds", "inf"], "clip-seconds must be a number"),
])
def test_silently_wrong_parameters_are_refused(tmp_path, capsys, argv, message):
    code, err = run(capsys, "generate", "--out", str(tmp_path / "o"), *TINY, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_debug_shows_the_traceback(tmp_path):
    with pytest.raises(ValueError, match="listed 2 times"):
        main(["--debug", "generate", "--out", str(tmp_path / "o"), "--tasks", "order", "order"])


def test_a_sound_silenced_by_resampling_is_a_bad_source(tmp_path):
    write_tone(tmp_path / "whistle" / "high.wav", rate=44100, freq=6000.0)
    write_tone(tmp_path / "hum" / "low.wav", rate=44100, freq=200.0)
    with pytest.raises(BadSourcesError, match="silent after resampling from 44100 to 8000 Hz"):
        build_bank(f"folder:{tmp_path}", split=None, count=2, sample_rate=8000, progress=False)
    bank = build_bank(f"folder:{tmp_path}", split=None, count=2, sample_rate=16000, progress=False)
    assert len(bank.sounds) == 2


def test_an_out_below_a_file_is_refused_before_planning(tmp_path, capsys):
    (tmp_path / "afile").write_text("mine")
    code, err = run(capsys, "generate", "--out", str(tmp_path / "afile" / "sub"), *TINY)
    assert code == 2 and "afile is a file, so no folder can be made inside it" in err and len(err.splitlines()) == 1


def link_inside(out: Path, name: str, elsewhere: Path) -> None:
    """`out/name` made a link into the empty folder `elsewhere` (a lock's or a half-written file's to a file in it
    not there yet, a folder's to it), the folders above it real."""
    elsewhere.mkdir(exist_ok=True)
    (out / name).parent.mkdir(parents=True, exist_ok=True)
    folder = not name.endswith(("-lock", ".partial"))
    (out / name).symlink_to(elsewhere if folder else elsewhere / "target", target_is_directory=folder)


@pytest.mark.parametrize("name", ["corpus", ".reasonaudio", ".reasonaudio/staging", ".reasonaudio/staging/queries",
                                  ".reasonaudio/.test-lock", ".reasonaudio/.planning-lock",
                                  ".reasonaudio/.test.plan.json.partial", ".README.md.partial"])
def test_a_link_where_generate_writes_is_refused_not_written_through(tmp_path, capsys, name):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    link_inside(out, name, elsewhere)
    code, err = run(capsys, "generate", "--out", str(out), *TINY)
    assert code == 2 and f"{out / name} is a link" in err and len(err.strip().splitlines()) == 1
    assert list(elsewhere.iterdir()) == [] and not (out / ".reasonaudio" / "test.plan.json").exists()


@pytest.mark.parametrize("name", [".reasonaudio/.certificate.json.partial", ".README.md.partial"])
def test_baselines_certify_refuses_a_link_where_it_writes_before_scoring(small_corpus, tmp_path, capsys, name):
    data, elsewhere = tmp_path / "data", tmp_path / "elsewhere"
    shutil.copytree(small_corpus, data)
    link_inside(data, name, elsewhere)
    code, err = run(capsys, "baselines", "--data", str(data), "--out", str(tmp_path / "runs"), "--certify", "--quiet")
    assert code == 2 and f"{data / name} is a link" in err and len(err.strip().splitlines()) == 1
    assert list(elsewhere.iterdir()) == [] and not (tmp_path / "runs").exists()


def test_publish_refuses_a_link_where_it_writes_the_card(small_corpus, tmp_path, capsys):
    folder, elsewhere = tmp_path / "folder", tmp_path / "elsewhere"
    shutil.copytree(small_corpus, folder)
    link_inside(folder, ".README.md.partial", elsewhere)
    with mock.patch("huggingface_hub.HfApi.create_repo"), mock.patch("huggingface_hub.HfApi.upload_folder") as upload:
        code, err = run(capsys, "publish", str(folder), "--repo-id", "org/x")
    assert code == 2 and f"{folder / '.README.md.partial'} is a link" in err.strip().splitlines()[-1]   # after a warning
    assert list(elsewhere.iterdir()) == [] and not upload.called
