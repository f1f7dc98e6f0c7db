"""Generation on a Ray cluster (`reasonaudio generate --executor ray[:ADDRESS]`): the same files as a local run.

The driver (`generate`, generation/pipeline.py) plans the split and writes its tables and record (as a local
run does); here it puts the plan (with its sound bank) into Ray's object store once, then hands each corpus
file to a Ray task: the task renders its one file (pipeline.py's `render_file`: the `--num-shards` machinery,
a shard per file) in a scratch folder on its node and returns the file's bytes through the object store; the
driver stages each file as it arrives (progress by clips) and then finalises the split, writing the card.
No folder is shared with the nodes, nor ReasonAudio's code: the job brings the driver's (`shipped_code`), so
a node needs only the same Python packages. A task whose worker dies, or whose node is lost, is run again by
Ray (`max_retries`); a driver killed mid-run resumes from the files already staged, like a local run, and a
local cluster it started goes with it on any exit, a kill -9 included (`start_reaper`: Ray's own fate sharing
leaves its dashboard and runtime-env agents behind). Files are byte-identical to a local build's: which clips
a file holds and every clip's audio are functions of the plan alone.

Why Ray: it is the engine audio and ML teams already run for data pipelines and training (Ray Data,
Ray Train), it schedules plain Python functions across nodes with per-task retries on lost workers, and
a laptop runs the same code on a local cluster. `ray` is an optional extra (`pip install '.[ray]'`),
imported only when `--executor ray` is given.
"""
from __future__ import annotations

import importlib
import os
import socket
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tqdm.auto import tqdm

from .config import GenerateConfig

RETRIES = 3           # runs of a task whose worker died, after the first
REAP_SECONDS = 5      # how long a cluster's process has to end on SIGTERM before it is killed
CONNECT_SECONDS = 5.0   # to reach a cluster's address before it is refused
SHIPPED = ("reasonaudio", "reasonaudio_dataset")   # ReasonAudio's packages a node imports to render a file
MAPPED = ("reasonaudio.generation",)      # the subpackages a clone keeps outside their package's folder


def check_reachable(address: str | None) -> None:
    """A `HOST:PORT` (or `ray://HOST:PORT`) cluster address that nothing answers is one line within
    CONNECT_SECONDS, before any planning: `ray.init` would retry for minutes. `auto`, and no address (a new
    local Ray, or RAY_ADDRESS), are Ray's to resolve."""
    host, _, port = (address or "").removeprefix("ray://").rpartition(":")
    if not (host and port.isdigit()):
        return
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_SECONDS).close()
    except OSError as error:
        raise ValueError(f"--executor ray:{address}: no Ray cluster answers at {host}:{port} within "
                         f"{CONNECT_SECONDS:g} s ({error.strerror or error}); start one (ray start --head) or give "
                         "its address") from None


def import_ray():
    """Ray, or the one line that says how to install it (checked before any work)."""
    try:
        import ray   # the `ray` extra: imported only for --executor ray
    except ImportError:
        raise ValueError("--executor ray needs Ray: pip install '.[ray]' (or pip install ray)") from None
    return ray


def render_on_ray(ray, task, plan, todo: list[tuple[int, str, int]], count: int, staging: Path, address: str | None,
                  config: GenerateConfig) -> None:
    """Each corpus file of `todo` ((index, path, clips), of `count` in all) rendered by a Ray task running
    `task(plan, index, count)`, its files staged under `staging` as they arrive; on the cluster at `address`,
    or a new local Ray of `config.workers` CPUs when none is running."""
    started, reaper = not ray.is_initialized(), None
    if started:
        context = connect(ray, address, config.workers)
        reaper = start_reaper(context.address_info["session_dir"]) if address is None else None
    try:
        remote = ray.remote(num_cpus=1, max_retries=RETRIES)(task)
        shipped = ray.put(plan)            # once, to every node: the plan and its sound bank
        pending = {remote.remote(shipped, index, count): (relative, clips) for index, relative, clips in todo}
        with tqdm(total=sum(clips for _, _, clips in todo), desc=f"rendering {config.split} on Ray", unit="clip",
                  disable=not config.progress) as bar:
            while pending:
                (ready,), _ = ray.wait(list(pending), num_returns=1)
                relative, clips = pending.pop(ready)
                for path, data in ray.get(ready).items():
                    staged = staging / path
                    staged.parent.mkdir(parents=True, exist_ok=True)
                    partial = staged.with_name(f".{staged.name}.partial")
                    partial.write_bytes(data)
                    partial.replace(staged)
                bar.update(clips)
    finally:
        if started:
            ray.shutdown()
            if reaper is not None:
                reaper.stdin.close()           # the reaper ends what shutdown left behind


