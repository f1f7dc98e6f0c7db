"""The published layout (DESIGN §6): one `datasets.Features` per config, shared by writer, card and loaders.

`id` (queries, corpus) and `query-id`/`corpus-id` (qrels) repeat `query_id`/`clip_id` under the
names of MTEB's retrieval convention, so MTEB's loader reads the folder as it is. A robustness build
adds `corpus_<condition>` configs: the same clips under another acoustic condition, same features."""
import re
from dataclasses import fields

from datasets import Audio, Features, List, Value

from reasonaudio.core import rows
from reasonaudio.core.relation_kinds.base import Event

from .splits import SPLITS  # noqa: F401 - the layout names them

# what each kind of column a row declares (`reasonaudio.core.rows`) is in `datasets`
EVENT = {f.name: Value("string" if f.type in (str, "str") else "float64") for f in fields(Event)}
COLUMN_FEATURES = {
    rows.STRING: Value("string"), rows.INT8: Value("int8"), rows.INT32: Value("int32"),
    rows.FLOAT32: Value("float32"), rows.FLOAT64: Value("float64"), rows.STRINGS: List(Value("string")),
    rows.INTEGERS: List(Value("int64")), rows.EVENTS: List(EVENT), rows.AUDIO: Audio(),
}


def row_features(row_type: type[rows.Row]) -> Features:
    """The `datasets.Features` of a table of `row_type`: its columns, in order, MTEB's included."""
    return Features({name: COLUMN_FEATURES[kind] for name, kind in row_type.columns()})


FEATURES = {config: row_features(row_type) for config, row_type in rows.ROWS.items()}
CONFIGS = tuple(FEATURES)
CONDITION_CONFIG = re.compile(r"^corpus_[a-z][a-z0-9_]{0,31}$")   # the corpus under a further acoustic condition
AUDIO_ROWS_PER_GROUP = 100          # the Hub viewer reads audio tables a row group at a time
MAX_SHARD_BYTES = 500_000_000


def data_file(config: str, split: str, index: int = 0, count: int = 1) -> str:
    return f"{config}/{split}-{index:05d}-of-{count:05d}.parquet"


def data_pattern(config: str, split: str) -> str:
    return f"{config}/{split}-*.parquet"


def is_config(name: str) -> bool:
    return name in CONFIGS or bool(CONDITION_CONFIG.match(name))


DATA_FILE = re.compile(r"^(?P<config>[a-z][a-z0-9_]*)/(?P<split>[a-z]+)-\d{5}-of-\d{5}\.parquet$")


def check_data_file(relative, where: str) -> None:
    """A data file a record names is one of the published layout (CONFIG/SPLIT-NNNNN-of-NNNNN.parquet, inside the
    folder): a record naming `../..`, an absolute path or anything else would have merge write, and publish
    upload, a file outside the build. A one-line error naming `where` (the record) otherwise."""
    found = DATA_FILE.match(relative) if isinstance(relative, str) else None
    if found is None or not is_config(found["config"]):
        raise ValueError(f"{where} names {relative!r} among its files: not a data file of a build "
                         "(CONFIG/SPLIT-00000-of-00001.parquet); the record is damaged or not ReasonAudio's")


def features(config: str) -> Features:
    return FEATURES[_layout_of(config)]


def corpus_config(condition: str | None = None) -> str:
    """The config that holds the clips under `condition` in a robustness build (None: the main corpus)."""
    return "corpus" if condition is None else f"corpus_{condition}"


def _layout_of(config: str) -> str:
    return "corpus" if CONDITION_CONFIG.match(config) else config


# each config's columns under MTEB's names, and the column each repeats: written from, and checked against, it
MTEB_IDS = {"queries": {"id": "query_id"}, "corpus": {"id": "clip_id"},
            "qrels": {"query-id": "query_id", "corpus-id": "clip_id"}}


def mteb_columns(config: str) -> dict[str, str]:
    """{MTEB's column: the column it repeats} of `config` (none for `sources`; a `corpus_<condition>` is a corpus)."""
    return MTEB_IDS.get(_layout_of(config), {})


def mteb_ids(config: str, row: dict) -> dict:
    """The columns MTEB's loader reads of a row of `config`, from the row's own ids: what the writer writes
    and what `validate` expects.

    Args:
        config: a config of the layout.
        row: the row, holding at least its own ids (`query_id`, `clip_id`).

    Returns:
        {MTEB's column: its value}.
    """
    return {mteb: row[own] for mteb, own in mteb_columns(config).items()}
