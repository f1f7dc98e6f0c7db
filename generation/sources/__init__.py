"""Sound sources, each one module registered here. A spec is `kind:location[?option=value&...]`."""
from __future__ import annotations

from dataclasses import replace

from reasonaudio.core.spec import parse_spec

from . import csv_manifest, esc50, folder, fsd50k, hf, strong_labels, synthetic
from .base import BadRecording, Recording, SourceError, SPLITS

SOURCES = {
    "synthetic": synthetic.recordings,
    "esc50": esc50.recordings,
    "fsd50k": fsd50k.recordings,
    "csv": csv_manifest.recordings,
    "folder": folder.recordings,
    "hf": hf.recordings,
    strong_labels.NATURAL_KIND: strong_labels.recordings,
}

HELP = "\n".join(f"  {name}: {(fn.__doc__ or '').strip().splitlines()[0]}" for name, fn in SOURCES.items()) + \
    "\n  any source: ?as_split=test puts all its recordings in one split"


def open_source(spec: str) -> list[Recording]:
    """All recordings of a source spec such as `esc50:/data/ESC-50` or `hf:user/ds?label=category`.

    Every source also takes `as_split=NAME`: all its recordings belong to that split (a folder that is
    all test material, say), instead of the source's official split or the stable hash."""
    kind, location, options = parse_spec(spec)
    if kind not in SOURCES:
        raise SourceError(f"unknown source {kind!r} in {spec!r}; known sources:\n{HELP}")
    as_split = options.pop("as_split", None)
    if as_split is not None and as_split not in SPLITS:
        raise SourceError(f"as_split must be one of {SPLITS}, got {as_split!r}")
    try:
        recordings = SOURCES[kind](location, **options)
    except TypeError as error:
        raise SourceError(f"bad options for source {kind!r}: {error}") from None
    return [replace(r, split=as_split) for r in recordings] if as_split else recordings


__all__ = ["BadRecording", "Recording", "SourceError", "SOURCES", "SPLITS", "open_source"]
