"""Model kinds `reasonaudio train --model` builds, one module each, registered here.

A model is a torch module with `encode_text(list[str])` and `encode_audio(list[np.ndarray])` (embeddings
with gradients), `sampling_rate`, `save(folder)` and a `load(folder, device)` class method; `kind` names
it in the folder's `reasonaudio_model.json`, which `trained:MODEL_DIR` reads. The `detector` writes no
embeddings: it lists each clip's sound events, and `detector:MODEL_DIR` scores it.
"""
from __future__ import annotations

from pathlib import Path

from reasonaudio.core.spec import parse_spec

from . import clap, detector, dual, small
from .files import DAMAGED_MODEL, read_json, write_json

MODEL_FILE = "reasonaudio_model.json"
MAX_ADAPTER_LAYERS = 12   # the dual encoder's trainable layers over its frozen states (MiniLM itself has 6)
KINDS = {"small": small.SmallAudioText, "clap": clap.TrainableClap, "detector": detector.Detector,
         "dual": dual.DualEncoder}


def create(spec: str, texts: list[str], labels: list[str] = (), device: str = "cpu"):
    """A model to train: `small` (new; its vocabulary from the train split's `texts`, an event head over
    `labels` when given; `small:?dropout=P`, the text transformer's), `detector` (new, over the train split's sound
    classes `labels`),
    `dual:DETECTOR_DIR[?adapter_layers=N]` (new, hearing through that trained detector) or `clap:PATH_OR_ID`."""
    kind, location, options = parse_spec(spec)
    if set(options) - {"dual": {"adapter_layers"}, "small": {"dropout"}}.get(kind, set()):
        raise ValueError(f"--model {spec!r}: unknown options {sorted(options)}; dual takes ?adapter_layers=N, small takes "
                         "small:?dropout=P")
    if kind == "dual" and location:
        layers = options.get("adapter_layers", str(dual.DualConfig.adapter_layers))
        if not layers.isdigit() or int(layers) > MAX_ADAPTER_LAYERS:
            raise ValueError(f"--model {spec!r}: adapter_layers must be a whole number from 0 to {MAX_ADAPTER_LAYERS}, got {layers!r}")
        hearing = load(location)
        if hearing.kind != "detector":
            raise ValueError(f"--model dual:{location}: that folder holds a {hearing.kind!r} model; the dual "
                             "encoder hears through a detector (reasonaudio train --model detector)")
        return dual.DualEncoder.create(hearing, adapter_layers=int(layers)).to(device)
    if kind == "small" and not location:
        try:
            dropout = float(options.get("dropout", small.SmallConfig.dropout))
        except ValueError:
            dropout = -1.0
        if not 0 <= dropout < 1:
            raise ValueError(f"--model {spec!r}: dropout must be a number in [0, 1)")
        return small.SmallAudioText.create(texts, labels, dropout=dropout).to(device)
    if kind == "detector" and not location:
        return detector.Detector.create(labels).to(device)
    if kind == "clap" and location:
        return clap.TrainableClap.from_pretrained(location, device)
    raise ValueError(f"unknown --model {spec!r}: use small, detector, dual:DETECTOR_DIR or clap:PATH_OR_ID "
                     "(e.g. clap:laion/clap-htsat-unfused)")


def save(model, folder: Path, record: dict) -> None:
    """The model's own files, then the record naming its kind (written last: a folder without it is unfinished)."""
    model.save(folder)
    write_json({"kind": model.kind, **record}, folder / MODEL_FILE)


def load(folder: str | Path, device: str = "cpu"):
    folder = Path(folder)
    if not (folder / MODEL_FILE).is_file():
        raise ValueError(f"{folder} is not a model folder written by `reasonaudio train` (no {MODEL_FILE})")
    kind = read_json(folder / MODEL_FILE, DAMAGED_MODEL).get("kind")
    if kind not in KINDS:
        raise ValueError(f"{folder / MODEL_FILE} names model kind {kind!r}; this version knows {sorted(KINDS)}")
    return KINDS[kind].load(folder, device)
