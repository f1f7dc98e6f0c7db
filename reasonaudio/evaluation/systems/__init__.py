"""Models and baselines, each one module registered here. A spec is `kind:location[?option=value&...]`.

A module is imported only when its kind is opened: `HELP` reads each module's `build` docstring, `check_spec`
its parameters, and `BASELINES` its `METADATA` (what `reasonaudio baselines` holds it to), from its source
without running it, so listing the kinds (the CLI's --help) loads no model library and a wrong spec is refused
before torch loads. `reasonaudio baselines` runs the modules that declare `METADATA`, in the order below."""
from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
from pathlib import Path

from reasonaudio.core.spec import parse_spec
from reasonaudio_dataset.hub import hub_offline, unreachable_hub

from .metadata import CHANCE, BaselineMetadata

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
# What a kind's location names, checked before its module loads: a folder or file that must be there, or a
# Hugging Face model (a local folder, in the Hub's cache, or fetched: not while offline).
LOCATIONS = {"trained": "folder", "detector": "folder", "embeddings": "file", "clap": "hub model"}


@functools.cache
def _tree(module: str) -> ast.Module:
    """evaluation/systems/<module>.py, parsed, not run."""
    source = importlib.util.find_spec(f"{__name__}.{module}").origin
    return ast.parse(open(source, encoding="utf-8").read())


def _build(module: str) -> ast.FunctionDef:
    """`build` in evaluation/systems/<module>.py, read as text."""
    return next(node for node in _tree(module).body if isinstance(node, ast.FunctionDef) and node.name == "build")


def metadata(module: str) -> BaselineMetadata | None:
    """`METADATA = BaselineMetadata(...)` in evaluation/systems/<module>.py, read as text (its keywords are
    literals, `CHANCE` as itself); None where the module declares none (a model, not a baseline)."""
    for node in _tree(module).body:
        if isinstance(node, ast.Assign) and [getattr(target, "id", None) for target in node.targets] == ["METADATA"]:
            return BaselineMetadata(**{keyword.arg: CHANCE if getattr(keyword.value, "id", None) == "CHANCE"
                                       else ast.literal_eval(keyword.value) for keyword in node.value.keywords})
    return None


def _summary(module: str) -> str:
    """The first line of `build`'s docstring."""
    return (ast.get_docstring(_build(module)) or "").strip().splitlines()[0]


def _options(module: str) -> tuple[list[str], bool]:
    """The ?options `build` takes (its parameters after the location, but the device; each has a default),
    and whether it takes any (`**options`)."""
    arguments = _build(module).args
    names = [a.arg for a in arguments.args[1:] + arguments.kwonlyargs if a.arg != "device"]
    return names, arguments.kwarg is not None


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
    """The `build` function of a registered kind (its module imported now)."""
    return importlib.import_module(f".{SYSTEMS[kind]}", __name__).build


def open_system(spec: str, device: str = "cpu"):
    kind, location, options = check_spec(spec)   # bad options are the user's; a TypeError inside a build is a bug
    return builder(kind)(location, device=device, **options)


def __getattr__(name: str):
    """`System`, `EmbeddingSystem` and `EvalData` (models/scoring.py), imported on first use."""
    if name in ("System", "EmbeddingSystem", "EvalData"):
        from reasonaudio.models import scoring   # torch and datasets: listing the kinds (--help) needs neither

        return getattr(scoring, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SYSTEMS", "HELP", "BASELINES", "BaselineMetadata", "metadata", "System", "EmbeddingSystem", "EvalData", "check_spec", "open_system", "builder"]
