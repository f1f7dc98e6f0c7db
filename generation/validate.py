"""`reasonaudio validate DIR`: re-derive a generated folder from its own files and report every difference.

Nothing is taken on trust: the plan fingerprint is recomputed from the tables and compared with the
stamp in every file; every candidate is re-judged by the relevance function and the qrels recomputed;
every query text and caption is regenerated from its constraint and events; the id columns MTEB reads are
derived again from each row's own ids; the card is compared with the one the writer would write now; and
(unless `quick`) every clip is decoded and compared with its re-rendering from the published atomic sounds
(`sources`) and its events, which catches swapped, edited or shifted audio. Each finding names the file
and, where there is one, the row.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from contextlib import contextmanager
from itertools import groupby, zip_longest
from operator import itemgetter
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import yaml
from scipy.stats import chisquare
from tqdm.auto import tqdm

from reasonaudio_dataset.card import RECORDS, card_repo, record_files, render_card
from reasonaudio_dataset.certificate import certificate_findings
from reasonaudio_dataset.schema import (AUDIO_ROWS_PER_GROUP, MAX_SHARD_BYTES, check_data_file, data_file, mteb_columns,
                                        mteb_ids)
from reasonaudio.core.phrases import LABELS_SEPARATOR, last_phrases
from reasonaudio.core.records import caption, constraint_atoms, fingerprint
from reasonaudio.core.relations import (COUNT_APART, COUNTED, NO, OVERLAP_SECONDS, YES, Event, depth, judge_queries,
                                        mentioned, occurrences, relevant, verdict)
from reasonaudio.core.rows import AUDIO, ClipRow, QrelRow, QueryRow, Row, RowError, SourceRow
from reasonaudio.versions import BENCHMARK_VERSION, __version__

from .bank import (MAX_SEAM_DIP_DB, MAX_SILENCE_SECONDS, AtomicSound, SoundBank,
                   from_pcm16, longest_inaudible, seam_dip_db)
from .acoustics import CLEAN, MAX_RT60, Condition, ConditionError, condition_from_spec
from .layout import CARD, survey
from .clips import ClipRenderer, RenderWorkers, unchanged, worker_renderer
from .config import LIMITS, corpus_configs
from .kinds import build_kind
from .pipeline import recording_digest
from .render import RECORDING, decode_pcm16, heard_apart, heard_together
from .tasks import TASKS, possible_texts, shape_of
from .templates import DEFAULT_STYLE, STYLES
from .writer import read_stamp

BALANCE_P = 1e-3       # positions of the positive: a chi-square test this unlikely under uniformity fails
SILENT_PCM = 3         # a clip whose 16-bit peak is this low is silent
TOLERANCE_PCM = 1      # re-rendered and stored samples may differ by rounding alone
NAMED_ROWS = 3         # rows of a file named in the findings of a column wrong throughout; the rest are counted


@contextmanager
def _row_guard(findings: list[str], row: Row):
    """A row too malformed to check further (its cells well typed, their meaning not) becomes one finding naming it."""
    try:
        yield
    except (KeyError, TypeError, IndexError, ValueError, AttributeError) as error:
        findings.append(f"{row.read_from}: malformed row ({type(error).__name__}: {error})")


def _unreadable(relative: str, error: Exception) -> str:
    return f"{relative}: unreadable Parquet ({type(error).__name__}: {str(error).splitlines()[0]})"


def _read(out: Path, relative: str, columns=None) -> tuple[list[dict], list[str]]:
    try:
        rows = pq.read_table(out / relative, columns=columns).to_pylist()
    except Exception as error:  # truncated or foreign files raise several Arrow and OS errors
        return [], [_unreadable(relative, error)]
    for index, row in enumerate(rows):
        row["_at"] = f"{relative} row {index}"
    return rows, []


def _read_rows(out: Path, relative: str, row_type: type[Row], columns: list[str]) -> tuple[list[Row], list[str]]:
    """The typed rows of one file (`row_type.from_row`): a row with a missing or mistyped cell is one finding
    naming it and its column, and is left out of every further check."""
    rows, findings = _read(out, relative, columns)
    typed = []
    for row in rows:
        try:
            typed.append(row_type.from_row(row, read_from=row["_at"]))
        except RowError as error:
            findings.append(f"{row['_at']}: malformed row ({error})")
    return typed, findings


def _columns(row_type: type[Row], audio: bool = False) -> list[str]:
    """The own columns of `row_type` that validate reads (the audio only where asked: it is most of a file)."""
    return [name for name, kind in row_type.own_columns() if audio or kind != AUDIO]


RECORD_SHAPE = {"fingerprint": str, "parameters": dict, "files": list, "counts": dict, "licenses": list}
PARAMETER_SHAPE = {"candidates": int, "clip_seconds": (int, float), "sample_rate": int}


def _records(out: Path) -> tuple[dict[str, dict], list[str]]:
    records, findings = {}, []
    for split, path in record_files(out).items():
        where = f"{RECORDS}/{path.name}"
        try:
            record = json.loads(path.read_text())
        except ValueError as error:
            findings.append(f"{where}: broken JSON ({error})")
            continue
        wrong = [key for key, kind in RECORD_SHAPE.items() if not isinstance(record, dict)
                 or not isinstance(record.get(key), kind)]
        wrong += [f"parameters.{key}" for key, kind in PARAMETER_SHAPE.items()
                  if not wrong and not isinstance(record["parameters"].get(key), kind)]
        wrong += ["files"] if not wrong and not all(isinstance(f, str) for f in record["files"]) else []
        if wrong:
            findings.append(f"{where}: not a split record (missing or malformed: {', '.join(wrong)})")
            continue
        records[split] = record
    return records, findings


def _card_findings(out: Path, records: dict[str, dict]) -> list[str]:
    card = out / CARD
    if not card.is_file():
        return [f"{CARD} (the dataset card) is missing: the folder is incomplete"]
    text = card.read_text(encoding="utf-8")
    try:
        yaml.safe_load(text.split("---\n")[1]) if text.startswith("---\n") else None
    except yaml.YAMLError as error:
        return [f"{CARD}: broken YAML header ({str(error).splitlines()[0]})"]
    if not text.startswith("---\n"):
        return [f"{CARD} has no YAML header"]
    certified = certificate_findings(out, records, text)     # said first: a pasted card differs from the records too
    if certified:
        return certified
    try:
        expected = render_card(out, card_repo(out))
    except Exception as error:  # records or files too broken to describe; reported elsewhere
        return [f"{CARD}: cannot be re-derived ({type(error).__name__}: {error})"]
    if text == expected:
        return []
    lines, wanted = text.splitlines(), expected.splitlines()
    at = next((i for i, (a, b) in enumerate(zip(lines, wanted)) if a != b), min(len(lines), len(wanted)))
    found = lines[at] if at < len(lines) else "<end>"
    should = wanted[at] if at < len(wanted) else "<end>"
    return [f"{CARD} line {at + 1} differs from the card the records and files give: {found.strip()!r} "
            f"(expected {should.strip()!r})"]


def _file_findings(out: Path, record: dict) -> list[str]:
    findings = []
    for relative in record["files"]:
        try:
            check_data_file(relative, "the split's record")
        except ValueError as error:
            findings.append(str(error))
            continue
        path = out / relative
        if not path.is_file():
            findings.append(f"{relative} is missing")
            continue
        try:
            meta = pq.ParquetFile(path).metadata
            stamp = read_stamp(path) or {}
        except Exception as error:  # see _read
            findings.append(_unreadable(relative, error))
            continue
        if stamp.get("fingerprint") != record["fingerprint"]:
            findings.append(f"{relative} belongs to another corpus (fingerprint {stamp.get('fingerprint')})")
        if path.stat().st_size > MAX_SHARD_BYTES:
            findings.append(f"{relative} is {path.stat().st_size / 1e6:.0f} MB (> 500 MB)")
        if relative.startswith(("corpus", "sources/")) and meta.num_row_groups:
            big = max(meta.row_group(i).num_rows for i in range(meta.num_row_groups))
            if big > AUDIO_ROWS_PER_GROUP:
                findings.append(f"{relative} has row groups of {big} rows (> {AUDIO_ROWS_PER_GROUP})")
    return findings


def _tables(out: Path, split: str, record: dict) -> tuple[dict[str, list[Row]], list[str]]:
    recordings = build_kind(record["parameters"].get("source", "")).recordings_published
    wanted = {"queries": QueryRow, "sources": SourceRow, "corpus": ClipRow}  # qrels: streamed (`_qrels_findings`)
    tables, findings = {}, []
    for config, row_type in wanted.items():
        files = [f for f in record["files"] if f.startswith(f"{config}/")]
        rows = []
        for relative in files:
            found, problems = _read_rows(out, relative, row_type, _columns(row_type, config == "sources" and recordings))
            rows.extend(found)
            findings += problems
        tables[config] = rows
    for relative in (f for f in record["files"] if f.startswith("qrels/")):
        try:
            pq.ParquetFile(out / relative)
        except Exception as error:  # truncated or foreign files raise several Arrow and OS errors
            findings.append(_unreadable(relative, error))
    return tables, findings


def _qrels_runs(out: Path, files: list[str]):
    """(query_id, {clip_id: score}) for each run of consecutive rows of one query, in file order, read a
    batch at a time."""
    def rows():
        for relative in files:
            for batch in pq.ParquetFile(out / relative).iter_batches(columns=_columns(QrelRow)):
                yield from zip(*(batch.column(i).to_pylist() for i in range(3)))
    for query_id, run in groupby(rows(), key=itemgetter(0)):
        yield query_id, {clip_id: score for _, clip_id, score in run}


def _qrels_findings(out: Path, files: list[str], split: str, atoms_of: dict, clips: dict[str, ClipRow]) -> list[str]:
    """The published qrels against the pairs the annotations give (`judge_queries`), a query at a time while
    the file lists the queries in the order they are judged, as the writer does: a split's pairs grow as its
    queries times its corpus, so neither side is held whole. A file in any other order is compared whole."""
    def judged():
        timelines = [(clip_id, clip.events) for clip_id, clip in clips.items()]
        return ((q, {c: verdict.value for c, verdict in pairs}) for q, pairs in judge_queries(atoms_of.items(), timelines))

    def pairs(runs):
        return {((q, c), score) for q, run in runs for c, score in run.items()}

    wrong, count, compared = [], 0, set()
    try:
        for (found_query, found), (query, expected) in zip_longest(_qrels_runs(out, files), judged(), fillvalue=(None, {})):
            if found_query != query or query in compared:
                wrong = sorted(pairs(_qrels_runs(out, files)) ^ pairs(judged()))
                count = len(wrong)
                break
            compared.add(query)
            differing = sorted(pairs([(query, found)]) ^ pairs([(query, expected)]))
            count += len(differing)
            wrong = (wrong + differing)[:3]
    except Exception as error:  # truncated or foreign files raise several Arrow and OS errors
        return [_unreadable(data_file('qrels', split), error)]
    return [f"{data_file('qrels', split)}: differs from the annotations in {count} pair(s), e.g. {wrong[:3]}"] if count else []


def _mteb_id_findings(out: Path, record: dict) -> list[str]:
    """The columns MTEB's loader reads (a query's and a clip's `id`, a qrel's `query-id` and `corpus-id`) hold what
    `mteb_ids` derives from each row's own ids: MTEB scores by them alone, so one that differs has it score other
    pairs than the tables, and their fingerprint, describe. Read a batch at a time (the qrels grow as queries
    times corpus); a file's first NAMED_ROWS rows that differ are named, the others counted."""
    findings = []
    for relative in record["files"]:
        config = relative.split("/")[0]
        derived = mteb_columns(config)
        if not derived:
            continue
        own = list(dict.fromkeys(derived.values()))
        named, more, row = [], 0, 0
        try:
            for batch in pq.ParquetFile(out / relative).iter_batches(columns=[*derived, *own]):
                for values in batch.to_pylist():
                    wrong = [column for column, value in mteb_ids(config, values).items() if values[column] != value]
                    if wrong and len(named) < NAMED_ROWS:
                        named.append(f"{relative} row {row} ({'/'.join(str(values[c]) for c in own)}): " + "; ".join(
                            f"{c} {values[c]!r} is not its {derived[c]} {values[derived[c]]!r}" for c in wrong)
                            + f" (MTEB reads {', '.join(wrong)})")
                    elif wrong:
                        more += 1
                    row += 1
        except Exception as error:  # truncated or foreign files raise several Arrow and OS errors
            findings.append(_unreadable(relative, error))
            continue
        findings += named + ([f"{relative}: {more} more row(s) whose {', '.join(derived)} differ from their "
                              f"{', '.join(own)}"] if more else [])
    return findings


