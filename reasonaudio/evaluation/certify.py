"""`reasonaudio baselines --certify`: the baselines' figures written into the build they were measured on, as
its validity certificate (`reasonaudio_dataset.certificate`: the record, and the card's Validity section)."""
from __future__ import annotations

from pathlib import Path

from reasonaudio_dataset.card import RECORDS, load_records, without_paths, write_card, write_json
from reasonaudio_dataset.certificate import certificate_path, coverage
from reasonaudio_dataset.folders import held, split_lock


def certificate(results: dict[str, dict], held_to: dict[str, str], flagged: list[str], record: dict,
                command: str) -> dict:
    """The certificate of a test split from its baselines' results.

    Args:
        results: each system's result as `baselines` scores it (per task accuracy and its interval, the queries per
            task and per breakdown cell: how many cells were too small to test, `coverage`).
        held_to: what each system is held to (its tie, by name), "" for one only reported.
        flagged: the tasks and cells where a system is off its tie beyond its interval (none: an empty list).
        record: the test split's record (its fingerprint and benchmark version).
        command: the command that reproduces the figures.

    Returns:
        The certificate record.
    """
    tasks = list(next(iter(results.values()))["num_queries"])
    systems = []
    for name, result in results.items():
        intervals = result.get("intervals", {})
        systems.append({"name": name, "held_to": held_to.get(name, ""), "tasks": {
            task: [result[task]["accuracy"], *(intervals.get(task, {}).get("accuracy") or (None, None))]
            for task in [*tasks, "average"] if task in result}})
    natural = record.get("natural", {})
    pool = {key: natural[key] for key in ("recordings", "balanced_from") if key in natural}
    return {"fingerprint": record["fingerprint"], "benchmark_version": record.get("benchmark_version", "unversioned"),
            "tasks": tasks, "systems": systems, "flagged": list(flagged), "coverage": coverage(results),
            "command": without_paths(command), **pool}


def write_certificate(data: str | Path, fingerprint: str, make) -> Path:
    """Write the certificate `make(record)` into the build `data` and re-render its card, holding the test split
    as `generate` does, and only if the test split is still the one scored (`fingerprint`, taken before
    scoring): a split regenerated meanwhile is refused, never certified with another build's figures.

    Args:
        data: the build's folder.
        fingerprint: the test split's fingerprint when scoring began.
        make: the certificate, from the test split's record.

    Returns:
        The certificate's path.
    """
    data = Path(data)
    with held(data / RECORDS, split_lock("test"), busy=f"{data}: its test split is being generated right now; certify it "
                                                 "once that run is done"):
        record = load_records(data).get("test", {})
        if record.get("fingerprint") != fingerprint:
            raise ValueError(f"{data}: its test split changed while the baselines ran ({fingerprint} then, "
                             f"{record.get('fingerprint')} now): run baselines --certify again")
        path = certificate_path(data)
        write_json(path, make(record))
        write_card(data)
    return path
