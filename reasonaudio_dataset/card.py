"""The dataset card: YAML (configs, features, splits, licence) that makes the folder loadable and
viewable with no extra arguments, then prose with the real figures of each split."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
from datasets.info import DatasetInfo, DatasetInfosDict
from datasets.splits import SplitDict, SplitInfo
from huggingface_hub import DatasetCard, DatasetCardData

from reasonaudio.core.relations import WHY_NATURAL_BUILDS_DO_NOT_COUNT
from reasonaudio.core.rows import ROWS

from .schema import CONFIGS, data_pattern, features
from .folders import record_files
from .certificate import certificate_section, read_certificate
from .splits import RECORDS

TEMPLATE = Path(__file__).with_name("card_template.md")
CARD_RECORD = "card.json"     # the hash of the card last written, and the repository it names
# As MTEB writes the card of a t2a Any2AnyRetrieval task (tested), and as its own audio retrieval datasets on
# the Hub declare (mteb/audiocaps_t2a, mteb/SoundDescsA2TRetrieval): the Hub has no audio retrieval category.
TASK_CATEGORIES = ["other", "text-to-audio"]
DEFAULT_CONFIG = "queries"    # what load_dataset(DIR) with no config and the viewer's first tab show
LICENSE_IDS = {"CC0-1.0": "cc0-1.0", "CC-BY-NC-3.0": "cc-by-nc-3.0", "CC-BY-4.0": "cc-by-4.0"}


def load_records(out: Path) -> dict[str, dict]:
    """The finished splits of a folder, by split name."""
    return {split: json.loads(path.read_text()) for split, path in record_files(out).items()}


def hub_license(licenses: list[str]) -> str:
    ids = {LICENSE_IDS.get(text.split()[0], "other") if text else "unknown" for text in licenses}
    return ids.pop() if len(ids) == 1 else "other"


def _arrow_nbytes(files: list[Path], config: str) -> int:
    """The bytes `push_to_hub` records for a split: `Dataset._estimate_nbytes()` of the table as datasets
    holds it (Arrow IPC, as its cache writes it: a plain Parquet read also keeps the validity bitmaps of
    columns without nulls, which IPC drops). The audio columns, nearly all of the bytes and the same in
    either read, are counted as read; only the rest goes through IPC. One row group in memory at a time:
    Arrow sizes add up over row groups and files (each is a chunk either way). `_estimate_nbytes`'s
    correction for the audio column is measured on the first 1,000 rows and scaled to all, as it does; it
    reads only each cell's path and whether it holds bytes, so those rows are kept with their bytes
    emptied (a thousand clips would otherwise stay in memory)."""
    import pyarrow as pa
    from datasets import Audio, Dataset

    info, total, rows, head = DatasetInfo(features=features(config)), 0, 0, []
    schema = info.features.arrow_schema
    audio = [name for name, feature in info.features.items() if isinstance(feature, Audio)]
    for path in files:
        parquet = pq.ParquetFile(path)
        for group in range(parquet.metadata.num_row_groups):
            table = parquet.read_row_group(group).cast(schema)
            rest, sink = table.drop_columns(audio), pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, rest.schema) as writer:
                writer.write_table(rest)
            total += pa.ipc.open_stream(sink.getvalue()).read_all().nbytes + sum(table[name].nbytes for name in audio)
            rows += len(table)
            if sum(map(len, head)) < 1000:
                head.append(_without_audio_bytes(table.slice(0, 1000 - sum(map(len, head))), audio))
    if not rows:
        return 0
    head = pa.concat_tables(head)
    correction = Dataset(head, info=info, fingerprint="size-estimate")._estimate_nbytes() - head.nbytes
    return total + correction * rows // len(head)


def _without_audio_bytes(table, audio: list[str]):
    """`table` with each audio cell's bytes empty (b"" where it held bytes, null where it held none)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def emptied(chunk: pa.StructArray) -> pa.StructArray:     # each chunk's own path child, as read
        held = pc.is_valid(chunk.field("bytes"))
        cells = pc.if_else(held, pa.scalar(b"", pa.binary()), pa.scalar(None, pa.binary()))
        return pa.StructArray.from_arrays([cells, chunk.field("path")], fields=list(chunk.type),
                                          mask=pc.invert(chunk.is_valid()))

    for name in audio:
        column = pa.chunked_array([emptied(chunk) for chunk in table[name].chunks], table[name].type)
        table = table.set_column(table.schema.get_field_index(name), table.schema.field(name), column)
    return table


