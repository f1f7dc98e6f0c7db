"""Sound sources, each one module registered here. A spec is `kind:location[?option=value&...]`."""
from __future__ import annotations

from dataclasses import replace

from reasonaudio.core.phrases import LABELS_SEPARATOR, phrase_for
from reasonaudio.core.spec import parse_spec

from . import csv_manifest, esc50, folder, fsd50k, hf, strong_labels, synthetic
from .base import BadRecording, Recording, SourceError, SPLITS, UNKNOWN_LABELS

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
    all test material, say), instead of the source's official split or the stable hash. A source whose
    labels share a phrase is refused (`one_phrase_per_class`)."""
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
    one_phrase_per_class(recordings, spec)
    return [replace(r, split=as_split) for r in recordings] if as_split else recordings


def one_phrase_per_class(recordings: list[Recording], spec: str) -> None:
    """Refuse labels that queries would say alike ('chainsaw' and 'Chainsaw' are both "a chainsaw"): two
    classes under one phrase make queries such as "a chainsaw, but not a chainsaw" that no listener can judge,
    and merging them would change the source's classes unasked. Phrases are compared as class names
    (`strong_labels.class_key`: case and spacing aside); labels the bank reports as unknown are left to it.

    Args:
        recordings: a source's recordings (a natural recording's label lists its classes).
        spec: the source spec, named by the refusal.

    Raises:
        SourceError: naming the source, the two labels and their phrase.
    """
    said: dict[str, str] = {}           # phrase key -> the first label said so
    for joined, phrases in dict.fromkeys((r.label, r.phrase) for r in recordings):   # each pair once: FSD50K has 51k
        labels = joined.split(LABELS_SEPARATOR)
        given = phrases.split(LABELS_SEPARATOR) if phrases else [None] * len(labels)
        for label, phrase in zip(labels, given):
            if label.strip().lower() in UNKNOWN_LABELS:
                continue
            phrase = phrase_for(label, phrase)
            first = said.setdefault(strong_labels.class_key(phrase), label)
            if first != label:
                raise SourceError(f"{spec}: labels {first!r} and {label!r} are both said {phrase!r}; a phrase names "
                                  "one class in queries, so give them one label or two labels said apart")


__all__ = ["BadRecording", "Recording", "SourceError", "SOURCES", "SPLITS", "one_phrase_per_class", "open_source"]
