"""docs/usage.md's Ray cluster recipe, run as written on one machine: `ray start --head`, a second node
(`ray start --address`) that has no ReasonAudio code of its own, the build through the CLI with
`--executor ray:HOST:PORT`, the second node killed while it renders a corpus file. The build is the local one
byte for byte, and no process of either node outlives the tests (the machine is shared: each node has its own
--temp-dir, HOME and ports, and only the processes of those nodes are ended, where `ray stop` would end
everyone's)."""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from reasonaudio.cli import main
from tests.generation.test_executor import files
from tests.test_readme import USAGE, blocks, commands

ray = pytest.importorskip("ray")
import psutil  # noqa: E402 - Ray ships it

ROOT = Path(__file__).resolve().parents[2]
RAY = Path(sys.executable).with_name("ray")
HEAD = "HEAD:6379"          # the recipe's placeholder for the head's address
# What the tests add to the recipe's `ray start`: light nodes of one CPU.
LIGHT = ["--num-cpus=1", "--disable-usage-stats", "--object-store-memory=150000000"]
# The recipe's build shrunk: four corpus files (so both nodes render), of a second or two each.
SMALL = ["--queries-per-task", "40", "--tasks", "negation", "order", "mix", "--sample-rate", "16000", "--quiet"]
STUB = "raise ImportError('this node has no ReasonAudio code: the job must bring it')\n"


def recipe() -> list[list[str]]:
    return commands(next(block for block in blocks("bash", USAGE) if "ray start --head" in block))


def without(words: list[str], option: str) -> list[str]:
    """`words` less `option` and its value."""
    at = words.index(option)
    return words[:at] + words[at + 2:]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("", 0))
        return probe.getsockname()[1]


def node_processes(temp: Path) -> list[psutil.Process]:
    """The processes of the Ray node whose --temp-dir is `temp`: those naming it on their command line (GCS,
    raylet, log monitor, ...) and their descendants (workers, agents)."""
    inside, found = os.path.join(temp, ""), {}
    for process in psutil.process_iter():
        try:
            if process.status() != psutil.STATUS_ZOMBIE and any(inside in word for word in process.cmdline()):
                found.update((p.pid, p) for p in [process, *process.children(recursive=True)])
        except psutil.Error:
            continue
    return list(found.values())


def end(processes: list[psutil.Process], sig=signal.SIGKILL) -> None:
    for process in processes:
        try:
            process.send_signal(sig)
        except psutil.Error:
            pass
    psutil.wait_procs(processes, timeout=3)      # Ray's agents ignore SIGTERM: no use waiting longer


def stop(temp: Path) -> list[str]:
    """What `ray stop` does, for this node only: SIGTERM, then SIGKILL; returns the names of what still runs."""
    end(node_processes(temp), signal.SIGTERM)
    end(node_processes(temp))
    deadline = time.time() + 20
    while node_processes(temp) and time.time() < deadline:
        time.sleep(0.5)
    return [p.name() for p in node_processes(temp)]


def run(words: list[str], environment: dict, **options) -> subprocess.CompletedProcess:
    return subprocess.run(words, env=environment, capture_output=True, text=True, timeout=120, **options)