def _config_info(out: Path, config: str, splits) -> DatasetInfo:
    """A config's `dataset_info` as `push_to_hub` computes it: per split the rows and the in-memory bytes;
    download_size the Parquet files' bytes, dataset_size the splits' bytes, size_in_bytes both."""
    infos, download = SplitDict(), 0
    for split in splits:
        files = sorted(out.glob(data_pattern(config, split)))
        download += sum(f.stat().st_size for f in files)
        infos.add(SplitInfo(name=split, num_bytes=_arrow_nbytes(files, config),
                            num_examples=sum(pq.ParquetFile(f).metadata.num_rows for f in files)))
    size = sum(info.num_bytes for info in infos.values())
    return DatasetInfo(config_name=config, features=features(config), splits=infos, download_size=download,
                       dataset_size=size, size_in_bytes=download + size)


HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?")     # NAME or ORG/NAME: a path has more
PUBLIC_NAMES = {"esc50": "<ESC-50 folder>", "fsd50k": "<FSD50K folder>", "hf": "<local dataset>",
                "folder": "<local folder>", "csv": "<local manifest>"}
ABSOLUTE_PATH = re.compile(r"(?<![\w.~-])(?:[A-Za-z]:[\\/]|~[\\/]|/)(?:[^\s'\"\\/]+[\\/])+([^\s'\"\\/]+)")


def _hub_id(kind: str, location: str) -> str | None:
    return location if kind == "hf" and HUB_ID.fullmatch(location) else None


def public_source(source: str) -> str:
    """A --source as the card shows it: its kind, the repository of a Hub dataset, the public name of what
    else it reads and its options; never a local path (`esc50:/home/me/ESC-50?as_split=train` reads
    `esc50:<ESC-50 folder>?as_split=train`)."""
    kind, _, rest = source.partition(":")
    location, mark, options = rest.partition("?")
    if kind != "synthetic":
        location = _hub_id(kind, location) or PUBLIC_NAMES.get(kind, "<local source>")
    return f"{kind}:{location}{mark}{options}"


def without_paths(text: str) -> str:
    """`text` with each absolute path cut to its file name (a skipped file's message names where it lay)."""
    return ABSOLUTE_PATH.sub(r"\1", text)


def source_dataset(source: str) -> str:
    """The Hub's source_datasets value of a --source: `original` for the built-in synthetic bank, else
    `extended|<what it draws on>` (esc50, fsd50k, a Hub repository, or the user's own files)."""
    kind, _, rest = source.partition(":")
    if kind == "synthetic":
        return "original"
    public = kind if kind in ("esc50", "fsd50k") else _hub_id(kind, rest.partition("?")[0])
    return f"extended|{public or 'other'}"


def _size_category(clips: int) -> str:
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")]
    return next((name for bound, name in bounds if clips < bound), "1M<n<10M")


def folder_configs(records: dict[str, dict]) -> dict[str, list[str]]:
    """Each config of the folder with the splits that hold it: the four tables, and the `corpus_<condition>`
    configs of robustness builds."""
    configs = {config: list(records) for config in CONFIGS}
    for split, record in records.items():
        for config in record.get("acoustics", {}):
            if config not in CONFIGS:
                configs.setdefault(config, []).append(split)
    return configs