def _sources_findings(record: dict, sources: list[SourceRow]) -> list[str]:
    findings = []
    for source_id, n in Counter(s.source_id for s in sources).items():
        if n > 1:
            findings.append(f"sources: {source_id} is listed {n} times")
    licences = sorted({s.license for s in sources})
    credits = sorted({s.attribution for s in sources} - {""})
    for what, found, recorded in (("licences", licences, record["licenses"]),
                                  ("attributions", credits, record.get("attributions", []))):
        if found != recorded:
            findings.append(f"sources: {what} {found[:3]} differ from the record's {recorded[:3]}")
    return findings


def _shape_findings(query: QueryRow, atoms, phrases: dict[str, str], params: dict) -> list[str]:
    """The query's shape, depth, sound count and text, as its constraint gives them."""
    at, task, style = f"{query.read_from} ({query.query_id})", TASKS[query.task], params.get("text_style", DEFAULT_STYLE)
    shape = shape_of(task, atoms)
    if shape is None:
        return [f"{at}: its constraint is no query shape of task {query.task!r}"]
    wrong = query.differences(query.derived(shape=shape.reported_as, depth=depth(atoms), num_sounds=len(mentioned(atoms))))
    if wrong:
        return [f"{at}: " + "; ".join(wrong)]
    if style not in STYLES:
        return [f"{at}: text style {style!r} is not one this toolkit has ({', '.join(STYLES)})"]
    if query.text not in possible_texts(task, atoms, phrases, style):
        return [f"{at}: text {query.text!r} is not what its constraint renders to"]
    return []