def driver(words: list[str], environment: dict, cwd: Path) -> subprocess.Popen:
    """`reasonaudio WORDS` from `cwd` (not the checkout: its code reaches the nodes only as the job brings it)."""
    return subprocess.Popen([sys.executable, "-m", "reasonaudio", *words], cwd=cwd, text=True,
                            env={**environment, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """The recipe's steps up to the build: the token, a head, a second node. Each node has a short temp dir
    (Ray's socket paths must fit 107 characters); every process of either is ended afterwards, whatever the
    tests did, and none may be left."""
    steps = recipe()
    assert [words[:2] for words in steps] == [["ray", "get-auth-token"], ["export", "RAY_AUTH_MODE=token"],
                                              ["ray", "start"], ["ray", "start"], ["reasonaudio", "generate"],
                                              ["ray", "stop"]], steps
    token_step, export, head_step, node_step, build_step, _ = steps
    assert "--port=6379" in head_step and f"--address={HEAD}" in node_step
    assert build_step[-2:] == ["--executor", f"ray:{HEAD}"]
    if not RAY.is_file():
        pytest.skip(f"no `ray` command next to {sys.executable}")
    folder = tmp_path_factory.mktemp("cluster")
    home = folder / "home"       # the token goes to ~/.ray: these tests' own, not the machine user's
    home.mkdir()
    environment = {**{k: v for k, v in os.environ.items() if not k.startswith("RAY_")}, "HOME": str(home),
                   "PATH": f"{RAY.parent}{os.pathsep}{os.environ['PATH']}"}
    temps = [Path(tempfile.mkdtemp(prefix=f"ra-{name}-", dir="/tmp")) for name in ("head", "node")]
    try:
        token = run(token_step, environment)
        if token.returncode:
            pytest.skip(f"`{' '.join(token_step)}` cannot run (Ray < 2.52?): {token.stderr.strip()[-300:]}")
        environment.update([export[1].split("=", 1)])
        port = free_port()
        head = run([w.replace("6379", str(port)) for w in head_step] + LIGHT + [
            "--include-dashboard=false", f"--dashboard-port={free_port()}", f"--temp-dir={temps[0]}"], environment)
        if head.returncode:
            pytest.skip(f"`ray start --head` cannot run here: {(head.stderr or head.stdout).strip()[-300:]}")
        address = re.search(r"ray start --address='([^']+)'", head.stdout + head.stderr)[1]   # what it prints
        stubs = folder / "stubs"     # the second node's own ReasonAudio: one that cannot render (none, or older)
        for package in ("generation", "reasonaudio_dataset"):
            (stubs / package).mkdir(parents=True)
            (stubs / package / "__init__.py").write_text(STUB)
        scratch = temps[1] / "scratch"   # the second node's TMPDIR: where its tasks' scratch folders go
        scratch.mkdir()
        node = run([w.replace(HEAD, address) for w in node_step] + LIGHT + [f"--temp-dir={temps[1]}"],
                   {**environment, "RAY_AUTH_TOKEN": token.stdout.strip(), "PYTHONPATH": str(stubs),
                    "TMPDIR": str(scratch)}, cwd=folder)
        assert node.returncode == 0, node.stderr[-2000:]
        build = without(without(build_step[1:], "--queries-per-task"), "--out")[:-2] + SMALL   # generate ...
        yield SimpleNamespace(address=address, environment=environment, node=temps[1], scratch=scratch, build=build)
    finally:
        left = {str(temp): stop(temp) for temp in temps}
        for temp in temps:
            shutil.rmtree(temp, ignore_errors=True)
    assert not any(left.values()), left


@pytest.mark.slow
def test_the_recipe_builds_on_two_nodes_the_local_files_with_a_node_killed_mid_file(tmp_path, cluster):
    built, local = tmp_path / "built", tmp_path / "local"
    build = driver(cluster.build + ["--out", str(built), "--executor", f"ray:{cluster.address}"],
                   cluster.environment, tmp_path)
    try:
        deadline = time.time() + 120
        while not list(cluster.scratch.glob("reasonaudio-shard-*")) and build.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        assert list(cluster.scratch.glob("reasonaudio-shard-*")), \
            f"the second node rendered no file: {build.stdout.read()[-3000:] if build.poll() is not None else ''}"
        end(node_processes(cluster.node))        # the machine is lost, mid-file
        output, _ = build.communicate(timeout=180)
    finally:
        build.kill()
    assert build.returncode == 0, output[-3000:]
    assert "the node it was running on is dead" in output      # Ray's word that the file was rendered again
    assert main(cluster.build + ["--out", str(local)]) == 0
    assert sum(name.startswith("corpus/") for name in files(local)) == 4
    assert files(built) == files(local)


@pytest.mark.slow
def test_a_driver_without_the_token_mode_is_told_what_to_set(tmp_path, cluster):
    """Ray sends no token to an address given outright unless RAY_AUTH_MODE=token: one line, not Ray's bare
    "Failed to connect" after its retries (shortened here to 2 s)."""
    environment = {**cluster.environment, "RAY_gcs_server_port_wait_time_s": "2"}
    del environment["RAY_AUTH_MODE"]
    build = driver(cluster.build + ["--out", str(tmp_path / "built"), "--executor", f"ray:{cluster.address}"],
                   environment, tmp_path)
    output, _ = build.communicate(timeout=120)
    assert build.returncode == 2, output[-3000:]
    assert output.strip().splitlines()[-1].startswith(f"reasonaudio generate: --executor ray:{cluster.address}: ")
    assert "export RAY_AUTH_MODE=token" in output.splitlines()[-1]
