"""The ReasonAudio metric as plain functions (numpy; torch tensors are reduced on their own device).

Ties count by their exact expectation under random tie-breaking: a tie group of m items, r of them
relevant, starting after a items, places its relevant items on a uniformly random r-subset of its m
ranks. Every metric below is that expectation, in closed form (for MAP the formula of McSherry &
Najork, ECIR 2008): constant scores give exactly the random baseline, and tie-free scores give the
usual values (equal to trec_eval's).
"""
from __future__ import annotations

import inspect
import numbers
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Mapping, Sequence

import numpy as np

DEPTH = 100             # corpus metrics look at the top 100 (MAP@100); nDCG, recall and hit at 10 or less
HARD_NEGATIVE = "hard_negative_pairwise"   # share of its own hard negatives the positive outscores (random 0.5)
MAX_RESAMPLES = 100_000  # bootstrap resamples: a 95 % interval is stable to 0.1 point long before
MAX_BATCH = 4096            # texts or clips per encoder call: 4096 clips of 10 s at 16 kHz are 2.6 GB
MAX_SEED = 2 ** 32 - 1      # a seed numpy's generators take
MAX_DRAWS = 2 ** 27      # resamples x queries drawn at once (1 GB of indices): the memory a bootstrap may take
BLOCK_SCORES = 2 ** 22   # scores a thread copies at a time in corpus mode (16 MiB of float32)
_THREADS = max(1, min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


# ---------------------------------------------------------------- inputs

def _is_torch(x) -> bool:
    return type(x).__module__.split(".")[0] == "torch"


def _arrow_column(table, name: str):
    """A column as a pyarrow array; a datasets.Dataset gives its Arrow column (honouring select/filter)
    without a trip through Python objects."""
    import pyarrow as pa

    if hasattr(table, "with_format") and hasattr(table, "column_names"):
        if name not in table.column_names:
            raise ValueError(f"the table lacks the column {name!r}")
        if getattr(table, "_indices", True) is None:  # no select/filter: the table's own column, as is
            return table.data.column(name)
        return table.with_format("arrow")[name]
    try:
        values = list(table[name])
    except (KeyError, TypeError, IndexError):
        raise ValueError(f"the table lacks the column {name!r}") from None
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        raise ValueError(f"the column {name!r} mixes kinds of values ({error})") from None


def _column(table, name: str) -> list:
    return _arrow_column(table, name).to_pylist()


# the result's own keys, beside one per task, in the order `score` gives them: only these leave `score`, so
# a task can never share a name with one
RESULT_KEYS = ("average", "random", "num_queries", "hard_negative_queries", "intervals", "breakdown", "profile",
               "p_values", "per_query")


def _task_column(queries) -> list:
    """The queries' task names, each a key of the result beside RESULT_KEYS: a blank name, one with spaces
    around it or one of RESULT_KEYS would silently add a task or overwrite a headline, so it is refused."""
    tasks, query_ids = _column(queries, "task"), _column(queries, "query_id")
    for query_id, task in zip(query_ids, tasks):
        if not isinstance(task, str) or not task.strip() or task != task.strip():
            raise ValueError(f"query {query_id!r}: its task must be a name such as 'negation', got {task!r}")
        if task in RESULT_KEYS:
            raise ValueError(f"query {query_id!r}: its task {task!r} is a key of the result itself; rename it")
    return tasks


def check_count(name: str, value, minimum: int, maximum: int | None = None) -> None:
    """An integer parameter (a count: resamples, batch size, a seed) of at least `minimum` (and at most
    `maximum`), or a one-line error."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum:,}, got {value:,}")


def check_resamples(name: str, resamples: int, queries: int | None = None) -> None:
    """A number of bootstrap or randomization resamples: at most MAX_RESAMPLES, and (given the queries) at
    most what MAX_DRAWS of memory draws at once."""
    check_count(name, resamples, 0, MAX_RESAMPLES)
    if queries and resamples * queries > MAX_DRAWS:
        raise ValueError(f"{name}: {resamples:,} resamples of {queries:,} queries would draw {resamples * queries:.2g} "
                         f"indices at once (several GB); use at most {MAX_DRAWS // queries:,} resamples")


def _one_per_query(columns: dict[str, list], what: str) -> None:
    """Every column of a table holds one value per row: unequal columns would be paired wrongly."""
    lengths = {name: len(values) for name, values in columns.items()}
    if len(set(lengths.values())) > 1:
        first, *others = lengths.items()
        odd = next((name, n) for name, n in others if n != first[1])
        raise ValueError(f"{what}: {odd[0]} has {odd[1]} value(s), {first[0]} {first[1]}: every column holds one "
                         "value per row")


def _clip_ids(value, what: str, query_id) -> list:
    """A query's list of clip ids (its candidates, its hard negatives); a bare string is a slip."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, np.ndarray)):
        raise ValueError(f"query {query_id!r}: its {what} must be a list of clip ids, got {value!r}")
    return list(value)


def check_confidence(confidence) -> None:
    """The level of an interval: a number strictly between 0 and 1 (0.95 for 95 %), or a one-line error."""
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be a number strictly between 0 and 1 (e.g. 0.95), got {confidence!r}")


def keyword_group(group, given: Mapping, function):
    """`group(**given)`: keyword options of `function` that travel together as one frozen dataclass, so that
    a long list stays one parameter. A keyword the group lacks is one line naming it and every keyword
    `function` takes."""
    unknown = sorted(set(given) - {field.name for field in fields(group)})
    if unknown:
        own = [name for name, parameter in inspect.signature(function).parameters.items()
               if name not in ("self", "cls") and parameter.kind not in (parameter.VAR_POSITIONAL,
                                                                         parameter.VAR_KEYWORD)]
        known = ", ".join([*own, *(field.name for field in fields(group))])
        raise ValueError(f"{function.__qualname__.removesuffix('.__init__')}: unknown keyword(s) {unknown}; "
                         f"it takes {known}")
    return group(**given)


@dataclass(frozen=True)
class Intervals:
    """How `score` draws its bootstrap intervals: `bootstrap` resamples (0: none) from `seed`, at level
    `confidence`; checked on creation."""

    bootstrap: int = 1000
    seed: int = 0
    confidence: float = 0.95

    def __post_init__(self):
        check_resamples("bootstrap", self.bootstrap)
        check_count("seed", self.seed, 0)
        check_confidence(self.confidence)


def _widened(similarity):
    """The matrix in a dtype that keeps every comparison exact, on its own device: bools and floats
    narrower than 32 bits widen to float32 (exactly), integers to float64 (exact up to 2**53, beyond
    which they would merge), float32/float64 stay as they are; a tensor's autograd graph is dropped."""
    if _is_torch(similarity):
        import torch

        similarity, dtype = similarity.detach(), similarity.dtype
        kind = "b" if dtype == torch.bool else "c" if dtype.is_complex else "f" if dtype.is_floating_point else "i"
        float32, float64 = torch.float32, torch.float64
    else:
        kind, dtype, float32, float64 = similarity.dtype.kind, similarity.dtype, np.float32, np.float64
    if kind not in "biuf":
        raise ValueError(f"similarity must hold real numbers, got dtype {dtype}")
    if kind == "f" and dtype.itemsize >= 4:
        return similarity
    wide = float64 if kind in "iu" else float32
    similarity = similarity.to(wide) if _is_torch(similarity) else similarity.astype(wide)
    if kind in "iu" and bool((abs(similarity) >= 2 ** 53).any()):
        raise ValueError(f"integer similarity beyond +-2**53 cannot be ranked exactly (dtype {dtype}); rescale it")
    return similarity


def _check_matrix(similarity, rows: int, columns: int | None, what: str, finite: bool = True):
    if similarity is None:
        raise ValueError("similarity is required (a numpy array or torch tensor, one row per query)")
    if isinstance(similarity, np.ma.MaskedArray) and np.ma.getmaskarray(similarity).any():
        raise ValueError("similarity is a masked array with masked entries: the metric would score the hidden "
                         "values; give every candidate a real score (np.ma.filled) first")
    if _is_torch(similarity) and similarity.device.type == "meta":
        raise ValueError("similarity is a torch tensor on the 'meta' device: it holds no values to score")
    if not _is_torch(similarity):
        similarity = np.asarray(similarity)
    if similarity.ndim != 2 or similarity.shape[0] == 0 or similarity.shape[1] == 0:
        raise ValueError(f"similarity must be a non-empty 2-D matrix, got shape {tuple(similarity.shape)}")
    if similarity.shape[0] != rows or (columns is not None and similarity.shape[1] != columns):
        raise ValueError(f"similarity has shape {tuple(similarity.shape)}, expected ({rows}, {columns or 'any'}): {what}")
    similarity = _widened(similarity)
    if finite and not bool(similarity.isfinite().all() if _is_torch(similarity) else np.isfinite(similarity).all()):
        raise ValueError("similarity contains NaN or inf")
    return similarity


def _check_ids(values: list, what: str) -> None:
    if not values:
        raise ValueError(f"no {what}s given (empty input)")
    if len(set(values)) != len(values):
        seen = set()
        duplicate = next(v for v in values if v in seen or seen.add(v))
        raise ValueError(f"duplicate {what} {duplicate!r}")


# ---------------------------------------------------------------- closed forms

def _prefix(values: np.ndarray) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(values)])


