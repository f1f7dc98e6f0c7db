"""Acoustic conditions: the allow-list, one draw per candidate group, robustness builds, validation,
scoring per condition and augmentation in training."""
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from reasonaudio.generation.acoustics import (MAX_RT60, ConditionError, GroupChain, as_condition, condition_from_spec,
                                  load_condition, presets)
from reasonaudio.cli import main
from reasonaudio.generation.pipeline import generate
from reasonaudio.generation.validate import validate

from ..conftest import killed_after, small_config

pytest.importorskip("audiomentations")
ROOM = {"calculation_mode": "rt60", "min_target_rt60": 0.15, "max_target_rt60": 0.3, "max_order": 6,
        "use_ray_tracing": False}


def spec(*transforms):
    return {"name": "mine", "transforms": list(transforms)}


@pytest.fixture(scope="module")
def robust(tmp_path_factory) -> Path:
    """Test and train splits under every preset (clean in `corpus`, the others in corpus_<name>)."""
    out = tmp_path_factory.mktemp("robust")
    for split in ("test", "train"):
        generate(small_config(out, split=split, queries_per_task=3, acoustics=("all",), workers=2))
    return out


def test_every_preset_passes_the_rules_and_clean_is_empty():
    assert set(presets()) == {"clean", "noisy", "reverberant", "telephone", "wild"}
    assert load_condition("clean").clean
    assert all(not load_condition(name).clean for name in presets() if name != "clean")


@pytest.mark.parametrize("item, words", [
    ({"TimeStretch": {}}, "TimeStretch is refused: it stretches time"),
    ({"Shift": {}}, "Shift is refused: it moves the audio in time"),
    ({"TimeMask": {}}, "TimeMask is refused"),
    ({"OneOf": {"transforms": [{"PolarityInversion": {}}, {"Reverse": {}}]}}, "transforms[0].OneOf.transforms[1]: Reverse is refused"),
    ({"Normalize": {}}, "versions of a minimal pair would differ in level"),
    ({"ClippingDistortion": {}}, "at its own percentile"),
    ({"AddGaussianNoise": {}}, "use AddGaussianSNR"),
    ({"AddColorNoise": {"min_snr_db": -10, "max_snr_db": 5}}, "would hide it"),
    ({"Gain": {"min_gain_db": -60, "max_gain_db": 0}}, "Gain's min_gain_db is -60: it must be within -20 to 6 dB"),
    ({"Gain": {"min_gain_db": 0}}, "Gain's max_gain_db (audiomentations' default) is 12.0"),
    ({"RoomSimulator": {**ROOM, "use_ray_tracing": True}}, "ray tracing"),
    ({"RoomSimulator": {**ROOM, "max_target_rt60": float("nan")}}, "max_target_rt60 is nan"),
    ({"Compose": {"shuffle": True, "transforms": [{"PolarityInversion": {}}]}}, "keep their order"),
    ({"SomeOf": {"num_transforms": 3, "transforms": [{"PolarityInversion": {}}]}}, "audiomentations refuses it"),
    ({"Gain": [1, 2]}, "must be a mapping"),
    ({"Trumpet": {}}, "not on the allow-list"),
    ({"RoomSimulator": {**ROOM, "max_target_rt60": 0.8}}, f"within 0.05 to {MAX_RT60:g} s"),
    ({"RoomSimulator": {**ROOM, "calculation_mode": "absorption"}}, "calculation_mode: rt60"),
    ({"Mp3Compression": {"backend": "lameenc"}}, "delay the audio"),
    ({"Compose": {"p": 0.5, "transforms": [{"PolarityInversion": {}}]}}, "set p on its transforms"),
    ({"AddGaussianSNR": {"min_snr_db": 30, "max_snr_db": 5}}, "min_snr_db (30) is above its max_snr_db (5)"),
])
def test_a_transform_that_breaks_an_annotation_is_refused_by_name_with_the_reason(item, words):
    with pytest.raises(ConditionError, match=None) as error:
        condition_from_spec(spec(item), "mine.yaml")
    assert words in str(error.value) and "mine.yaml" in str(error.value)