def _query_findings(params: dict, queries: list[QueryRow], clips: dict[str, ClipRow], phrases: dict[str, str]):
    """Every query's constraint, group and text; returns (findings, atoms by query, owner of each clip)."""
    findings, atoms_of, owner, positions = [], {}, {}, Counter()
    for query in queries:
        with _row_guard(findings, query):
            at, qid = query.read_from, query.query_id
            try:
                atoms = constraint_atoms(query.constraint)
            except (ValueError, KeyError, TypeError) as error:
                findings.append(f"{at} ({qid}): broken constraint ({error})")
                continue
            group = query.candidates
            for clip_id in group:
                if clip_id in owner:
                    findings.append(f"{at} ({qid}): clip {clip_id} is also a candidate of {owner[clip_id]}")
                owner[clip_id] = qid
            if len(group) != params["candidates"] or len(set(group)) != len(group):
                findings.append(f"{at} ({qid}): {len(set(group))} distinct candidates, expected {params['candidates']}")
            unknown = [c for c in group if c not in clips]
            if unknown:
                findings.append(f"{at} ({qid}): candidates not in the corpus: {unknown[:3]}")
                continue
            if query.positive not in group:
                findings.append(f"{at} ({qid}): its positive is not among its candidates")
                continue
            atoms_of[qid] = atoms
            positions[group.index(query.positive)] += 1
            if not set(query.hard_negatives) <= set(group) - {query.positive}:
                findings.append(f"{at} ({qid}): hard negatives must be candidates other than the positive")
            if query.task not in TASKS:
                findings.append(f"{at} ({qid}): unknown task {query.task!r}")
            else:
                findings += _shape_findings(query, atoms, phrases, params)
            for clip_id in group:
                wanted = YES if clip_id == query.positive else NO
                found = relevant(atoms, clips[clip_id].events)
                if found is not wanted:
                    findings.append(f"{at} ({qid}): candidate {clip_id} is {found.name}, should be {wanted.name}")
            for clip_id in set(query.hard_negatives) & set(clips):
                by_label = occurrences(clips[clip_id].events)
                failed = sum(verdict(atom, by_label) is NO for atom in atoms)
                if failed != 1:
                    findings.append(f"{at} ({qid}): hard negative {clip_id} fails {failed} atoms, not exactly one")
    observed = [positions[i] for i in range(params["candidates"])]
    if len(queries) >= 5 * params["candidates"] and chisquare(observed).pvalue < BALANCE_P:
        findings.append(f"queries: positives are not spread uniformly over candidate positions: {observed}")
    return findings, atoms_of, owner


