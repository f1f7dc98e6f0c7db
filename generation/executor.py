"""Generation on a Ray cluster (`reasonaudio generate --executor ray[:ADDRESS]`): the same files as a local run.

The driver plans the split and writes its tables and record (as a local run does), puts the plan (with
its sound bank) into Ray's object store once, then hands each corpus file to a Ray task: the task renders
its one file (the `--num-shards` machinery, a shard per file) in a scratch folder on its node and returns
the file's bytes through the object store; the driver stages each file as it arrives (progress by clips)
and finalises the split, writing the card. Nothing needs to be shared with the nodes: no source, no
folder. A task whose worker dies is run again by Ray (`max_retries`); a driver killed mid-run resumes from
the files already staged, like a local run. Files are byte-identical to a local build's: which clips a
file holds and every clip's audio are functions of the plan alone.

Why Ray: it is the engine audio and ML teams already run for data pipelines and training (Ray Data,
Ray Train), it schedules plain Python functions across nodes with per-task retries on lost workers, and
a laptop runs the same code on a local cluster. `ray` is an optional extra (`pip install '.[ray]'`),
imported only when `--executor ray` is given.
"""
from __future__ import annotations

import socket
import tempfile
from dataclasses import replace
from pathlib import Path

from tqdm.auto import tqdm

from .config import GenerateConfig

RETRIES = 3           # runs of a task whose worker died, after the first
CONNECT_SECONDS = 5.0   # to reach a cluster's address before it is refused
LOCAL, RAY = "local", "ray"


def parse_executor(text: str) -> tuple[str, str | None]:
    """`local`, `ray` (a new local Ray, or the cluster RAY_ADDRESS names) or `ray:ADDRESS` -> (kind, address)."""
    kind, _, address = text.partition(":")
    if kind not in (LOCAL, RAY) or (kind == LOCAL and address):
        raise ValueError(f"--executor must be `local`, `ray` or `ray:ADDRESS` (e.g. ray:auto, ray:10.0.0.5:6379), "
                         f"got {text!r}")
    return kind, address or None


def render_file(plan, index: int, count: int) -> dict[str, bytes]:
    """One corpus file of the planned split (the `index`-th of `count`), rendered in a scratch folder on the
    task's node: {path: bytes}."""
    from .pipeline import STAGING, render_corpus

    with tempfile.TemporaryDirectory(prefix="reasonaudio-shard-") as scratch:
        shard = replace(plan, config=replace(plan.config, out=scratch, workers=1, num_shards=count, shard_index=index,
                                             executor="local", progress=False))
        written = render_corpus(shard, Path(scratch))
        return {relative: (Path(scratch) / STAGING / relative).read_bytes() for relative in written}


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


def generate_on_ray(config: GenerateConfig, address: str | None, task=render_file) -> dict:
    """`generate` with the corpus files rendered by Ray tasks (see the module docstring); `task` is the function
    a task runs (tests wrap it)."""
    check_reachable(address)
    try:
        import ray
    except ImportError:
        raise ValueError("--executor ray needs Ray: pip install '.[ray]' (or pip install ray)") from None
    from .pipeline import STAGING, finalize, locate, prepare_split

    out = Path(config.out)
    plan, record = prepare_split(config)
    files = [(relative, end - first) for corpus in config.corpus_configs() for relative, first, end in plan.corpus_files(corpus)]
    todo = [(index, relative, clips) for index, (relative, clips) in enumerate(files)
            if locate(out, relative, plan.fingerprint) is None]
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, num_cpus=config.workers if address is None else None, log_to_driver=False)
    try:
        remote = ray.remote(num_cpus=1, max_retries=RETRIES)(task)
        shipped = ray.put(plan)            # once, to every node: the plan and its sound bank
        pending = {remote.remote(shipped, index, len(files)): (relative, clips) for index, relative, clips in todo}
        with tqdm(total=sum(clips for _, _, clips in todo), desc=f"rendering {config.split} on Ray", unit="clip",
                  disable=not config.progress) as bar:
            while pending:
                (ready,), _ = ray.wait(list(pending), num_returns=1)
                relative, clips = pending.pop(ready)
                for path, data in ray.get(ready).items():
                    staged = out / STAGING / path
                    staged.parent.mkdir(parents=True, exist_ok=True)
                    partial = staged.with_name(f".{staged.name}.partial")
                    partial.write_bytes(data)
                    partial.replace(staged)
                bar.update(clips)
    finally:
        if started:
            ray.shutdown()
    record["complete"] = finalize(out, config.split)
    return record
