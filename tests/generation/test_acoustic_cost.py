"""What the acoustic conditions compute faster computes what it did, or, where the audio changed
on purpose, under a new version of the condition."""
import hashlib
from types import SimpleNamespace

import numpy as np
import pytest

from reasonaudio.generation.acoustics import ConditionError, GroupChain, condition_from_spec, load_condition, seeded

pytest.importorskip("audiomentations")


@pytest.mark.parametrize("name, band", [
    ("BandPassFilter", {"min_center_freq": 300, "max_center_freq": 3000, "min_bandwidth_fraction": 0.5,
                        "max_bandwidth_fraction": 1.9}),
    ("BandStopFilter", {"min_center_freq": 300, "max_center_freq": 3000}),
    ("HighPassFilter", {"min_cutoff_freq": 20, "max_cutoff_freq": 2000}),
    ("LowPassFilter", {"min_cutoff_freq": 1000, "max_cutoff_freq": 20000}),    # above 4 kHz: clamped below Nyquist
])
@pytest.mark.parametrize("zero_phase", [False, True])
def test_a_filter_designed_once_filters_as_audiomentations_does(name, band, zero_phase):
    import audiomentations

    from reasonaudio.generation.acoustics.filters import DESIGNED_ONCE

    rng = np.random.default_rng(0)
    for seed, rate in enumerate([8000, 16000, 44100] * 2):
        clip = (rng.standard_normal(rate) * 0.1 + 0.05).astype(np.float32)    # an offset: the initial state counts
        outputs = []
        for kind in (getattr(audiomentations, name), DESIGNED_ONCE[name]):
            transform = kind(**band, min_rolloff=12, max_rolloff=36, zero_phase=zero_phase, p=1.0)
            with seeded(seed):
                transform.randomize_parameters(clip, rate)
            transform.freeze_parameters()
            outputs.append([transform(clip, rate) for _ in range(2)])           # the second from the kept design
        (theirs, _), (ours, again) = outputs
        assert ours.dtype == np.float32 and np.array_equal(ours, theirs) and np.array_equal(again, theirs)


def _noise_digest(version: int | None) -> str:
    """The noisy and wild presets' audio for six seeds, at `version` (None: the spec names none)."""
    digest, rate = hashlib.sha256(), 16000
    clip = (np.random.default_rng(0).standard_normal(rate * 4) * 0.1).astype(np.float32)
    for name in ("noisy", "wild"):
        spec = {key: value for key, value in load_condition(name).spec.items() if key != "version"}
        condition = condition_from_spec({**spec, **({"version": version} if version else {})})
        for seed in range(6):
            digest.update(GroupChain(condition, seed, rate, len(clip), [clip[:rate] * 0.5])(clip).tobytes())
    return digest.hexdigest()[:16]


def test_a_condition_of_version_1_keeps_audiomentations_noise_to_the_sample():
    """A spec without a version (every record written before version 2) makes the audio it made: the
    digest is the one version 1's code computes."""
    import audiomentations

    from reasonaudio.generation.acoustics.chain import transform_class

    assert transform_class("AddColorNoise") is audiomentations.AddColorNoise
    assert transform_class("AddGaussianSNR", 1) is audiomentations.AddGaussianSNR
    assert _noise_digest(None) == _noise_digest(1) == "e6059ba3e1554f50"
    assert _noise_digest(2) != "e6059ba3e1554f50"


@pytest.mark.parametrize("f_decay, a_weighting", [(-6.0, False), (-3.0, False), (4.5, False), (0.0, True)])
def test_version_2_colour_noise_is_audiomentations_colouring_in_float32(f_decay, a_weighting):
    """From the same white noise and phases, the float32 colouring gives audiomentations' float64 noise to
    float32 rounding; drawn, it is float32 at unit RMS, and white noise (f_decay 0) as drawn."""
    from audiomentations.augmentations.add_color_noise import generate_decaying_white_noise

    from reasonaudio.generation.acoustics.noise import color_noise, coloured, decay_response

    rate, length = 16000, 16000 * 4
    with seeded(1):
        theirs = generate_decaying_white_noise(length, f_decay, rate, a_weighting, 128)
    with seeded(1):                                # what audiomentations drew, in its order
        white, phases = np.random.normal(0, 1, length), np.random.uniform(0, 2 * np.pi, 65)
    ours = coloured(white.astype(np.float32), decay_response(f_decay, rate, a_weighting, 128, phases))
    assert ours.dtype == np.float32 and np.abs(ours - theirs).max() <= 1e-5 * np.abs(theirs).max()
    drawn = color_noise(length, f_decay, rate, a_weighting, 128)
    assert drawn.dtype == np.float32 and np.sqrt(np.mean(np.square(drawn, dtype=np.float64))) == pytest.approx(1.0)
    white = color_noise(length, 0.0, rate, False, 128)
    assert white.dtype == np.float32 and np.std(white) == pytest.approx(1.0, rel=0.02)