def _clip_findings(params: dict, corpus: list[ClipRow], owner: dict, tasks: dict, phrases: dict,
                   sounds: dict[str, SourceRow]) -> list[str]:
    """Each clip against the clip re-derived from its query, its events and the split's parameters (its query,
    task, duration and caption), and its events against the sounds they name."""
    findings = []
    for clip in corpus:
        with _row_guard(findings, clip):
            at, cid = clip.read_from, clip.clip_id
            if cid not in owner:
                findings.append(f"{at} ({cid}): no query lists this clip")
            group = {"query_id": owner[cid], "task": tasks.get(owner[cid])} if cid in owner else {}
            expected = clip.derived(duration=float(np.float32(params["clip_seconds"])),
                                    caption=caption(clip.events, phrases), **group)
            wrong = clip.differences(expected)
            if wrong:
                findings.append(f"{at} ({cid}): " + "; ".join(wrong))
            for event in clip.events:
                findings += [f"{at} ({cid}): {problem}" for problem in _event_problems(event, sounds.get(event.source_id),
                                                                                      params["clip_seconds"])]
    return findings


def _event_problems(event: Event, sound: SourceRow | None, clip_seconds: float) -> list[str]:
    """What an event says that its sound (None: missing from sources) or its clip's length does not allow."""
    problems, kind = [], sound.kind if sound else None
    if kind == "discrete" and event.seconds > sound.duration + 1e-3:
        problems.append(f"discrete sound {event.source_id} lasts {sound.duration:.3f} s but its event "
                        f"{event.seconds:.3f} s: a discrete sound never loops")
    if kind == RECORDING and event.label not in sound.label.split(LABELS_SEPARATOR):
        problems.append(f"recording {event.source_id} holds no {event.label!r} in sources")
    elif kind != RECORDING and (sound.label if sound else None) != event.label:
        problems.append(f"event source {event.source_id} is not a sound of class {event.label!r} in sources")
    if not 0 <= event.onset < event.offset <= clip_seconds:
        problems.append(f"event {event.label} at {event.onset}-{event.offset} s lies outside the clip")
    return problems