def test_a_user_yaml_is_checked_and_a_forbidden_transform_refused_from_the_cli(tmp_path, capsys):
    mine = tmp_path / "mine.yaml"
    mine.write_text("name: mine\ntransforms:\n  - AddGaussianSNR: {min_snr_db: 10, max_snr_db: 20}\n"
                    "  - PitchShift: {min_semitones: -2, max_semitones: 2}\n")
    assert main(["generate", "--out", str(tmp_path / "out"), "--acoustics", str(mine)]) == 2
    assert "transforms[1]: PitchShift is refused" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    mine.write_text("transforms:\n  - AddGaussianSNR: {min_snr_db: 10, max_snr_db: 20}\n")
    assert load_condition(str(mine)).name == "mine"       # named after the file when the YAML does not say


def test_transform_objects_pass_the_same_rules():
    from audiomentations import AddGaussianSNR, Compose, Shift

    assert not as_condition(Compose([AddGaussianSNR(p=1.0)])).clean
    with pytest.raises(ConditionError, match="Shift is refused"):
        as_condition(Compose([AddGaussianSNR(), Shift()]))


@pytest.mark.parametrize("name", ["noisy", "reverberant", "telephone", "wild"])
def test_one_draw_per_group_is_reproducible_and_the_same_for_every_clip(name):
    rate, rng = 16000, np.random.default_rng(0)
    clips = [(rng.standard_normal(rate * 4) * 0.1).astype(np.float32) for _ in range(2)]
    condition = load_condition(name)
    for seed in range(4):
        chain = GroupChain(condition, seed, rate, len(clips[0]), [clips[0][:rate] * 0.5])
        first, second = chain(clips[0]), chain(clips[1])
        again = GroupChain(condition, seed, rate, len(clips[0]), [clips[0][:rate] * 0.5])
        assert np.array_equal(again(clips[0]), first) and again.parameters() == chain.parameters()
        assert first.shape == clips[0].shape and first.dtype == np.float32
        if all(step["transform"] in ("AddColorNoise", "AddGaussianSNR") for step in chain.parameters()["transforms"]):
            assert np.allclose(first - clips[0], second - clips[1], atol=1e-6)    # the same noise waveform
        rooms = [s for s in chain.parameters()["transforms"] if s["transform"] == "RoomSimulator"]
        assert all(room["rt60"] <= MAX_RT60 for room in rooms)


def test_noise_stays_below_the_quietest_sound_as_the_chain_leaves_it():
    rate, seconds = 16000, np.arange(16000) / 16000
    hum = (0.3 * np.sin(2 * np.pi * 250 * seconds)).astype(np.float32)       # just below the telephone band
    whistle = (0.05 * np.sin(2 * np.pi * 1500 * seconds)).astype(np.float32)
    condition = condition_from_spec(spec({"BandPassFilter": {"min_center_freq": 1850, "max_center_freq": 1850,
                                                             "min_bandwidth_fraction": 1.6757,
                                                             "max_bandwidth_fraction": 1.6757}},
                                         {"AddGaussianSNR": {"min_snr_db": 5, "max_snr_db": 5}}))
    for seed in range(3):
        chain = GroupChain(condition, seed, rate, rate, [hum, whistle])
        quietest = min(np.sqrt(np.mean(chain.level_after(x).astype(np.float64) ** 2)) for x in (hum, whistle))
        assert chain.reference_rms == pytest.approx(quietest)
        noise = chain(np.zeros(rate, np.float32)) - chain.level_after(np.zeros(rate, np.float32))
        assert 20 * np.log10(quietest / np.sqrt(np.mean(noise.astype(np.float64) ** 2))) >= 5 - 0.2
    rumble = (0.3 * np.sin(2 * np.pi * 40 * seconds)).astype(np.float32)
    with pytest.raises(ValueError, match="inaudible"):
        GroupChain(condition, 0, rate, rate, [rumble, whistle])


@pytest.mark.slow
def test_a_bank_sound_a_condition_would_hide_is_left_out_and_listed(tmp_path):
    record = generate(small_config(tmp_path / "tel", queries_per_task=2, acoustics=("telephone",)))
    skipped = {s["reason"] for s in record["skipped_sources"]}
    assert skipped and all(reason.startswith("condition 'telephone' leaves '") for reason in skipped)
    assert validate(tmp_path / "tel", workers=2) == []


