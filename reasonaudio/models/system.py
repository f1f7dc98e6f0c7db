"""What a scored system is (`System`, `VectorSystem`), what it reads of a split's annotations and how its scores
are taken, with no model library loaded: evaluation's registry imports every system module to list the kinds (the
CLI's --help), so the base classes they subclass import torch inside the methods that score. A split as scored
(`data` here) is models/scoring.py's `EvalData`, which imports this module."""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from reasonaudio.core.records import constraint_atoms
from reasonaudio.core.relations import Atom, Event

if TYPE_CHECKING:
    import torch

PAIR_SCORES = 2 ** 24     # query x candidate x dimension products a block of group scoring holds (64 MiB)


def column(table, name: str) -> list:
    """A column's values, read whole from a `datasets.Dataset`'s Arrow table (honouring select and filter): its
    `table[name]` formats row by row, 10x slower on a corpus; a mapping of columns as it is."""
    if hasattr(table, "with_format") and hasattr(table, "column_names"):
        return table.with_format("arrow")[name].to_pylist()
    return list(table[name])


def _read_once(cache: dict, table, read):
    """`read(table)` as a tuple, kept for the last table of its kind: a `datasets.Dataset` is known by its
    fingerprint (which any edit, select or filter changes), so every system of a run parses a table once; a
    mapping of columns is read each time."""
    key = getattr(table, "_fingerprint", None)
    if key is None:
        return tuple(read(table))
    if key not in cache:
        cache.clear()
        cache[key] = tuple(read(table))
    return cache[key]


_ATOMS: dict = {}
_EVENTS: dict = {}


def query_atoms(queries) -> list[tuple[Atom, ...]]:
    """Each query's constraint: the atoms its `constraint` column holds."""
    return list(_read_once(_ATOMS, queries, lambda table: [tuple(constraint_atoms(text))
                                                           for text in column(table, "constraint")]))


def _parsed(events: list[dict]) -> tuple[Event, ...]:
    return tuple(Event(**event) for event in events)


def clip_events(corpus) -> list[tuple[Event, ...]]:
    """Each clip's annotated sound events."""
    return list(_read_once(_EVENTS, corpus, lambda table: [_parsed(events) for events in column(table, "events")]))


class ClipEvents(Mapping):
    """Each clip's events by clip id, each clip's parsed when first asked for (a diagnosis reads a few of them)."""

    def __init__(self, clip_ids: list[str], rows: list[list[dict]]):
        self._rows, self._events = dict(zip(clip_ids, rows)), {}

    def __getitem__(self, clip_id: str) -> tuple[Event, ...]:
        if clip_id not in self._events:
            self._events[clip_id] = _parsed(self._rows[clip_id])
        return self._events[clip_id]

    def __iter__(self):
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def events_by_clip(corpus) -> Mapping[str, tuple[Event, ...]]:
    """Each clip's events by clip id: those `clip_events` parsed already (a system read them), else each parsed on
    first use."""
    clip_ids = column(corpus, "clip_id")
    parsed = _EVENTS.get(getattr(corpus, "_fingerprint", None))
    return dict(zip(clip_ids, parsed)) if parsed is not None else ClipEvents(clip_ids, column(corpus, "events"))


def candidate_index(data) -> list[list[int]]:
    """Row i: the corpus positions of queries[i]["candidates"], in order."""
    positions = {clip: j for j, clip in enumerate(column(data.corpus, "clip_id"))}
    try:
        return [[positions[clip] for clip in group] for group in column(data.queries, "candidates")]
    except KeyError as error:
        raise ValueError(f"a candidate is missing from the corpus: {error}") from None


class System:
    """A model or baseline under evaluation. `similarity` returns (queries x corpus clips), on `device`;
    `group_similarity` each query's own candidates' scores (queries x candidates), what group mode ranks."""

    name = ""

    def similarity(self, data, device: str = "cpu", batch_size: int = 32, progress: bool = True) -> torch.Tensor:
        raise NotImplementedError

    def group_similarity(self, data, device: str = "cpu", batch_size: int = 32, progress: bool = True) -> torch.Tensor:
        """Taken out of the whole (queries x clips) matrix; a system that scores pairs directly overrides it,
        so that group mode costs queries x candidates, not queries x corpus (16 GB at 20,000 queries)."""
        return group_matrix(whole_similarity(self, data, device, batch_size, progress), data)


class VectorSystem(System):
    """A system whose scores are the cosine of a query vector and a clip vector (`vectors`: unit vectors of
    the split's queries and clips): group mode then computes the candidates' pairs alone."""

    def vectors(self, data, device: str, batch_size: int, progress: bool) -> tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        queries, clips = self.vectors(data, device, batch_size, progress)
        return queries.to(device) @ clips.to(device).T

    def group_similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        import torch

        queries, clips = self.vectors(data, device, batch_size, progress)
        index = torch.as_tensor(candidate_index(data))
        rows = max(1, PAIR_SCORES // max(1, index.shape[1] * queries.shape[1]))
        # a product and a sum per pair, the same arithmetic for every pair: equal vectors tie exactly
        return torch.cat([(queries[start:start + rows, None, :].to(device) * clips[index[start:start + rows]].to(device))
                          .sum(-1) for start in range(0, len(index), rows)])


def whole_similarity(system: System, data, device: str = "cpu", batch_size: int = 32,
                     progress: bool = True) -> torch.Tensor:
    """`system.similarity`, checked to be (queries x clips): a wrong shape names the system, not a torch error."""
    full = system.similarity(data, device=device, batch_size=batch_size, progress=progress)
    expected = (len(data.queries), len(data.corpus))
    if tuple(full.shape) != expected:
        raise ValueError(f"{system.name} gave a similarity of shape {tuple(full.shape)}, expected {expected} "
                         "(queries x clips)")
    return full


def group_matrix(full: torch.Tensor, data) -> torch.Tensor:
    """(queries x candidates) out of (queries x corpus): row i scores queries[i]["candidates"] in order."""
    import torch

    return full.gather(1, torch.as_tensor(candidate_index(data), device=full.device))
