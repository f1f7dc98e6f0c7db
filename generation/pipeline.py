"""The generate job: bank -> plan (all of it, checked) -> tables -> render the corpus files -> card.

Planning is cheap and deterministic, so every job (a resumed run, or job I of K on another machine)
plans the whole split and renders only its own corpus files; a fingerprint of the plan, stamped into
every file, guarantees that files from different runs are only ever combined when identical. Files
are written into a hidden staging folder and moved into view, card last, only once all are there.
"""
from __future__ import annotations

import hashlib
import tempfile
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Iterator

import numpy as np
from tqdm.auto import tqdm

import pyarrow.parquet as pq

from reasonaudio.core.phrases import last_phrases
from reasonaudio.core.records import caption, constraint_text, fingerprint
from reasonaudio.core.relations import judge_queries
from reasonaudio.core.rows import ClipRow, QrelRow, QueryRow
from reasonaudio.versions import BENCHMARK_VERSION
from reasonaudio_dataset.schema import AUDIO_ROWS_PER_GROUP, FEATURES, MAX_SHARD_BYTES, data_file

from .bank import SoundBank, to_pcm16
from .clips import ClipRenderer, RenderWorkers, worker_renderer
from .config import RAY, GenerateConfig, parse_executor
from .executor import check_reachable, import_ray, render_on_ray
from .folder import BuildFolder
from .kinds import PLANNED, BuildKind, build_kind
from .render import decode_pcm16, encode_flac
from .sources import SPLITS
from .tasks import TASKS, QueryPlan
from .writer import write_table

MIN_CORPUS_FILES = 8
QRELS_BATCH = 100_000   # qrels rows held before they are written