class _Tables:
    """Prefix sums of 1/rank and of DCG discounts, grown on demand."""

    def __init__(self):
        self.size = 0
        self.grow(1024)

    def grow(self, n: int):
        if n > self.size:
            ranks = np.arange(1, n + 1, dtype=np.float64)
            self.harmonic, self.discount = _prefix(1 / ranks), _prefix(1 / np.log2(ranks + 1))
            self.size = n
        return self


_TABLES = _Tables()


def expected_first_reciprocal_rank(a: np.ndarray, m: np.ndarray, r: np.ndarray) -> np.ndarray:
    """E[1/rank] of the first relevant item of a tie group (a items before it, m in it, r relevant)."""
    a, m, r = (np.asarray(v, dtype=np.int64) for v in (a, m, r))
    out = np.empty(a.shape, dtype=np.float64)
    simple = (m == 1) | (r == m)
    out[simple] = 1.0 / (a[simple] + 1)
    single = ~simple & (r == 1)
    h = _TABLES.grow(int((a + m).max(initial=1)) + 1).harmonic
    out[single] = (h[(a + m)[single]] - h[a[single]]) / m[single]
    rest = np.flatnonzero(~simple & ~single)
    if len(rest):
        triples, inverse = np.unique(np.stack([a[rest], m[rest], r[rest]]), axis=1, return_inverse=True)
        values = np.array([_first_reciprocal_rank(*map(int, t)) for t in triples.T])
        out[rest] = values[inverse.ravel()]
    return out


@lru_cache(maxsize=4096)
def _first_reciprocal_rank(a: int, m: int, r: int) -> float:
    """sum over j of P(first relevant at a+j) / (a+j), with P = C(m-j, r-1) / C(m, r)."""
    j = np.arange(1, m - r + 2)
    ratios = np.r_[r / m, (m - j[:-1] - r + 1) / (m - j[:-1])]
    return float(np.sum(np.cumprod(ratios) / (a + j)))


def _within(a, m, k):
    """How many of a tie group's ranks a+1..a+m are <= k."""
    return np.clip(np.minimum(a + m, k) - a, 0, None)


def _expected_dcg(a, m, k):
    d = _TABLES.grow(int(np.max(a + m, initial=1)) + 1).discount
    return (d[np.minimum(a + m, k)] - d[np.minimum(a, k)]) / m


def _expected_precision_sum(a, m, r, before, depth):
    """E[sum of precision at the ranks <= depth] of one relevant item of a tie group (McSherry & Najork)."""
    h = _TABLES.grow(int(np.max(a + m, initial=1)) + 1).harmonic
    spread = np.where(m > 1, (r - 1) / np.maximum(m - 1, 1), 0.0)   # share of the others ahead, per rank
    length = _within(a, m, depth)
    base = before + 1 - spread * (a + 1)
    return (base * (h[a + length] - h[a]) + spread * length) / m


def _hit_probability(a, m, r, k):
    """P(some relevant item of a tie group lands in the top k)."""
    t = _within(a, m, k)
    miss = np.ones(a.shape)
    for i in range(int(t.max(initial=0))):
        active = i < t
        miss[active] *= np.clip((m - r - i)[active], 0, None) / (m - i)[active]
    return 1 - miss


# ---------------------------------------------------------------- group mode

