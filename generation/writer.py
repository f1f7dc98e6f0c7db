"""Writer: Parquet files of the published layout, each written whole or not at all."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from reasonaudio_dataset.schema import features

METADATA_KEY = b"reasonaudio"


def write_table(path: Path, config: str, rows_or_batches, stamp: dict, row_group_size: int | None = None) -> None:
    """Write rows (a list, or an iterable of lists written as they come) atomically, stamped with `stamp`."""
    schema = features(config).arrow_schema
    schema = schema.with_metadata({**(schema.metadata or {}), METADATA_KEY: json.dumps(stamp).encode()})
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    batches = [rows_or_batches] if isinstance(rows_or_batches, list) else rows_or_batches
    # no dictionary: the audio bytes never repeat, and a dictionary attempt on them makes every read 6x slower
    with pq.ParquetWriter(partial, schema, compression="zstd", use_dictionary=False) as writer:
        for rows in batches:
            writer.write_table(pa.Table.from_pylist(rows, schema=schema), row_group_size=row_group_size)
    os.replace(partial, path)


def read_stamp(path: Path) -> dict | None:
    """The stamp of a complete file, or None when there is no such file."""
    if not path.is_file():
        return None
    metadata = pq.read_schema(path).metadata or {}
    return json.loads(metadata[METADATA_KEY]) if METADATA_KEY in metadata else {}
