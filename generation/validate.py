"""`reasonaudio validate DIR`: re-check every invariant of a generated folder from its files alone."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import yaml
from scipy.stats import chisquare

from reasonaudio_dataset.card import RECORDS, load_records
from reasonaudio_dataset.schema import AUDIO_ROWS_PER_GROUP, CONFIGS, FEATURES, MAX_SHARD_BYTES, data_pattern

from .writer import read_stamp
from .relations import NO, YES, Atom, Event, judge_corpus, relevant

BALANCE_P = 1e-3   # positions of the positive: a chi-square test this unlikely under uniformity fails


def _read(out: Path, config: str, split: str, columns=None):
    files = sorted(out.glob(data_pattern(config, split)))
    if not files:
        raise FileNotFoundError(f"no {config} files for split {split}")
    return [row for f in files for row in pq.read_table(f, columns=columns).to_pylist()]


def _card_problems(out: Path, records: dict) -> list[str]:
    readme = out / "README.md"
    if not readme.is_file():
        return ["README.md (the dataset card) is missing: the folder is incomplete"]
    text = readme.read_text()
    if not text.startswith("---\n"):
        return ["README.md has no YAML header"]
    meta = yaml.safe_load(text.split("---\n")[1])
    problems = []
    configs = {c["config_name"]: c for c in meta.get("configs", [])}
    if set(configs) != set(CONFIGS):
        problems.append(f"card declares configs {sorted(configs)}, expected {sorted(CONFIGS)}")
    for name, config in configs.items():
        splits = {f["split"]: f["path"] for f in config.get("data_files", [])}
        if set(splits) != set(records):
            problems.append(f"config {name}: card lists splits {sorted(splits)}, finished splits are {sorted(records)}")
        for split, pattern in splits.items():
            if not list(out.glob(pattern)):
                problems.append(f"config {name}, split {split}: no file matches {pattern}")
    infos = {i.get("config_name"): i for i in meta.get("dataset_info", [])}
    for name in CONFIGS:
        declared = [f["name"] for f in infos.get(name, {}).get("features", [])]
        if declared != list(FEATURES[name]):
            problems.append(f"card features of {name} {declared} differ from the schema {list(FEATURES[name])}")
    if any(out.rglob("*.py")):
        problems.append("the folder holds .py files: datasets refuses folders with loading scripts")
    return problems


def _file_problems(out: Path, split: str, record: dict) -> list[str]:
    problems = []
    for relative in record["files"]:
        path = out / relative
        if not path.is_file():
            problems.append(f"{relative} is missing")
            continue
        meta = pq.ParquetFile(path).metadata
        stamp = read_stamp(path) or {}
        if stamp.get("fingerprint") != record["fingerprint"]:
            problems.append(f"{relative} belongs to another corpus (fingerprint {stamp.get('fingerprint')})")
        if not relative.startswith("corpus/"):
            continue
        if path.stat().st_size > MAX_SHARD_BYTES:
            problems.append(f"{relative} is {path.stat().st_size / 1e6:.0f} MB (> 500 MB)")
        big = max(meta.row_group(i).num_rows for i in range(meta.num_row_groups))
        if big > AUDIO_ROWS_PER_GROUP:
            problems.append(f"{relative} has row groups of {big} rows (> {AUDIO_ROWS_PER_GROUP})")
    return problems


def _split_problems(out: Path, split: str, record: dict) -> list[str]:
    problems = _file_problems(out, split, record)
    if problems:
        return problems
    queries = _read(out, "queries", split)
    clips = {row["clip_id"]: row for row in _read(out, "corpus", split, ["clip_id", "task", "query_id", "events"])}
    qrels = {(r["query_id"], r["clip_id"]): r["score"] for r in _read(out, "qrels", split)}
    params, counts = record["parameters"], record["counts"]
    if len(queries) != counts["queries"] or len(clips) != counts["clips"]:
        problems.append(f"{len(queries)} queries and {len(clips)} clips, the record says {counts['queries']} and {counts['clips']}")
    per_task = Counter(q["task"] for q in queries)
    if per_task != Counter(counts["queries_per_task"]):
        problems.append(f"queries per task {dict(per_task)} differ from {counts['queries_per_task']}")
    events = {cid: tuple(Event(**e) for e in row["events"]) for cid, row in clips.items()}
    positions = Counter()
    atoms_of = {}
    for query in queries:
        atoms = atoms_of[query["query_id"]] = [Atom.from_dict(a) for a in json.loads(query["constraint"])["all"]]
        group = query["candidates"]
        if len(group) != params["candidates"] or len(set(group)) != len(group):
            problems.append(f"{query['query_id']}: {len(set(group))} distinct candidates, expected {params['candidates']}")
        unknown = [c for c in group if c not in clips]
        if unknown:
            problems.append(f"{query['query_id']}: candidates not in the corpus: {unknown[:3]}")
            continue
        if query["positive"] not in group:
            problems.append(f"{query['query_id']}: its positive is not among its candidates")
            continue
        positions[group.index(query["positive"])] += 1
        if not set(query["hard_negatives"]) <= set(group) - {query["positive"]}:
            problems.append(f"{query['query_id']}: hard negatives must be candidates other than the positive")
        for clip_id in group:
            verdict = relevant(atoms, events[clip_id])
            wanted = YES if clip_id == query["positive"] else NO
            if verdict is not wanted:
                problems.append(f"{query['query_id']}: candidate {clip_id} is {verdict.name}, should be {wanted.name}")
    expected_qrels = {pair: verdict.value for pair, verdict in judge_corpus(atoms_of.items(), list(events.items())).items()}
    if qrels != expected_qrels:
        wrong = sorted(set(qrels.items()) ^ set(expected_qrels.items()))
        problems.append(f"qrels differ from the annotations in {len(wrong)} pair(s), e.g. {wrong[:3]}")
    observed = [positions[i] for i in range(params["candidates"])]
    if len(queries) >= 5 * params["candidates"] and chisquare(observed).pvalue < BALANCE_P:
        problems.append(f"positives are not spread uniformly over candidate positions: {observed}")
    return problems


def validate(out: str | Path) -> list[str]:
    """Every problem found, as readable lines; an empty list means the folder is valid."""
    out = Path(out)
    if not out.is_dir():
        return [f"{out} is not a folder"]
    records = load_records(out)
    if not records:
        pending = sorted(p.name for p in (out / RECORDS).glob("*.plan.json"))
        return [f"{out} holds no finished split" + (f" (unfinished: {pending})" if pending else "")]
    problems = _card_problems(out, records)
    for split, record in records.items():
        problems += [f"[{split}] {p}" for p in _split_problems(out, split, record)]
    return problems + _leak_problems(out, sorted(records))


def _leak_problems(out: Path, splits: list[str]) -> list[str]:
    """Splits must share no query text and no recording."""
    problems = []
    texts = {s: set(r["text"] for r in _read(out, "queries", s, ["text"])) for s in splits}
    origins = {s: set(r["origin"] for r in _read(out, "sources", s, ["origin"])) for s in splits}
    for i, first in enumerate(splits):
        for second in splits[i + 1:]:
            for what, seen in (("query text", texts), ("recording", origins)):
                shared = seen[first] & seen[second]
                if shared:
                    problems.append(f"splits {first} and {second} share {len(shared)} {what}(s), e.g. {sorted(shared)[:2]}")
    return problems
