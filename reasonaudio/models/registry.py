"""Model kinds `reasonaudio train --model` builds, one module each, registered here.

A model is a torch module with `encode_text(list[str])` and `encode_audio(list[np.ndarray])` (embeddings
with gradients), `sampling_rate`, `save(folder)` and a `load(folder, device)` class method; `kind` names
it in the folder's `reasonaudio_model.json`, which `trained:MODEL_DIR` reads. The `detector` writes no
embeddings: it lists each clip's sound events, and `detector:MODEL_DIR` scores it.
"""
from __future__ import annotations

from pathlib import Path

from importlib import import_module

from .files import DAMAGED_MODEL, read_json, write_json
from .kinds import MODULES, check_model_spec

MODEL_FILE = "reasonaudio_model.json"
KINDS = {kind: getattr(import_module(f"{__package__}.{module}"), name) for kind, (module, name) in MODULES.items()}


def create(spec: str, texts: list[str], labels: list[str] = (), device: str = "cpu"):
    """A model to train: `small` (new; its vocabulary from the train split's `texts`, an event head over
    `labels` when given; `small:?dropout=P`, the text transformer's), `detector` (new, over the train split's sound
    classes `labels`), `dual:DETECTOR_DIR[?adapter_layers=N]` (new, hearing through that trained detector) or
    `clap:PATH_OR_ID`; the spec is checked by `kinds.check_model_spec`."""
    kind, location, options = check_model_spec(spec)
    if kind == "dual":
        hearing = load(location)
        if hearing.kind != "detector":
            raise ValueError(f"--model dual:{location}: that folder holds a {hearing.kind!r} model; the dual "
                             "encoder hears through a detector (reasonaudio train --model detector)")
        layers = int(options.get("adapter_layers", KINDS["dual"].config_class.adapter_layers))
        return KINDS["dual"].create(hearing, adapter_layers=layers).to(device)
    if kind == "small":
        dropout = float(options.get("dropout", KINDS["small"].config_class.dropout))
        return KINDS["small"].create(texts, labels, dropout=dropout).to(device)
    if kind == "detector":
        return KINDS["detector"].create(labels).to(device)
    return KINDS["clap"].from_pretrained(location, device)


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