def _repeating_clips(queries: list[QueryRow]) -> set[str]:
    """The candidates of queries whose task plays a sound more than once (`Task.repeats`: a count's occurrences);
    a planned clip of any other task holds each class once."""
    return {clip_id for query in queries if query.task in TASKS and TASKS[query.task].repeats
            for clip_id in query.candidates}


def _split_findings(out: Path, split: str, record: dict, quick: bool, workers: int, progress: bool) -> list[str]:
    findings = _file_findings(out, record)
    tables, unreadable = _tables(out, split, record)
    findings += unreadable
    if unreadable:
        return findings
    findings += _mteb_id_findings(out, record)
    queries, corpus, sources = (tables[c] for c in ("queries", "corpus", "sources"))
    params, counts = record["parameters"], record["counts"]
    if len(queries) != counts["queries"] or len(corpus) != counts["clips"] or len(sources) != counts["atomic_sounds"]:
        findings.append(f"{len(queries)} queries, {len(corpus)} clips and {len(sources)} sounds; the record says "
                        f"{counts['queries']}, {counts['clips']} and {counts['atomic_sounds']}")
    if Counter(q.task for q in queries) != Counter(counts["queries_per_task"]):
        findings.append(f"queries per task {dict(Counter(q.task for q in queries))} differ from "
                        f"{counts['queries_per_task']}")
    shapes = Counter((q.task, q.shape, q.depth) for q in queries)
    recorded = Counter({(c["task"], c["shape"], c["depth"]): c["queries"] for c in counts.get("shapes", [])})
    if shapes != recorded:
        findings.append(f"queries per task, shape and depth differ from the record's: {sorted(shapes.items())[:3]} ...")
    findings += _sources_findings(record, sources)
    kind = build_kind(params["source"])
    phrases = last_phrases((s.label, s.phrase) for s in sources)
    clips, repeating = {}, _repeating_clips(queries)
    for clip in corpus:
        try:
            twice = [label for label, found in occurrences(clip.events).items() if len(found) > 1]
            if twice and kind.one_occurrence_per_class and clip.clip_id not in repeating:
                raise ValueError(f"class {twice[0]!r} occurs twice in one clip")
        except (TypeError, ValueError) as error:
            findings.append(f"{clip.read_from} ({clip.clip_id}): broken events ({error})")
            continue
        clips[clip.clip_id] = clip
    problems, atoms_of, owner = _query_findings(params, queries, clips, phrases)
    findings += problems
    findings += _clip_findings(params, [c for c in corpus if c.clip_id in clips], owner,
                               {q.query_id: q.task for q in queries}, phrases, {s.source_id: s for s in sources})
    findings += _qrels_findings(out, [f for f in record["files"] if f.startswith("qrels/")], split, atoms_of, clips)
    try:
        contents = [recording_digest(decode_pcm16(s.audio["bytes"])[0]) for s in sources] if kind.recordings_published else None
        recomputed = fingerprint(params, sources, queries, {cid: c.events for cid, c in clips.items()}, contents)
    except (KeyError, TypeError, RuntimeError):
        recomputed = None   # a candidate without a clip, a malformed row, undecodable audio: reported elsewhere
    if recomputed != record["fingerprint"]:
        findings.append(f"the tables give fingerprint {recomputed}, their files are stamped {record['fingerprint']}: "
                        "rows were edited, added or dropped after generation")
    conditions, problems = _conditions(record)
    findings += problems
    if conditions:
        findings += _acoustics_findings(out, record, conditions, corpus)
    if not quick:
        positives = {q.query_id: clips[q.positive].events for q in queries if q.positive in clips}
        members = {q.query_id: tuple(clips[cid].events for cid in q.candidates if cid in clips) for q in queries}
        findings += _audio_findings(out, record, params, workers, progress,
                                    {qid: (atoms, positives[qid]) for qid, atoms in atoms_of.items()},
                                    (conditions or {}, members))
    return findings


# Acoustic conditions: re-checked from the specs the record holds, then every clip's parameters.
def _conditions(record: dict) -> tuple[dict[str, Condition], list[str]]:
    """The condition of each corpus config, each spec checked again against the rules (a spec edited in the
    record to hold a refused transform is a finding), and the configs laid out as generate lays them out."""
    specs = record["parameters"].get("acoustics", [{"name": CLEAN, "transforms": []}])
    conditions, findings = [], []
    for index, spec in enumerate(specs if isinstance(specs, list) else [specs]):
        try:
            conditions.append(condition_from_spec(spec, f"record parameters.acoustics[{index}]"))
        except ConditionError as error:
            findings.append(str(error))
    if findings:
        return {}, findings
    expected = corpus_configs(conditions)
    recorded = record.get("acoustics", {"corpus": CLEAN})
    if {config: c.name for config, c in expected.items()} != recorded:
        return {}, [f"the record lays the conditions out as {recorded}, generate would as "
                    f"{ {config: c.name for config, c in expected.items()} }"]
    missing = [config for config in expected if not any(f.startswith(f"{config}/") for f in record["files"])]
    return expected, [f"the record declares no file of config {config}" for config in missing]


