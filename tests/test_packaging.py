"""What a user installs: setup.cfg names every package, and an sdist and the wheel built from it hold a working
generator (the top-level generation/ folder as reasonaudio.generation, no link)."""
import os
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from tests.installed import packages, source_folder

ROOT = Path(__file__).resolve().parents[1]
CODE_FOLDERS = ("reasonaudio", "generation", "reasonaudio_dataset", "reasonaudio_metric")


def test_setup_cfg_names_every_package_of_the_clone():
    found = {folder for top in CODE_FOLDERS for folder in [ROOT / top, *(ROOT / top).rglob("*")]
             if folder.is_dir() and (folder / "__init__.py").is_file()}
    assert {source_folder(package) for package in packages()} == found


def test_the_clone_holds_no_link():
    tracked = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    links = [line.split("\t")[1] for line in tracked.stdout.splitlines() if line.startswith("120000 ")]
    assert not links, f"symbolic links in the repository: {links}"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """`python -m build`: the sdist, then the wheel built from that sdist (so the wheel proves the sdist whole)."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                          cwd=out, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


@pytest.mark.slow
def test_the_sdist_and_the_wheel_hold_the_generator_as_files(built):
    (sdist,), (wheel,) = built.glob("*.tar.gz"), built.glob("*.whl")
    with tarfile.open(sdist) as archive:
        members = {member.name.split("/", 1)[-1]: member for member in archive.getmembers()}
    assert not [name for name, member in members.items() if member.issym() or member.islnk()]
    assert {"generation/pipeline.py", "generation/acoustics/presets/clean.yaml", "setup.cfg"} <= set(members)
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"reasonaudio/generation/pipeline.py", "reasonaudio/generation/tasks/count.py",
            "reasonaudio/generation/acoustics/presets/clean.yaml", "reasonaudio_metric/reasonaudio_metric.py"} <= names
    assert not [name for name in names if name.startswith(("generation/", "tests/"))]


@pytest.mark.slow
def test_the_installed_wheel_generates_a_build(built, tmp_path):
    """The wheel in a fresh virtual environment (its dependencies from this one's site-packages, no network),
    run from a folder away from the clone."""
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=False)
    python = environment / "bin" / "python"
    dependencies = [path for path in sys.path if path.endswith("site-packages")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(dependencies)}
    (wheel,) = built.glob("*.whl")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                              "--no-index", "--quiet", str(wheel)], capture_output=True, text=True, env=env)
    assert install.returncode == 0, install.stderr
    where = subprocess.run([str(python), "-c", "import reasonaudio.generation.pipeline as p; print(p.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, env=env)
    assert where.returncode == 0 and where.stdout.startswith(str(environment)), where.stdout + where.stderr
    generate = subprocess.run([str(environment / "bin" / "reasonaudio"), "generate", "--out", "tiny", "--quiet",
                               "--queries-per-task", "2", "--candidates", "4", "--atomic-sounds", "48",
                               "--acoustics", "clean", "--sample-rate", "16000"],
                              cwd=tmp_path, capture_output=True, text=True, env=env)
    assert generate.returncode == 0, generate.stdout[-2000:] + generate.stderr[-2000:]
    assert (tmp_path / "tiny" / "README.md").is_file() and list((tmp_path / "tiny").rglob("*.parquet"))
