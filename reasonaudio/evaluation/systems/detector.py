"""`detector:MODEL_DIR`: hear, then reason exactly. A sound-event detector (`reasonaudio train --model
detector`) lists each clip's events; each query's constraint is judged on them by the one relevance
function (`reasonaudio/core/relations.py`; the ranking: models/hearing.py). Perfect language and reasoning over
learned hearing: its accuracy is the ceiling of any model that hears as well, and where it falls short the
audio does not carry what the annotation says as plainly as the detector needs.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from reasonaudio.models.system import System

if TYPE_CHECKING:
    import torch


class DetectorSystem(System):
    """A trained detector's events, judged per query. After scoring, `record` holds the detection quality
    on the scored split (DCASE's metrics against its annotations) and the decoding used."""

    def __init__(self, model, name: str):
        self.model, self.name, self.record = model, name, {}

    def detect_corpus(self, data, batch_size: int = 32, progress: bool = True) -> list:
        """What the detector hears in each corpus clip (by its saved decoding)."""
        from reasonaudio.models.hearing import corpus_probabilities

        return [self.model.detect(p, samples) for p, samples in
                corpus_probabilities(self.model, data, batch_size, progress)]

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        from reasonaudio.models.hearing import detection_quality, hearing_scores

        detections = self.detect_corpus(data, batch_size, progress)
        self.record = {"detection": detection_quality(self.model, data, detections),
                       "decoding": self.model.config.decoding}
        return hearing_scores(data, detections).to(device)


def build(location: str, device: str = "cpu") -> DetectorSystem:
    """a trained detector's events judged by the relevance function: detector:MODEL_DIR (the hearing ceiling)"""
    if not location:
        raise ValueError("detector needs a folder: detector:MODEL_DIR (written by reasonaudio train --model detector)")
    from reasonaudio.models.registry import load

    model = load(Path(location), device)
    if model.kind != "detector":
        raise ValueError(f"{location} holds a {model.kind!r} model, not a detector: score it with trained:{location}")
    return DetectorSystem(model, f"detector:{location}")
