"""Models and baselines, each one module registered here. A spec is `kind:location[?option=value&...]`.

A module is imported only when its kind is opened: `HELP` reads each module's `build` docstring from its
source without running it, so listing the kinds (the CLI's --help) loads no model library."""
from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect

from generation.spec import parse_spec

SYSTEMS = {
    "clap": "clap",
    "python": "python_model",
    "embeddings": "embeddings_file",
    "trained": "trained",
    "detector": "detector",
    "two-stage": "two_stage",
    "random": "random_baseline",
    "oracle": "oracle",
    "bag-of-sounds": "bag_of_sounds",
    "least-busy": "least_busy",
    "first-mentioned-first": "first_mentioned_first",
    "shortcut-audit": "shortcut_audit",
    "timeline-rule": "timeline_rule",
    "relation-blind": "relation_blind",
    "listwise-audit": "listwise_audit",
}


def _summary(module: str) -> str:
    """The first line of `build`'s docstring in evaluation/systems/<module>.py, read as text."""
    source = importlib.util.find_spec(f"{__name__}.{module}").origin
    tree = ast.parse(open(source, encoding="utf-8").read())
    build = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "build")
    return (ast.get_docstring(build) or "").strip().splitlines()[0]


HELP = "\n".join(f"  {kind}: {_summary(module)}" for kind, module in SYSTEMS.items())


def builder(kind: str):
    """The `build` function of a registered kind (its module imported now)."""
    return importlib.import_module(f".{SYSTEMS[kind]}", __name__).build


def open_system(spec: str, device: str = "cpu"):
    kind, location, options = parse_spec(spec)
    if kind not in SYSTEMS:
        raise ValueError(f"unknown model {kind!r} in {spec!r}; known:\n{HELP}")
    build = builder(kind)
    try:   # bad options are the user's; a TypeError inside a builder is a bug and keeps its traceback
        inspect.signature(build).bind(location, device=device, **options)
    except TypeError as error:
        raise ValueError(f"bad options for model {kind!r}: {error}") from None
    return build(location, device=device, **options)


def __getattr__(name: str):
    """`System`, `EmbeddingSystem` and `EvalData` (models/scoring.py), imported on first use."""
    if name in ("System", "EmbeddingSystem", "EvalData"):
        from models import scoring   # torch and datasets: listing the kinds (--help) needs neither

        return getattr(scoring, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SYSTEMS", "HELP", "System", "EmbeddingSystem", "EvalData", "open_system", "builder"]
