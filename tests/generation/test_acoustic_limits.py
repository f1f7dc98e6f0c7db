"""The worst acoustic input: condition files that are huge, deep, aliased or odd are one line naming the
file, and a chain is judged by what it does to the annotated sounds (audible, not clipped), whatever
its transforms; a draw that would erase or clip one is redrawn, or the condition refused by name."""
import io
import json
import logging

import numpy as np
import pyarrow.parquet as pq
import pytest
import soundfile
import yaml

from reasonaudio.generation.acoustics import GroupChain, condition_from_spec, load_condition
from reasonaudio.generation.acoustics.chain import CLEAR_DB, ClippedUnderCondition, InaudibleUnderCondition, group_chain, group_seed
from reasonaudio.generation.acoustics.spec import MAX_ALIASES, MAX_FILE_BYTES, Condition, ConditionError
from reasonaudio.generation.bank import AtomicSound, SoundBank
from reasonaudio.generation.pipeline import generate
from reasonaudio.core.relations import Event
from reasonaudio.generation.render import render
from reasonaudio.generation.validate import validate
from reasonaudio.cli import main

from ..conftest import small_config

pytest.importorskip("audiomentations")
RATE = 16000
SECONDS = np.arange(RATE * 2) / RATE


def tone(freq: float, peak: float) -> np.ndarray:
    return (peak * np.sin(2 * np.pi * freq * SECONDS)).astype(np.float32)


def condition(*transforms, name="mine") -> Condition:
    return condition_from_spec({"name": name, "transforms": list(transforms)}, "mine.yaml")


def unchecked(*transforms) -> Condition:
    """A condition the spec's bounds never saw: only the chain's own check stands in its way."""
    return Condition("raw", {"name": "raw", "transforms": [{k: {**v, "p": 1.0}} for t in transforms for k, v in t.items()]})


BIG_INTEGER = "1" * 5000
BOMB = "a: &a [x, x]\n" + "".join(f"{n}: &{n} [*{p}, *{p}]\n" for p, n in zip("abcdefghijk", "bcdefghijkl"))


@pytest.mark.parametrize("text, words", [
    ("- Gain: {min_gain_db: -3, max_gain_db: 3}\n", "a condition is a mapping with a `transforms` list"),
    ("[" * 5000 + "]" * 5000, "not valid YAML (nested more than 24 deep"),
    (BOMB + "transforms: []\n", f"not valid YAML (more than {MAX_ALIASES} aliases"),
    (f"transforms:\n  - Gain: {{min_gain_db: {BIG_INTEGER}}}\n", "not valid YAML"),
    ("transforms:\n  - Gain: {min_gain_db: 1.0e+300}\n", "Gain's min_gain_db is 1e+300: it must be within -20 to 6 dB"),
    ("transforms:\n  - RoomSimulator: {calculation_mode: rt60, max_target_rt60: 0.3, max_order: 1e300}\n",
     "RoomSimulator's max_order is '1e300': it must be an integer"),         # YAML 1.1 reads 1e300 as text
    ("transforms:\n  - Gain: {min_gain_db: -3, max_gain_db: 3, p: -0.5}\n", "Gain's p is -0.5: it must be within 0 to 1"),
    ('transforms:\n  - Gain: {min_gain_db: "abc"}\n', "Gain's min_gain_db is 'abc': it must be a number"),
    ("transforms:\n  - Gain: {1: 2}\n", "Gain takes no argument 1"),
    ("transforms:\n  - RoomSimulator: {calculation_mode: rt60, max_target_rt60: 0.3, max_order: 100000}\n",
     "RoomSimulator's max_order is 100000: it must be within 0 to 12"),
    ("transforms:\n  - Aliasing: {min_sample_rate: 8, max_sample_rate: 8}\n", "Aliasing's min_sample_rate is 8"),
    ("transforms:\n" + "  - PolarityInversion: {}\n" * 40, "more than 32 transforms in one condition"),
])
def test_odd_condition_yaml_is_one_line_naming_the_file_and_nothing_is_made(tmp_path, capsys, text, words):
    mine = tmp_path / "mine.yaml"
    mine.write_text(text)
    assert main(["generate", "--out", str(tmp_path / "out"), "--acoustics", str(mine)]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and str(mine) in error and words in error, error
    assert not (tmp_path / "out").exists()


def test_a_huge_or_binary_condition_file_is_refused_before_it_is_read(tmp_path):
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as file:
        file.truncate(2 ** 30)                   # 1 GiB (sparse): only MAX_FILE_BYTES + 1 of it are read
    with pytest.raises(ConditionError, match=f"larger than {MAX_FILE_BYTES // 1024} KiB"):
        load_condition(str(huge))
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"transforms: [\xff\xfe]\n")
    with pytest.raises(ConditionError, match="binary.yaml: not UTF-8 text"):
        load_condition(str(binary))