def card_data(out: Path, records: dict[str, dict]) -> DatasetCardData:
    licenses = sorted({text for record in records.values() for text in record["licenses"]})
    clips = sum(record["counts"]["clips"] for record in records.values())
    configs = folder_configs(records)
    data = DatasetCardData(
        benchmark_version=benchmark_version(records),
        pretty_name="ReasonAudio", license=hub_license(licenses), language=["en"], multilinguality="monolingual",
        size_categories=[_size_category(clips)], task_categories=TASK_CATEGORIES,
        annotations_creators=["machine-generated"], language_creators=["machine-generated"],
        source_datasets=sorted({source_dataset(record["parameters"]["source"]) for record in records.values()}),
        tags=["audio", "retrieval", "text-to-audio-retrieval", "reasoning", "benchmark", "mteb"],
        configs=[{"config_name": config, **({"default": True} if config == DEFAULT_CONFIG else {}),
                  "data_files": [{"split": split, "path": data_pattern(config, split)} for split in splits]}
                 for config, splits in configs.items()],
    )
    DatasetInfosDict({config: _config_info(out, config, splits) for config, splits in configs.items()}
                     ).to_dataset_card_data(data)
    return data


def _split_section(split: str, record: dict) -> str:
    counts, params = record["counts"], record["parameters"]
    rows = "\n".join(f"| {task} | {n} |" for task, n in counts["queries_per_task"].items())
    examples = "\n".join(f"* **{task}** — query: “{ex['query']}” — its positive: {ex['positive_caption']}"
                         for task, ex in record["examples"].items())
    skipped = "\n".join(f"  * `{without_paths(s['origin'])}`: {without_paths(s['reason'])}"
                        for s in record["skipped_sources"]) or "  * none"
    shown = {**params, "source": public_source(params["source"])}
    local = "" if shown["source"] == params["source"] else " (with your copy of the source in place of the `<...>`)"
    parameters = ", ".join(f"`{k}={v}`" for k, v in shown.items() if k not in ("tasks", "acoustics"))
    descriptions = {spec["name"]: spec["description"] for spec in params.get("acoustics", [])}
    versions = {spec["name"]: f" (version {spec['version']})" for spec in params.get("acoustics", []) if "version" in spec}
    acoustics = "\n".join(f"| `{config}` | {name}{versions.get(name, '')} | "
                           f"{descriptions.get(name) or 'the rendered mix as it is'} |"
                           for config, name in record.get("acoustics", {"corpus": "clean"}).items())
    shapes = "\n".join(f"| {c['task']} | `{c['shape']}` | {c['depth']} | {c['sounds']} | {c['queries']} |"
                       for c in counts.get("shapes", []))
    return (f"### Split `{split}`\n\n{_natural(record)}{counts['queries']} queries, {counts['clips']} clips "
            f"({params['candidates']} candidates per query), {counts['atomic_sounds']} atomic sounds of "
            f"{counts['classes']} classes from `{shown['source']}`; {params['clip_seconds']} s clips at "
            f"{params['sample_rate']} Hz; seed {params['seed']}. Random group accuracy: "
            f"{100 / params['candidates']:.1f} %.\n\n| task | queries |\n|---|---|\n{rows}\n\n"
            f"Query shapes (depth: atoms per query; sounds: classes it names), drawn evenly within each task, with "
            f"{'-'.join(map(str, params.get('events_per_clip', [3, 3])))} sounds per clip:\n\n"
            f"| task | shape | depth | sounds | queries |\n|---|---|---:|---:|---:|\n{shapes}\n\n"
            f"Acoustic conditions (each clip's exact parameters are in its `acoustics` column; every clip of a "
            f"candidate group gets the same draw):\n\n| config | condition | what it does |\n|---|---|---|\n{acoustics}\n\n"
            f"Examples:\n\n{examples}\n\nSources skipped as unreadable or unusable:\n{skipped}\n\n"
            f"Licences of the sounds: {'; '.join(record['licenses'])}\n\n{_attributions(record)}Generated with {parameters} "
            f"(fingerprint `{record['fingerprint']}`); `reasonaudio generate` with these reproduces it{local}.\n")