def test_version_2_gaussian_noise_is_at_the_drawn_level_and_reproducible():
    from reasonaudio.generation.acoustics.noise import Float32GaussianSNR

    transform = Float32GaussianSNR(min_snr_db=10, max_snr_db=10, p=1.0)
    silence = np.zeros(160000, np.float32)
    with seeded(3):
        transform.randomize_parameters(np.ones(160000, np.float32), 16000)
    transform.freeze_parameters()
    with seeded(4):
        noise = transform(silence, 16000)
    with seeded(4):
        again = transform(silence, 16000)
    assert noise.dtype == np.float32 and np.array_equal(noise, again)
    assert np.std(noise) == pytest.approx(transform.parameters["noise_std"], rel=0.01)


def test_a_preset_whose_audio_changed_names_its_new_version():
    """noisy and wild draw their noise in float32 from version 2; the others make the audio version 1 made
    (they name none: their fingerprints are unchanged). A version the code does not know is refused."""
    assert {name: load_condition(name).version for name in ("clean", "noisy", "reverberant", "telephone", "wild")} \
        == {"clean": 1, "noisy": 2, "reverberant": 1, "telephone": 1, "wild": 2}
    assert "version" not in load_condition("telephone").spec and load_condition("noisy").spec["version"] == 2
    for version, words in [(3, "version is 3: it must be within 1 to 2"), ("2", "version is '2': it must be an integer")]:
        with pytest.raises(ConditionError, match=words):
            condition_from_spec({"name": "mine", "version": version, "transforms": [{"PolarityInversion": {}}]})


def test_the_bank_check_measures_each_sound_once_for_all_draws(monkeypatch):
    """A bank sound's own level is the same in every draw: measured once, only what each draw leaves of it
    is measured per draw, at two places on the chain's frame grid (the verdicts are those of measuring it
    every time)."""
    import reasonaudio.generation.acoustics.chain as chain
    from reasonaudio.generation.bank import rms_of

    rate, seconds = 16000, np.arange(16000) / 16000
    sounds = [SimpleNamespace(source_id=f"s{k}", label=f"tone {k}", kind="continuous",
                              samples=(0.5 * np.sin(2 * np.pi * (500 + 200 * k) * seconds)).astype(np.float32))
              for k in range(5)]
    condition = condition_from_spec({"name": "band", "transforms": [{"BandPassFilter": {
        "min_center_freq": 1000, "max_center_freq": 1100, "min_bandwidth_fraction": 1.5, "max_bandwidth_fraction": 1.6}}]})
    measured = []
    monkeypatch.setattr(chain, "audible_rms", lambda samples, rate: measured.append(1) or rms_of(samples))
    assert chain.inaudible_sounds([condition], sounds, 0, "test", rate, draws=4) == {}
    assert len(measured) == len(sounds) + 4 * 2 * len(sounds)


def test_a_bank_check_draw_that_repeats_one_on_the_same_sounds_is_not_run_again(monkeypatch):
    """A fixed band draws the same filter four times: the first draw leaves the hum out, the second runs on
    the sounds left (another chunk), the last two repeat the second and are not run; the verdicts stand.
    Each draw hears its chunk twice, in both orders (two places on a codec's frame grid)."""
    import reasonaudio.generation.acoustics.chain as chain

    rate, seconds = 16000, np.arange(16000) / 16000
    tones = {"hum": 40, **{f"tone {k}": 500 + 200 * k for k in range(4)}}
    sounds = [SimpleNamespace(source_id=label, label=label, kind="continuous",
                              samples=(0.5 * np.sin(2 * np.pi * hertz * seconds)).astype(np.float32))
              for label, hertz in tones.items()]
    condition = condition_from_spec({"name": "band", "transforms": [{"BandPassFilter": {
        "min_center_freq": 1850, "max_center_freq": 1850, "min_bandwidth_fraction": 1.6757,
        "max_bandwidth_fraction": 1.6757, "min_rolloff": 24, "max_rolloff": 24}}]})
    passes, heard = [], chain.GroupChain.heard
    monkeypatch.setattr(chain.GroupChain, "heard", lambda self, *a, **k: passes.append(len(a[0])) or heard(self, *a, **k))
    assert list(chain.inaudible_sounds([condition], sounds, 0, "test", rate, draws=4)) == ["hum"]
    assert [count for count in passes if count] == [5, 5, 4, 4]   # (a draw first hears no pieces of a group)
