"""Renderer: an event timeline and the sound bank make one clip; FLAC bytes out."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import soundfile

from reasonaudio.core.relations import Event

from .bank import FRAME_SECONDS, TRIM_DB, audible_frames, fade, frame_rms, loop_period, to_pcm16

RECORDING = "recording"     # the kind of a bank entry that is a whole natural recording (generation/natural.py)
LEVEL_GAP_DB = 20.0         # two sounds heard together are within this much of each other
HEARING_SECONDS = 0.1       # the window a level is heard over (the ear integrates loudness over ~100 ms)

def fit(sound, length: int) -> np.ndarray:
    """A continuous sound as exactly `length` samples: cropped, or its loop period (`AtomicSound.loop`:
    the sustained part, wrapped with an equal-power crossfade where the tail matches the head) tiled."""
    if len(sound.samples) >= length:
        return sound.samples[:length]
    period = loop_period(sound.samples, *sound.loop)
    return np.tile(period, length // len(period) + 1)[:length]


def event_piece(event: Event, bank, clip_length: int) -> tuple[int, np.ndarray]:
    """Where an event starts (sample) and the faded, gained samples it adds to the mix."""
    rate, sound = bank.sample_rate, bank[event.source_id]
    start, stop = int(round(event.onset * rate)), min(int(round(event.offset * rate)), clip_length)
    piece = fit(sound, stop - start) if sound.kind == "continuous" else sound.samples[: stop - start]
    return start, fade(piece, rate) * np.float32(10 ** (event.gain_db / 20))


def render(events: tuple[Event, ...], bank, clip_seconds: float) -> np.ndarray:
    """The mix of the events' sounds; a natural recording (`natural.RECORDING`), whose events are its own
    annotations, is the clip as recorded."""
    clip = np.zeros(int(round(clip_seconds * bank.sample_rate)), dtype=np.float32)
    for source_id in sorted({e.source_id for e in events if bank[e.source_id].kind == RECORDING}):
        recorded = bank[source_id].samples[:len(clip)]
        clip[:len(recorded)] += recorded
    for event in events:
        if bank[event.source_id].kind != RECORDING:
            start, piece = event_piece(event, bank, len(clip))
            clip[start:start + len(piece)] += piece
    return clip


def quietest_rms(events, bank, clip_seconds: float) -> float:
    """The RMS of the quietest of these events while it sounds: the level acoustic conditions measure
    noise against, so that every annotated sound stays above the noise by the condition's SNR."""
    length = int(round(clip_seconds * bank.sample_rate))
    return min(float(np.sqrt(np.mean(np.square(event_piece(event, bank, length)[1], dtype=np.float64))))
               for event in set(events))


# where FLAC is encoded: memory-backed where there is one
SCRATCH = Path("/dev/shm") if Path("/dev/shm").is_dir() else Path(tempfile.gettempdir())


def heard_together(bank, x: Event, y: Event) -> float:
    """The longest stretch (seconds) in which both events are heard together: each within TRIM_DB of its own
    loudest moment, and within LEVEL_GAP_DB of the other (a sound 30 dB under another is masked, so two
    overlapping sounds may be heard together for only part of their overlap). Levels are the ear's: power over
    HEARING_SECONDS windows every FRAME_SECONDS, so a click train's gaps between clicks, or a single 10 ms dip, do
    not cut the stretch (measured frame by frame, where the frame grid fell would flip verdicts)."""
    frame, width = int(FRAME_SECONDS * bank.sample_rate), round(HEARING_SECONDS / FRAME_SECONDS)
    start, end = max(x.onset, y.onset), min(x.offset, y.offset)
    if end <= start:
        return 0.0
    span, window = slice(round(start / FRAME_SECONDS), round(end / FRAME_SECONDS)), np.full(width, 1 / width)
    levels, heard = [], []
    for event in (x, y):
        power = frame_rms(render((event,), bank, float(event.offset) + 0.01), frame) ** 2
        level = 10 * np.log10(np.maximum(np.convolve(power, window, mode="same"), 1e-24))
        levels.append(level[span])
        heard.append(level[span] >= level.max() + TRIM_DB)
    both = heard[0] & heard[1] & (np.abs(levels[0] - levels[1]) <= LEVEL_GAP_DB)
    longest = run = 0
    for frame_heard in both:
        run = run + 1 if frame_heard else 0
        longest = max(longest, run)
    return float(longest * FRAME_SECONDS)


def heard_apart(bank, events) -> float:
    """The shortest pause (seconds) between two neighbouring occurrences of one class as heard: its events
    rendered alone, each 10 ms frame heard as the bank hears it (`bank.audible_frames`), a pause from the last
    heard frame of one occurrence to the first of the next; inf for one occurrence. What a listener counts apart."""
    events = sorted(events, key=lambda e: e.onset)
    if len(events) < 2:
        return float("inf")
    alone = render(tuple(events), bank, float(events[-1].offset) + 0.01)
    heard = np.flatnonzero(audible_frames(frame_rms(alone, int(FRAME_SECONDS * bank.sample_rate))))

    def frames(event):
        return heard[(heard >= int(event.onset / FRAME_SECONDS)) & (heard <= int(event.offset / FRAME_SECONDS))]

    spans = [frames(event) for event in events]
    return min(float((later[0] - earlier[-1] - 1) * FRAME_SECONDS) if len(earlier) and len(later) else float("inf")
               for earlier, later in zip(spans, spans[1:]))


@contextmanager
def _scratch_file():
    """A descriptor of a private file (exclusive create, mode 0600, in memory-backed /dev/shm where there
    is one) that is unlinked before anything is written to it: no path can be planted in its way, and
    nothing is left behind on any exit, a kill included. libsndfile reads and writes through it directly
    (a Python buffer costs a callback per FLAC frame: a quarter of a decode's time)."""
    descriptor, path = tempfile.mkstemp(prefix="reasonaudio-", suffix=".flac", dir=SCRATCH)
    try:
        os.unlink(path)
        yield descriptor
    finally:
        os.close(descriptor)


def encode_flac(samples: np.ndarray, rate: int) -> bytes:
    """16-bit FLAC bytes (16-bit in: float input would cost a conversion)."""
    with _scratch_file() as descriptor:
        soundfile.write(descriptor, to_pcm16(samples), rate, format="FLAC", subtype="PCM_16",
                        compression_level=0.0, closefd=False)
        return os.pread(descriptor, os.fstat(descriptor).st_size, 0)


def decode_pcm16(data: bytes) -> tuple[np.ndarray, int]:
    """The 16-bit samples and rate of encoded audio bytes (FLAC, WAV ...)."""
    with _scratch_file() as descriptor:
        os.pwrite(descriptor, data, 0)
        return soundfile.read(descriptor, dtype="int16", closefd=False)
