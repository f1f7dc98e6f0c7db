"""Atomic sound bank (DESIGN §3): labelled recordings made into trimmed, mono, level-normalised sounds.

Every selected recording is checked before anything is planned or rendered; bad ones are reported by
file, or skipped and recorded with `skip_bad=True`.
"""
from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
import soxr
from tqdm.auto import tqdm

from reasonaudio.core.phrases import CONTINUOUS_LABELS, ESC50_PHRASES, FSD50K_PHRASES, phrase_for
from reasonaudio.core.rows import SourceRow

from .sources import BadRecording, Recording, open_source
from .sources.base import UNKNOWN_LABELS, known_bad

log = logging.getLogger(__name__)

FRAME_SECONDS = 0.01
TRIM_DB = -30.0            # frames quieter than this (relative to the loudest) are inaudible
MAX_SILENCE_SECONDS = 0.4  # an inaudible run this long inside a recording splits it: the longest part is kept
STEADY_FRACTION = 0.9      # a sound heard in this share of its frames is steady (overlap's sounds must be)
SILENT_PEAK = 1e-4
MIN_ACTIVE_SECONDS = 0.08  # a click or a knock: the shortest sound still recognised as itself
TARGET_RMS_DB = -20.0
PEAK_CEILING = 0.3         # three events at this peak sum below full scale: no clip ever clips
KNOWN_LABELS = ESC50_PHRASES.keys() | FSD50K_PHRASES.keys()
LOOP_CROSSFADE_SECONDS = 0.25    # equal-power crossfade at each seam of a looped sound
SUSTAIN_DB = -10.0               # frames within 10 dB of a sound's median level are its sustained part
LOOP_FRAME_SECONDS = 0.05
MAX_SEAM_DIP_DB = 3.0            # a seam quieter than this below the sound's own stretches would be heard
SEAM_FRAME_SECONDS = 0.02


class BadSourcesError(ValueError):
    """Raised with every bad recording at once, before any rendering."""

    def __init__(self, bad: list[tuple[str, str]]):
        self.bad = bad
        lines = "\n".join(f"  {origin}: {reason}" for origin, reason in bad)
        super().__init__(f"{len(bad)} bad source recording(s):\n{lines}\n"
                         "Fix or remove them, or pass --skip-bad-sources to leave them out (the card records them).")


@dataclass(frozen=True)
class AtomicSound:
    source_id: str
    label: str
    phrase: str
    kind: str                  # "continuous" or "discrete"
    origin: str
    license: str
    samples: np.ndarray = field(repr=False, compare=False)
    sample_rate: int = 44100
    attribution: str = ""      # author / credit line, where the source gives one
    loop: tuple[int, int, int] = field(default=(0, 0, 0), repr=False, compare=False)  # see loop_points; published
    steady: bool = field(default=False, repr=False, compare=False)   # see audible_fraction

    def __post_init__(self):
        object.__setattr__(self, "steady", audible_fraction(self.samples, self.sample_rate) >= STEADY_FRACTION)

    @property
    def seconds(self) -> float:
        return len(self.samples) / self.sample_rate

    def row(self, audio: dict | None = None) -> SourceRow:
        """The sound as `sources` publishes it (`audio`: its FLAC cell, where written)."""
        return SourceRow(source_id=self.source_id, label=self.label, phrase=self.phrase, kind=self.kind,
                         origin=self.origin, license=self.license, attribution=self.attribution,
                         duration=round(self.seconds, 3), loop=tuple(self.loop), audio=audio)


@dataclass(frozen=True)
class SoundBank:
    sounds: tuple[AtomicSound, ...]
    sample_rate: int
    skipped: tuple[tuple[str, str], ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "_by_id", {s.source_id: s for s in self.sounds})

    def __getitem__(self, source_id: str) -> AtomicSound:
        return self._by_id[source_id]

    def by_label(self) -> dict[str, list[AtomicSound]]:
        groups: dict[str, list[AtomicSound]] = defaultdict(list)
        for sound in self.sounds:
            groups[sound.label].append(sound)
        return dict(groups)


class BadAudio(ValueError):
    pass


def frame_rms(samples: np.ndarray, frame: int) -> np.ndarray:
    usable = len(samples) // frame * frame
    frames = samples[:usable].reshape(-1, frame) if usable else samples[None, :]
    return np.sqrt(np.mean(frames.astype(np.float64) ** 2, axis=1))


