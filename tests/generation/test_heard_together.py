"""`render.heard_together`: how long two overlapping sounds are heard together at a stretch (each audible,
within 20 dB of the other), the measure every planned overlap positive and hard negative must reach 0.5 s on."""
from dataclasses import replace

import numpy as np
import pytest

from reasonaudio.generation.bank import AtomicSound, SoundBank
from reasonaudio.core.relations import Event
from reasonaudio.generation.render import heard_together

RATE = 16000


def _bank(**samples) -> SoundBank:
    return SoundBank(tuple(AtomicSound(name, name, name, "continuous", "test", "CC0", values.astype(np.float32), RATE)
                           for name, values in samples.items()), RATE)


def _tone(seconds: float, level_db: float = -20.0) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    return 10 ** (level_db / 20) * np.sqrt(2) * np.sin(2 * np.pi * 440 * t)


def _clicks(seconds: float, every: float = 0.08) -> np.ndarray:
    """A click train: a 4 ms click every `every` seconds, silence between."""
    clicks = np.zeros(int(seconds * RATE))
    clicks[::int(every * RATE)] = 1.0
    return 0.5 * np.convolve(clicks, np.exp(-np.arange(int(0.004 * RATE)) / (0.001 * RATE)))[:len(clicks)]


def test_a_click_train_over_a_tone_is_heard_together_throughout():
    """Between clicks a 10 ms frame is silent; the ear hears the train as one sound (levels over 100 ms)."""
    bank = _bank(tone=_tone(3.0), clicks=_clicks(3.0))
    together = heard_together(bank, Event("tone", "tone", 1.0, 4.0, 0.0), Event("clicks", "clicks", 1.5, 3.5, 0.0))
    assert together >= 1.8


def test_the_frame_grid_does_not_decide_the_verdict():
    """A sound with a 15 ms dropout every 0.2 s: a 10 ms frame wholly inside a dropout is silent or, where the grid
    splits it, heard; judged frame by frame, the stretch was 0.2 s or 1.5 s by where the grid fell."""
    gappy = _tone(2.0, -25.0)
    for start in np.arange(0.1, 2.0, 0.2):
        gappy[int(start * RATE):int((start + 0.015) * RATE)] = 0.0
    bank = _bank(tone=_tone(3.0), gappy=gappy)
    base = (Event("tone", "tone", 1.0, 4.0, 0.0), Event("gappy", "gappy", 2.0, 3.5, 0.0))
    measured = [heard_together(bank, *(replace(e, onset=e.onset + s / 1000, offset=e.offset + s / 1000) for e in base))
                for s in range(10)]
    assert min(measured) >= 1.4, measured


@pytest.mark.parametrize("gap_db, heard", [(10.0, True), (30.0, False)])
def test_a_sound_far_under_another_is_not_heard_with_it(gap_db, heard):
    bank = _bank(loud=_tone(3.0), quiet=_tone(3.0, -20.0 - gap_db) * np.sign(np.sin(np.arange(3 * RATE) / 7)))
    together = heard_together(bank, Event("loud", "loud", 0.0, 3.0, 0.0), Event("quiet", "quiet", 0.5, 2.5, 0.0))
    assert (together >= 0.5) is heard, together