@dataclass
class Plan:
    config: GenerateConfig
    bank: SoundBank
    queries: list[QueryPlan]
    kind: BuildKind = PLANNED
    fingerprint: str = ""
    clips: list = field(default_factory=list)      # (QueryPlan, Candidate) in corpus order

    def __post_init__(self):
        self.clips = [(q, c) for q in self.queries for c in q.candidates]
        contents = ([recording_digest(to_pcm16(s.samples)) for s in self.bank.sounds]
                    if self.kind.recordings_published else None)
        self.fingerprint = fingerprint(self.config.content(), [s.row() for s in self.bank.sounds],
                                       [query_row(q) for q in self.queries],
                                       {c.clip_id: c.events for _, c in self.clips}, contents)

    @property
    def phrases(self) -> dict[str, str]:
        """How each class is said (captions): the last phrase `sources` gives it (a recording gives several)."""
        return last_phrases((s.label, s.phrase) for s in self.bank.sounds)

    def corpus_files(self, config: str = "corpus") -> list[tuple[str, int, int]]:
        """(relative path, first clip, end clip) for each file of a corpus config: at most 500 MB even as raw
        PCM, whole row groups spread evenly, and at least MIN_CORPUS_FILES files when there are that many row
        groups, so that streamed and sharded reading (DataLoader workers, `split_dataset_by_node`) has files
        to spread. A function of the plan alone: the files are the same for any --workers."""
        raw_bytes = self.config.clip_seconds * self.config.sample_rate * 2
        largest = max(1, int(0.9 * MAX_SHARD_BYTES / raw_bytes) // AUDIO_ROWS_PER_GROUP)   # row groups per file
        groups = -(-len(self.clips) // AUDIO_ROWS_PER_GROUP)
        count = max(-(-groups // largest), min(MIN_CORPUS_FILES, groups))
        bounds = [min(len(self.clips), i * groups // count * AUDIO_ROWS_PER_GROUP) for i in range(count + 1)]
        return [(data_file(config, self.config.split, i, count), bounds[i], bounds[i + 1]) for i in range(count)]


def recording_digest(pcm16: np.ndarray) -> str:
    """SHA-256 of a sound's 16-bit samples, as `sources` publishes them."""
    return hashlib.sha256(np.ascontiguousarray(pcm16, dtype="<i2").tobytes()).hexdigest()


def _other_splits(out: BuildFolder, split: str, config: str, column: str) -> dict[str, list]:
    """The values of `column` in table `config` of every other split already in `out` (finished or staged)."""
    found = {}
    for other in (s for s in SPLITS if s != split):
        files = out.data_files(config, other)
        found[other] = [v for f in files for v in pq.read_table(f, columns=[column]).column(column).to_pylist()]
    return found


def other_split_texts(out: BuildFolder, split: str) -> frozenset[str]:
    """Query texts of every other split already in `out` (finished or staged): `split` avoids them. Each
    split thus avoids all made before it, and one planned again (resumed, repeated) plans the same queries,
    none of its texts being another's: no two splits of a folder share a text, in whatever order made."""
    return frozenset().union(*_other_splits(out, split, "queries", "text").values())


def check_own_recordings(out: BuildFolder, split: str, bank: SoundBank, kind: BuildKind) -> None:
    """Refuse, before anything is written, a split whose sounds come from recordings another split in `out`
    uses (two `as_split` of one source, say): splits draw on disjoint recordings, as `validate` checks. A
    natural split's recordings are published as recorded, so a copy of one under another path is the same
    recording too (by `recording_digest`)."""
    mine = {sound.origin: sound.origin for sound in bank.sounds}
    if kind.recordings_published:
        mine.update({recording_digest(to_pcm16(sound.samples)): sound.origin for sound in bank.sounds})
    theirs = {other: set(origins) for other, origins in _other_splits(out, split, "sources", "origin").items()}
    if kind.recordings_published:
        for other, audio in _other_splits(out, split, "sources", "audio").items():
            theirs[other] |= {recording_digest(decode_pcm16(cell["bytes"])[0]) for cell in audio}
    for other, found in theirs.items():
        shared = sorted({mine[key] for key in set(mine) & found})
        if shared:
            raise ValueError(f"split {split} would use {len(shared)} recording(s) that split {other} in {out} already "
                             f"uses, e.g. {shared[0]}: splits must draw on disjoint recordings (give each split its "
                             "own, or drop as_split to let the source's split or hash divide them)")


def plan_split(config: GenerateConfig, forbidden: frozenset[str] | None = None) -> Plan:
    """The split's plan; `forbidden`: the query texts it avoids (default: those of the other splits in --out)."""
    forbidden = other_split_texts(BuildFolder(config.out), config.split) if forbidden is None else forbidden
    kind = build_kind(config.source)
    bank, queries = kind.plan(config, forbidden)
    return Plan(config, bank, queries, kind)


def query_row(query: QueryPlan) -> QueryRow:
    """A planned query as `queries` publishes it."""
    return QueryRow(query_id=query.query_id, task=query.task, shape=query.shape, depth=query.depth,
                    num_sounds=query.num_sounds, text=query.text, constraint=constraint_text(query.atoms),
                    candidates=tuple(c.clip_id for c in query.candidates), positive=query.positive,
                    hard_negatives=tuple(query.hard_negatives))


def qrels_batches(plan: Plan) -> Iterator[list[dict]]:
    """Every relevant (1) or ambiguous (-1) pair of the corpus, decided by `relevant`, in batches of about
    QRELS_BATCH rows as they are judged: a split's pairs grow as its queries times its corpus (every clip of
    the corpus a query is true of), far beyond memory at scale."""
    batch = []
    for query_id, pairs in judge_queries([(q.query_id, q.atoms) for q in plan.queries],
                                         [(c.clip_id, c.events) for _, c in plan.clips]):
        batch += [QrelRow(query_id=query_id, clip_id=c, score=verdict.value).to_row() for c, verdict in pairs]
        if len(batch) >= QRELS_BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def group_members(query: QueryPlan) -> tuple:
    """The timeline of each of a query's candidates: the group an acoustic condition draws its parameters for."""
    return tuple(candidate.events for candidate in query.candidates)


def clip_renderer(plan: Plan) -> ClipRenderer:
    """The plan's renderer, with each query's group where a condition draws for it."""
    conditions = plan.config.corpus_configs()
    draws = any(not condition.clean for condition in conditions.values())
    return ClipRenderer(plan.bank, plan.config.clip_seconds, plan.config.seed, plan.config.split, conditions,
                        {query.query_id: group_members(query) for query in plan.queries} if draws else {})


def render_rows(job: tuple[str, list]) -> list[tuple[bytes, str]]:
    """The rows of one row group, rendered in a worker process (`RenderWorkers`).

    Args:
        job: (the corpus config, each clip's query id and timeline).

    Returns:
        FLAC bytes and `acoustics` JSON of each clip.
    """
    config, clips = job
    renderer = worker_renderer()
    return [(encode_flac(audio, renderer.sample_rate), acoustics)
            for audio, acoustics in (renderer.render(events, query_id, config) for query_id, events in clips)]


def _corpus_batches(plan: Plan, first: int, end: int, workers: RenderWorkers, bar, config: str):
    phrases = plan.phrases
    starts = range(first, end, AUDIO_ROWS_PER_GROUP)
    jobs = ((config, [(q.query_id, c.events) for q, c in plan.clips[s:min(end, s + AUDIO_ROWS_PER_GROUP)]])
            for s in starts)
    for start, rendered in zip(starts, workers.map(render_rows, jobs)):
        rows = []
        for (query, candidate), (flac, acoustics) in zip(plan.clips[start:start + len(rendered)], rendered):
            rows.append(ClipRow(clip_id=candidate.clip_id, audio={"bytes": flac, "path": f"{candidate.clip_id}.flac"},
                                task=query.task, query_id=query.query_id, duration=plan.config.clip_seconds,
                                events=candidate.events, caption=caption(candidate.events, phrases),
                                acoustics=acoustics).to_row())
        bar.update(len(rows))
        yield rows


def render_corpus(plan: Plan, out: BuildFolder) -> list[str]:
    """Render this job's corpus files that are not already complete; returns the files it wrote."""
    config, stamp = plan.config, {"fingerprint": plan.fingerprint, "split": plan.config.split}
    todo = []
    files = [(*file, corpus) for corpus in config.corpus_configs() for file in plan.corpus_files(corpus)]
    for index, (relative, first, end, corpus) in enumerate(files):
        if index % config.num_shards == config.shard_index and out.locate(relative, plan.fingerprint) is None:
            todo.append((relative, first, end, corpus))
    total = sum(end - first for _, first, end, _ in todo)
    with RenderWorkers(clip_renderer(plan), config.workers if todo else 1) as workers, \
            tqdm(total=total, desc=f"rendering {config.split}", unit="clip", disable=not config.progress) as bar:
        for relative, first, end, corpus in todo:
            write_table(out.staged(relative), corpus, _corpus_batches(plan, first, end, workers, bar, corpus),
                        stamp, row_group_size=AUDIO_ROWS_PER_GROUP)
    return [relative for relative, *_ in todo]


def write_tables(plan: Plan, out: BuildFolder) -> None:
    stamp, split = {"fingerprint": plan.fingerprint, "split": plan.config.split}, plan.config.split
    tables = {"queries": lambda: [query_row(q).to_row() for q in plan.queries], "qrels": lambda: qrels_batches(plan),
              "sources": lambda: source_batches(plan.bank.sounds)}
    for config, rows in tables.items():
        if out.locate(data_file(config, split), plan.fingerprint) is None:
            write_table(out.staged(data_file(config, split)), config, rows(), stamp,
                        row_group_size=AUDIO_ROWS_PER_GROUP if "audio" in FEATURES[config] else None)


def source_batches(sounds) -> Iterator[list[dict]]:
    """The sources table a row group at a time: a natural build's bank is every recording of the split, whose
    FLAC bytes held whole grew the heap with it (1.4 GB at 16x the stand-in)."""
    for start in range(0, len(sounds), AUDIO_ROWS_PER_GROUP):
        yield [source_row(s) for s in sounds[start:start + AUDIO_ROWS_PER_GROUP]]


def source_row(sound) -> dict:
    """An atomic sound as published: its record and its samples (FLAC, on the grid they were used on)."""
    return sound.row(audio={"bytes": encode_flac(sound.samples, sound.sample_rate),
                            "path": f"{sound.source_id.replace('/', '_')}.flac"}).to_row()


def shape_counts(queries) -> list[dict]:
    """Queries per task, shape and depth, in task then shape order (the card's difficulty table)."""
    counts = Counter((q.task, q.shape, q.depth, q.num_sounds) for q in queries)
    return [{"task": t, "shape": s, "depth": d, "sounds": n, "queries": counts[(t, s, d, n)]}
            for t, s, d, n in sorted(counts, key=lambda key: (list(TASKS).index(key[0]), key[2], key[1]))]


def split_record(plan: Plan) -> dict:
    """What the card and `validate` need to know of a finished split."""
    examples = {}
    for query in plan.queries:
        if query.task not in examples:
            positive = next(c for c in query.candidates if c.clip_id == query.positive)
            examples[query.task] = {"query": query.text, "positive_caption": caption(positive.events, plan.phrases)}
    record = {
        "fingerprint": plan.fingerprint, "benchmark_version": BENCHMARK_VERSION, "parameters": plan.config.content(),
        "files": [data_file(c, plan.config.split) for c in ("queries", "qrels", "sources")]
        + [relative for corpus in plan.config.corpus_configs() for relative, _, _ in plan.corpus_files(corpus)],
        "acoustics": {corpus: condition.name for corpus, condition in plan.config.corpus_configs().items()},
        "counts": {"queries": len(plan.queries), "clips": len(plan.clips), "atomic_sounds": len(plan.bank.sounds),
                   "classes": len(plan.phrases),
                   "queries_per_task": {t: sum(q.task == t for q in plan.queries) for t in plan.config.tasks},
                   "shapes": shape_counts(plan.queries)},
        "licenses": sorted({s.license for s in plan.bank.sounds}),
        "attributions": sorted({s.attribution for s in plan.bank.sounds if s.attribution}),
        "skipped_sources": [{"origin": o, "reason": r} for o, r in plan.bank.skipped],
        "examples": examples,
    }
    record.update(plan.kind.summary(plan) or {})
    return record


def prepare_split(config: GenerateConfig) -> tuple[Plan, dict]:
    """Plan the split and write its tables and its record: what every executor does before the audio (`generate`
    has checked the folder)."""
    out = BuildFolder(config.out)
    with out.planning_lock():           # one split plans at a time: the texts and recordings of the others are its
        config.check_same_corpus()      # to avoid
        plan = plan_split(config)
        check_own_recordings(out, config.split, plan.bank, plan.kind)
        record = split_record(plan)
        write_tables(plan, out)
        out.write_plan_record(config.split, record)
    return plan, record


def render_file(plan: Plan, index: int, count: int) -> dict[str, bytes]:
    """One corpus file of the planned split (the `index`-th of `count`), rendered in a scratch folder (on a Ray
    task's node): {path: bytes}."""
    with tempfile.TemporaryDirectory(prefix="reasonaudio-shard-") as scratch:
        shard = replace(plan, config=replace(plan.config, out=scratch, workers=1, num_shards=count, shard_index=index,
                                             executor="local", progress=False))
        folder = BuildFolder(scratch)
        return {relative: folder.staged(relative).read_bytes() for relative in render_corpus(shard, folder)}


def generate(config: GenerateConfig, task=render_file) -> dict:
    """Build one split: plan it, write its tables, render its corpus files and finalise it (the card, the record).

    Args:
        config: what to build (`GenerateConfig`: the source, the folder, the split, the sizes, the seed).
        task: what renders one corpus file with `--executor ray` (a Ray task running it; tests wrap it).

    Returns:
        The split's record (also written to `OUT/.reasonaudio/SPLIT.json`): its plan fingerprint, benchmark
        version, parameters, files and counts.
    """
    kind, address = parse_executor(config.executor)
    ray = import_ray() if kind == RAY else None       # before any work: a missing Ray is one line
    if ray is not None:
        check_reachable(address)                     # an address nothing answers: one line, before planning
    out = BuildFolder(config.out)       # the text: Path("") would be the current folder
    out.check(config.force)
    with out.split_lock(config.split):
        plan, record = prepare_split(config)
        if ray is None:
            render_corpus(plan, out)
        else:
            files = [(relative, end - first) for corpus in config.corpus_configs()
                     for relative, first, end in plan.corpus_files(corpus)]
            todo = [(index, relative, clips) for index, (relative, clips) in enumerate(files)
                    if out.locate(relative, plan.fingerprint) is None]
            render_on_ray(ray, task, plan, todo, len(files), out.staging, address, config)
        record["complete"] = out.finalize(config.split)
    return record