def rms_of(samples: np.ndarray) -> float:
    """The root mean square of `samples`, summed in float64 (a long float32 sum loses the quiet tail).

    Args:
        samples: any samples.

    Returns:
        Their RMS level.
    """
    return float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))


def audible_frames(rms: np.ndarray) -> np.ndarray:
    """Which frames are heard: those within TRIM_DB of the loudest (the one rule for trimming, pauses,
    steadiness and the checks)."""
    return rms >= rms.max() * 10 ** (TRIM_DB / 20)


def audible_part(rms: np.ndarray) -> tuple[int, int]:
    """First and last frame of the longest stretch that is heard throughout: frames within TRIM_DB of the
    loudest are audible, and no inaudible run inside lasts MAX_SILENCE_SECONDS. Annotated spans are
    then what is heard (edges trimmed to the audible extent; a recording with long pauses, a few barks
    apart, keeps its longest burst), so relations such as overlap hold for what a listener hears."""
    audible = np.flatnonzero(audible_frames(rms))
    breaks = np.flatnonzero(np.diff(audible) > MAX_SILENCE_SECONDS / FRAME_SECONDS)
    starts, ends = np.r_[0, breaks + 1], np.r_[breaks, len(audible) - 1]
    longest = int(np.argmax(audible[ends] - audible[starts]))
    return int(audible[starts[longest]]), int(audible[ends[longest]])


def audible_fraction(samples: np.ndarray, rate: int) -> float:
    """The share of a sound's 10 ms frames that are heard (within TRIM_DB of its loudest): near 1 for
    rain or an engine, low for drops and ticks, which a sound overlapping them is not heard "with"."""
    return float(np.mean(audible_frames(frame_rms(samples, max(1, int(FRAME_SECONDS * rate))))))


def longest_inaudible(samples: np.ndarray, rate: int) -> float:
    """Seconds of the longest inaudible run of a sound, at an edge or inside (`validate` checks that no
    published sound has one of MAX_SILENCE_SECONDS: every annotated second is heard)."""
    audible = audible_frames(frame_rms(samples, max(1, int(FRAME_SECONDS * rate))))
    heard = np.flatnonzero(audible)
    runs = np.r_[heard[0], np.diff(heard) - 1, len(audible) - 1 - heard[-1]]
    return float(runs.max() * FRAME_SECONDS)


def prepare(samples: np.ndarray, rate: int, sample_rate: int, start=None, end=None) -> tuple[np.ndarray, np.ndarray]:
    """Mono, cropped, resampled and trimmed to the active region; returns (samples, frame RMS)."""
    samples = np.asarray(samples, dtype=np.float32)
    if samples.size == 0:
        raise BadAudio("empty")
    if not np.all(np.isfinite(samples)):
        raise BadAudio("contains NaN or inf samples")
    if samples.ndim == 2:
        samples = samples.mean(axis=1)
    if start is not None or end is not None:
        samples = samples[int((start or 0) * rate): None if end is None else int(end * rate)]
    if samples.size == 0 or np.abs(samples).max() < SILENT_PEAK:
        raise BadAudio("silent" if samples.size else "empty after cropping to start/end")
    if rate != sample_rate:
        before = rms_of(samples)
        samples = soxr.resample(samples, rate, sample_rate, quality="HQ").astype(np.float32)
        # the trimming rule applied to the whole sound: kept below TRIM_DB of itself, it is inaudible
        if np.abs(samples).max() < SILENT_PEAK or rms_of(samples) < before * 10 ** (TRIM_DB / 20):
            raise BadAudio(f"silent after resampling from {rate} to {sample_rate} Hz (its energy lies above "
                           f"{sample_rate // 2} Hz); use a higher --sample-rate")
    frame = max(1, int(FRAME_SECONDS * sample_rate))
    rms = frame_rms(samples, frame)
    first, last = audible_part(rms)
    samples, rms = samples[first * frame:(last + 1) * frame], rms[first:last + 1]
    if len(samples) < MIN_ACTIVE_SECONDS * sample_rate:
        raise BadAudio(f"active region only {len(samples) / sample_rate:.2f} s (< {MIN_ACTIVE_SECONDS} s)")
    return samples, rms


