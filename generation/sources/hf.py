"""Any `datasets`-loadable audio dataset (Hub id or local folder) with an audio and a label column."""
from __future__ import annotations

import io
from functools import partial

from .base import CREDIT_COLUMNS, Recording, SourceError


def _decode(dataset, audio_column: str, index: int):
    import soundfile

    cell = dataset[index][audio_column]
    data = io.BytesIO(cell["bytes"]) if cell.get("bytes") else cell["path"]
    return soundfile.read(data, dtype="float32", always_2d=False)


def _column(dataset, location: str, given: str | None, names: tuple[str, ...]) -> list:
    """A per-row text column: the one an option names, else the first of `names` the dataset has, else blanks."""
    if given and given not in dataset.column_names:
        raise SourceError(f"{location} has no column {given!r}; columns: {dataset.column_names}")
    name = given or next((n for n in names if n in dataset.column_names), None)
    return [str(v or "").strip() for v in dataset[name]] if name else [""] * len(dataset)


def recordings(location: str, audio: str = "audio", label: str = "label", split: str = "train",
               config: str | None = None, license: str = "", license_column: str | None = None,
               attribution_column: str | None = None) -> list[Recording]:
    """Hugging Face dataset: `hf:REPO_OR_PATH?audio=audio&label=label&split=train&config=NAME`.

    Per-row `license` and `credit`/`attribution`/`author` columns (or those named by `license_column=`,
    `attribution_column=`) give each recording its own license, over `license=` and the dataset's, and credit."""
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
    licences = _column(dataset, location, license_column, ("license",))
    credits = _column(dataset, location, attribution_column, CREDIT_COLUMNS)
    return [
        Recording(
            recording_id=f"hf/{location}/{split}/{i}", label=str(names[value] if names else value),
            origin=f"hf:{location}/{split}/{i}", load=partial(_decode, dataset, audio, i),
            license=licences[i] or licence, attribution=credits[i], group=f"hf/{location}/{split}/{i}",
        )
        for i, value in enumerate(dataset[label])
    ]
