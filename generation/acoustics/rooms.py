"""A condition's room: audiomentations' RoomSimulator draw, computed as what it is, a shoebox.

audiomentations builds the drawn rectangular room as a general polyhedron (`Room.from_corners` and
`extrude`), for which pyroomacoustics searches image sources with visibility tests: about 90 ms a room
at order 10, more than the clips it is applied to. `ShoeBoxRoom` draws the same parameters in the same
order from the same random state (a test holds the draws equal) and builds `pyroomacoustics.ShoeBox`,
whose image sources are closed form: the same image sources (every one is visible in a box), the
same response to float rounding, in a fifth of the time. Its response is then scaled to unit energy,
its RT60 measured and bounded (`finish_room`), and applied through `RoomResponse`, which keeps the
response's spectrum for a group's clips.
"""
from __future__ import annotations

import random

import numpy as np
from audiomentations import RoomSimulator

from .condition import MAX_RT60

MAX_ROOM_DRAWS = 20


class ShoeBoxRoom(RoomSimulator):
    """RoomSimulator (rt60 mode, image sources, the only mode a spec passes) with its room a ShoeBox."""

    spec_name = "RoomSimulator"

    def randomize_parameters(self, samples: np.ndarray, sample_rate: int) -> None:
        import pyroomacoustics as pra

        super(RoomSimulator, self).randomize_parameters(samples, sample_rate)
        if not self.parameters["should_apply"]:
            return
        drawn = self.parameters
        for axis in "xyz":
            drawn[f"size_{axis}"] = random.uniform(getattr(self, f"min_size_{axis}"), getattr(self, f"max_size_{axis}"))
        size = np.array([drawn["size_x"], drawn["size_y"], drawn["size_z"]])
        drawn["target_rt60"] = random.uniform(self.min_target_rt60, self.max_target_rt60)
        drawn["absorption_coefficient"], sabine_order = pra.inverse_sabine(drawn["target_rt60"], size)
        drawn["max_order"] = min(sabine_order, self.max_order)
        for axis, extent in zip("xyz", size):
            drawn[f"source_{axis}"] = random.uniform(max(getattr(self, f"min_source_{axis}"), self.padding),
                                                     min(getattr(self, f"max_source_{axis}"), extent - self.padding))
        drawn["mic_radius"] = random.uniform(self.min_mic_distance, self.max_mic_distance)
        drawn["mic_azimuth"] = random.uniform(self.min_mic_azimuth, self.max_mic_azimuth)
        drawn["mic_elevation"] = random.uniform(self.min_mic_elevation, self.max_mic_elevation)
        radius, azimuth, elevation = drawn["mic_radius"], drawn["mic_azimuth"], drawn["mic_elevation"]
        offset = {"x": -radius * np.cos(elevation) * np.sin(azimuth), "y": radius * np.cos(elevation) * np.cos(azimuth),
                  "z": radius * np.sin(elevation)}
        for axis, extent in zip("xyz", size):       # clamped into the room, as audiomentations does
            drawn[f"mic_{axis}"] = max(self.padding, min(extent - self.padding, drawn[f"source_{axis}"] + offset[axis]))
        self.room = pra.ShoeBox(size, fs=sample_rate, materials=pra.Material(drawn["absorption_coefficient"]),
                                max_order=drawn["max_order"], air_absorption=True, ray_tracing=False)
        self.room.add_source([drawn["source_x"], drawn["source_y"], drawn["source_z"]])
        self.room.add_microphone_array(np.array([[drawn["mic_x"], drawn["mic_y"], drawn["mic_z"]]]).T)
        self.room.compute_rir()


def measure_rt60(rir: np.ndarray, rate: int) -> float:
    """RT60 from the Schroeder decay (T30, extrapolated), as pyroomacoustics measures it."""
    from pyroomacoustics.experimental import measure_rt60 as schroeder

    return float(schroeder(rir, fs=rate, decay_db=30))


def finish_room(transform: ShoeBoxRoom, rate: int, length: int, reseeded) -> dict:
    """The room's impulse response scaled to unit energy (a room changes the colour and the tail of a clip,
    not its level: image sources otherwise gain 10-15 dB and clip) and its measured RT60, redrawn (within
    `reseeded(attempt)`, seeds derived from the group's) until it is within MAX_RT60."""
    for attempt in range(MAX_ROOM_DRAWS):
        rir = np.asarray(transform.room.rir[0][0], dtype=np.float64)
        rt60 = measure_rt60(rir, rate)
        if rt60 <= MAX_RT60:
            transform.room.rir[0][0] = (rir / np.sqrt(np.sum(rir ** 2))).astype(np.float32)
            transform.apply = RoomResponse(transform.room.rir[0][0], transform.leave_length_unchanged)
            return {"rt60": round(rt60, 4)}
        with reseeded(attempt):
            transform.randomize_parameters(np.zeros(length, np.float32), rate)
    raise ValueError(f"RoomSimulator drew {MAX_ROOM_DRAWS} rooms with a measured RT60 above {MAX_RT60} s: lower "
                     "max_target_rt60 or max_order")


class RoomResponse:
    """RoomSimulator's `apply` (the clip convolved with the room's response, cut to the clip's length) as
    overlap-add: the clip in blocks, all transformed in one batched FFT against the response's spectrum,
    kept for the group. scipy's fftconvolve transforms the response again for every clip and the clip
    whole (a 455,625-point FFT), 2.3 times the work of these blocks; the two agree to float32 rounding
    (a test holds them within 1e-5 of the peak)."""

    def __init__(self, rir: np.ndarray, leave_length_unchanged: bool):
        from scipy import fft

        self.leave_length_unchanged = leave_length_unchanged
        self.taps = len(rir)
        self.size = fft.next_fast_len(max(4 * self.taps, 4096), True)       # each block: size - taps + 1 samples
        self.spectrum = fft.rfft(np.asarray(rir, np.float32), self.size)

    def __call__(self, samples: np.ndarray, sample_rate: int) -> np.ndarray:
        from scipy import fft

        step, tail, count = self.size - self.taps + 1, self.taps - 1, len(samples)
        blocks, whole = max(1, -(-count // step)), count // step
        framed = np.zeros((blocks, self.size), np.float32)          # each block zero-padded to the transform size
        framed[:whole, :step] = np.reshape(samples[:whole * step], (whole, step))
        if whole < blocks:
            framed[whole, :count - whole * step] = samples[whole * step:]
        out = fft.irfft(fft.rfft(framed, axis=1) * self.spectrum, self.size, axis=1)
        out[1:, :tail] += out[:-1, step:]                           # each block's tail runs into the next
        convolved = out[:, :step].reshape(-1)
        if not self.leave_length_unchanged:
            convolved = np.concatenate([convolved, out[-1, step:]])[:count + tail]
        return convolved[:count if self.leave_length_unchanged else None].astype(samples.dtype, copy=False)
