"""A composition whose transforms run at a lower sampling rate, as the channel they stand for does.

A telephone line carries 8 kHz audio: its band-pass and codec belong at 8 kHz, where they also cost a
fifth of what they cost at 44.1 kHz (an MP3 encoder given 44.1 kHz at 16 kbit/s resamples internally,
slowly). `AtSampleRate` resamples the clip there (soxr, phase-aligned, so every onset stays where it
was), runs its transforms, and resamples the result back to the clip's rate and length. A clip already
at or below the rate runs them at its own rate.
"""
from __future__ import annotations

import numpy as np
from audiomentations import Compose
from audiomentations.core.transforms_interface import BaseWaveformTransform


class AtSampleRate(BaseWaveformTransform):
    """`transforms` (a list, applied in order with parameters drawn once) at `sample_rate` Hz at most."""

    supports_multichannel = False
    spec_name = "AtSampleRate"

    def __init__(self, transforms, sample_rate: int = 8000, p: float = 1.0):
        super().__init__(p)
        self.sample_rate, self.transforms, self.chain = sample_rate, list(transforms), Compose(list(transforms), p=1.0)

    def randomize_parameters(self, samples: np.ndarray, sample_rate: int) -> None:
        super().randomize_parameters(samples, sample_rate)
        if self.parameters["should_apply"]:
            rate = min(self.sample_rate, sample_rate)
            self.parameters["sample_rate"] = rate
            self.chain.randomize_parameters(np.zeros(round(len(samples) * rate / sample_rate), np.float32), rate)

    def freeze_parameters(self) -> None:
        super().freeze_parameters()
        self.chain.freeze_parameters()

    def unfreeze_parameters(self) -> None:
        super().unfreeze_parameters()
        self.chain.unfreeze_parameters()

    def apply(self, samples: np.ndarray, sample_rate: int) -> np.ndarray:
        import soxr

        rate = self.parameters["sample_rate"]
        if rate >= sample_rate:
            return self.chain(samples, sample_rate)
        low = soxr.resample(samples, sample_rate, rate)
        back = soxr.resample(np.asarray(self.chain(low, rate), np.float32), rate, sample_rate)
        if len(back) >= len(samples):           # as long as the clip, or a sample longer: cut, not copied
            return back[:len(samples)]
        out = np.zeros(len(samples), np.float32)
        out[:len(back)] = back
        return out
