"""The typed split model: each row type's columns give the published Features, the fingerprint's fields, what the
writer writes and what validate reads back."""
from dataclasses import replace

import pyarrow as pa
import pytest

from reasonaudio.core.records import QUERY_FIELDS, SOURCE_FIELDS, fingerprint
from reasonaudio.core.relations import Event
from reasonaudio.core.rows import ROWS, ClipRow, QrelRow, QueryRow, RowError, SourceRow
from reasonaudio_dataset.schema import FEATURES, features, mteb_ids

EVENTS = (Event("dog", "dog/1", 0.5, 2.0, -3.0), Event("rain", "rain/2", 1.0, 9.5, -12.0))
EXAMPLES = {
    "queries": QueryRow(query_id="test-order-0000", task="order", shape="before", depth=1, num_sounds=2,
                        text="A dog barking, then rain.", constraint='{"all": []}', candidates=("c0", "c1"),
                        positive="c0", hard_negatives=("c1",)),
    "corpus": ClipRow(clip_id="c0", audio={"bytes": b"fLaC", "path": "c0.flac"}, task="order",
                      query_id="test-order-0000", duration=10.0, events=EVENTS, caption="A dog.", acoustics="{}"),
    "qrels": QrelRow(query_id="test-order-0000", clip_id="c0", score=1),
    "sources": SourceRow(source_id="dog/1", label="dog", phrase="a dog barking", kind="discrete", origin="x.wav",
                         license="CC0", attribution="", duration=1.5, loop=(0, 0, 0),
                         audio={"bytes": b"fLaC", "path": "dog_1.flac"}),
}


@pytest.mark.parametrize("config", list(ROWS))
def test_a_row_survives_the_published_table(config):
    row = EXAMPLES[config]
    table = pa.Table.from_pylist([row.to_row()], schema=features(config).arrow_schema)
    back = ROWS[config].from_row(table.to_pylist()[0], read_from="file row 0")
    assert back == row and back.read_from == "file row 0"
    assert back.to_row() == row.to_row() and back.to_row().items() >= mteb_ids(config, row.to_row()).items()


@pytest.mark.parametrize("config", list(ROWS))
def test_the_features_are_the_row_types_columns(config):
    names = [name for name, _ in ROWS[config].columns()]
    assert list(FEATURES[config]) == names
    assert set(names) == set(EXAMPLES[config].to_row())


@pytest.mark.parametrize("row, column, value", [
    ({**EXAMPLES["queries"].to_row(), "candidates": None}, "candidates", "not a list"),
    ({**EXAMPLES["queries"].to_row(), "depth": "2"}, "depth", "not an integer"),
    ({k: v for k, v in EXAMPLES["queries"].to_row().items() if k != "text"}, "text", "missing"),
    ({**EXAMPLES["corpus"].to_row(), "events": [{"label": "dog"}]}, "events", "KeyError"),
    ({**EXAMPLES["corpus"].to_row(), "duration": "long"}, "duration", "not a number"),
    ({**EXAMPLES["sources"].to_row(), "loop": [0, "1", 2]}, "loop", "not an integer"),
    ({**EXAMPLES["sources"].to_row(), "audio": b"raw"}, "audio", "not an audio cell"),
])
def test_a_malformed_cell_is_one_error_naming_its_column(row, column, value):
    row_type = ClipRow if "clip_id" in row and "caption" in row else SourceRow if "loop" in row else QueryRow
    with pytest.raises(RowError, match=rf"column {column} \(.*{value}"):
        row_type.from_row(row)


def test_a_column_with_a_default_may_be_left_unread():
    row = {k: v for k, v in EXAMPLES["corpus"].to_row().items() if k != "audio"}
    assert ClipRow.from_row(row).audio is None


def test_differences_name_each_column_that_differs():
    clip = EXAMPLES["corpus"]
    assert clip.differences(clip) == []
    assert clip.differences(clip.derived(task="negation", duration=9.5)) == [
        "task 'order' should be 'negation'", "duration 10.0 should be 9.5"]


def test_the_fingerprint_reads_every_column_of_a_query_and_a_sound():
    """A column added to QueryRow or SourceRow is in the fingerprint without a second list to keep."""
    assert set(QUERY_FIELDS) == {name for name, _ in QueryRow.own_columns()}
    assert set(SOURCE_FIELDS) == {name for name, _ in SourceRow.own_columns()} - {"audio"}
    query, sound = EXAMPLES["queries"], EXAMPLES["sources"]
    events = {"c0": EVENTS, "c1": EVENTS[:1], "c2": EVENTS[1:]}
    base = fingerprint({}, [sound], [query], events)
    for name in QUERY_FIELDS:
        value = getattr(query, name)
        other = ("c2",) if isinstance(value, tuple) else value + 1 if isinstance(value, int) else value + "x"
        assert fingerprint({}, [sound], [replace(query, **{name: other})], events) != base, name
    for name in SOURCE_FIELDS:
        value = getattr(sound, name)
        other = (1, 2, 3) if isinstance(value, tuple) else value + 1 if isinstance(value, float) else value + "x"
        assert fingerprint({}, [replace(sound, **{name: other})], [query], events) != base, name
    assert fingerprint({}, [replace(sound, audio=None)], [query], events) == base