def connect(ray, address: str | None, workers: int):
    """`ray.init` with this checkout's code for the job (`shipped_code`): the cluster at `address`, or a new local
    one of `workers` CPUs. A cluster that refuses this run's token is one line saying what to set: Ray (2.52 on)
    sends a token to an address given outright only under RAY_AUTH_MODE=token, and says only that it failed."""
    try:
        with tempfile.TemporaryDirectory(prefix="reasonaudio-code-") as folder:    # uploaded by ray.init
            return ray.init(address=address, num_cpus=workers if address is None else None, log_to_driver=False,
                            runtime_env=shipped_code(Path(folder)))
    except ConnectionError as error:
        if "Authentication" not in str(error.__cause__):
            raise
        raise ValueError(f"--executor ray:{address}: the cluster uses token authentication and refused this run: "
                         "export RAY_AUTH_MODE=token, with the cluster's token (`ray get-auth-token` on its head) in "
                         "RAY_AUTH_TOKEN or ~/.ray/auth_token") from None


def shipped_code(folder: Path) -> dict:
    """The job's runtime environment: this checkout's SHIPPED packages, uploaded to the cluster once
    (content-hashed) and put first on every worker's path, so that a node renders with the driver's code and
    needs none of its own (an older ReasonAudio installed there would render other bytes). A caller that
    started Ray itself gives its own runtime environment.

    Args:
        folder: an empty folder where the packages are laid out as installed: in a clone the generator lives in
            the top-level generation/ (setup.cfg's package_dir), not inside reasonaudio/.

    Returns:
        Ray's `runtime_env`, its `py_modules` the laid-out package folders.
    """
    skip = shutil.ignore_patterns("__pycache__")
    for name in SHIPPED:
        shutil.copytree(importlib.import_module(name).__path__[0], folder / name, ignore=skip)
    for name in MAPPED:
        inside = folder / Path(*name.split("."))
        if not inside.exists():
            shutil.copytree(importlib.import_module(name).__path__[0], inside, ignore=skip)
    return {"py_modules": [str(folder / name) for name in SHIPPED], "excludes": ["__pycache__"]}


def start_reaper(session: str) -> subprocess.Popen:
    """A process of its own session that waits until this one closes its stdin or dies (kill -9 included),
    then ends the local cluster this run started: every process holding a file of its Ray `session` folder
    (its logs; Ray's agents rename themselves, so neither name nor environment tells them)."""
    return subprocess.Popen([sys.executable, "-m", "reasonaudio.generation.executor", session], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def reap(session: str) -> None:
    """The reaper's work (`start_reaper`): SIGTERM, then SIGKILL after REAP_SECONDS (Ray's agents ignore
    SIGTERM), for every process holding a file under the `session` folder."""
    import ray  # noqa: F401 - puts the psutil Ray ships on the path
    import psutil

    sys.stdin.buffer.read()                    # returns once the driver closed it or died
    inside = os.path.join(session, "")

    def holds(process) -> bool:
        try:
            return process.pid != os.getpid() and any(f.path.startswith(inside) for f in process.open_files())
        except psutil.Error:
            return False

    cluster = [process for process in psutil.process_iter() if holds(process)]
    for process in cluster:
        try:
            process.terminate()
        except psutil.Error:
            pass
    for process in psutil.wait_procs(cluster, timeout=REAP_SECONDS)[1]:
        try:
            process.kill()
        except psutil.Error:
            pass


if __name__ == "__main__":
    reap(sys.argv[1])