def _room_findings(at: str, steps: list) -> list[str]:
    rooms = [s for s in steps if isinstance(s, dict) and s.get("transform") == "RoomSimulator"]
    return [f"{at}: a room with RT60 {max(s.get('target_rt60', 0), s.get('rt60', 0)):.2f} s (> {MAX_RT60} s: a tail "
            "that long carries a sound past the 0.5 s margins)"
            for s in rooms if max(s.get("target_rt60", 0), s.get("rt60", 0)) > MAX_RT60]


def _acoustics_findings(out: Path, record: dict, conditions: dict[str, Condition], corpus: list[ClipRow]) -> list[str]:
    """Each corpus config holds the main corpus's clips (the same rows, in order, but for the acoustics) and, per
    clip, its condition's parameters: one draw per candidate group, rooms within the RT60 bound."""
    findings = []
    for config, condition in conditions.items():
        rows = corpus if config == "corpus" else []
        for relative in (f for f in record["files"] if f.startswith(f"{config}/") and config != "corpus"):
            found, problems = _read_rows(out, relative, ClipRow, _columns(ClipRow))
            rows.extend(found)
            findings += problems
        if [row.derived(acoustics="") for row in rows] != [clip.derived(acoustics="") for clip in corpus]:
            findings.append(f"{config}: its clips, events or captions differ from corpus's (a condition changes audio only)")
        drawn = {}
        for row in rows:
            at = f"{row.read_from} ({row.clip_id})"
            if condition.clean:
                if row.acoustics != unchanged(condition):
                    findings.append(f"{at}: acoustics {row.acoustics[:80]!r} on a clip left as mixed")
                continue
            try:
                parameters = json.loads(row.acoustics)
                name, steps = parameters["condition"], parameters["transforms"]
            except (ValueError, TypeError, KeyError) as error:
                findings.append(f"{at}: acoustics is not a condition's parameters ({error})")
                continue
            if name != condition.name:
                findings.append(f"{at}: acoustics names condition {name!r}, its config holds {condition.name!r}")
            if drawn.setdefault(row.query_id, row.acoustics) != row.acoustics:
                findings.append(f"{at}: acoustics differ from another clip of its group {row.query_id}: every "
                                "version of a minimal pair must get the same draw")
            findings += _room_findings(at, steps)
    return findings


# Audio: every clip decoded and compared with its re-rendering (`ClipRenderer`, as generate rendered it), a row
# group per job.
def _load_bank(out: Path, record: dict, rate: int) -> tuple[SoundBank | None, list[str]]:
    sounds, findings = [], []
    for relative in (f for f in record["files"] if f.startswith("sources/")):
        rows, problems = _read_rows(out, relative, SourceRow, _columns(SourceRow, audio=True))
        findings += problems
        for row in rows:
            at = f"{row.read_from} ({row.source_id})"
            try:
                pcm, found_rate = decode_pcm16(row.audio["bytes"])
            except Exception as error:  # libsndfile raises on junk bytes
                findings.append(f"{at}: audio does not decode ({error})")
                continue
            if found_rate != rate:
                findings.append(f"{at}: audio at {found_rate} Hz, the corpus is {rate} Hz")
            sound = AtomicSound(row.source_id, row.label, row.phrase, row.kind, row.origin, row.license,
                                from_pcm16(pcm), rate, row.attribution, row.loop)
            start, end, overlap = sound.loop
            if sound.kind == "continuous" and not 0 <= start < end - overlap <= end <= len(pcm):
                findings.append(f"{at}: loop points {list(sound.loop)} lie outside its "
                                f"{len(pcm)} samples")
                continue
            if sound.kind == RECORDING:      # a natural recording, published as recorded
                sounds.append(sound)
                continue
            if longest_inaudible(sound.samples, rate) >= MAX_SILENCE_SECONDS:
                findings.append(f"{at}: holds {longest_inaudible(sound.samples, rate):.2f} s "
                                f"that cannot be heard (>= {MAX_SILENCE_SECONDS} s): annotated time must be audible")
            dip = seam_dip_db(sound.samples, *sound.loop, rate) if sound.kind == "continuous" else 0.0
            if dip >= MAX_SEAM_DIP_DB:
                findings.append(f"{at}: its loop seam dips {dip:.1f} dB "
                                f"(>= {MAX_SEAM_DIP_DB} dB)")
            sounds.append(sound)
    return (None if findings else SoundBank(tuple(sounds), rate)), findings