def group_scores(similarity, positive_index: Sequence[int]) -> dict[str, np.ndarray]:
    """Per-query accuracy (positive ranked first) and MRR within each query's own candidates."""
    rows = similarity.shape[0]
    if _is_torch(similarity):
        import torch

        index = torch.as_tensor(np.asarray(positive_index), device=similarity.device)
        pos = similarity.gather(1, index[:, None])
        a = (similarity > pos).sum(1).cpu().numpy()
        m = (similarity == pos).sum(1).cpu().numpy()
    else:
        pos = similarity[np.arange(rows), np.asarray(positive_index)][:, None]
        a, m = (similarity > pos).sum(1), (similarity == pos).sum(1)
    h = _TABLES.grow(int(similarity.shape[1]) + 1).harmonic
    return {"accuracy": (a == 0) / m, "mrr": (h[a + m] - h[a]) / m}


def hard_negative_scores(similarity, positive_index: Sequence[int], negative_index: Sequence[Sequence[int]]) -> np.ndarray:
    """Per query, the share of its own hard negatives (its minimal pairs) that the positive outscores, a tie
    counting one half (its expectation under random tie-breaking): the pairwise view of NevIR and of
    hard-negative suppression. Random = 0.5. `negative_index` gives each query's columns; a query without
    any (a natural build's recordings may hold no minimal pair for it) scores NaN: not applicable."""
    wins, present = pair_wins(similarity, positive_index, negative_index)
    with np.errstate(invalid="ignore"):
        return (wins * present).sum(axis=1) / present.sum(axis=1)


def pair_wins(similarity, positive_index: Sequence[int], negative_index: Sequence[Sequence[int]]):
    """Each minimal pair's outcome: 1 where the positive outscores the hard negative, 1/2 for a tie, 0 below.

    Args:
        similarity: the scores (numpy or torch, any device).
        positive_index: each query's positive column.
        negative_index: each query's hard negatives' columns.

    Returns:
        (wins, present): (queries, most hard negatives) arrays, `present` False where a query has fewer.
    """
    rows, width = len(positive_index), max(len(n) for n in negative_index)
    index = np.zeros((rows, width), dtype=np.int64)
    present = np.zeros((rows, width), dtype=bool)
    for row, columns in enumerate(negative_index):
        index[row, :len(columns)], present[row, :len(columns)] = columns, True
    if _is_torch(similarity):
        import torch

        device = similarity.device
        positive = similarity.gather(1, torch.as_tensor(np.asarray(positive_index), device=device)[:, None])
        negative = similarity.gather(1, torch.as_tensor(index, device=device))
        wins = _np((positive > negative).double() + 0.5 * (positive == negative).double())
    else:
        positive = similarity[np.arange(rows), np.asarray(positive_index)][:, None]
        negative = np.take_along_axis(similarity, index, axis=1)
        wins = (positive > negative) + 0.5 * (positive == negative)
    return wins, present


KINDS = "hard_negative_kinds"   # the queries' column naming what each hard negative breaks: adds "profile"


def _hard_negative_kinds(queries, negatives: list | None) -> list[list[str]] | None:
    """Each query's hard negatives' kinds (the `hard_negative_kinds` column, in `hard_negatives`' order), or
    None where the queries carry no such column."""
    try:
        kinds, query_ids = _column(queries, KINDS), _column(queries, "query_id")
    except ValueError:
        return None
    if negatives is None:
        raise ValueError(f"the queries carry {KINDS} but no hard_negatives: a kind names a hard negative")
    _one_per_query({"query_id": query_ids, KINDS: kinds}, "queries")
    for query_id, named, columns in zip(query_ids, kinds, negatives):
        if not isinstance(named, (list, tuple)) or len(named) != len(columns) or \
                not all(isinstance(k, str) and k for k in named):
            raise ValueError(f"query {query_id!r}: {KINDS} must name one kind (text) per hard negative, "
                             f"{len(columns)} here, got {named!r}")
    return [list(named) for named in kinds]


