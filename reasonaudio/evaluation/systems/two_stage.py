"""`two-stage:TEXT_MODEL?captions=oracle|detector:MODEL_DIR|FILE.jsonl`: clips described by captions, ranked by
a text model. `detector:MODEL_DIR` hears the audio: a trained detector's events written as the oracle
captions are written from the annotations (`reasonaudio.core.records.caption`), so the two differ only in
what was heard."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from reasonaudio.core.phrases import phrase_for
from reasonaudio.core.records import caption
from reasonaudio.models.system import VectorSystem

from .detector import build as detector
from .metadata import BaselineMetadata

if TYPE_CHECKING:
    import torch

METADATA = BaselineMetadata(
    name="two-stage", reads="the oracle captions", spec="two-stage:{text_model}?captions=oracle", short=5,
    shows="the annotations written as captions, ranked by a text model: what words alone reach")

NOTHING_HEARD = "Nothing heard."     # the caption of a clip in which the detector hears no sound


def detected_captions(detector, data, batch_size: int, progress: bool) -> list[str]:
    """One caption per corpus clip from the events `detector` (a DetectorSystem) hears in it, each sound named
    by the phrase the split's sources give its class."""
    phrases = {label: sorted(found)[0] for label, found in data.phrases().items()}
    return [caption(d.events, {e.label: phrases.get(e.label) or phrase_for(e.label) for e in d.events})
            if d.events else NOTHING_HEARD for d in detector.detect_corpus(data, batch_size, progress)]


def read_captions(spec: str, corpus) -> list[str]:
    """One caption per corpus clip: `oracle` (the annotations' caption) or a JSONL of {clip_id, caption}."""
    ids = list(corpus["clip_id"])
    if spec == "oracle":
        return list(corpus["caption"])
    path = Path(spec)
    if not path.is_file():
        raise ValueError(f"captions must be 'oracle', 'detector:MODEL_DIR' or a JSONL file of {{clip_id, caption}}; "
                         f"{spec!r} is none of them")
    found = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text; captions are a JSONL file of {{clip_id, caption}}") from None
    for number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                row = json.loads(line)
            except ValueError as error:
                raise ValueError(f"{path}:{number}: not a JSON line ({error}); each line is {{clip_id, caption}}") from None
            if not isinstance(row, dict) or not isinstance(row.get("clip_id"), str) or \
                    not isinstance(row.get("caption"), str):
                raise ValueError(f"{path}:{number}: each line needs clip_id and caption, both text")
            found[row["clip_id"]] = row["caption"]
    missing = [clip for clip in ids if clip not in found]
    if missing:
        raise ValueError(f"{path} has no caption for {len(missing)} clips, e.g. {missing[:3]}")
    return [found[clip] for clip in ids]


class TwoStage(VectorSystem):
    def __init__(self, text_model: str, captions: str, device: str):
        from sentence_transformers import SentenceTransformer   # the `models` extra: imported on use

        from reasonaudio.models.pretrained import loading_model, resolve_text_model

        self.name = f"two-stage:{text_model}?captions={captions}"
        self.captions = captions
        self.detector = None
        if captions.startswith("detector:"):
            self.detector = detector(captions.partition(":")[2], device=device)
        with loading_model(self.name):
            self.model = SentenceTransformer(resolve_text_model(text_model), device=device)

    def encode(self, texts):
        return self.model.encode(list(texts), convert_to_tensor=True, show_progress_bar=False)

    def vectors(self, data, device="cpu", batch_size=32, progress=True) -> tuple[torch.Tensor, torch.Tensor]:
        from reasonaudio.models.scoring import encode_texts

        captions = (detected_captions(self.detector, data, batch_size, progress) if self.detector else
                    read_captions(self.captions, data.corpus))
        texts = list(data.queries["text"])
        queries = encode_texts(self.encode, texts, device, batch_size, "queries", progress, self.name)
        clips = encode_texts(self.encode, captions, device, batch_size, "captions", progress, self.name)
        return queries, clips


def build(location: str, captions: str | None = None, device: str = "cpu") -> TwoStage:
    """captions then text retrieval: two-stage:all-MiniLM-L6-v2?captions=oracle (or detector:MODEL_DIR, FILE.jsonl)."""
    if not location:
        raise ValueError("two-stage needs a sentence-transformers model: two-stage:all-MiniLM-L6-v2?captions=oracle")
    if not captions:
        raise ValueError("two-stage needs ?captions=oracle (the annotations), ?captions=detector:MODEL_DIR (a trained "
                         "detector's events) or ?captions=FILE.jsonl (a captioner's)")
    return TwoStage(location, captions, device)