def _row_group_findings(job: tuple[str, int, str]) -> list[str]:
    """What differs between one row group's clips (job: the file, the row group, its corpus config) and their
    rendering from their events and the published sounds."""
    path, group, config = job
    renderer = worker_renderer()
    transformed = renderer.transformed(config)
    columns = ["clip_id", "audio", "events", "query_id"] + (["acoustics"] if transformed else [])
    table = pq.ParquetFile(path).read_row_group(group, columns=columns)
    relative = "/".join(Path(path).parts[-2:])
    findings, rate_expected = [], renderer.sample_rate
    expected_length = int(round(renderer.clip_seconds * rate_expected))
    for index, row in enumerate(table.to_pylist()):
        clip_id, audio, events = row["clip_id"], row["audio"], row["events"]
        at = f"{relative} row {group * AUDIO_ROWS_PER_GROUP + index} ({clip_id})"
        try:
            stored, rate = decode_pcm16(audio["bytes"])
        except Exception as error:  # see _load_bank
            findings.append(f"{at}: audio does not decode ({error})")
            continue
        if rate != rate_expected or stored.ndim != 1 or len(stored) != expected_length:
            findings.append(f"{at}: audio is {stored.shape} samples at {rate} Hz, expected {expected_length} mono "
                            f"samples at {rate_expected} Hz")
            continue
        if np.abs(stored).max() <= SILENT_PCM:
            findings.append(f"{at}: audio is silent")
            continue
        if transformed and row["query_id"] not in renderer.groups:
            findings.append(f"{at}: its query {row['query_id']!r} is not in queries")
            continue
        try:
            rendered, acoustics = renderer.render(tuple(Event(**e) for e in events), row["query_id"], config)
        except KeyError as error:
            findings.append(f"{at}: an event names a sound missing from sources ({error})")
            continue
        except ValueError as error:    # a sound the condition leaves inaudible, a room out of bounds
            findings.append(f"{at}: its group's draw cannot be re-derived: {error}")
            continue
        if transformed and json.loads(row["acoustics"]) != json.loads(acoustics):
            findings.append(f"{at}: its acoustics are not the draw its group's seed gives")
        rendered *= np.float32(32767)           # the scale of the stored samples: rounding differs by <= 0.5
        np.clip(rendered, -32767, 32767, out=rendered)
        rendered -= stored
        wrong = np.abs(rendered, out=rendered) > TOLERANCE_PCM + 0.5
        if wrong.any():
            seconds = np.flatnonzero(wrong)[[0, -1]] / rate
            findings.append(f"{at}: audio differs from the rendering of its events and sources between "
                            f"{seconds[0]:.2f} and {seconds[1]:.2f} s (swapped, edited or shifted)")
    return findings


def _heard_findings(bank: SoundBank, positives: dict) -> list[str]:
    """What each positive's text states is what a listener hears (`_unheard_overlaps`, `_uncounted_pauses`)."""
    findings = []
    for query_id, (atoms, events) in positives.items():
        try:
            findings += [f"{query_id}: in its positive, {problem}" for check in (_unheard_overlaps, _uncounted_pauses)
                         for problem in check(bank, atoms, events)]
        except KeyError as error:       # an event names a sound missing from sources: reported per clip
            findings.append(f"{query_id}: its positive names a sound missing from sources ({error})")
    return findings


def _unheard_overlaps(bank: SoundBank, atoms, events) -> list[str]:
    """Every overlap stated is heard: both sounds audible together, at levels within LEVEL_GAP_DB of each other,
    for the margin at a stretch (`render.heard_together`)."""
    by_label, problems = {e.label: e for e in events}, []
    for atom in atoms:
        if atom.relation == "overlap" and all(label in by_label for label in atom.args):
            together = heard_together(bank, *(by_label[label] for label in atom.args))
            if together < OVERLAP_SECONDS:
                problems.append(f"{' and '.join(atom.args)} are heard together for {together:.2f} s at most at a "
                                f"stretch (< {OVERLAP_SECONDS} s)")
    return problems


def _uncounted_pauses(bank: SoundBank, atoms, events) -> list[str]:
    """Every occurrence counted is heard apart from the next: the sound inaudible for at least COUNT_APART
    between them (`render.heard_apart`)."""
    by_label = occurrences(events)
    counted = sorted({label for atom in atoms if atom.relation in COUNTED for label in atom.labels})
    pauses = {label: heard_apart(bank, by_label.get(label, ())) for label in counted}
    return [f"two occurrences of {label} are heard {pause:.2f} s apart (< {COUNT_APART} s): they may be heard as one"
            for label, pause in pauses.items() if pause < COUNT_APART]


