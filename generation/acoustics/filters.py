"""audiomentations' Butterworth filters with each drawn filter designed once.

`BaseButterworthFilter.apply` designs its filter (`scipy.signal.butter`, then `sosfilt_zi`) on every call:
~1.5 ms of a telephone clip's cost, though a group's draw freezes the filter for all of its clips and a
preset's band is fixed. `DesignedOnce` keeps the design per (type, band, order, rate) and filters a mono
clip as audiomentations does (the same sections and initial state: the same samples, a test holds them
equal); other shapes go through audiomentations' own `apply`.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from audiomentations import BandPassFilter, BandStopFilter, HighPassFilter, LowPassFilter


@lru_cache(maxsize=64)
def _design(btype: str, band: tuple[float, ...], order: int, sample_rate: int) -> tuple[np.ndarray, np.ndarray]:
    """The second-order sections of a Butterworth filter and their unit-step initial state (scipy reads them,
    never writes them: kept as they are)."""
    from scipy.signal import butter, sosfilt_zi

    sos = butter(order, band[0] if len(band) == 1 else list(band), btype=btype, fs=sample_rate, output="sos")
    return sos, sosfilt_zi(sos)


class DesignedOnce:
    """The `apply` of a BaseButterworthFilter subclass with its design kept (`_design`)."""

    def apply(self, samples: np.ndarray, sample_rate: int) -> np.ndarray:
        if samples.ndim != 1:
            return super().apply(samples, sample_rate)
        from scipy.signal import sosfilt, sosfiltfilt

        nyquist = sample_rate // 2          # audiomentations' clamp: just below Nyquist (integer division)
        if self.filter_type in self.ALLOWED_ONE_SIDE_FILTER_TYPES:
            band = (self.parameters["cutoff_freq"],)
        else:
            half = self.parameters["bandwidth"] / 2
            band = (self.parameters["center_freq"] - half, self.parameters["center_freq"] + half)
        band = band[:-1] + ((nyquist * 0.9999 if band[-1] > nyquist else band[-1]),)
        sos, zi = _design(self.filter_type, band, self.parameters["rolloff"] // (12 if self.zero_phase else 6),
                          sample_rate)
        filtered = sosfiltfilt(sos, samples) if self.zero_phase else sosfilt(sos, samples, zi=zi * samples[0])[0]
        return filtered.astype(np.float32)


DESIGNED_ONCE = {base.__name__: type(base.__name__, (DesignedOnce, base), {"spec_name": base.__name__})
                 for base in (BandPassFilter, BandStopFilter, HighPassFilter, LowPassFilter)}
