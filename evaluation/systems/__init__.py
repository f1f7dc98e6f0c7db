"""Models and baselines, each one module registered here. A spec is `kind:location[?option=value&...]`."""
from __future__ import annotations

import inspect

from generation.spec import parse_spec

from . import (bag_of_sounds, clap, embeddings_file, first_mentioned_first, oracle, python_model, random_baseline,
               shortcut_audit, timeline_rule, trained, two_stage)
from .base import EmbeddingSystem, EvalData, System

SYSTEMS = {
    "clap": clap.build,
    "python": python_model.build,
    "embeddings": embeddings_file.build,
    "trained": trained.build,
    "two-stage": two_stage.build,
    "random": random_baseline.build,
    "oracle": oracle.build,
    "bag-of-sounds": bag_of_sounds.build,
    "first-mentioned-first": first_mentioned_first.build,
    "shortcut-audit": shortcut_audit.build,
    "timeline-rule": timeline_rule.build,
}

HELP = "\n".join(f"  {name}: {(fn.__doc__ or '').strip().splitlines()[0]}" for name, fn in SYSTEMS.items())


def open_system(spec: str, device: str = "cpu") -> System:
    kind, location, options = parse_spec(spec)
    if kind not in SYSTEMS:
        raise ValueError(f"unknown model {kind!r} in {spec!r}; known:\n{HELP}")
    try:   # bad options are the user's; a TypeError inside a builder is a bug and keeps its traceback
        inspect.signature(SYSTEMS[kind]).bind(location, device=device, **options)
    except TypeError as error:
        raise ValueError(f"bad options for model {kind!r}: {error}") from None
    return SYSTEMS[kind](location, device=device, **options)


__all__ = ["SYSTEMS", "System", "EmbeddingSystem", "EvalData", "open_system"]
