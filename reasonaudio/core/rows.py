"""The rows of a split, typed once: a query, a clip of the corpus, a pair of the qrels and an atomic sound.

Each row type declares its columns (name, then kind) in field order; the published `datasets.Features`
(`reasonaudio_dataset.schema`), the fingerprint's fields (`records`), what the generator writes (`to_row`)
and what `validate` reads back (`from_row`, a malformed cell one `RowError` naming its column) all come from
these declarations, so a column is added in one place. The columns MTEB's retrieval loader reads (`id`,
`query-id`, `corpus-id`) repeat a row's own ids: `to_row` derives them, and `validate` checks them as read.
"""
from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any, ClassVar, Mapping

from reasonaudio.core.relation_kinds.base import Event

# the kinds of column a row declares; `reasonaudio_dataset.schema` says what each is in `datasets`
STRING, INT8, INT32, FLOAT32, FLOAT64, STRINGS, INTEGERS, EVENTS, AUDIO = (
    "string", "int8", "int32", "float32", "float64", "strings", "integers", "events", "audio")


def column(kind: str, doc: str = "", **options):
    """A dataclass field that is a published column of `kind`; `doc` says what it holds where its name does not
    (the card's table of columns shows it); `options`: a default, say."""
    return field(metadata={"column": kind, "doc": doc}, **options)


class RowError(ValueError):
    """A row read back whose cell is missing or of the wrong type; the message names the column."""


def _text(value):
    if not isinstance(value, str):
        raise TypeError(f"not text: {value!r}")
    return value


def _integer(value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"not an integer: {value!r}")
    return value


def _number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"not a number: {value!r}")
    return float(value)


def _sequence(value, item):
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"not a list: {value!r}")
    return tuple(item(v) for v in value)


def _events(value):
    return _sequence(value, lambda event: Event(**{f.name: (_text if f.name in ("label", "source_id") else _number)(
        event[f.name]) for f in fields(Event)}))


def _audio(value):
    if value is not None and not (isinstance(value, Mapping) and isinstance(value.get("bytes"), (bytes, type(None)))):
        raise TypeError(f"not an audio cell: {str(value)[:40]!r}")
    return value


READ = {STRING: _text, INT8: _integer, INT32: _integer, FLOAT32: _number, FLOAT64: _number, AUDIO: _audio,
        STRINGS: lambda v: _sequence(v, _text), INTEGERS: lambda v: _sequence(v, _integer), EVENTS: _events}
WRITE = {STRINGS: list, INTEGERS: list, EVENTS: lambda events: [e.to_dict() for e in events]}


@dataclass(frozen=True, kw_only=True)
class Row:
    """What the row types share: their columns, and the conversion to and from a table's row.

    `read_from` says where a row read back came from ("FILE row N"): a finding names it; it is no column."""

    MTEB_IDS: ClassVar[dict[str, str]] = {}     # MTEB's column: the own column it repeats
    MTEB_FIRST: ClassVar[bool] = True           # MTEB's columns come before the own ones (else after)
    ONE_ROW_PER: ClassVar[str] = ""             # what a row is, as the card says it

    read_from: str = field(default="", compare=False, repr=False)

    @classmethod
    def described_columns(cls) -> list[tuple[str, str]]:
        """(name, what it holds or "") of each own column, as the card lists them."""
        return [(f.name, f.metadata["doc"]) for f in fields(cls) if "column" in f.metadata]

    @classmethod
    def own_columns(cls) -> list[tuple[str, str]]:
        """(name, kind) of each column the row holds, in order."""
        return [(f.name, f.metadata["column"]) for f in fields(cls) if "column" in f.metadata]

    @classmethod
    def columns(cls) -> list[tuple[str, str]]:
        """(name, kind) of every published column, MTEB's included, in the table's order."""
        mteb = [(name, STRING) for name in cls.MTEB_IDS]
        return mteb + cls.own_columns() if cls.MTEB_FIRST else cls.own_columns() + mteb

    def to_row(self) -> dict:
        """The row as the writer writes it: every column, MTEB's ids derived from the row's own.

        Returns:
            {column: value}, lists where the row holds tuples.
        """
        row = {name: WRITE.get(kind, _same)(getattr(self, name)) for name, kind in self.own_columns()}
        return row | {mteb: row[own] for mteb, own in self.MTEB_IDS.items()}

    @classmethod
    def from_row(cls, row: Mapping[str, Any], read_from: str = ""):
        """The typed row of a table's row (a column with a default may be left unread, as `audio`).

        Args:
            row: {column: value}, as `pyarrow.Table.to_pylist` gives it; MTEB's columns are not read.
            read_from: where it was read ("FILE row N").

        Returns:
            The row.

        Raises:
            RowError: a column is missing or holds a value of the wrong type (the message names it).
        """
        values = {}
        for f in fields(cls):
            if "column" not in f.metadata or (f.name not in row and f.default is not MISSING):
                continue
            try:
                values[f.name] = READ[f.metadata["column"]](row[f.name])
            except (KeyError, TypeError, ValueError) as error:
                problem = "missing" if f.name not in row else f"{type(error).__name__}: {error}"
                raise RowError(f"column {f.name} ({problem})") from None
        return cls(**values, read_from=read_from)

    def differences(self, expected: Row) -> list[str]:
        """Each column whose value is not `expected`'s, as "NAME FOUND should be EXPECTED".

        Args:
            expected: the row as re-derived.

        Returns:
            One text per differing column, in column order.
        """
        return [f"{name} {getattr(self, name)!r} should be {getattr(expected, name)!r}"
                for name, _ in self.own_columns() if getattr(self, name) != getattr(expected, name)]

    def derived(self, **values) -> Row:
        """The row with `values` in place of its own (what a re-derivation says they must be)."""
        return replace(self, **values)