def test_a_spec_from_a_record_is_bounded_too():
    deep = {"PolarityInversion": {}}
    for _ in range(6):
        deep = {"OneOf": {"transforms": [deep]}}
    with pytest.raises(ConditionError, match="compositions nested more than 4 deep"):
        condition(deep)
    with pytest.raises(ConditionError, match="AddColorNoise's n_fft is 1e\\+20: it must be an integer"):
        condition({"AddColorNoise": {"min_snr_db": 5, "max_snr_db": 10, "n_fft": 1e20}})


@pytest.mark.parametrize("chain, words", [
    (condition({"BitCrush": {"min_bit_depth": 1, "max_bit_depth": 1}}),
     "leaves a sound as digital silence after transform 1 of 1, BitCrush (bit_depth=1)"),
    (unchecked({"LowPassFilter": {"min_cutoff_freq": 5, "max_cutoff_freq": 5}}),    # below the spec's bounds
     "quieter than itself (more than 30 dB: inaudible) after transform 1 of 1, LowPassFilter (rolloff=18, cutoff_freq=5)"),
    (condition({"LowPassFilter": {"min_cutoff_freq": 20, "max_cutoff_freq": 20}}), "after transform 1 of 1, LowPassFilter"),
])
def test_a_draw_that_erases_a_sound_is_refused_naming_the_transform(chain, words):
    with pytest.raises(InaudibleUnderCondition) as error:
        GroupChain(chain, 0, RATE, len(SECONDS), [tone(440, 0.2)])
    assert words in str(error.value)


@pytest.mark.parametrize("chain, peak, words", [
    (condition(*[{"Gain": {"min_gain_db": 6, "max_gain_db": 6}}] * 6), 0.3,       # each within the bounds
     "leaves clip 1 of 2 peaking at 3.15 times full scale (from 0.05) after transform 5 of 6, Gain"),
    (condition({"LowShelfFilter": {"min_gain_db": 18, "max_gain_db": 18, "min_center_freq": 1000,
                                   "max_center_freq": 1000}}), 0.3,
     "leaves clip 2 of 2 peaking at 2.16 times full scale (from 0.30) after transform 1 of 1, LowShelfFilter"),
    (condition({"AddGaussianSNR": {"min_snr_db": 0, "max_snr_db": 0}}), 0.95,     # noise as loud as the sound
     "leaves clip 2 of 2 peaking at 1.74 times full scale (from 0.95) after transform 1 of 1, AddGaussianSNR (noise_std=0.21"),
])
def test_a_draw_that_clips_a_clip_is_refused_naming_the_transform(chain, peak, words):
    with pytest.raises(ClippedUnderCondition) as error:
        GroupChain(chain, 0, RATE, len(SECONDS), [tone(200, 0.3)[:RATE]], clips=[tone(200, 0.05), tone(200, peak)])
    assert words in str(error.value), str(error.value)


def test_a_checked_clip_is_rendered_once_and_as_a_fresh_run_renders_it():
    chain = condition({"Gain": {"min_gain_db": 3, "max_gain_db": 6}}, {"AddGaussianSNR": {"min_snr_db": 10, "max_snr_db": 20}})
    clips = [tone(200, 0.2), tone(300, 0.2)]
    drawn = GroupChain(chain, 7, RATE, len(SECONDS), [clips[0][:RATE]], clips=clips)
    fresh = GroupChain(chain, 7, RATE, len(SECONDS), [clips[0][:RATE]])
    for clip in clips:
        kept = drawn(clip.copy())
        assert np.array_equal(kept, fresh(clip)) and np.array_equal(drawn(clip), kept)   # same bytes either way
        assert np.abs(kept).max() < 1.0