def _audio_findings(out: Path, record: dict, params: dict, workers: int, progress: bool, positives: dict,
                    groups: tuple) -> list[str]:
    bank, findings = _load_bank(out, record, params["sample_rate"])
    if bank is None:
        return findings
    if build_kind(params["source"]).own_annotations:
        findings += _heard_findings(bank, positives)
    configs = groups[0] or {"corpus": None}
    jobs, clips = [], []     # a job per row group, and its clips (a file's last group is short)
    for relative in (f for f in record["files"] if f.split("/")[0] in configs):
        metadata = pq.ParquetFile(out / relative).metadata
        for group in range(metadata.num_row_groups):
            jobs.append((str(out / relative), group, relative.split("/")[0]))
            clips.append(metadata.row_group(group).num_rows)
    renderer = ClipRenderer(bank, params["clip_seconds"], params["seed"], params["split"], configs, groups[1])
    bar = tqdm(total=sum(clips), desc=f"checking audio ({record['parameters']['split']})", unit="clip",
               disable=not progress)
    with RenderWorkers(renderer, workers) as running:
        for found, count in zip(running.map(_row_group_findings, jobs), clips):
            findings += found
            bar.update(count)
    bar.close()
    return findings


def validate(out: str | Path, quick: bool = False, workers: int = 1, progress: bool = False) -> list[str]:
    """Re-derive a built folder from its own files and list what does not hold.

    Args:
        out: the build's folder.
        quick: skip decoding the audio.
        workers: processes that decode the audio; progress: show a progress bar.

    Returns:
        Every finding, as readable lines naming file and row; an empty list means the folder is valid.
    """
    if not 1 <= workers <= LIMITS["workers"][1]:
        raise ValueError(f"--workers must be from 1 to {LIMITS['workers'][1]}, got {workers}")
    out = Path(out)
    if not out.is_dir():
        return [f"{out} is not a folder"]
    records, findings = _records(out)
    if not records:
        pending = sorted(p.name for p in (out / RECORDS).glob("*.plan.json"))
        return findings or [f"{out} holds no finished split" + (f" (unfinished: {pending})" if pending else "")]
    other_versions = [f"[{split}] made at benchmark version {record['benchmark_version']}; reasonaudio "
                      f"{__version__} builds and checks version {BENCHMARK_VERSION}: validate it with the release "
                      "that made it, or build it again" for split, record in records.items()
                      if record.get("benchmark_version", BENCHMARK_VERSION) != BENCHMARK_VERSION]
    if other_versions:                      # its texts, plans and card are another version's: nothing else applies
        return findings + other_versions
    findings += _card_findings(out, records)
    findings += [f"{stray}: a data file that no record declares (the card's patterns would load it)"
                 for stray in survey(out)[1]]
    findings += [f"{p.relative_to(out)}: a .py file (datasets refuses folders with loading scripts)"
                 for p in out.rglob("*.py")]
    for split, record in records.items():
        try:
            problems = _split_findings(out, split, record, quick, workers, progress)
        except Exception as error:  # a tampered folder can break any assumption: a finding, never a traceback
            problems = [f"cannot be checked further: {type(error).__name__}: {error} (the tables are malformed)"]
        findings += [f"[{split}] {p}" for p in problems]
    return _once(findings + _leak_findings(out, records))


def _once(findings: list[str]) -> list[str]:
    """Each finding once: a damaged file is found by two checks (its footer, its table), in other words."""
    seen, kept = set(), []
    for finding in findings:
        key = finding.split(" (")[0] if "unreadable Parquet" in finding else finding
        if key not in seen:
            seen.add(key)
            kept.append(finding)
    return kept


def _leak_findings(out: Path, records: dict[str, dict]) -> list[str]:
    """No two splits share a query text or a recording: what generate guarantees for splits made one after
    another into one folder (each avoids the texts of every split already there, in any order; each draws
    on its own recordings of the source)."""
    texts, origins = defaultdict(set), defaultdict(set)
    for split, record in records.items():
        for relative in record["files"]:
            if relative.startswith("queries/"):
                texts[split] |= {r["text"] for r in _read(out, relative, ["text"])[0]}
            elif relative.startswith("sources/"):
                origins[split] |= {r["origin"] for r in _read(out, relative, ["origin"])[0]}
    findings, splits = [], sorted(records)
    for i, first in enumerate(splits):
        for second in splits[i + 1:]:
            for what, seen in (("query text", texts), ("recording", origins)):
                shared = seen[first] & seen[second]
                if shared:
                    findings.append(f"splits {first} and {second} share {len(shared)} {what}(s), e.g. {sorted(shared)[:2]}")
    return findings