def _same(value):
    return value


@dataclass(frozen=True, kw_only=True)
class QueryRow(Row):
    """A query: its text, its constraint (`records.constraint_text`), its group of candidates."""

    MTEB_IDS: ClassVar[dict[str, str]] = {"id": "query_id"}
    ONE_ROW_PER: ClassVar[str] = "query"

    query_id: str = column(STRING)
    task: str = column(STRING)
    shape: str = column(STRING)
    depth: int = column(INT32)
    num_sounds: int = column(INT32)
    text: str = column(STRING)
    constraint: str = column(STRING, "JSON of the relations")
    candidates: tuple[str, ...] = column(STRINGS, "clip ids")
    positive: str = column(STRING)
    hard_negatives: tuple[str, ...] = column(STRINGS)


@dataclass(frozen=True, kw_only=True)
class ClipRow(Row):
    """A clip of the corpus: its audio (FLAC), the query whose group it is in, its events and caption, and the
    acoustic condition it was rendered under (`acoustics`, JSON)."""

    MTEB_IDS: ClassVar[dict[str, str]] = {"id": "clip_id"}
    ONE_ROW_PER: ClassVar[str] = "clip"

    clip_id: str = column(STRING)
    audio: Mapping | None = column(AUDIO, default=None, compare=False)
    task: str = column(STRING)
    query_id: str = column(STRING)
    duration: float = column(FLOAT32)
    events: tuple[Event, ...] = column(EVENTS, ", ".join(f.name for f in fields(Event)))
    caption: str = column(STRING)
    acoustics: str = column(STRING, "JSON: the acoustic condition and the exact parameters applied to the clip",
                            default="")


@dataclass(frozen=True, kw_only=True)
class QrelRow(Row):
    """A judged pair: 1 relevant, -1 ambiguous (left out of scoring); a pair not listed is not relevant."""

    MTEB_IDS: ClassVar[dict[str, str]] = {"query-id": "query_id", "corpus-id": "clip_id"}
    MTEB_FIRST: ClassVar[bool] = False
    ONE_ROW_PER: ClassVar[str] = "relevant (1) or excluded (-1, between the margins) pair over the whole corpus"

    query_id: str = column(STRING)
    clip_id: str = column(STRING)
    score: int = column(INT8)


@dataclass(frozen=True, kw_only=True)
class SourceRow(Row):
    """An atomic sound (or a natural build's recording) as published: its class, licence and credit, its
    length, its loop points and its samples (FLAC)."""

    ONE_ROW_PER: ClassVar[str] = "atomic sound"

    source_id: str = column(STRING)
    label: str = column(STRING)
    phrase: str = column(STRING)
    kind: str = column(STRING)
    origin: str = column(STRING)
    license: str = column(STRING)
    attribution: str = column(STRING)
    duration: float = column(FLOAT32)
    loop: tuple[int, ...] = column(INTEGERS, "start, end and crossfade in samples of a continuous sound's loop")
    audio: Mapping | None = column(AUDIO, "the sound as mixed into the clips: clips re-render from it exactly",
                                   default=None, compare=False)


ROWS = {"queries": QueryRow, "corpus": ClipRow, "qrels": QrelRow, "sources": SourceRow}