def reasoning_profile(wins: np.ndarray, kinds: list[list[str]], resamples: int, seed: int,
                      confidence: float = 0.95) -> dict[str, dict]:
    """Per kind of minimal pair (what its hard negative breaks: negation, order, ...), the share of its pairs
    that the model orders right (a tie one half; random 0.5), with a percentile interval that resamples
    queries (a query's pairs share its positive, so they are drawn together).

    Args:
        wins: `pair_wins`' outcomes, a row per query, its hard negatives in order.
        kinds: each query's hard negatives' kinds, in the same order.
        resamples, seed, confidence: the bootstrap's resamples (0: no interval), seed and level.

    Returns:
        {kind: {"share": s, "pairs": n, "queries": q, "random": 0.5, "interval": (low, high)}}, kinds in the
        order the queries first name them.
    """
    check_resamples("resamples", resamples, len(kinds))
    names = list(dict.fromkeys(k for named in kinds for k in named))
    number = {kind: i for i, kind in enumerate(names)}
    which = np.full(wins.shape, -1)               # each pair's kind, by its number in `names`; -1: no pair
    for row, named in enumerate(kinds):
        which[row, :len(named)] = [number[k] for k in named]
    profile = {}
    for offset, kind in enumerate(names):
        mask = which == offset
        counted = mask.sum(axis=1)
        rows = np.flatnonzero(counted)
        won, counted = (wins * mask).sum(axis=1)[rows], counted[rows]
        profile[kind] = {"share": float(won.sum() / counted.sum()), "pairs": int(counted.sum()),
                         "queries": len(rows), "random": 0.5}
        if resamples:
            draws = np.random.default_rng([seed, offset]).integers(0, len(rows), (resamples, len(rows)))
            shares = won[draws].sum(axis=1) / counted[draws].sum(axis=1)
            low, high = np.percentile(shares, [(1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100])
            profile[kind]["interval"] = (float(low), float(high))
    return profile


def _hard_negative_index(queries, column_of, what: str):
    """Each query's hard negatives as columns of the similarity (`column_of(row)`: clip id -> column; an empty
    list for a query without any: the metric is then over the queries that have them), or None when no query
    lists any (older builds, hand-made tables): then the metric is left out rather than guessed."""
    try:
        negatives, query_ids = _column(queries, "hard_negatives"), _column(queries, "query_id")
    except ValueError:
        return None
    if not any(negatives):
        return None
    index, positives = [], _column(queries, "positive")
    _one_per_query({"query_id": query_ids, "hard_negatives": negatives}, "queries")
    for row, (query_id, clips) in enumerate(zip(query_ids, negatives)):
        clips = _clip_ids(clips or [], "hard_negatives", query_id)
        columns = column_of(row)
        missing = [clip for clip in clips if clip not in columns]
        if missing:
            raise ValueError(f"query {query_id!r}: its hard negative {missing[0]!r} is not {what}")
        if positives[row] in clips:    # it would count as a tie with itself
            raise ValueError(f"query {query_id!r}: its positive {positives[row]!r} is listed as its own hard negative")
        index.append([columns[clip] for clip in clips])
    return index


def group_random(candidates: int, queries: int) -> dict[str, np.ndarray]:
    h = _TABLES.grow(candidates + 1).harmonic
    return {"accuracy": np.full(queries, 1 / candidates), "mrr": np.full(queries, h[candidates] / candidates)}


# ---------------------------------------------------------------- corpus mode

@dataclass
class TieGroups:
    """Per relevant item ranked within DEPTH: its query, a (items strictly above), m (tie size), r
    (relevant items in its tie group), before (relevant items above it), whether it leads its group;
    a row may stand for `weight` identical items (all of a tie group's relevant items are alike)."""

    query: np.ndarray
    a: np.ndarray
    m: np.ndarray
    r: np.ndarray
    before: np.ndarray
    leader: np.ndarray
    first: tuple[np.ndarray, np.ndarray, np.ndarray]   # per query: a, m, r of its best relevant item's group
    weight: np.ndarray | None = None


def _counts_by_group(query, score):
    """Per item: r (relevant items sharing its score), before (relevant items scoring higher) and
    whether it leads its tie group (so that per-group quantities are counted once)."""
    if len(query) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, bool)
    order = np.lexsort((-score, query))
    q, s = query[order], score[order]
    new_query = np.r_[True, q[1:] != q[:-1]]
    new_group = new_query | np.r_[True, s[1:] != s[:-1]]
    group_id = np.cumsum(new_group) - 1
    group_start = np.flatnonzero(new_group)
    query_start = np.flatnonzero(new_query)
    size = np.bincount(group_id)
    r, before, leader = np.empty(len(q), np.int64), np.empty(len(q), np.int64), np.empty(len(q), bool)
    r[order] = size[group_id]
    before[order] = group_start[group_id] - query_start[np.cumsum(new_query) - 1]
    leader[order] = new_group
    return r, before, leader


