"""`shortcut-audit`: a query-blind classifier of clip acoustics (length, level, onset count, spectral
statistics) and of its timeline (span, first onset, last offset, silence, gaps, blocks, event lengths
and onset gaps in order: see `annotations.timeline_features`), trained on a train split to tell
positives from negatives, then scored within the test groups. The benchmark is sound only if its 95 %
interval contains the random baseline: otherwise the generator leaves a shortcut to fix. (The timeline
features catch what acoustic features alone miss, such as overlap positives spanning more time than their
twins.)"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from reasonaudio.core.spec import integer_option
from reasonaudio.models.system import System, clip_events

from .annotations import timeline_features
from .learned import fit_classifier, train_split
from .metadata import CHANCE, BaselineMetadata

if TYPE_CHECKING:
    import torch

    from reasonaudio.models.scoring import EvalData

METADATA = BaselineMetadata(
    name="shortcut-audit", reads="the clips", short=6, needs_train=True, held_to=CHANCE, verdict=True,
    flag="clip acoustics alone (no query) finds the positive",
    shows="no query, one clip's acoustics and timeline: whether the generator leaves a shortcut")

RATE = 16000
FRAME, HOP = 1024, 512
FEATURES = ("seconds", "level_db", "peak_frame_db", "frame_db_std", "active_fraction", "onsets", "centroid",
            "centroid_std", "bandwidth", "rolloff", "flatness", "zero_crossings")


def clip_features(samples: np.ndarray, rate: int = RATE) -> np.ndarray:
    """Query-blind acoustic statistics of one clip."""
    if len(samples) < FRAME:
        samples = np.pad(samples, (0, FRAME - len(samples)))
    frames = np.lib.stride_tricks.sliding_window_view(samples, FRAME)[::HOP]
    rms = np.sqrt(np.mean(frames.astype(np.float64) ** 2, axis=1)) + 1e-10
    frame_db = 20 * np.log10(rms)
    active = frame_db > frame_db.max() - 40
    loud = (frame_db > frame_db.max() - 30).astype(np.int8)
    onsets = int(np.sum(np.diff(loud) == 1) + loud[0])
    power = np.abs(np.fft.rfft(frames * np.hanning(FRAME), axis=1)) ** 2 + 1e-20
    freqs = np.fft.rfftfreq(FRAME, 1 / rate)
    total = power.sum(axis=1)
    centroid = (power * freqs).sum(axis=1) / total
    bandwidth = np.sqrt((power * (freqs - centroid[:, None]) ** 2).sum(axis=1) / total)
    rolloff = freqs[np.argmax(np.cumsum(power, axis=1) >= 0.85 * total[:, None], axis=1)]
    flatness = np.exp(np.mean(np.log(power), axis=1)) / np.mean(power, axis=1)
    crossings = np.mean(np.abs(np.diff(np.signbit(frames), axis=1)), axis=1)
    on = active if active.any() else np.ones_like(active)
    return np.array([
        len(samples) / rate, 10 * np.log10(np.mean(rms ** 2)), frame_db.max(), frame_db[on].std(), active.mean(),
        onsets, centroid[on].mean(), centroid[on].std(), bandwidth[on].mean(), rolloff[on].mean(),
        flatness[on].mean(), crossings[on].mean(),
    ])


def corpus_features(data: EvalData, batch_size: int = 64, workers: int = 1) -> np.ndarray:
    from reasonaudio_dataset.loading import audio_decoder

    decode = audio_decoder(RATE)

    def featurise(batch):
        return {"features": [clip_features(cell["array"]) for cell in decode(batch)["audio"]]}

    mapped = data.corpus.select_columns(["audio"]).map(featurise, batched=True, batch_size=batch_size,
                                                       num_proc=workers if workers > 1 else None,
                                                       remove_columns=["audio"], desc="clip features")
    return np.asarray(mapped["features"], dtype=np.float64)


def features(data: EvalData, workers: int) -> np.ndarray:
    """Acoustic and timeline features of every clip, in corpus order."""
    clip_seconds = data.corpus["duration"]
    timeline = [timeline_features(events, seconds) for events, seconds in zip(clip_events(data.corpus), clip_seconds)]
    return np.hstack([corpus_features(data, workers=workers), np.asarray(timeline, dtype=np.float64)])


def positive_labels(data: EvalData) -> np.ndarray:
    positives = set(data.queries["positive"])
    return np.array([clip in positives for clip in data.corpus["clip_id"]], dtype=int)


class ShortcutAudit(System):
    def __init__(self, train: str | None, seed: int, workers: int):
        self.name, self.train, self.seed, self.workers = "shortcut-audit", train, seed, workers

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        import torch

        train = train_split(data, self.train, self.name)       # the same acoustic condition
        # early stopping on held-out train clips: with no shortcut to learn it stops at near-constant scores
        # (ties, exactly chance) instead of fitting noise that lands in test on either side of chance, even
        # on a build with no signal in any feature; a real shortcut lowers the held-out loss and is learned
        classifier = fit_classifier(features(train, self.workers), positive_labels(train), self.seed)
        scores = classifier.predict_proba(features(data, self.workers))[:, 1]
        return torch.as_tensor(scores, dtype=torch.float32).to(device)[None, :].expand(len(data.queries), -1)


def build(location: str = "", train: str | None = None, seed: str = "0", workers: str = "2",
          device: str = "cpu") -> ShortcutAudit:
    """query-blind classifier on clip acoustics and timeline, trained on a train split: ?train=DIR."""
    return ShortcutAudit(train, integer_option("shortcut-audit", "seed", seed),
                         integer_option("shortcut-audit", "workers", workers, 1))
