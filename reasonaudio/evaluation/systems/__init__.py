"""Models and baselines, each one module registered here. A spec is `kind:location[?option=value&...]`.

Every module is imported here: `HELP` reads each one's `build` docstring, `check_spec` its parameters, and
`BASELINES` its `METADATA` (what `reasonaudio baselines` holds it to). So a module imports only the standard
library, numpy, `reasonaudio.core`, models/system.py and its light siblings at its top, and torch and every other
model library inside the functions that use them: listing the kinds (the CLI's --help) loads no model library,
and a wrong spec is refused before torch loads. `reasonaudio baselines` runs the modules that declare
`METADATA`, in the order below."""
from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from reasonaudio.core.spec import parse_spec
from reasonaudio.models.system import System
from reasonaudio_dataset.hub import hub_offline, unreachable_hub

from .metadata import BaselineMetadata

SYSTEMS = {
    "clap": "clap",
    "python": "python_model",
    "embeddings": "embeddings_file",
    "trained": "trained",
    "detector": "detector",
    "random": "random_baseline",
    "oracle": "oracle",
    "bag-of-sounds": "bag_of_sounds",
    "least-busy": "least_busy",
    "first-mentioned-first": "first_mentioned_first",
    "timeline-rule": "timeline_rule",
    "shortcut-audit": "shortcut_audit",
    "relation-blind": "relation_blind",
    "listwise-audit": "listwise_audit",
    "shared-sounds": "shared_sounds",
    "two-stage": "two_stage",
}
# What a kind's location names, checked before its model loads: a folder or file that must be there, or a
# Hugging Face model (a local folder, in the Hub's cache, or fetched: not while offline).
LOCATIONS = {"trained": "folder", "detector": "folder", "embeddings": "file", "clap": "hub model"}


def _module(module: str):
    """evaluation/systems/<module>.py, imported (light at its top: see above)."""
    return importlib.import_module(f".{module}", __name__)


def metadata(module: str) -> BaselineMetadata | None:
    """What evaluation/systems/<module>.py declares as `METADATA`.

    Args:
        module: the module's name in this package, as `SYSTEMS` gives it.

    Returns:
        Its `BaselineMetadata`; None where it declares none (a model, not a baseline).

    Raises:
        ValueError: its `METADATA` is something else, naming the module's file.
    """
    imported = _module(module)
    declared = getattr(imported, "METADATA", None)
    if declared is not None and not isinstance(declared, BaselineMetadata):
        raise ValueError(f"{imported.__file__}: METADATA is a {type(declared).__name__}, not a BaselineMetadata")
    return declared


def _summary(module: str) -> str:
    """The first line of `build`'s docstring."""
    return inspect.getdoc(_module(module).build).strip().splitlines()[0]


def _options(module: str) -> tuple[list[str], bool]:
    """The ?options `build` takes (its parameters after the location, but the device; each has a default),
    and whether it takes any (`**options`)."""
    parameters = list(inspect.signature(_module(module).build).parameters.values())[1:]
    names = [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "device"]
    return names, any(p.kind == p.VAR_KEYWORD for p in parameters)


def _check_hub_model(spec: str, location: str) -> None:
    """A model in a local folder, in the Hub's cache, or on a Hub this machine reaches: else one line at once
    (from_pretrained would retry for tens of seconds)."""
    from huggingface_hub import try_to_load_from_cache   # imported here: --help never loads it

    if Path(location).is_dir() or isinstance(try_to_load_from_cache(location, "config.json"), str):
        return
    if hub_offline():
        raise ValueError(f"cannot load model {spec}: not found, or cannot be fetched while HF_HUB_OFFLINE is set "
                         "(not a local folder, and not in the Hugging Face cache)")
    unreachable = unreachable_hub()
    if unreachable:
        raise ValueError(f"cannot load model {spec}: not found, or cannot be fetched (not a local folder, not in the "
                         f"Hugging Face cache, and {unreachable})")


def check_spec(spec: str) -> tuple[str, str, dict]:
    """A model spec's kind, location and options, checked without importing the kind's module (nor torch):
    a known kind, options its `build` takes, and a location that is there."""
    kind, location, options = parse_spec(spec)
    if kind not in SYSTEMS:
        raise ValueError(f"unknown model {kind!r} in {spec!r}; known: {', '.join(SYSTEMS)} (`reasonaudio evaluate "
                         "--help` says what each is)")
    names, any_option = _options(SYSTEMS[kind])
    unknown = [] if any_option else sorted(set(options) - set(names))
    if unknown:
        takes = f"?{'&'.join(f'{name}=...' for name in names)}" if names else "no options"
        raise ValueError(f"bad options for model {kind!r}: unknown option(s) {unknown}; it takes {takes}")
    where = LOCATIONS.get(kind)
    if where in ("folder", "file") and not Path(location).exists():
        raise ValueError(f"model {spec!r}: no {where} {location!r}")
    if where == "hub model":
        _check_hub_model(spec, location)
    return kind, location, options


HELP = "\n".join(f"  {kind}: {_summary(module)}" for kind, module in SYSTEMS.items())
BASELINES = {kind: found for kind, module in SYSTEMS.items() if (found := metadata(module))}


def builder(kind: str):
    """The `build` function of a registered kind."""
    return _module(SYSTEMS[kind]).build


def open_system(spec: str, device: str = "cpu"):
    kind, location, options = check_spec(spec)   # bad options are the user's; a TypeError inside a build is a bug
    return builder(kind)(location, device=device, **options)


def __getattr__(name: str):
    """`EmbeddingSystem` and `EvalData` (models/scoring.py), imported on first use."""
    if name in ("EmbeddingSystem", "EvalData"):
        from reasonaudio.models import scoring   # torch and datasets: listing the kinds (--help) needs neither

        return getattr(scoring, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SYSTEMS", "HELP", "BASELINES", "BaselineMetadata", "metadata", "System", "EmbeddingSystem", "EvalData", "check_spec", "open_system", "builder"]