@pytest.mark.slow
def test_a_robustness_build_is_valid_shares_its_tables_and_keeps_clean_byte_identical(robust, tmp_path):
    record = json.loads((robust / ".reasonaudio" / "test.json").read_text())
    assert record["acoustics"] == {"corpus": "clean", "corpus_noisy": "noisy", "corpus_reverberant": "reverberant",
                                   "corpus_telephone": "telephone", "corpus_wild": "wild"}
    assert validate(robust, workers=2) == []
    card = (robust / "README.md").read_text()      # a preset whose audio changed says its version
    assert "| `corpus_noisy` | noisy (version 2) |" in card and "| `corpus_telephone` | telephone |" in card
    clean = pq.read_table(next((robust / "corpus").glob("test-*.parquet")))
    plain, noisy = tmp_path / "plain", tmp_path / "noisy"     # no condition here leaves a sound out of the bank
    assert "acoustics" not in generate(small_config(plain, queries_per_task=2))["parameters"]
    generate(small_config(noisy, queries_per_task=2, acoustics=("clean", "noisy")))
    assert (pq.read_table(next((plain / "corpus").glob("test-*.parquet"))).column("audio")
            == pq.read_table(next((noisy / "corpus").glob("test-*.parquet"))).column("audio"))
    for config in record["acoustics"]:
        table = pq.read_table(next((robust / config).glob("test-*.parquet")))
        assert table.column("clip_id").to_pylist() == clean.column("clip_id").to_pylist()
        by_group = {}
        for query_id, acoustics in zip(table.column("query_id").to_pylist(), table.column("acoustics").to_pylist()):
            by_group.setdefault(query_id, set()).add(acoustics)
        assert all(len(draws) == 1 for draws in by_group.values())
        if config != "corpus":
            assert table.column("audio").to_pylist() != clean.column("audio").to_pylist()
    import datasets

    noisy = datasets.load_dataset(str(robust), "corpus_noisy", split="test")
    assert json.loads(noisy[0]["acoustics"])["condition"] == "noisy"


@pytest.mark.slow
def test_a_condition_is_deterministic_for_any_workers_and_one_draw_spans_two_render_jobs(tmp_path):
    # 4 queries x 5 tasks x 6 candidates = 120 clips: the group of clips 96-101 spans the 100-clip jobs
    for workers in (1, 2):
        generate(small_config(tmp_path / f"w{workers}", queries_per_task=4, acoustics=("wild",), workers=workers))
    one, two = (pq.read_table(next((tmp_path / f"w{w}" / "corpus").glob("*.parquet"))) for w in (1, 2))
    assert one.equals(two)
    across = one.column("acoustics").to_pylist()[96:102]
    assert len(set(one.column("query_id").to_pylist()[96:102])) == 1 and len(set(across)) == 1
    assert json.loads(across[0])["condition"] == "wild"
    assert validate(tmp_path / "w2", workers=2) == []


def _edit(folder: Path, config: str, column: str, change) -> None:
    path = next((folder / config).glob("test-*.parquet"))
    table = pq.read_table(path)
    values = table.column(column).to_pylist()
    values[1] = change(values[1])
    table = table.set_column(table.schema.get_field_index(column), column, __import__("pyarrow").array(values, table.schema.field(column).type))
    pq.write_table(table.replace_schema_metadata(pq.read_schema(path).metadata), path, row_group_size=100)


