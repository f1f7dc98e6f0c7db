"""The model kinds `reasonaudio train --model` builds, named with their modules, and a --model spec checked
against them. Light to import (no torch), so that a mistyped --model is refused before anything loads."""
from __future__ import annotations

from reasonaudio.core.spec import parse_spec

MODULES = {"small": ("small", "SmallAudioText"), "clap": ("clap", "TrainableClap"),
           "detector": ("detector", "Detector"), "dual": ("dual", "DualEncoder")}   # kind -> (module, class)
MAX_ADAPTER_LAYERS = 12   # the dual encoder's trainable layers over its frozen states (MiniLM itself has 6)
_OPTIONS = {"dual": {"adapter_layers"}, "small": {"dropout"}}
_LOCATED = {"small": False, "detector": False, "dual": True, "clap": True}   # whether the kind names a path or id


def check_model_spec(spec: str) -> tuple[str, str, dict[str, str]]:
    """A model to train, as `--model` names it: `small[:?dropout=P]`, `detector`, `dual:DETECTOR_DIR[?adapter_layers=N]`
    or `clap:PATH_OR_ID`; anything else is a one-line error.

    Args:
        spec: the --model value.

    Returns:
        Its kind, location and options.
    """
    kind, location, options = parse_spec(spec)
    if kind not in _LOCATED or _LOCATED[kind] != bool(location):
        raise ValueError(f"unknown --model {spec!r}: use small, detector, dual:DETECTOR_DIR or clap:PATH_OR_ID "
                         "(e.g. clap:laion/clap-htsat-unfused)")
    if set(options) - _OPTIONS.get(kind, set()):
        raise ValueError(f"--model {spec!r}: unknown options {sorted(options)}; dual takes ?adapter_layers=N, small takes "
                         "small:?dropout=P")
    layers = options.get("adapter_layers", "0")
    if not layers.isdigit() or int(layers) > MAX_ADAPTER_LAYERS:
        raise ValueError(f"--model {spec!r}: adapter_layers must be a whole number from 0 to {MAX_ADAPTER_LAYERS}, got {layers!r}")
    try:
        dropout = float(options.get("dropout", "0"))
    except ValueError:
        dropout = -1.0
    if not 0 <= dropout < 1:
        raise ValueError(f"--model {spec!r}: dropout must be a number in [0, 1)")
    return kind, location, options