def _top_numpy(similarity: np.ndarray, exc_query, exc_clip, k: int, best: np.ndarray, rel_query, score):
    """Per row: the top k scores (descending); how often the k-th occurs (only where a relevant item
    scores exactly that); how many scores are above and equal to `best`. Excluded pairs count as -inf.
    Also checks that every score is finite. numpy's partition and comparisons release the GIL, so
    row blocks run on all cores; each block holds at most BLOCK_SCORES scores, so the working copies stay
    the same size whatever the corpus (one block a thread per core, not the whole matrix again)."""
    rows_total, width = similarity.shape
    top = np.empty((rows_total, k), dtype=similarity.dtype)
    n_tau, above, equal = (np.zeros(rows_total, dtype=np.int64) for _ in range(3))
    lowest = np.empty(rows_total, dtype=similarity.dtype)
    excluded = np.r_[0, np.cumsum(np.bincount(exc_query, minlength=rows_total))]
    relevant = np.r_[0, np.cumsum(np.bincount(rel_query, minlength=rows_total))]
    best = best.astype(similarity.dtype)[:, None]

    def block(rows: slice):
        work = similarity[rows].copy()
        lowest[rows] = work.min(axis=1)     # -inf in the input; NaN and +inf surface in the top k
        span = slice(excluded[rows.start], excluded[rows.stop])
        work[exc_query[span] - rows.start, exc_clip[span]] = -np.inf
        above[rows] = np.count_nonzero(work > best[rows], axis=1)
        equal[rows] = np.count_nonzero(work == best[rows], axis=1)
        work.partition(width - k, axis=1)
        top[rows] = np.sort(work[:, width - k:], axis=1)[:, ::-1]
        span = slice(relevant[rows.start], relevant[rows.stop])
        at_tau = np.unique(rel_query[span][score[span] == top[rel_query[span], -1]])
        n_tau[at_tau] = np.count_nonzero(work[at_tau - rows.start] == top[at_tau, -1:], axis=1)

    rows_a_block = max(1, min(-(-rows_total // _THREADS), BLOCK_SCORES // max(width, 1)))
    bounds = list(range(0, rows_total, rows_a_block)) + [rows_total]
    with ThreadPoolExecutor(_THREADS) as pool:
        list(pool.map(block, [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]))
    if not (np.isfinite(top[:, 0]).all() and np.isfinite(lowest).all()):
        raise ValueError("similarity contains NaN or inf")
    return top, n_tau, above, equal


def _top_torch(similarity, exc_query, exc_clip, k: int, best: np.ndarray, rel_query=None, score=None):
    """The same reductions as `_top_numpy`, on the tensor's own device; only per-query results leave it."""
    import torch

    device = similarity.device
    work = similarity.clone()
    if len(exc_query):
        work[torch.as_tensor(exc_query, device=device), torch.as_tensor(exc_clip, device=device)] = -float("inf")
    b = torch.as_tensor(best, device=device, dtype=work.dtype)[:, None]
    above, equal = (work > b).sum(1), (work == b).sum(1)
    top = torch.topk(work, k, dim=1).values
    n_tau = (work == top[:, -1:]).sum(1)
    return tuple(_np(x) for x in (top, n_tau, above, equal))


def _segments(query: np.ndarray, queries: int) -> np.ndarray:
    """Start of each query's run in `query` (sorted), for reduceat."""
    return np.searchsorted(query, np.arange(queries))


def rank_relevant(similarity, rel_query, rel_clip, exc_query, exc_clip, queries: int, depth: int = DEPTH) -> TieGroups:
    """Locate every relevant item ranked within `depth` (excluded pairs dropped first), and each query's
    best relevant item wherever it ranks. Pairs arrive sorted by query; each query has a relevant one."""
    k = min(depth, similarity.shape[1])
    if _is_torch(similarity):
        import torch

        index = torch.as_tensor(rel_query, device=similarity.device), torch.as_tensor(rel_clip, device=similarity.device)
        score = _np(similarity[index])
    else:
        score = similarity[rel_query, rel_clip]
    starts = _segments(rel_query, queries)
    best = np.maximum.reduceat(score, starts)
    r_best = np.add.reduceat((score == best[rel_query]).astype(np.int64), starts)
    top, n_tau, first_a, first_m = (_top_torch if _is_torch(similarity) else _top_numpy)(
        similarity, exc_query, exc_clip, k, best, rel_query, score)
    tau = top[:, -1]
    inside = score >= tau[rel_query]
    q_in, s_in = rel_query[inside], score[inside]
    rows = top[q_in]
    a = np.count_nonzero(rows > s_in[:, None], axis=1)
    m = np.where(s_in > tau[q_in], np.count_nonzero(rows == s_in[:, None], axis=1), n_tau[q_in])
    r, before, leader = _counts_by_group(q_in, s_in)
    return TieGroups(q_in, a.astype(np.int64), m.astype(np.int64), r, before, leader, (first_a, first_m, r_best))


def _np(x) -> np.ndarray:
    return x.cpu().numpy() if _is_torch(x) else np.asarray(x)


def corpus_metrics(groups: TieGroups, relevant_count: np.ndarray, depth: int = DEPTH) -> dict[str, np.ndarray]:
    """Per-query expected corpus metrics from the located relevant items."""
    q, a, m, r = groups.query, groups.a, groups.m, groups.r
    queries = len(relevant_count)

    def per_query(values):
        return np.bincount(q, weights=values if groups.weight is None else values * groups.weight, minlength=queries)

    out = {}
    ideal = _TABLES.grow(depth + 1).discount[np.minimum(relevant_count, 10)]
    out["ndcg@10"] = per_query(_expected_dcg(a, m, 10)) / ideal
    for k in (1, 5, 10):
        out[f"recall@{k}"] = per_query(_within(a, m, k) / m) / relevant_count
    # hit@10: each tie group holding relevant items misses independently; count each group once
    group = groups.leader
    miss = np.ones(queries)
    np.multiply.at(miss, q[group], 1 - _hit_probability(a[group], m[group], r[group], 10))
    out["hit@10"] = 1 - miss
    out["mrr"] = expected_first_reciprocal_rank(*groups.first)
    out["map@100"] = per_query(_expected_precision_sum(a, m, r, groups.before, depth)) / relevant_count
    return out


def corpus_random(relevant_count: np.ndarray, pool_size: np.ndarray, depth: int = DEPTH) -> dict[str, np.ndarray]:
    """The corpus metrics of constant scores: each query's non-excluded clips form one tie group."""
    r, m = relevant_count.astype(np.int64), pool_size.astype(np.int64)
    zero = np.zeros(len(r), np.int64)
    one_row_per_query = TieGroups(np.arange(len(r)), zero, m, r, zero, np.ones(len(r), bool), (zero, m, r), weight=r)
    return corpus_metrics(one_row_per_query, relevant_count, depth)


# ---------------------------------------------------------------- summaries

def task_names(tasks: np.ndarray) -> list[str]:
    """Tasks in the order the queries first name them (the benchmark's own order)."""
    return list(dict.fromkeys(tasks.tolist()))


def _scored(per_query: np.ndarray, members: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each task's queries that a metric applies to: all of them but its NaNs (hard_negative_pairwise of a
    query without hard negatives); tasks left without any are left out."""
    known = ~np.isnan(per_query)
    if known.all():
        return members
    return {t: m[known[m]] for t, m in members.items() if known[m].any()}


def _resampled_means(values: dict[str, np.ndarray], tasks: np.ndarray, resamples: int,
                     seed: int) -> dict[str, dict[str, np.ndarray | None]]:
    """{task or "average": {metric: its mean in each of `resamples` resamples of queries within tasks}} (a
    metric that applies to some queries only: those, in a draw of their own; None where none)."""
    check_resamples("resamples", resamples, len(tasks))
    check_count("seed", seed, 0)
    rng = np.random.default_rng(seed)
    names = task_names(tasks)
    members = {t: np.flatnonzero(tasks == t) for t in names}

    def drawn(groups):
        return {t: m[rng.integers(0, len(m), (resamples, len(m)))] for t, m in groups.items()}

    draws = drawn(members)
    out: dict[str, dict] = {t: {} for t in names + ["average"]}
    for metric, per_query in values.items():
        scored = _scored(per_query, members)
        mine = draws if scored is members else drawn(scored)
        means = {t: per_query[mine[t]].mean(axis=1) for t in scored}
        if means:
            means["average"] = np.mean([means[t] for t in scored], axis=0)
        for t in out:
            out[t][metric] = means.get(t)
    return out


def _percentiles(means: dict[str, dict[str, np.ndarray | None]],
                 confidence: float) -> dict[str, dict[str, tuple[float, float] | None]]:
    """The percentile interval of each set of resampled means."""
    low, high = (1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100
    return {t: {metric: None if drawn is None else tuple(float(x) for x in np.percentile(drawn, [low, high]))
                for metric, drawn in by_metric.items()} for t, by_metric in means.items()}


def bootstrap_intervals(values: dict[str, np.ndarray], tasks: np.ndarray, resamples: int, seed: int,
                        confidence: float = 0.95) -> dict[str, dict[str, tuple[float, float] | None]]:
    """Percentile intervals of each task mean and of the macro average, resampling queries within tasks (a
    metric that applies to some queries only: those, in a draw of their own; None where none)."""
    return _percentiles(_resampled_means(values, tasks, resamples, seed), confidence)


def paired_p_values(values: dict[str, np.ndarray], baseline: dict[str, np.ndarray], tasks: np.ndarray,
                    resamples: int, seed: int) -> dict[str, dict[str, float]]:
    """Two-sided paired randomization test (sign flips of per-query differences), per task and average."""
    check_resamples("resamples", resamples, len(tasks))
    check_count("seed", seed, 0)
    rng = np.random.default_rng(seed)
    names = task_names(tasks)
    members = {t: np.flatnonzero(tasks == t) for t in names}
    out: dict[str, dict] = {t: {} for t in names + ["average"]}
    for metric in values:
        diff = values[metric] - baseline[metric]
        signs = rng.choice([-1.0, 1.0], size=(resamples, len(diff)))
        scored = _scored(diff, members)
        observed = {t: diff[m].mean() for t, m in scored.items()}
        flipped = {t: (signs[:, m] * diff[m]).mean(axis=1) for t, m in scored.items()}
        if scored:
            observed["average"] = np.mean([observed[t] for t in scored])
            flipped["average"] = np.mean([flipped[t] for t in scored], axis=0)
        for t in out:
            out[t][metric] = None
        for t in observed:
            extreme = np.sum(np.abs(flipped[t]) >= abs(observed[t]) - 1e-12)
            out[t][metric] = float((1 + extreme) / (1 + resamples))
    return out


def paired_differences(values: dict[str, np.ndarray], baseline: dict[str, np.ndarray], tasks: np.ndarray,
                       resamples: int, seed: int, confidence: float = 0.95) -> dict:
    """How much `values` gain over `baseline` on the same queries (negative: a drop), per task and on the
    macro average, with a paired bootstrap: one resample of queries (within tasks) serves both, so the
    interval is of the difference, not of two independent means. E.g. a model under a noisy condition
    against itself on the clean clips. The p-value is the two-sided bootstrap test of the same resamples:
    twice the share of resampled differences on the far side of 0 (at least 1 / resamples, at most 1),
    so the percentile interval excludes 0 exactly when p < 1 - confidence, up to one resample.

    Args:
        values, baseline: {metric: value per query}, the same queries in the same order.
        tasks: each query's task (or any per-query label: a task x depth cell).
        resamples, seed, confidence: the bootstrap's resamples (0: the differences alone), seed and level.

    Returns:
        {"difference": {task: {metric: d}}, "intervals": {task: {metric: (low, high)}}, "p_values": {task:
        {metric: p}}}, "average" beside the tasks; None where a metric applies to none of a task's queries.
    """
    check_resamples("resamples", resamples, len(tasks))
    check_confidence(confidence)
    tasks = np.asarray(tasks)
    difference = {metric: np.asarray(values[metric], dtype=np.float64) - np.asarray(baseline[metric], dtype=np.float64)
                  for metric in values}
    if any(d.shape != tasks.shape for d in difference.values()):
        raise ValueError("values, baseline and tasks must give one entry per query, the same queries in the same order")
    out = {"difference": task_means(difference, tasks)}
    if resamples:
        means = _resampled_means(difference, tasks, resamples, seed)
        out["intervals"] = _percentiles(means, confidence)
        out["p_values"] = {t: {metric: None if drawn is None else
                               float(min(1.0, max(1, 2 * min(np.sum(drawn <= 0), np.sum(drawn >= 0))) / resamples))
                               for metric, drawn in by_metric.items()} for t, by_metric in means.items()}
    return out


def task_means(values: dict[str, np.ndarray], tasks: np.ndarray) -> dict[str, dict[str, float | None]]:
    """Each metric's mean per task (or any per-query label), and their macro average as "average"; a metric
    that applies to some queries only (NaN for the others) is their mean, None where a task has none."""
    names = task_names(tasks)
    members = {t: np.flatnonzero(tasks == t) for t in names}
    out: dict[str, dict] = {t: {} for t in names + ["average"]}
    for metric, per_query in values.items():
        scored = _scored(np.asarray(per_query, dtype=np.float64), members)
        for t in names:
            out[t][metric] = float(per_query[scored[t]].mean()) if t in scored else None
        out["average"][metric] = float(np.mean([out[t][metric] for t in scored])) if scored else None
    return out


def expectation_means(random: dict[str, np.ndarray], tasks: np.ndarray) -> dict[str, dict[str, float]]:
    """`task_means` of the random expectations, rounded to 12 places: they are exact fractions (1/10 per
    query of a group of 10), which a float sum turns into 0.10000000000000002."""
    return {task: {m: v if v is None else round(v, 12) for m, v in means.items()}
            for task, means in task_means(random, tasks).items()}


def _check_by(by) -> tuple[str, ...]:
    """`by` as a tuple of distinct column names, or a one-line error (a bare string is a common slip)."""
    if isinstance(by, str) or not isinstance(by, (tuple, list)) or not by or \
            not all(isinstance(c, str) and c for c in by) or len(set(by)) != len(by):
        raise ValueError(f"by must be a tuple of distinct query column names, e.g. ('task', 'depth'), got {by!r}")
    return tuple(by)


def _levels(values: list) -> list:
    """A column's distinct values in reading order: numbers ascending (nulls last), anything else as the
    queries first name them (tasks in the benchmark's own order)."""
    distinct = list(dict.fromkeys(values))
    known = [v for v in distinct if v is not None]
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in known):
        return sorted(known) + [None] * (len(known) < len(distinct))
    return distinct


def _breakdown_cells(queries, by: tuple[str, ...]) -> tuple[np.ndarray, dict[str, dict]]:
    """Each query's cell key ("negation/depth=2": a task by its name, any other column as column=value) and
    every cell's column values, cells in reading order (column by column, as `_levels` orders each)."""
    try:
        columns = {c: _column(queries, c) for c in by}
    except ValueError as error:
        raise ValueError(f"cannot break down by {by}: {error}") from None
    for c, values in columns.items():
        odd = next((v for v in values if isinstance(v, (list, dict, np.ndarray))), None)
        if odd is not None:
            raise ValueError(f"cannot break down by {c!r}: its values are {type(odd).__name__}s, not one value per "
                             "query (a task, a depth, a shape)")
    rank = {c: {v: i for i, v in enumerate(_levels(values))} for c, values in columns.items()}
    rows = list(zip(*columns.values()))
    cells = {}
    for row in sorted(set(rows), key=lambda row: [rank[c][v] for c, v in zip(by, row)]):
        cells[row] = "/".join(str(v) if c == "task" else f"{c}={v}" for c, v in zip(by, row))
    return np.asarray([cells[row] for row in rows]), {key: dict(zip(by, row)) for row, key in cells.items()}


def _breakdown(values: dict[str, np.ndarray], random: dict[str, np.ndarray], cell: np.ndarray, cells: dict,
               by: tuple[str, ...], bootstrap: int, seed: int, confidence: float) -> dict:
    """{"by": columns, "cells": {key: {"where": {column: value}, "num_queries": n, metric: value, ...,
    "random": {metric: value}, "intervals": {metric: (low, high)}}}}: one self-contained record per cell."""
    scores, chance = task_means(values, cell), expectation_means(random, cell)
    intervals = bootstrap_intervals(values, cell, bootstrap, seed, confidence) if bootstrap else {}
    out = {}
    for key, where in cells.items():
        out[key] = {"where": where, "num_queries": int(np.sum(cell == key)), **scores[key], "random": chance[key]}
        if bootstrap:
            out[key]["intervals"] = intervals[key]
    return {"by": list(by), "cells": out}


def _group_inputs(queries, similarity):
    query_ids, tasks = _column(queries, "query_id"), _task_column(queries)
    candidates, positives = _column(queries, "candidates"), _column(queries, "positive")
    _one_per_query({"query_id": query_ids, "task": tasks, "candidates": candidates, "positive": positives}, "queries")
    _check_ids(query_ids, "query_id")
    similarity = _check_matrix(similarity, len(query_ids), None, "one row per query, one column per candidate")
    width = similarity.shape[1]
    positive_index = []
    for query_id, group, positive in zip(query_ids, candidates, positives):
        group = _clip_ids(group, "candidates", query_id)
        if len(set(group)) != len(group):
            twice = next(c for c in group if group.count(c) > 1)
            raise ValueError(f"query {query_id!r} lists candidate {twice!r} twice")
        if len(group) != width:
            raise ValueError(f"query {query_id!r} has {len(group)} candidates but similarity has {width} columns")
        if positive not in group:
            raise ValueError(f"query {query_id!r}: its positive {positive!r} is not among its candidates")
        positive_index.append(group.index(positive))
    return query_ids, np.asarray(tasks), similarity, positive_index


def _positions(values, index: list, what: str, source: str = "qrels") -> np.ndarray:
    """Position of each value in `index`; unknown values are an error naming the first few."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        found = pc.index_in(values, value_set=pa.array(index))
    except (pa.ArrowException, TypeError):
        kinds = sorted({type(v).__name__ for v in index})
        raise ValueError(f"{source} name {what}s as {values.type}, the corpus ids are {'/'.join(kinds)}: give "
                         f"corpus ids of the same kind as the {source}' ids (text)") from None
    if found.null_count:
        unknown = pc.filter(values, pc.is_null(found)).to_pylist()[:3]
        raise ValueError(f"{source} name {found.null_count} unknown {what}(s), e.g. {unknown}")
    return found.to_numpy(zero_copy_only=False).astype(np.int64)


@dataclass(frozen=True)
class CorpusTables:
    """The queries, corpus ids and qrels parsed for ranking: what stays the same from model to model."""

    query_ids: list
    tasks: np.ndarray
    pairs: tuple            # relevant (query, clip) and excluded (query, clip) positions, sorted by query
    relevant_count: np.ndarray
    random: dict            # the corpus metrics of constant scores, per query


def _fingerprint(table):
    """datasets.Dataset content fingerprint (None for plain dicts, which are never cached)."""
    return getattr(table, "_fingerprint", None)


_PARSED: dict = {}


def parse_corpus_tables(queries, corpus_ids, qrels) -> CorpusTables:
    """Parse and check the tables; the result is reused while the same Datasets come back (eval loops)."""
    key = (_fingerprint(queries), _fingerprint(qrels), hash(tuple(corpus_ids)))
    if None not in key and key in _PARSED:
        return _PARSED[key]
    parsed = _parse_corpus_tables(queries, corpus_ids, qrels)
    if None not in key:
        _PARSED.clear()  # keep one: a benchmark is scored many times, rarely several at once
        _PARSED[key] = parsed
    return parsed


def _qrels_columns(qrels):
    """BEIR's and pytrec_eval's {query_id: {clip_id: score}} as the qrels table's columns; a table (a Dataset,
    a mapping of columns) as it is."""
    if not isinstance(qrels, Mapping):
        return qrels
    nested = [isinstance(clips, Mapping) for clips in qrels.values()]
    if not all(nested):
        if any(nested):
            odd = next(query for query, is_nested in zip(qrels, nested) if not is_nested)
            raise ValueError(f"qrels: query {odd!r} maps to a {type(qrels[odd]).__name__}, not {{clip_id: score}}: "
                             "give every query a mapping, or the qrels table (query_id, clip_id, score)")
        return qrels
    rows = [(query, clip, value) for query, clips in qrels.items() for clip, value in clips.items()]
    return {"query_id": [r[0] for r in rows], "clip_id": [r[1] for r in rows], "score": [r[2] for r in rows]}


def _parse_corpus_tables(queries, corpus_ids, qrels) -> CorpusTables:
    query_ids, tasks, corpus_ids = _column(queries, "query_id"), _task_column(queries), list(corpus_ids)
    qrels = _qrels_columns(qrels)
    _one_per_query({"query_id": query_ids, "task": tasks}, "queries")
    _one_per_query({c: _arrow_column(qrels, c) for c in ("query_id", "clip_id", "score")}, "qrels")
    _check_ids(query_ids, "query_id")
    _check_ids(corpus_ids, "corpus id")
    value = np.asarray(_arrow_column(qrels, "score").to_numpy(zero_copy_only=False))
    if len(value) == 0:
        raise ValueError("qrels is empty: corpus mode needs each query's relevant clips (score 1) in qrels")
    relevant, excluded = value == 1, value == -1
    if not np.all(relevant | excluded):
        raise ValueError(f"qrels scores must be 1 (relevant) or -1 (excluded), got {value[~(relevant | excluded)][:3]}")
    query = _positions(_arrow_column(qrels, "query_id"), query_ids, "query")
    clip = _positions(_arrow_column(qrels, "clip_id"), corpus_ids, "clip")
    pair = query * len(corpus_ids) + clip
    by_query = np.argsort(pair)        # sorted by query (then clip): a repeated pair sits next to itself
    if np.any(pair[by_query][1:] == pair[by_query][:-1]):
        raise ValueError("qrels list a (query_id, clip_id) pair twice")
    relevant_count = np.bincount(query[relevant], minlength=len(query_ids))
    if (relevant_count == 0).any():
        missing = [query_ids[i] for i in np.flatnonzero(relevant_count == 0)[:3]]
        raise ValueError(f"{int((relevant_count == 0).sum())} queries have no relevant clip in qrels, e.g. {missing}")
    pool_size = len(corpus_ids) - np.bincount(query[excluded], minlength=len(query_ids))
    query, clip, relevant, excluded = query[by_query], clip[by_query], relevant[by_query], excluded[by_query]
    pairs = (query[relevant], clip[relevant], query[excluded], clip[excluded])
    return CorpusTables(query_ids, np.asarray(tasks), pairs, relevant_count, corpus_random(relevant_count, pool_size))


def score(similarity, queries: Mapping, corpus_ids: Sequence[str] | None = None, qrels: Mapping | None = None,
          baseline_similarity=None, per_query: bool = False, by: Sequence[str] = ("task",), **intervals) -> dict:
    """Score a similarity matrix: group mode without `corpus_ids`/`qrels`, corpus mode with both.

    Args:
        similarity: (queries, columns) numpy array or torch tensor on any device. Group mode: row i scores
            queries["candidates"][i] in order; corpus mode: column j is clip corpus_ids[j].
        queries: the queries table (a `datasets.Dataset` or a mapping of columns): `query_id`, `task`,
            `candidates`, `positive` (and `hard_negatives`, `depth`, ... where present; `hard_negative_kinds`,
            what each hard negative breaks, adds the reasoning profile).
        corpus_ids, qrels: corpus mode's column ids and relevance: the qrels table (columns `query_id`,
            `clip_id`, `score`) or BEIR's and pytrec_eval's {query_id: {clip_id: score}}; a score is 1
            (relevant) or -1 (excluded).
        baseline_similarity: a second system's matrix: adds a paired significance test ("p_values").
        per_query: add each query's values ("per_query").
        by: the query columns scores are broken down by; ("task", "depth") adds every task x depth cell.
        **intervals: `Intervals`' bootstrap (resamples, default 1000; 0: none), seed (default 0; also the
            significance test's) and confidence (the level, default 0.95).

    Returns:
        {task: {metric: value}, "average": {...} (macro over tasks), "random": {...}, "intervals": {task:
        {metric: (low, high)}}, "num_queries": {task: n}}, plus "p_values", "per_query" ({metric: [value per
        query]}, with "query_id") and "breakdown" (every cell of `by`: "negation/depth=2" with its query
        count, metrics, random baseline and intervals) when asked, "profile" (`reasoning_profile`: per kind of
        minimal pair, the share the model orders right) where the queries name their hard negatives' kinds;
        the headline is unchanged by them; and
        "hard_negative_queries" ({task: n}) where only some queries list hard negatives. RESULT_KEYS lists
        these keys, none of which a task may be named.
    """
    drawn = keyword_group(Intervals, intervals, score)
    bootstrap, seed, confidence = drawn.bootstrap, drawn.seed, drawn.confidence
    by = _check_by(by)
    if by != ("task",):
        cell, cells = _breakdown_cells(queries, by)
    if (corpus_ids is None) != (qrels is None):
        raise ValueError("corpus mode needs both corpus_ids and qrels; group mode needs neither")
    if corpus_ids is None:
        query_ids, tasks, similarity, positive_index = _group_inputs(queries, similarity)

        groups = _column(queries, "candidates")
        negatives = _hard_negative_index(queries, lambda row: {c: j for j, c in enumerate(groups[row])},
                                         "among its candidates")

        def evaluate_matrix(matrix):
            values = group_scores(matrix, positive_index)
            if negatives is not None:
                values[HARD_NEGATIVE] = hard_negative_scores(matrix, positive_index, negatives)
            return values

        random = group_random(similarity.shape[1], len(query_ids))
    else:
        tables = parse_corpus_tables(queries, corpus_ids, qrels)
        query_ids, tasks, random = tables.query_ids, tables.tasks, tables.random
        similarity = _check_matrix(similarity, len(query_ids), len(corpus_ids),  # ranking checks finiteness
                                   "one row per query, one column per corpus id", finite=_is_torch(similarity))

        column = {clip: j for j, clip in enumerate(corpus_ids)}
        negatives = _hard_negative_index(queries, lambda row: column, "in the corpus")
        if negatives is not None:
            positive_index = _positions(_arrow_column(queries, "positive"), list(corpus_ids), "positive clip", "queries")

        def evaluate_matrix(matrix):
            values = corpus_metrics(rank_relevant(matrix, *tables.pairs, len(query_ids)), tables.relevant_count)
            if negatives is not None:
                values[HARD_NEGATIVE] = hard_negative_scores(matrix, positive_index, negatives)
            return values

    values = evaluate_matrix(similarity)
    kinds = _hard_negative_kinds(queries, negatives)
    if HARD_NEGATIVE in values:
        random = {**random, HARD_NEGATIVE: np.where(np.isnan(values[HARD_NEGATIVE]), np.nan, 0.5)}
    by_task = task_means(values, tasks)
    result = {"average": by_task.pop("average"), "random": expectation_means(random, tasks)}
    result["num_queries"] = {t: int(np.sum(tasks == t)) for t in task_names(tasks)}
    if HARD_NEGATIVE in values and np.isnan(values[HARD_NEGATIVE]).any():     # say over how many it is
        result["hard_negative_queries"] = {t: int(np.sum(~np.isnan(values[HARD_NEGATIVE][tasks == t])))
                                           for t in task_names(tasks)}
    if bootstrap:
        result["intervals"] = bootstrap_intervals(values, tasks, bootstrap, seed, confidence)
    if by != ("task",):
        result["breakdown"] = _breakdown(values, random, cell, cells, by, bootstrap, seed, confidence)
    if kinds is not None:
        result["profile"] = reasoning_profile(pair_wins(similarity, positive_index, negatives)[0], kinds, bootstrap,
                                              seed, confidence)
    if baseline_similarity is not None:
        baseline_similarity = _check_matrix(baseline_similarity, *similarity.shape, "the same shape as similarity",
                                            finite=corpus_ids is None or _is_torch(baseline_similarity))
        result["p_values"] = paired_p_values(values, evaluate_matrix(baseline_similarity), tasks,
                                             max(bootstrap, 1000), seed)
    if per_query:
        result["per_query"] = {"query_id": list(query_ids),     # None: a metric that does not apply to the query
                               **{m: [None if x != x else x for x in v.tolist()] for m, v in values.items()}}
    return {**by_task, **{key: result[key] for key in RESULT_KEYS if key in result}}
