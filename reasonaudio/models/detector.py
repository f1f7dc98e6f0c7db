"""`detector`: a sound-event detector trained on a train split's exact strong labels (`events`).

Audio: the `small` model's log-mel front end and dilated-conv trunk as they are (one vector per 80 ms,
each seeing about 2.6 s), then a frame-level multi-label head: which sound classes play in each step
(binary cross-entropy against `models/events.py`'s targets). Decoding turns each class's probabilities
into at most one event (a class occurs at most once per clip): steps above a threshold, median-filtered,
gaps shorter than a few steps closed, and the run with the most probability mass kept. The threshold,
the filter and the gap are chosen on the validation split after every epoch (by the group accuracy of
the `detector:` system they give) and saved with the model.

Training hears each clip at a random pitch: its magnitude spectrum stretched along frequency by a factor
drawn per clip (0.75-1.33, times kept, so the labels stay true) before the mel filters. A class's
recordings differ in pitch, and without it the detector learns the train split's few recordings of a
class rather than the class.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from reasonaudio.core.relations import Event

from .events import steps_of
from .files import SavedModel
from .small import SPECIAL, LogMel, SmallAudioText, SmallConfig

PITCH_RANGE = (0.75, 4 / 3)    # the spectrum's stretch while training (log-uniform)
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)
MEDIAN_STEPS = (1, 3, 5)       # median filter lengths (80 ms steps)
GAP_STEPS = (0, 3, 6)          # gaps closed inside one event (an inaudible pause of < 0.4 s stays in a sound)


@dataclass
class DetectorConfig:
    labels: list[str] = field(default_factory=list)
    sampling_rate: int = 16000
    threshold: float = 0.5
    median_steps: int = 1
    gap_steps: int = 0

    @property
    def decoding(self) -> dict:
        return {"threshold": self.threshold, "median_steps": self.median_steps, "gap_steps": self.gap_steps}


@dataclass(frozen=True)
class Detected:
    """What the detector hears in one clip: at most one event a class (label, onset, offset in seconds),
    and each class's highest probability anywhere in the clip (its confidence that the class is there)."""

    events: tuple
    peak: dict[str, float]


def decode(probabilities: np.ndarray, step_seconds: float, labels, threshold: float, median_steps: int,
           gap_steps: int) -> Detected:
    """A clip's events from its (steps x labels) probabilities (see the module's docstring)."""
    from scipy.ndimage import binary_closing, label, median_filter   # scipy: imported on use

    active = probabilities > threshold
    if median_steps > 1:
        active = median_filter(active, size=(median_steps, 1), mode="nearest")
    events = []
    for column in np.flatnonzero(active.any(axis=0)):
        on = active[:, column]
        if gap_steps:
            on = on | binary_closing(on, np.ones(gap_steps + 1, bool))
        runs, count = label(on)
        mass = np.bincount(runs, weights=probabilities[:, column], minlength=count + 1)[1:]
        steps = np.flatnonzero(runs == 1 + int(np.argmax(mass)))
        events.append(Event(labels[column], "", round(steps[0] * step_seconds, 3),
                            round((steps[-1] + 1) * step_seconds, 3), 0.0))
    peak = dict(zip(labels, probabilities.max(axis=0).tolist()))
    return Detected(tuple(sorted(events, key=lambda e: (e.onset, e.label))), peak)


class PitchedLogMel(nn.Module):
    """The small model's log-mel frames; while training, each clip's spectrum stretched along frequency by a
    factor drawn log-uniformly from PITCH_RANGE (a pitch shift that keeps every time)."""

    def __init__(self, mel: LogMel):
        super().__init__()
        self.mel = mel

    def forward(self, waves: torch.Tensor) -> torch.Tensor:
        mel = self.mel
        spectrum = torch.stft(waves, mel.n_fft, mel.hop, window=mel.window, return_complex=True).abs() ** 2
        if self.training:
            bins = spectrum.shape[1]
            low, high = (math.log(bound) for bound in PITCH_RANGE)
            factor = torch.exp(torch.empty(len(waves), 1, device=waves.device).uniform_(low, high))
            source = torch.arange(bins, device=waves.device) / factor           # output bin b reads bin b / factor
            grid = torch.stack([torch.zeros_like(source), 2 * source / (bins - 1) - 1], dim=-1)   # (x: time, y: bin)
            grid = grid[:, :, None, :].expand(-1, -1, spectrum.shape[2], -1)
            times = torch.linspace(-1, 1, spectrum.shape[2], device=waves.device)
            grid = torch.stack([times.expand(len(waves), bins, -1), grid[..., 1]], dim=-1)
            spectrum = F.grid_sample(spectrum[:, None], grid, align_corners=True, padding_mode="zeros")[:, 0]
        return torch.log(mel.filters @ spectrum + 1e-6)


class Detector(SavedModel, nn.Module):
    kind = "detector"
    config_class = DetectorConfig

    def __init__(self, config: DetectorConfig):
        super().__init__()
        self.config, self.sampling_rate = config, config.sampling_rate
        small = SmallAudioText(SmallConfig(vocabulary=list(SPECIAL), labels=config.labels,
                                           sampling_rate=config.sampling_rate))
        self.hop = small.config.hop
        self.mel = PitchedLogMel(small.mel)
        self.convolutions, self.audio_context = small.convolutions, small.audio_context
        self.event_head = small.event_head

    audio_steps = SmallAudioText.audio_steps    # the small model's front end and trunk, unchanged

    @classmethod
    def create(cls, labels, sampling_rate: int = 16000) -> "Detector":
        if not labels:
            raise ValueError("the detector needs the train split's sound classes; its corpus lists no events")
        return cls(DetectorConfig(labels=sorted(labels), sampling_rate=sampling_rate))

    @property
    def device(self) -> torch.device:
        return self.event_head.weight.device

    def logits(self, arrays) -> torch.Tensor:
        """(batch x steps x labels): each class's activity logit in each 80 ms step."""
        return self.event_head(self.audio_steps(arrays))

    def loss(self, waves: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Binary cross-entropy summed over the classes, averaged over the batch's steps."""
        logits = self.logits(list(waves.numpy()))
        return F.binary_cross_entropy_with_logits(logits, targets.to(logits.device), reduction="none").sum(-1).mean()

    def step_seconds(self, samples: int) -> float:
        return samples / self.sampling_rate / steps_of(samples, self.hop)

    def probabilities(self, arrays) -> list[np.ndarray]:
        """Each clip's (steps x labels) probabilities, in eval mode without gradients."""
        was_training = self.training
        self.eval()
        try:
            with torch.inference_mode():
                return list(torch.sigmoid(self.logits(arrays)).cpu().numpy())
        finally:
            self.train(was_training)

    def detect(self, probabilities: np.ndarray, samples: int, **decoding) -> Detected:
        """One clip's events, by the saved decoding unless `decoding` (threshold, median_steps, gap_steps)
        gives others."""
        return decode(probabilities, self.step_seconds(samples), self.config.labels,
                      **{**self.config.decoding, **decoding})

    def encode_text(self, texts):
        raise ValueError("a detector writes no embeddings: score it with --model detector:MODEL_DIR")

    encode_audio = encode_text
