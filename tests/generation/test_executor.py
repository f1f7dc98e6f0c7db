"""Generation on a Ray cluster (`--executor ray`): the same bytes as a local run, a lost worker's file
rendered again, and clear errors."""
import os
from pathlib import Path

import pytest

from reasonaudio.generation.config import GenerateConfig
from reasonaudio.generation.pipeline import generate

ray = pytest.importorskip("ray")


def small(out, **options):
    """Three corpus files (300 clips at 16 kHz): three Ray tasks."""
    return GenerateConfig(out=str(out), queries_per_task=10, tasks=("negation", "order", "mix"), sample_rate=16000,
                          workers=2, progress=False, **options)


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def local_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    generate(small(out))
    return files(out)


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.slow
def test_a_ray_build_is_the_local_build_byte_for_byte(tmp_path, local_build, cluster):
    record = generate(small(tmp_path, executor="ray"))
    assert record["complete"]
    built = files(tmp_path)
    assert sum(name.startswith("corpus/") for name in built) == 3
    assert built == local_build


@pytest.mark.slow
def test_a_task_whose_worker_dies_is_run_again(tmp_path, local_build, cluster):
    from reasonaudio.generation.pipeline import render_file

    marker = tmp_path / "killed-once"

    def dies_once(plan, index, count):
        if index == 1 and not marker.exists():
            marker.touch()
            os._exit(1)                     # the worker process is lost mid-task
        return render_file(plan, index, count)

    out = tmp_path / "build"
    record = generate(small(out, executor="ray"), task=dies_once)
    assert marker.exists() and record["complete"]
    assert files(out) == local_build


def test_executor_errors_are_one_line(tmp_path):
    from reasonaudio.generation.config import parse_executor

    for wrong in ("dask", "local:somewhere", "rays"):
        with pytest.raises(ValueError, match="--executor must be"):
            parse_executor(wrong)
    assert parse_executor("ray:10.0.0.5:6379") == ("ray", "10.0.0.5:6379")
    with pytest.raises(ValueError, match="leave out --num-shards"):
        small(tmp_path, executor="ray", num_shards=2)


DRIVER = """
import os, sys
from pathlib import Path
from reasonaudio.generation.config import GenerateConfig
from reasonaudio.generation.pipeline import generate

real = Path.replace

def killed(self, target):          # the driver dies at its first corpus file's move: no finally, no atexit (kill -9)
    if "corpus" in str(target):
        os._exit(137)
    return real(self, target)

Path.replace = killed
generate(GenerateConfig(out=sys.argv[1], queries_per_task=2, tasks=("order",), sample_rate=16000, workers=1,
                        progress=False, executor="ray"))
"""


def _ray_processes(marker: str):
    """The processes holding a file under `marker` (the cluster's RAY_TMPDIR: its logs)."""
    import psutil

    found = []
    for process in psutil.process_iter():
        try:
            if any(f.path.startswith(marker) for f in process.open_files()):
                found.append(process)
        except psutil.Error:
            continue
    return found


@pytest.mark.slow
def test_a_local_cluster_the_driver_started_is_shut_down_when_the_driver_is_killed(tmp_path):
    """The driver of `--executor ray` killed outright (os._exit at its first file move, as kill -9): the local
    cluster it started (raylet, GCS, dashboard, its agents) goes with it, nothing left orphaned."""
    import shutil
    import subprocess
    import sys
    import tempfile
    import time

    import psutil      # Ray ships it

    temp = tempfile.mkdtemp(prefix="ra-", dir="/tmp")     # short: Ray's socket paths must fit 107 characters
    environment = {**os.environ, "RAY_TMPDIR": temp, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    try:
        driver = subprocess.run([sys.executable, "-c", DRIVER, str(tmp_path / "out")], env=environment, timeout=240,
                                capture_output=True, text=True)
        assert driver.returncode == 137, driver.stderr[-2000:]
        deadline = time.time() + 30
        while _ray_processes(temp) and time.time() < deadline:
            time.sleep(0.5)
        left = [p.name() for p in _ray_processes(temp)]
        assert not left, left
    finally:
        for process in _ray_processes(temp):          # never leave a cluster behind on a shared machine
            try:
                process.kill()
            except psutil.Error:
                pass
        shutil.rmtree(temp, ignore_errors=True)


def test_the_code_shipped_to_a_node_holds_the_generator_inside_reasonaudio(tmp_path):
    """A clone keeps the generator in the top-level generation/ (setup.cfg's package_dir): the code a node
    receives is laid out as installed, so the node imports reasonaudio.generation from it and not from elsewhere."""
    import subprocess
    import sys

    from reasonaudio.generation.executor import shipped_code

    modules = [Path(folder) for folder in shipped_code(tmp_path / "code")["py_modules"]]
    assert [folder.name for folder in modules] == ["reasonaudio", "reasonaudio_dataset"]
    assert (modules[0] / "generation" / "pipeline.py").is_file()
    assert (modules[0] / "generation" / "acoustics" / "presets" / "clean.yaml").is_file()
    assert not list(tmp_path.rglob("__pycache__"))
    where = "import importlib.util as u; print(u.find_spec('reasonaudio.generation.pipeline').origin)"
    found = subprocess.run([sys.executable, "-c", where], cwd=tmp_path, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(tmp_path / "code")})
    assert found.stdout.strip() == str(modules[0] / "generation" / "pipeline.py"), found.stderr