def _natural(record: dict) -> str:
    """What a natural split is, and how near its negatives come: it cannot be balanced by construction."""
    natural = record.get("natural")
    if not natural:
        return ""
    pool = pool_size(natural)
    rows = "\n".join(f"| {shape} | {n['queries']} | {n['one_atom_misses'] / n['queries']:.1f} | "
                     f"{n['minimal_pairs'] / n['queries']:.1f} | {n['ambiguous'] / n['queries']:.1f} |"
                     for shape, n in natural["shapes"].items())
    return ("**A natural split**: real recordings with the source's own strong labels, no mixing; each clip is a "
            "recording as it was recorded (levels, repeats and overlaps as they are), its events the annotations "
            "(same-class events split by a short gap merged). Every atom carries the source's annotation tolerance "
            "(`tolerance` in `constraint`): its margins widen by it. Candidates are other recordings, grouped as in a "
            "planned split: members whose recordings answer the query's versions (atoms said the other way), those of "
            "its own classes failing exactly one atom its `hard_negatives`; ambiguous recordings are never candidates and are "
            "excluded from corpus scoring "
            f"({natural['ambiguous_pairs']} of {natural['pairs']} query-clip pairs). Every base is drawn as its versions "
            "are found, but unlike a planned split nothing can balance recordings as recorded against each other: "
            "check the split with the audits (`reasonaudio baselines`). Shapes come as often as the recordings' "
            "timelines state them: one they rarely hold (a strict three-sound chain, an overlap before a third "
            "sound) has few queries below, never padded. A sound lasting about N s is stated only of the planned "
            "pairs of lengths (N, M) whose ends are each a clear no of the other at the tolerance, the version "
            "holding the sound for about M: at the default 0.2 s none is for 10 s clips (2 s has no yes window), "
            "and a natural split then states no `lasts` (the N of a fixed set, only 5 and 8 s statable, was itself "
            "the answer). The opt-in `count` task is not built from natural recordings: "
            f"{WHY_NATURAL_BUILDS_DO_NOT_COUNT}."
            + pool +
            "\n\n| task/shape | queries | negatives failing one atom, per query | minimal pairs (`hard_negatives`) "
            f"per query | ambiguous clips per query |\n|---|---:|---:|---:|---:|\n{rows}\n\n")


def pool_size(natural: dict) -> str:
    """How many recordings a natural split was built from, and a warning below the number from which its groups
    balance (both in its record).

    Args:
        natural: the split record's `natural` entry.

    Returns:
        The card's sentences ("" for a record that does not say).
    """
    if "recordings" not in natural:
        return ""
    said = f" The split was built from {natural['recordings']:,} annotated recordings."
    if natural["recordings"] < natural["balanced_from"]:
        said += (f" **That is fewer than the {natural['balanced_from']:,} a split from which a natural build's groups "
                 "balance**: below it, how busy a recording is can find the positive on some shapes (measured on "
                 "stand-ins of 300 recordings: up to +4.7 points over recognising the named sounds); read its "
                 "scores with the Validity section, or build it from more recordings.")
    return said + (" At any size, the candidate whose sounds the rest of its group shares least is the positive a "
                   "little more often than chance on some shapes (12 to 17 % against 10 % on stand-ins of up to 3,000 "
                   "recordings): the audit of how much a group shares a candidate's sounds measures it on this "
                   "split.")


def _attributions(record: dict) -> str:
    """The credit lines of the sounds (CC BY asks for them), folded away: they can run to hundreds."""
    credits = record.get("attributions", [])
    if not credits:
        return ""
    lines = "\n".join(f"* {credit}" for credit in credits)
    return (f"<details><summary>Attribution: {len(credits)} credit lines (each recording's is in the `attribution` "
            f"column of <code>sources</code>)</summary>\n\n{lines}\n\n</details>\n\n")