@pytest.mark.slow
def test_validate_catches_edited_parameters_a_refused_spec_and_a_long_room(robust, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(robust, folder)
    parameters = json.loads(pq.read_table(next((folder / "corpus_reverberant").glob("test-*.parquet"))).column("acoustics")[1].as_py())
    parameters["transforms"][0]["rt60"] = 0.9
    _edit(folder, "corpus_reverberant", "acoustics", lambda _: json.dumps(parameters))
    findings = "\n".join(validate(folder, workers=2))
    assert "a room with RT60 0.90 s" in findings
    assert "acoustics differ from another clip of its group" in findings
    assert "its acoustics are not the draw its group's seed gives" in findings
    record_path = folder / ".reasonaudio" / "test.json"
    record = json.loads(record_path.read_text())
    record["parameters"]["acoustics"][1]["transforms"].append({"TimeStretch": {"p": 1.0}})
    record_path.write_text(json.dumps(record))
    assert any("TimeStretch is refused" in f for f in validate(folder, quick=True))


@pytest.mark.slow
def test_evaluate_all_conditions_reports_each_drop_from_clean(robust, tmp_path):
    out = tmp_path / "runs"
    assert main(["evaluate", "--data", str(robust), "--model", "shortcut-audit", "--acoustics", "all",
                 "--out", str(out), "--bootstrap", "100", "--quiet"]) == 0
    result = json.loads((out / "results.json").read_text())["metrics"]["acoustics"]
    assert list(result["conditions"]) == ["clean", "noisy", "reverberant", "telephone", "wild"]
    assert set(result["differences"]) == {"noisy", "reverberant", "telephone", "wild"}
    low, high = result["differences"]["noisy"]["intervals"]["average"]["accuracy"]
    assert low <= result["differences"]["noisy"]["difference"]["average"]["accuracy"] <= high
    assert "## Acoustic conditions" in (out / "results.md").read_text()
    assert (out / "results.png").stat().st_size > 0
    assert main(["evaluate", "--data", str(robust), "--model", "oracle", "--acoustics", "loud",
                 "--out", str(tmp_path / "x"), "--quiet"]) == 2


def test_paired_differences_resample_both_conditions_together():
    from reasonaudio_metric.functional import paired_differences

    tasks = np.array(["a"] * 50 + ["b"] * 50)
    base = {"accuracy": np.tile([1.0, 0.0], 50)}
    same = paired_differences(base, base, tasks, 200, 0)
    assert same["difference"]["average"]["accuracy"] == 0 and same["intervals"]["a"]["accuracy"] == (0.0, 0.0)
    worse = paired_differences({"accuracy": np.zeros(100)}, base, tasks, 200, 0)
    assert worse["difference"]["average"]["accuracy"] == -0.5 and worse["intervals"]["b"]["accuracy"][1] < 0


def test_contrastive_triplets_augment_positive_and_negative_alike(robust):
    torch = pytest.importorskip("torch")
    from audiomentations import Compose, TimeStretch

    from reasonaudio.training.triplets import ContrastiveTriplets

    plain = ContrastiveTriplets(str(robust), split="train")
    noisy = ContrastiveTriplets(str(robust), split="train", augment="noisy")
    for index in (0, 3):
        _, positive, negative = plain[index]
        _, noisy_positive, noisy_negative = noisy[index]
        assert not torch.equal(positive, noisy_positive)
        assert torch.allclose(noisy_positive - positive, noisy_negative - negative, atol=1e-6)
    noisy.set_epoch(1)
    assert not torch.equal(noisy[0][1], ContrastiveTriplets(str(robust), split="train", augment="noisy")[0][1])
    with pytest.raises(ConditionError, match="TimeStretch is refused"):
        ContrastiveTriplets(str(robust), split="train", augment=Compose([TimeStretch()]))
    loader = torch.utils.data.DataLoader(ContrastiveTriplets(str(robust), split="train", augment="wild"),
                                         batch_size=2, num_workers=2)
    texts, positives, negatives = next(iter(loader))
    assert positives.shape == negatives.shape


def test_the_readme_training_example_runs(robust):
    pytest.importorskip("torch")
    from tests.test_readme import block_with

    block = block_with("python", "augment = Compose")       # README's training loop, in docs/usage.md
    exec(compile(block.replace('"demo"', repr(str(robust))), "docs/usage.md", "exec"), {})


@pytest.mark.slow
def test_a_killed_robustness_build_resumes_to_the_same_folder(tmp_path, monkeypatch):
    from reasonaudio.generation import pipeline

    from .test_generate import same_tree

    config = dict(queries_per_task=2, acoustics=("clean", "noisy"))
    generate(small_config(tmp_path / "whole", **config))
    real = killed_after(monkeypatch, pipeline, "render_rows", 1)   # dies in the second config
    with pytest.raises(KeyboardInterrupt):
        generate(small_config(tmp_path / "killed", **config))
    monkeypatch.setattr(pipeline, "render_rows", real)
    generate(small_config(tmp_path / "killed", **config))
    for partial in (tmp_path / "killed").rglob(".*.partial"):
        partial.unlink()
    assert same_tree(tmp_path / "whole", tmp_path / "killed")


@pytest.mark.parametrize("length", [1, 441, 4410, 44100, 445410])
def test_the_room_convolves_in_blocks_as_scipy_convolves_whole(length):
    """The room's overlap-add (blocks in one batched FFT against the kept spectrum) gives scipy's convolution
    to float32 rounding, cut to the clip's length or whole."""
    from scipy.signal import convolve

    from reasonaudio.generation.acoustics.rooms import RoomResponse

    rng = np.random.default_rng(length)
    rir, clip = rng.normal(size=6000).astype(np.float32), rng.normal(size=length).astype(np.float32)
    expected = convolve(clip.astype(np.float64), rir.astype(np.float64))
    for keep_length in (True, False):
        got = RoomResponse(rir, leave_length_unchanged=keep_length)(clip, 44100)
        want = expected[:length] if keep_length else expected
        assert got.dtype == np.float32 and len(got) == len(want)
        assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()


def test_the_shoebox_room_draws_what_audiomentations_draws_and_responds_as_its_room():
    """The room is drawn by audiomentations' rules from the same random state (so every spec and seed means the
    room it meant) and computed with pyroomacoustics' closed-form shoebox image sources."""
    import random

    from audiomentations import RoomSimulator

    from reasonaudio.generation.acoustics.rooms import ShoeBoxRoom

    arguments = dict(calculation_mode="rt60", min_target_rt60=0.15, max_target_rt60=0.35, max_order=10,
                     use_ray_tracing=False, leave_length_unchanged=True, p=1.0)
    for seed in range(8):
        rooms = []
        for kind in (RoomSimulator, ShoeBoxRoom):
            random.seed(seed)
            room = kind(**arguments)
            room.randomize_parameters(np.ones(4410, np.float32), 44100)
            rooms.append((room, random.random()))
        (general, after_general), (shoebox, after_shoebox) = rooms
        assert shoebox.parameters == general.parameters and after_shoebox == after_general
        a, b = general.room.rir[0][0], shoebox.room.rir[0][0]
        n = min(len(a), len(b))
        assert abs(len(a) - len(b)) <= 1 and np.sum((a[:n] - b[:n]) ** 2) < 1e-6 * np.sum(a ** 2)


def test_a_channel_at_its_own_rate_keeps_every_onset_and_the_clip_length():
    from reasonaudio.generation.acoustics.chain import build

    channel = build({"AtSampleRate": {"sample_rate": 8000, "p": 1.0, "transforms": [
        {"BandPassFilter": {"min_center_freq": 1850, "max_center_freq": 1850, "min_bandwidth_fraction": 1.6757,
                            "max_bandwidth_fraction": 1.6757, "p": 1.0}}]}})
    clip = np.zeros(44100, np.float32)
    clip[20000:20100] = np.sin(2 * np.pi * 1000 * np.arange(100) / 44100)
    channel.randomize_parameters(clip, 44100)
    out = channel(clip, 44100)
    assert len(out) == len(clip) and abs(int(np.argmax(np.abs(out))) - 20050) < 60
    spectrum = np.abs(np.fft.rfft(channel(np.random.default_rng(0).normal(size=44100).astype(np.float32), 44100)))
    assert spectrum[4100:].max() < 1e-3 * spectrum.max()               # nothing above the 8 kHz rate's 4 kHz
    channel.randomize_parameters(clip[::6], 7350)                       # a clip below the rate: its own rate
    assert channel.parameters["sample_rate"] == 7350 and len(channel(clip[::6], 7350)) == len(clip[::6])


@pytest.mark.parametrize("inner, message", [
    ({"AddGaussianSNR": {"min_snr_db": 5, "max_snr_db": 20}}, "put AddGaussianSNR outside it"),
    ({"RoomSimulator": ROOM}, "put RoomSimulator outside it"),
    ({"LowPassFilter": {"min_cutoff_freq": 3000, "max_cutoff_freq": 5000}}, "max_cutoff_freq (5000 Hz) is not below 4000"),
    ({"LowPassFilter": {}}, "max_cutoff_freq (7500 Hz) is not below 4000"),               # audiomentations' default
    ({"BandPassFilter": {"min_center_freq": 1850, "max_center_freq": 3000}}, "band's upper edge (5985 Hz)"),
    ({"SevenBandParametricEQ": {}}, "put SevenBandParametricEQ outside it"),
])
def test_a_channel_at_its_own_rate_takes_filters_and_codecs_below_its_nyquist(inner, message):
    with pytest.raises(ConditionError, match=re.escape(message)):
        condition_from_spec({"name": "x", "transforms": [{"AtSampleRate": {"sample_rate": 8000, "transforms": [inner]}}]})
