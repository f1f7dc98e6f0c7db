"""Any `datasets`-loadable audio dataset (Hub id or local folder) with an audio and a label column."""
from __future__ import annotations

import io
from functools import partial

from .base import Recording, SourceError


def _decode(dataset, audio_column: str, index: int):
    import soundfile

    cell = dataset[index][audio_column]
    data = io.BytesIO(cell["bytes"]) if cell.get("bytes") else cell["path"]
    return soundfile.read(data, dtype="float32", always_2d=False)


def recordings(location: str, audio: str = "audio", label: str = "label", split: str = "train",
               config: str | None = None, license: str = "") -> list[Recording]:
    """Hugging Face dataset: `hf:REPO_OR_PATH?audio=audio&label=label&split=train&config=NAME`."""
    import datasets

    try:
        dataset = datasets.load_dataset(location, config, split=split)
    except Exception as error:  # datasets raises many types for a missing or malformed dataset
        raise SourceError(f"cannot load Hugging Face dataset {location!r} (split {split!r}): {error}") from error
    for column in (audio, label):
        if column not in dataset.column_names:
            raise SourceError(f"{location} has no column {column!r}; columns: {dataset.column_names}")
    dataset = dataset.cast_column(audio, datasets.Audio(decode=False))  # soundfile decodes: no torchcodec needed
    feature = dataset.features[label]
    names = feature.names if isinstance(feature, datasets.ClassLabel) else None
    licence = license or getattr(dataset.info, "license", "") or ""
    return [
        Recording(
            recording_id=f"hf/{location}/{split}/{i}", label=str(names[value] if names else value),
            origin=f"hf:{location}/{split}/{i}", load=partial(_decode, dataset, audio, i), license=licence,
            group=f"hf/{location}/{split}/{i}",
        )
        for i, value in enumerate(dataset[label])
    ]
