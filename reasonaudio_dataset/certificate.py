"""A build's validity certificate: what the reasoning-free systems score on its test split, and how many of its
cells were large enough to test, kept with the build.

`reasonaudio baselines --certify` writes it into the build's records (`.reasonaudio/certificate.json`), and the
card shows it as its "Validity" section, so a build published to the Hub says whether systems that cannot reason
solve it. It names the test split's fingerprint: `validate` refuses a certificate, or a card carrying one, that
another build earned.
"""
from __future__ import annotations

import json
from pathlib import Path

from .splits import RECORDS

CERTIFICATE = "certificate.json"     # in RECORDS
SECTION = "## Validity"              # the card's heading of the section
FIELDS = ("fingerprint", "benchmark_version", "tasks", "systems", "flagged", "coverage", "command")   # what the card shows
MIN_CELL = 30         # cells with fewer queries are reported, never flagged: their intervals are too wide


def certificate_path(out: Path) -> Path:
    return Path(out) / RECORDS / CERTIFICATE


def read_certificate(out: Path) -> dict | None:
    """The folder's certificate, None without one (or an unreadable one, or one lacking a field of FIELDS:
    `certificate_findings` says so).

    Args:
        out: a build's folder.

    Returns:
        The certificate record, or None.
    """
    try:
        found = json.loads(certificate_path(out).read_text())
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) and set(FIELDS) <= set(found) else None


def coverage(results: dict) -> dict[str, int]:
    """How many cells (each task, and each cell of its breakdown) the baselines' build has, and how many hold fewer
    than MIN_CELL queries: `baselines` tests none of those, so no flag can be raised there.

    Args:
        results: the baselines' results by system (a system's `num_queries` and breakdown cells: every system
            scores the same queries).

    Returns:
        {"cells": how many, "untested": how many under MIN_CELL queries, "min_queries": MIN_CELL}.
    """
    result = next(iter(results.values()))
    sizes = {**result["num_queries"],
             **{key: cell["num_queries"] for key, cell in result.get("breakdown", {}).get("cells", {}).items()}}
    return {"cells": len(sizes), "untested": sum(n < MIN_CELL for n in sizes.values()), "min_queries": MIN_CELL}


def too_small(coverage: dict) -> bool:
    """Whether no cell reached the queries a test needs (`coverage`): nothing was tested, so nothing is certified.

    Args:
        coverage: {"cells", "untested", "min_queries"}, as `baselines` counts them.

    Returns:
        True when every cell went untested.
    """
    return coverage["untested"] == coverage["cells"]


def coverage_note(coverage: dict) -> str:
    """How many cells were too small to test, in the words the console, the tables and the card use.

    Args:
        coverage: {"cells", "untested", "min_queries"}, as `baselines` counts them.

    Returns:
        One line; "" when every cell was tested.
    """
    cells, untested, least = coverage["cells"], coverage["untested"], coverage["min_queries"]
    if too_small(coverage):
        return f"too small to certify: no cell reaches {least} queries; {cells} cell{'s' * (cells != 1)} untested"
    return f"{untested} of {cells} cells untested (fewer than {least} queries)" if untested else ""


def _percent(value) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def certificate_section(certificate: dict) -> str:
    """The card's Validity section: the build and version certified, each system per task with its interval and
    what it is held to, the cells flagged and how many were too small to test (a build where none was large
    enough is said to be too small to certify, never clean), and the command that reproduces it.

    Args:
        certificate: a certificate record.

    Returns:
        Markdown, from the section's heading on.
    """
    tasks = certificate["tasks"]
    rows = []
    for system in certificate["systems"]:
        cells = [_percent(value) + (f" [{_percent(low)}, {_percent(high)}]" if low is not None else "")
                 for value, low, high in (system["tasks"].get(task, (None, None, None)) for task in [*tasks, "average"])]
        rows.append(f"| {system['name']} | {system['held_to'] or 'reported'} | " + " | ".join(cells) + " |")
    pool = ""
    if "recordings" in certificate:
        below = certificate["recordings"] < certificate["balanced_from"]
        pool = (f" A natural build of {certificate['recordings']:,} recordings"
                + (f", fewer than the {certificate['balanced_from']:,} from which its groups balance." if below else "."))
    coverage, note = certificate["coverage"], coverage_note(certificate["coverage"])
    if too_small(coverage):
        verdict = f"**Not certified**: {note}."
    else:
        flagged = "\n\n" + "\n".join(f"- {cell}" for cell in certificate["flagged"]) if certificate["flagged"] else " none"
        verdict = f"**Cells flagged**:{flagged}" + (f"\n\n{note}." if note else "")
    return (f"{SECTION}\n\nReasoning-free systems on this build's test split (fingerprint "
            f"`{certificate['fingerprint']}`, benchmark version {certificate['benchmark_version']}): group accuracy "
            "(%) per task with its 95 % interval, and what each is held to. A system that beats its tie on a task, "
            f"or on a cell of {coverage['min_queries']} queries or more, beyond its interval would mean the build can "
            f"be solved without the reasoning it tests.{pool}\n\n"
            f"| system | held to | {' | '.join(tasks)} | average |\n|---|---|{'---:|' * (len(tasks) + 1)}\n"
            + "\n".join(rows)
            + f"\n\n{verdict}\n\nReproduce: `{certificate['command']}`\n")


def certificate_findings(out: Path, records: dict[str, dict], card: str) -> list[str]:
    """What is wrong with the folder's certificate: one made for another build or benchmark version, or a card
    carrying a Validity section that no certificate of this folder backs (pasted from another build).

    Args:
        out: a build's folder.
        records: its finished splits' records, by split.
        card: the text of its README.md.

    Returns:
        One line per problem; none for a folder without a certificate or with a matching one.
    """
    path = certificate_path(out)
    if not path.exists():
        return ([f"README.md carries a validity section but {RECORDS}/{CERTIFICATE} is missing: it was made for "
                 "another build (rerun `reasonaudio baselines ... --certify`)"] if f"\n{SECTION}\n" in card else [])
    certificate = read_certificate(out)
    if certificate is None:
        return [f"{path}: not a readable certificate (JSON holding {', '.join(FIELDS)}): rerun `reasonaudio baselines "
                "... --certify`"]
    test = records.get("test", {})
    if certificate["fingerprint"] != test.get("fingerprint"):
        return [f"{path}: certifies the test split {certificate['fingerprint']}, but this build's test split is "
                f"{test.get('fingerprint')}: it was made for another build; rerun `reasonaudio baselines ... --certify`"]
    if certificate["benchmark_version"] != test.get("benchmark_version"):
        return [f"{path}: made at benchmark version {certificate['benchmark_version']}, the test split is "
                f"{test.get('benchmark_version')}"]
    return []