def benchmark_version(records: dict[str, dict]) -> str:
    """The benchmark version the splits were built at ("unversioned": before versions were stamped; several,
    comma-separated, where splits differ)."""
    return ", ".join(sorted({record.get("benchmark_version", "unversioned") for record in records.values()}))


# The rows of the card's task table for the opt-in tasks a build holds (the paper's five are always shown).
OPT_IN_ROWS = {
    "count": "| `count` (opt-in) | how many separate times a sound is heard, or how two sounds' counts compare | "
             "times(X, N), more_often(X, Y), as_often(X, Y), differs_often(X, Y), times(X, N) with absent(Z) or "
             "before(X, Y): occurrences parted by ≥ 1 s of silence |",
}


CONDITION_ROW = ("| `corpus_<condition>` | clip (robustness builds only) | the same clips under another acoustic "
                 "condition (noisy, reverberant, telephone, wild ...), same columns; queries and qrels are shared |")


def columns_table() -> str:
    """The card's table of configs and their columns, from the row types (`reasonaudio.core.rows`)."""
    lines = ["| config | one row per | columns |", "|---|---|---|"]
    for config, row_type in ROWS.items():
        columns = ", ".join(f"`{name}`" + (f" ({doc})" if doc else "") for name, doc in row_type.described_columns())
        lines.append(f"| `{config}` | {row_type.ONE_ROW_PER} | {columns} |")
        lines += [CONDITION_ROW] if config == "corpus" else []
    return "\n".join(lines)


def render_card(out: Path, repo: str | None = None) -> str:
    """The card of a folder's finished splits; `repo` is the name the load examples use."""
    records = load_records(out)
    tasks = {task for record in records.values() for task in record["parameters"].get("tasks", ())}
    body = TEMPLATE.read_text().format(repo=repo or "PATH_OR_REPO_ID", benchmark_version=benchmark_version(records),
                                       splits="\n".join(_split_section(s, r) for s, r in records.items()),
                                       columns=columns_table(),
                                       opt_in_rows="".join(f"\n{row}" for task, row in OPT_IN_ROWS.items()
                                                           if task in tasks),
                                       headline_tasks="its tasks" if tasks & OPT_IN_ROWS.keys() else "the five tasks")
    certificate = read_certificate(out)
    if certificate is not None:
        body = body.rstrip("\n") + "\n\n" + certificate_section(certificate)
    return str(DatasetCard(f"---\n{card_data(out, records).to_yaml()}\n---\n{body}"))


def card_repo(out: Path) -> str | None:
    """The repository that the folder's card names (set by `publish`), None before publishing."""
    path = out / RECORDS / CARD_RECORD
    return json.loads(path.read_text()).get("repo") if path.is_file() else None


def write_card(out: Path, repo: str | None = None) -> None:
    """(Re)write README.md, recording its hash: a README.md of other content is the user's, never ours to
    replace. Without `repo`, the card keeps naming the repository it named before. While the card is
    replaced, the record accepts the old and the new one, so a kill at any point leaves the card ours."""
    repo = repo or card_repo(out)
    text = render_card(out, repo)
    new = hashlib.sha256(text.encode("utf-8")).hexdigest()
    record = out / RECORDS / CARD_RECORD
    old = json.loads(record.read_text()).get("sha256", []) if record.is_file() else []
    write_json(record, {"repo": repo, "sha256": sorted(set(old) | {new})})
    partial = out / ".README.md.partial"
    partial.write_text(text, encoding="utf-8")
    partial.replace(out / "README.md")
    write_json(record, {"repo": repo, "sha256": [new]})


def write_json(path: Path, data) -> None:
    """Write JSON whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    partial.replace(path)
