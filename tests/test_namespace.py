"""One import namespace: ReasonAudio installs `reasonaudio` (and its unmistakable `reasonaudio_dataset`,
`reasonaudio_metric`), never a generic top-level name, so a user's own `models.py`, `training/`, `evaluation/`
and `generation/` import as theirs beside it; README's quickstart runs from the user's folder."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reasonaudio.cli import main
from tests.installed import packages

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = {"reasonaudio", "reasonaudio_dataset", "reasonaudio_metric"}
GENERIC = ("models", "training", "evaluation", "generation", "bench")


def user_project(folder: Path) -> Path:
    """A user's folder holding modules named as ReasonAudio's packages once were, each saying whose it is."""
    (folder / "models.py").write_text("OWNER = 'user'\n")
    for package in ("training", "evaluation", "generation"):
        (folder / package).mkdir()
        (folder / package / "__init__.py").write_text("OWNER = 'user'\n")
    return folder


def in_folder(folder: Path, code: str) -> subprocess.CompletedProcess:
    """`code` run as a user's script would be, from `folder`, with no path of this clone on sys.path."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", code], cwd=folder, env=environment, capture_output=True, text=True)


def test_the_installed_packages_have_no_generic_top_level_name():
    assert {name.split(".")[0] for name in packages()} == PUBLIC
    assert "reasonaudio.generation" in packages()


def test_a_users_own_modules_and_reasonaudio_import_side_by_side(tmp_path):
    done = in_folder(user_project(tmp_path), (
        "import models, training, evaluation, generation\n"
        "import reasonaudio, reasonaudio.generation.pipeline, reasonaudio.evaluation.runner, reasonaudio.models.scoring\n"
        "import reasonaudio.training.triplets, reasonaudio.cli\n"
        "assert {m.OWNER for m in (models, training, evaluation, generation)} == {'user'}\n"
        "assert reasonaudio.generation.pipeline.__name__ == 'reasonaudio.generation.pipeline'\n"
        "print(reasonaudio.generate.__module__, reasonaudio.evaluate_encoders.__module__)\n"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["reasonaudio.generation.pipeline", "reasonaudio.evaluation.runner"]


@pytest.mark.slow
def test_reasonaudio_imports_no_generic_top_level_module(tmp_path):
    done = in_folder(tmp_path, (
        "import sys, pkgutil, importlib, reasonaudio\n"
        "for module in pkgutil.walk_packages(reasonaudio.__path__, 'reasonaudio.'):\n"
        "    if module.name.split('.')[-1] not in ('__main__', 'clap', 'mteb_model', 'executor'):\n"
        "        importlib.import_module(module.name)\n"
        f"print(sorted(name for name in {GENERIC!r} if name in sys.modules))\n"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_python_spec_loads_the_users_models_module(small_corpus, tmp_path, monkeypatch):
    """`--model python:models:make_encoder` from a folder holding the user's models.py (README's encoder)."""
    from tests.test_readme import block_with

    (tmp_path / "project").mkdir()
    folder = user_project(tmp_path / "project")
    (folder / "models.py").write_text(block_with("python", "class MyEncoder"))
    monkeypatch.chdir(folder)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "models", raising=False)
    assert main(["evaluate", "--data", str(small_corpus), "--model", "python:models:make_encoder",
                 "--out", str(tmp_path / "run"), "--quiet"]) == 0
    assert Path(sys.modules["models"].__file__).resolve() == (folder / "models.py").resolve()
    sys.modules.pop("models")


@pytest.mark.slow
def test_the_python_quickstart_runs_unchanged_in_a_users_folder(small_corpus, tmp_path):
    """README's first Python block, as written, from a folder with the user's own modules and the build as demo."""
    from tests.test_readme import block_with

    folder = user_project(tmp_path)
    (folder / "demo").symlink_to(small_corpus, target_is_directory=True)
    done = in_folder(folder, block_with("python", "metric.compute(similarity="))
    assert done.returncode == 0, done.stderr
    assert "'accuracy'" in done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("words", [["--help"], ["--version"]])
def test_python_dash_m_reasonaudio_is_the_command(words, tmp_path):
    done = subprocess.run([sys.executable, "-m", "reasonaudio", *words], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "reasonaudio" in done.stdout


def test_every_public_name_says_its_arguments_and_what_it_returns():
    import reasonaudio

    for name in reasonaudio.__all__:
        found = getattr(reasonaudio, name)
        if callable(found):
            assert "Args:" in found.__doc__ and "Returns:" in found.__doc__, name
    assert evaluate_module_loads(reasonaudio.METRIC_PATH)


def evaluate_module_loads(folder: str) -> bool:
    """The metric's folder holds the `evaluate` module under its folder's name (what `evaluate.load` needs)."""
    return (Path(folder) / f"{Path(folder).name}.py").is_file()
