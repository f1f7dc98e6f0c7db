"""The dataset card: YAML (configs, features, splits, licence) that makes the folder loadable and
viewable with no extra arguments, then prose with the real figures of each split."""
from __future__ import annotations

import json
from pathlib import Path

from datasets.info import DatasetInfo, DatasetInfosDict
from huggingface_hub import DatasetCard, DatasetCardData

from .schema import CONFIGS, FEATURES, data_pattern

TEMPLATE = Path(__file__).with_name("card_template.md")
RECORDS = ".reasonaudio"
LICENSE_IDS = {"CC0-1.0": "cc0-1.0", "CC-BY-NC-3.0": "cc-by-nc-3.0", "CC-BY-4.0": "cc-by-4.0"}


def load_records(out: Path) -> dict[str, dict]:
    """The finished splits of a folder, by split name."""
    return {p.name.removesuffix(".json"): json.loads(p.read_text())
            for p in sorted((out / RECORDS).glob("*.json")) if not p.name.endswith(".plan.json")}


def hub_license(licenses: list[str]) -> str:
    ids = {LICENSE_IDS.get(text.split()[0], "other") if text else "unknown" for text in licenses}
    return ids.pop() if len(ids) == 1 else "other"


def card_data(records: dict[str, dict]) -> DatasetCardData:
    licenses = sorted({text for record in records.values() for text in record["licenses"]})
    data = DatasetCardData(
        pretty_name="ReasonAudio", license=hub_license(licenses), language=["en"],
        task_categories=["audio-classification"], tags=["audio", "retrieval", "text-to-audio-retrieval", "reasoning",
                                                        "benchmark", "mteb"],
        configs=[{"config_name": config, "data_files": [{"split": split, "path": data_pattern(config, split)}
                                                        for split in records]} for config in CONFIGS],
    )
    DatasetInfosDict({config: DatasetInfo(config_name=config, features=FEATURES[config]) for config in CONFIGS}
                     ).to_dataset_card_data(data)
    return data


def _split_section(split: str, record: dict) -> str:
    counts, params = record["counts"], record["parameters"]
    rows = "\n".join(f"| {task} | {n} |" for task, n in counts["queries_per_task"].items())
    examples = "\n".join(f"* **{task}** — query: “{ex['query']}” — its positive: {ex['positive_caption']}"
                         for task, ex in record["examples"].items())
    skipped = "\n".join(f"  * `{s['origin']}`: {s['reason']}" for s in record["skipped_sources"]) or "  * none"
    return (f"### Split `{split}`\n\n{counts['queries']} queries, {counts['clips']} clips "
            f"({params['candidates']} candidates per query), {counts['atomic_sounds']} atomic sounds of "
            f"{counts['classes']} classes from `{params['source']}`; {params['clip_seconds']} s clips at "
            f"{params['sample_rate']} Hz; seed {params['seed']}. Random group accuracy: "
            f"{100 / params['candidates']:.1f} %.\n\n| task | queries |\n|---|---|\n{rows}\n\n"
            f"Examples:\n\n{examples}\n\nSources skipped as unreadable or unusable:\n{skipped}\n\n"
            f"Licences of the sounds: {'; '.join(record['licenses'])}\n")


def render_card(out: Path) -> str:
    records = load_records(out)
    body = TEMPLATE.read_text().format(splits="\n".join(_split_section(s, r) for s, r in records.items()))
    return str(DatasetCard(f"---\n{card_data(records).to_yaml()}\n---\n{body}"))


def write_card(out: Path) -> None:
    partial = out / ".README.md.partial"
    partial.write_text(render_card(out))
    partial.replace(out / "README.md")
