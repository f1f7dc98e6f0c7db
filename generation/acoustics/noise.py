"""The additive noises of a condition's `version: 2`, computed in float32.

audiomentations draws its noise in float64 from the legacy `np.random.normal` (Box-Muller) and colours
it with a float64 overlap-add convolution before casting it to float32: 27 ms for a 10 s clip at
44.1 kHz (8 ms for Gaussian noise), drawn once per group: ~40 % of what a noisy clip costs over a clean
one. These draw the same noise, Gaussian at the drawn level (`Float32GaussianSNR`) or unit-RMS Gaussian
noise shaped by the same drawn 1/f^beta envelope of n_fft points with random phases, A-weighted where
drawn, convolved "same" and scaled to unit RMS (`Float32ColorNoise`), from a float32 ziggurat generator
seeded from numpy's global state (which the group's seed sets) and convolved in float32: 13 ms (4 ms).
The waveforms differ from version 1's (another random stream), which is why a condition opts in by its
version.
"""
from __future__ import annotations

import numpy as np
from audiomentations import AddColorNoise, AddGaussianSNR
from audiomentations.augmentations.add_color_noise import decay_to_beta
from audiomentations.core.utils import a_weighting_frequency_envelope


def _generator() -> np.random.Generator:
    """A generator drawn from numpy's global state: seeded as audiomentations' own draws are."""
    return np.random.default_rng(np.random.randint(2 ** 31))


def color_noise(shape, f_decay: float, sample_rate: int, a_weighting: bool, n_fft: int) -> np.ndarray:
    """audiomentations' `generate_decaying_white_noise` (f_decay in dB per octave), in float32."""
    rng = _generator()
    white = rng.standard_normal(shape, dtype=np.float32)
    if f_decay == 0.0 and not a_weighting:
        return white                                        # white noise as drawn, as audiomentations returns it
    phases = rng.uniform(0, 2 * np.pi, n_fft // 2 + 1)
    return coloured(white, decay_response(f_decay, sample_rate, a_weighting, n_fft, phases))


def decay_response(f_decay: float, sample_rate: int, a_weighting: bool, n_fft: int, phases: np.ndarray) -> np.ndarray:
    """audiomentations' colouring filter: the 1/f^beta envelope (A-weighted where drawn) at n_fft points, with
    `phases`, as an impulse response."""
    frequencies = np.fft.rfftfreq(n_fft, 1.0 / sample_rate)
    frequencies[0] = 1
    envelope = np.sqrt(1 / frequencies ** decay_to_beta(f_decay)) * np.exp(1j * phases)
    if a_weighting:
        envelope *= a_weighting_frequency_envelope(n_fft, sample_rate)
    return np.fft.irfft(envelope)


def coloured(white: np.ndarray, response: np.ndarray) -> np.ndarray:
    """`white` convolved "same" with `response` along its last axis and scaled to unit RMS, in float32."""
    from scipy.signal import oaconvolve

    response = response.astype(np.float32).reshape((1,) * (white.ndim - 1) + (-1,))
    shaped = oaconvolve(white, response, "same", axes=-1)
    return (shaped / np.float32(np.sqrt(np.mean(np.square(shaped, dtype=np.float64))))).astype(np.float32, copy=False)


class Float32ColorNoise(AddColorNoise):
    """AddColorNoise with its noise drawn and coloured in float32 (`color_noise`)."""

    spec_name = "AddColorNoise"

    def apply(self, samples: np.ndarray, sample_rate: int) -> np.ndarray:
        noise = color_noise(samples.shape, self.parameters["f_decay"], sample_rate,
                            self.parameters["apply_a_weighting"], self.n_fft)
        return samples + noise * np.float32(self.parameters["desired_noise_rms"])


class Float32GaussianSNR(AddGaussianSNR):
    """AddGaussianSNR with its noise drawn in float32."""

    spec_name = "AddGaussianSNR"

    def apply(self, samples: np.ndarray, sample_rate: int) -> np.ndarray:
        return samples + _generator().standard_normal(samples.shape, dtype=np.float32) * np.float32(
            self.parameters["noise_std"])