def test_a_checked_result_is_handed_out_once_so_changing_it_in_place_changes_no_other():
    """validate scales what it is handed in place; a group holding one timeline twice gets two arrays."""
    chain = condition({"Gain": {"min_gain_db": 3, "max_gain_db": 6}})
    clips = [tone(200, 0.2), tone(200, 0.2)]
    drawn = GroupChain(chain, 7, RATE, len(SECONDS), [clips[0][:RATE]], clips=clips)
    expected = GroupChain(chain, 7, RATE, len(SECONDS), [clips[0][:RATE]])(clips[0])
    first = drawn.checked(0)
    assert np.array_equal(first, expected) and drawn.checked(0) is None
    first *= 0
    second = drawn(clips[0])                  # by content: the second copy's own result
    assert np.array_equal(second, expected) and second is not first
    assert drawn.checked(1) is None and np.array_equal(drawn(clips[0]), expected)   # then computed afresh


def test_a_quiet_frame_may_go_but_not_one_a_sound_is_clearly_heard_in():
    crush = condition({"BitCrush": {"min_bit_depth": 5, "max_bit_depth": 5}})      # silences |x| < 0.029
    sound = tone(440, 0.2)[:RATE]
    sound[RATE // 2:] *= 10 ** (-26 / 20)                # a tail 26 dB down: heard, not clearly; it may go
    assert np.abs(GroupChain(crush, 0, RATE, RATE, []).level_after(sound)[RATE // 2:]).max() == 0
    GroupChain(crush, 0, RATE, RATE, [sound])
    sound[4000:4160] *= 10 ** (-(CLEAR_DB - 2) / 20)     # one frame 18 dB down: clearly heard, and erased
    with pytest.raises(InaudibleUnderCondition, match="digital silence in 1 of the 50 10 ms frames it is clearly heard in"):
        GroupChain(crush, 0, RATE, RATE, [sound])


def _bank(*sounds) -> SoundBank:
    return SoundBank(tuple(AtomicSound(name, name, name, "discrete", name, "CC0", samples, RATE)
                           for name, samples in sounds), RATE)


def test_a_group_is_redrawn_when_a_draw_clips_and_refused_by_name_when_none_fits():
    bank = _bank(("beep", tone(1000, 0.35)[:RATE]), ("hum", tone(300, 0.35)[:RATE]))
    timelines = [(Event("beep", "beep", 0.5, 1.5, 0.0), Event("hum", "hum", 1.0, 2.0, 0.0)),
                 (Event("hum", "hum", 0.5, 1.5, 0.0), Event("beep", "beep", 1.0, 2.0, 0.0))]
    clips = [render(timeline, bank, 2.0) for timeline in timelines]
    louder = condition({"Gain": {"min_gain_db": 0, "max_gain_db": 6}})
    with pytest.raises(ClippedUnderCondition):             # the group's own seed draws a gain that clips
        GroupChain(louder, group_seed(0, "test", "q", "mine"), RATE, 2 * RATE, [], clips=clips)
    drawn = group_chain(louder, 0, "test", "q", timelines, bank, 2.0)
    assert drawn.seed != group_seed(0, "test", "q", "mine")
    assert drawn.parameters() == group_chain(louder, 0, "test", "q", timelines, bank, 2.0).parameters()
    assert all(np.abs(drawn(clip)).max() < 1.0 for clip in clips)
    loud = condition(*[{"Gain": {"min_gain_db": 6, "max_gain_db": 6}}] * 3)
    with pytest.raises(ClippedUnderCondition, match=r"group q: none of 10 draws fits; the last: condition 'mine' leaves "
                                                    r"clip 1 of 2 peaking at 5.53 times full scale \(from 0.70\) after "
                                                    r"transform 1 of 3, Gain"):
        group_chain(loud, 0, "test", "q", timelines, bank, 2.0)


def _erased_or_clipped(folder, config: str) -> tuple[int, int, int]:
    """(clips at full scale, annotated events with a frame clearly heard in the clean mix (within CLEAR_DB of
    the event's loudest) left digital silence, events) of `config` against the build's clean `corpus`."""
    clean, changed = (pq.read_table(next((folder / name).glob("test-*.parquet")), columns=["audio", "events"]).to_pylist()
                      for name in ("corpus", config))
    clipped = erased = events = 0
    for before, after in zip(clean, changed):
        dry, rate = soundfile.read(io.BytesIO(before["audio"]["bytes"]), dtype="int16")
        wet, _ = soundfile.read(io.BytesIO(after["audio"]["bytes"]), dtype="int16")
        clipped += int(np.abs(wet.astype(np.int32)).max() >= 32767)
        for event in after["events"]:
            start, stop = int(event["onset"] * rate), int(event["offset"] * rate)
            stop -= (stop - start) % 160
            frames = [x[start:stop].astype(np.float64).reshape(-1, 160) for x in (dry, wet)]
            level = np.sqrt(np.mean(frames[0] ** 2, axis=1))
            clear = level >= level.max() * 10 ** (-CLEAR_DB / 20)
            erased += int(np.any(clear & (np.abs(frames[1]).max(axis=1) == 0)))
            events += 1
    return clipped, erased, events


# A chain that checked only level loss would let each through: the first four erase events or clip clips (a
# brown noise's dips erase events), the fifth clips clips.
@pytest.mark.parametrize("transforms, refusal", [
    ([{"BitCrush": {"min_bit_depth": 1, "max_bit_depth": 1}}], "would leave 89 of the bank's 89 sounds inaudible"),
    ([{"Gain": {"min_gain_db": 6, "max_gain_db": 6}}] * 6, "none of 10 draws fits; the last: condition 'mine' leaves clip"),
    ([{"LowShelfFilter": {"min_gain_db": 18, "max_gain_db": 18}}], "after transform 1 of 1, LowShelfFilter"),
    ([{"BitCrush": {"min_bit_depth": 6, "max_bit_depth": 6}}],
     r"with digital silence in \d+ of the \d+ 10 ms frames (its sound at [\d.]+-[\d.]+ s|it) is clearly heard in "
     "after transform 1 of 1, BitCrush"),           # in a clip, or in the quietest of a group's sounds alone
    ([{"Gain": {"min_gain_db": 3, "max_gain_db": 6}}, {"LowShelfFilter": {"min_gain_db": 3, "max_gain_db": 6}}], None),
    ([{"BitCrush": {"min_bit_depth": 8, "max_bit_depth": 8}}], None),
])
@pytest.mark.slow
def test_no_erased_or_clipped_annotated_sound_survives_a_build(tmp_path, transforms, refusal):
    mine = tmp_path / "mine.yaml"
    mine.write_text(yaml.safe_dump({"transforms": transforms}))
    config = small_config(tmp_path / "out", queries_per_task=2, acoustics=("clean", str(mine)))
    if refusal:
        with pytest.raises(ValueError, match=refusal):         # a ConditionError or a DrawRefused: exit 2
            generate(config)
        return
    generate(config)
    clipped, erased, events = _erased_or_clipped(tmp_path / "out", "corpus_mine")
    assert (clipped, erased) == (0, 0) and events > 200
    if "Gain" in transforms[0]:                                # some groups' first draws clipped
        rows = pq.read_table(next((tmp_path / "out" / "corpus_mine").glob("test-*.parquet"))).to_pylist()
        assert any(json.loads(r["acoustics"])["seed"] != group_seed(config.seed, "test", r["query_id"], "mine")
                   for r in rows)
    assert validate(tmp_path / "out", workers=1) == []        # every draw, redrawn ones too, re-derived


def test_sounds_a_condition_hides_are_said_in_one_line(tmp_path, caplog):
    with caplog.at_level(logging.WARNING):
        record = generate(small_config(tmp_path / "tel", queries_per_task=1, acoustics=("telephone",)))
    lines = [r.getMessage() for r in caplog.records if "left out" in r.getMessage()]
    assert len(lines) == 1 and "as inaudible under 'telephone' (" in lines[0], lines
    assert f"left out {len(record['skipped_sources'])} of the bank's" in lines[0]