def decide_kind(label: str, rms: np.ndarray, seconds: float, given: str | None) -> str:
    """Continuous sounds (rain, engines) can be cropped or looped. The source's word or a class the phrase
    tables know decides (a rooster's steady crow is still one crow); for other labels a steady envelope
    over >= 2.5 s marks one. `make_atomic` then keeps only those whose loop is inaudible."""
    if given:
        return given
    if label in CONTINUOUS_LABELS or label in KNOWN_LABELS:
        return "continuous" if label in CONTINUOUS_LABELS else "discrete"
    steady = np.mean(rms >= rms.max() * 10 ** (-20 / 20))
    return "continuous" if seconds >= 2.5 and steady >= 0.8 else "discrete"


def normalise(samples: np.ndarray) -> np.ndarray:
    gain = min(10 ** (TARGET_RMS_DB / 20) / rms_of(samples), PEAK_CEILING / float(np.abs(samples).max()))
    return (samples * gain).astype(np.float32)


def fade(samples: np.ndarray, rate: int, seconds: float = 0.01) -> np.ndarray:
    """Short linear fades so that cuts never click."""
    n = min(int(seconds * rate), len(samples) // 2)
    if n:
        ramp = np.linspace(0.0, 1.0, n, dtype=np.float32)
        samples = samples.copy()
        samples[:n] *= ramp
        samples[-n:] *= ramp[::-1]
    return samples


def make_atomic(recording: Recording, sample_rate: int, max_discrete_seconds: float) -> AtomicSound:
    if recording.label.strip().lower() in UNKNOWN_LABELS:
        raise BadAudio(f"unknown label {recording.label!r}")
    try:
        raw, rate = recording.load()
    except BadRecording as error:
        raise BadAudio(str(error)) from error
    except Exception as error:  # soundfile, datasets and codecs raise many types for an unreadable file
        raise BadAudio(f"unreadable: {error}") from error
    samples, rms = prepare(raw, rate, sample_rate, recording.start, recording.end)
    kind = decide_kind(recording.label, rms, len(samples) / sample_rate, recording.kind)

    def finish(kind: str) -> np.ndarray:
        kept = samples if kind == "continuous" else samples[: int(max_discrete_seconds * sample_rate)]
        return quantise(fade(normalise(kept), sample_rate))

    final, loop = finish(kind), (0, 0, 0)
    if kind == "continuous":
        loop = loop_points(final, sample_rate)
        if seam_dip_db(final, *loop, sample_rate) >= MAX_SEAM_DIP_DB:   # it would be heard to repeat: never looped
            kind, final, loop = "discrete", finish("discrete"), (0, 0, 0)
    return AtomicSound(
        source_id=recording.recording_id, label=recording.label, phrase=phrase_for(recording.label, recording.phrase),
        kind=kind, origin=recording.origin, license=recording.license, samples=final, sample_rate=sample_rate,
        attribution=recording.attribution, loop=loop,
    )


def quantise(samples: np.ndarray) -> np.ndarray:
    """Samples on the 16-bit grid they are published on (the `sources` audio): clips re-rendered from
    the published sounds are then identical to the generated ones, which `validate` checks."""
    return from_pcm16(to_pcm16(samples))


def to_pcm16(samples: np.ndarray) -> np.ndarray:
    """The 16-bit samples that sounds and clips are stored as (clipped for safety: atomic peaks keep
    every clip below full scale)."""
    scaled = samples * np.float32(32767)
    np.rint(scaled, out=scaled)
    return np.clip(scaled, -32767, 32767, out=scaled).astype(np.int16)


def from_pcm16(pcm: np.ndarray) -> np.ndarray:
    return pcm.astype(np.float32) / np.float32(32767)


def loop_points(samples: np.ndarray, rate: int) -> tuple[int, int, int]:
    """(start, end, crossfade) of a continuous sound's loop: its sustained part (first to last 50 ms frame
    within 10 dB of its median level: onsets, decays and edge silences stay out, so no seam sounds like a
    new event), ended where the tail best matches the head so that tones wrap in phase."""
    frame = max(1, int(LOOP_FRAME_SECONDS * rate))
    power = frame_rms(samples, frame) ** 2
    kept = np.flatnonzero(power >= np.median(power) * 10 ** (SUSTAIN_DB / 10))
    start, stop = int(kept[0] * frame), int(min(len(samples), (kept[-1] + 1) * frame))
    overlap = min(int(LOOP_CROSSFADE_SECONDS * rate), (stop - start) // 4)
    if overlap < 2:
        return start, stop, 0
    head = samples[start:start + overlap].astype(np.float64)
    search = (stop - start) // 4                             # candidate ends: the last quarter of the part
    tails = samples[stop - search - overlap:stop].astype(np.float64)
    from scipy.signal import correlate   # here, not at the top: the CLI parser imports this module

    match = correlate(tails, head, mode="valid", method="fft")
    cumulative = np.concatenate([[0.0], np.cumsum(tails ** 2)])
    energy = cumulative[overlap:] - cumulative[:-overlap]          # each candidate tail's energy
    end = stop - search + int(np.argmax(match / np.sqrt(energy * np.dot(head, head) + 1e-20)))
    return start, end, overlap


def loop_period(samples: np.ndarray, start: int, end: int, overlap: int) -> np.ndarray:
    """One period of the loop: samples[start:end] with its tail crossfaded into its head at equal power
    (constant level for the noise-like textures that continuous sounds are). Tiled, it has no seam."""
    period = samples[start:end - overlap].copy()
    angle = np.linspace(0.0, np.pi / 2, overlap, dtype=np.float32)
    period[:overlap] = samples[start:start + overlap] * np.sin(angle) + samples[end - overlap:end] * np.cos(angle)
    return period


def seam_dip_db(samples: np.ndarray, start: int, end: int, overlap: int, rate: int) -> float:
    """How much quieter a loop's seam is than the sound itself (dB; <= 0: no dip): the quietest 20 ms
    frame of the crossfade against the quietest frame of each other stretch as long (their 10th
    percentile), so a sound's own pauses are no seam but a dropout or a fade at the join is."""
    if overlap == 0:
        return 0.0
    period = loop_period(samples, start, end, overlap)
    frame = max(1, int(SEAM_FRAME_SECONDS * rate))
    power = frame_rms(period, frame).astype(np.float64) ** 2 + 1e-20
    window = max(1, -(-overlap // frame))                     # frames covering the crossfade
    rest = power[window:]
    if len(rest) < window:
        return 0.0
    others = np.lib.stride_tricks.sliding_window_view(rest, window).min(axis=1)
    return float(10 * np.log10(np.percentile(others, 10) / power[:window].min()))


def _balanced_queues(recordings: list[Recording], seed: int) -> dict[str, list[Recording]]:
    queues: dict[str, list[Recording]] = defaultdict(list)
    for recording in sorted(recordings, key=lambda r: r.recording_id):
        queues[recording.label].append(recording)
    rng = np.random.default_rng(seed)
    return {label: [queue[i] for i in rng.permutation(len(queue))] for label, queue in sorted(queues.items())}


def build_bank(source: str | list[Recording], split: str | None = "test", count: int = 200, sample_rate: int = 44100,
               seed: int = 0, skip_bad: bool = False, max_discrete_seconds: float = 3.0,
               progress: bool = True) -> SoundBank:
    """Select `count` recordings of `split` (None: of any split), balanced over classes, as atomic sounds."""
    recordings = open_source(source) if isinstance(source, str) else source
    in_split = [r for r in recordings if split is None or r.split_of() == split]
    if not in_split:
        raise ValueError(f"the source has no recordings for split {split!r} "
                         f"({len(recordings)} recordings in other splits)")
    if len(in_split) < count:
        log.warning("only %d recordings are available for split %r; using all of them instead of %d",
                    len(in_split), split, count)
        count = len(in_split)
    known = [(r.origin, known_bad(r)) for r in in_split if known_bad(r)]
    if known and not skip_bad:      # the source's own errors (a manifest's rows), before any audio is read
        raise BadSourcesError(known)
    queues = _balanced_queues(in_split, seed)
    sounds: list[AtomicSound] = []
    bad: list[tuple[str, str]] = []
    with tqdm(total=count, desc="atomic sounds", unit="sound", disable=not progress) as bar:
        while len(sounds) < count and any(queues.values()):
            for label in list(queues):
                if len(sounds) >= count or not queues[label]:
                    continue
                recording = queues[label].pop(0)
                try:
                    sounds.append(make_atomic(recording, sample_rate, max_discrete_seconds))
                    bar.update()
                except BadAudio as error:
                    bad.append((recording.origin, str(error)))  # the class's next recording stands in
    if bad and not skip_bad:
        raise BadSourcesError(bad)
    for origin, reason in bad:
        log.warning("skipped bad source %s: %s", origin, reason)
    return SoundBank(tuple(sorted(sounds, key=lambda s: s.source_id)), sample_rate, tuple(bad))
