"""Each sound source, the atomic-sound processing, balanced selection and split disjointness."""
import numpy as np
import pytest
import soundfile

from reasonaudio.generation.bank import BadSourcesError, build_bank, decide_kind, prepare
from reasonaudio.generation.sources import BadRecording, SourceError, open_source
from reasonaudio.generation.sources.synthetic import CLASSES

from ..conftest import write_tone


def test_synthetic_bank_is_deterministic_and_honestly_named():
    assert len(CLASSES) >= 20
    kinds = {kind for _, _, kind in CLASSES.values()}
    assert kinds == {"continuous", "discrete"}
    first, second = open_source("synthetic:?variants=2"), open_source("synthetic:?variants=2")
    assert np.array_equal(first[5].load()[0], second[5].load()[0])


def test_atomic_sounds_are_mono_trimmed_resampled_and_level_safe(tmp_path):
    rate = 22050
    stereo = np.zeros((3 * rate, 2), dtype=np.float32)
    stereo[rate:2 * rate] = 0.8 * np.sin(np.arange(rate) * 0.1)[:, None]
    samples, _ = prepare(stereo, rate, 16000)
    assert samples.ndim == 1 and abs(len(samples) / 16000 - 1.0) < 0.03  # only the active second is kept
    write_tone(tmp_path / "dog" / "0.wav", seconds=1.0, rate=rate, amplitude=0.9, channels=2)
    bank = build_bank(f"folder:{tmp_path}", split=None, count=1, sample_rate=16000, progress=False)
    sound = bank.sounds[0]
    assert sound.sample_rate == 16000 and sound.samples.ndim == 1 and np.abs(sound.samples).max() <= 0.3 + 1e-6
    assert sound.phrase == "a dog barking" and sound.origin == "folder:dog/0.wav"


def test_kind_is_decided_from_the_label_or_the_envelope():
    steady, bursty = np.ones(300), np.r_[np.ones(20), np.zeros(280) + 1e-3]
    assert decide_kind("rain", bursty, 0.3, None) == "continuous"
    assert decide_kind("some_hum", steady, 3.0, None) == "continuous"
    assert decide_kind("some_knock", bursty, 3.0, None) == "discrete"


def test_selection_is_balanced_over_classes_with_a_warning_when_short(tmp_path, caplog):
    for label in ("a", "b", "c"):
        for i in range(4 if label != "c" else 1):
            write_tone(tmp_path / label / f"{i}.wav", freq=300 + 50 * i)
    bank = build_bank(f"folder:{tmp_path}", split=None, count=5, sample_rate=8000, progress=False)
    counts = {label: len(sounds) for label, sounds in bank.by_label().items()}
    assert counts == {"a": 2, "b": 2, "c": 1}
    bank = build_bank(f"folder:{tmp_path}", split=None, count=50, sample_rate=8000, progress=False)
    assert len(bank.sounds) == 9 and "only 9 recordings" in caplog.text


def test_csv_manifest_with_crops(tmp_path):
    write_tone(tmp_path / "audio" / "long.wav", seconds=4.0)
    (tmp_path / "m.csv").write_text("path,label,start,end\naudio/long.wav,beep,1.0,2.5\naudio/long.wav,hum,,\n")
    bank = build_bank(f"csv:{tmp_path / 'm.csv'}", split=None, count=2, sample_rate=8000, progress=False)
    seconds = {s.label: s.seconds for s in bank.sounds}
    assert abs(seconds["beep"] - 1.5) < 0.03 and abs(seconds["hum"] - 4.0) < 0.03
    assert {s.label: s.kind for s in bank.sounds} == {"beep": "discrete", "hum": "continuous"}  # steady 4 s tone
    with pytest.raises(SourceError, match="lacks the columns"):
        (tmp_path / "bad.csv").write_text("file,class\n")
        open_source(f"csv:{tmp_path / 'bad.csv'}")


def test_unknown_source_and_missing_folders_are_clear_errors(tmp_path):
    with pytest.raises(SourceError, match="unknown source"):
        open_source("freesound:xyz")
    for spec in (f"esc50:{tmp_path}", f"fsd50k:{tmp_path}", f"folder:{tmp_path / 'none'}", f"csv:{tmp_path / 'x.csv'}"):
        with pytest.raises(SourceError):
            open_source(spec)


def test_fsd50k_keeps_single_leaf_clips_and_its_official_splits(tmp_path):
    truth = tmp_path / "FSD50K.ground_truth"
    truth.mkdir()
    (truth / "dev.csv").write_text(
        "fname,labels,mids,split\n1,\"Bark,Dog,Animal\",m,train\n2,\"Meow,Cat,Animal\",m,val\n"
        "3,\"Bark,Dog,Animal,Meow,Cat\",m,train\n4,\"Dog,Animal\",m,train\n")
    (truth / "eval.csv").write_text("fname,labels,mids\n5,\"Rain\",m\n")
    for part, name in (("dev", 1), ("dev", 2), ("dev", 3), ("dev", 4), ("eval", 5)):
        write_tone(tmp_path / f"FSD50K.{part}_audio" / f"{name}.wav")
    found = {r.recording_id.split("/")[-1]: (r.label, r.split_of()) for r in open_source(f"fsd50k:{tmp_path}")}
    assert found == {"1": ("Bark", "train"), "2": ("Meow", "validation"), "4": ("Dog", "train"), "5": ("Rain", "test")}


def test_hf_source_reads_any_audio_dataset(tmp_path):
    for label in ("bell", "horn"):
        for i in range(2):
            write_tone(tmp_path / "data" / label / f"{i}.wav", freq=500 + 100 * i)
    recordings = open_source(f"hf:{tmp_path / 'data'}?split=train")
    assert sorted(r.label for r in recordings) == ["bell", "bell", "horn", "horn"]
    samples, rate = recordings[0].load()
    assert rate == 8000 and len(samples) == 8000
    with pytest.raises(SourceError, match="no column"):
        open_source(f"hf:{tmp_path / 'data'}?label=category")


def test_splits_draw_on_disjoint_recordings():
    recordings = open_source("synthetic:?variants=20")
    groups = {split: {r.group for r in recordings if r.split_of() == split} for split in ("train", "validation", "test")}
    assert all(groups.values())
    assert not (groups["train"] & groups["test"]) and not (groups["validation"] & groups["test"])


@pytest.mark.esc50
def test_esc50_subset_uses_folds_and_phrases(esc50):
    recordings = open_source(f"esc50:{esc50}")
    assert len(recordings) == 200 and {r.split_of() for r in recordings} == {"test"}
    bank = build_bank(f"esc50:{esc50}", count=50, sample_rate=16000, progress=False)
    assert len(bank.by_label()) == 50 and all(s.license.startswith("CC-BY-NC-3.0") for s in bank.sounds)
    assert {s.phrase for s in bank.sounds if s.label == "dog"} == {"a dog barking"}
    assert soundfile.info(str(esc50 / "audio" / recordings[0].origin.split(":")[1])).samplerate == 44100


def write_esc50_meta(folder, rows) -> None:
    """An ESC-50 layout's meta/esc50.csv (rows of filename, fold, category, src_file), sorted by file name
    as the dataset's own is."""
    import csv

    (folder / "meta").mkdir(parents=True, exist_ok=True)
    with open(folder / "meta" / "esc50.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, ["filename", "fold", "target", "category", "esc10", "src_file", "take"],
                                extrasaction="ignore", restval="")
        writer.writeheader()
        writer.writerows(sorted(rows, key=lambda row: row["filename"]))


def test_esc50_fold_and_per_class_select_the_first_clips_of_each_class_in_file_order(tmp_path):
    rows = [{"filename": f"{fold}-{100 + k}-A-{target}.wav", "fold": str(fold), "category": f"class{target}",
             "src_file": str(100 + k)} for fold in (3, 4, 5) for target in range(3) for k in range(6)]
    write_esc50_meta(tmp_path, rows)
    chosen = open_source(f"esc50:{tmp_path}?fold=4&per_class=2")
    assert [r.recording_id for r in chosen] == [f"esc50/4-{100 + k}-A-{target}.wav" for k in range(2)
                                                for target in range(3)]
    assert {r.split_of() for r in chosen} == {"test"} and len(open_source(f"esc50:{tmp_path}")) == len(rows)
    for options, named in (("fold=9", "fold='9'"), ("per_class=0", "per_class='0'"), ("per_class=two", "per_class")):
        with pytest.raises(SourceError, match=named):
            open_source(f"esc50:{tmp_path}?{options}")


@pytest.mark.esc50
def test_the_full_esc50_rebuilds_the_reference_subset(esc50, tmp_path):
    """README's rule (fold 4, the first 4 clips of each class in the file's order) picks the subset's 200
    clips out of a download of the whole dataset (here the subset with other folds' and later clips
    added), and the split planned from them asks the same queries."""
    import csv

    from reasonaudio.generation.pipeline import GenerateConfig, plan_split

    with open(esc50 / "meta" / "esc50.csv", newline="") as handle:
        subset = list(csv.DictReader(handle))
    first = {row["category"]: row for row in reversed(subset)}
    others = [{**row, "filename": f"{fold}-{row['src_file']}-A-{row['target']}.wav", "fold": fold}
              for row in first.values() for fold in "1235"]
    later = [{**row, "filename": f"4-999999-A-{row['target']}.wav"} for row in first.values()]
    write_esc50_meta(tmp_path, subset + others + later)
    (tmp_path / "audio").symlink_to(esc50 / "audio")
    full = f"esc50:{tmp_path}?fold=4&per_class=4"
    assert open_source(full) == open_source(f"esc50:{esc50}")
    plans = [plan_split(GenerateConfig(source=source, queries_per_task=2, sample_rate=16000, progress=False),
                        forbidden=frozenset()) for source in (full, f"esc50:{esc50}")]
    assert plans[0].queries == plans[1].queries


@pytest.mark.parametrize("source", ["synthetic:?variants=3", "esc50"])
def test_every_sound_is_heard_throughout_and_loops_without_a_seam(source, request):
    """Every annotated second is audible, and a looped "long" sound never sounds like the same sound
    twice: its sustained part loops with an equal-power crossfade where tail and head match, so no seam
    is 3 dB quieter than what it joins."""
    from reasonaudio.generation.bank import MAX_SEAM_DIP_DB, MAX_SILENCE_SECONDS, longest_inaudible, loop_period, seam_dip_db
    from reasonaudio.generation.render import fit

    if source == "esc50":
        source = f"esc50:{request.getfixturevalue('esc50')}"
    bank = build_bank(source, split=None, count=1000, sample_rate=16000, progress=False)
    for sound in bank.sounds:   # every annotated second is heard: edges trimmed, long pauses split off
        assert longest_inaudible(sound.samples, 16000) < MAX_SILENCE_SECONDS, sound.source_id
    continuous = [s for s in bank.sounds if s.kind == "continuous"]
    assert continuous
    for sound in continuous:
        start, end, overlap = sound.loop
        assert 0 <= start < end <= len(sound.samples) and overlap > 0
        assert seam_dip_db(sound.samples, *sound.loop, 16000) < MAX_SEAM_DIP_DB, sound.source_id
        long = fit(sound, 3 * len(sound.samples))
        period = loop_period(sound.samples, *sound.loop)
        np.testing.assert_array_equal(long[len(period):2 * len(period)], period)   # a seamless tile


def test_a_seam_that_dips_is_measured():
    from reasonaudio.generation.bank import seam_dip_db

    rate = 16000
    noise = np.random.default_rng(0).standard_normal(3 * rate).astype(np.float32)
    assert seam_dip_db(noise, 0, 3 * rate, 4000, rate) < 1                 # a texture joins seamlessly
    dropout = noise.copy()
    for at in (1500, 3 * rate - 4000 + 1500):                               # head and tail silent together:
        dropout[at:at + int(0.085 * rate)] = 0                              # 85 ms of silence at the join
    assert seam_dip_db(dropout, 0, 3 * rate, 4000, rate) > 20
    faded = noise * np.minimum(1, np.minimum(np.arange(3 * rate), np.arange(3 * rate)[::-1]) / 4000)
    assert seam_dip_db(faded.astype(np.float32), 0, 3 * rate, 4000, rate) > 3   # the whole recording, edges and all
    tone = np.sin(2 * np.pi * 440 * np.arange(rate) / rate).astype(np.float32)
    assert seam_dip_db(tone, 0, rate, 4000, rate) < 1                       # 440 Hz ends in phase after 1 s
    assert seam_dip_db(tone, 0, rate - 18, 4000, rate) > 3                  # half a period off: the crossfade cancels


def test_a_class_folder_linked_outside_the_root_is_a_bad_recording_never_read(tmp_path):
    """folder: reads only from its root, as csv: does; a class sub-folder that is a link out of it is refused,
    naming the path, never read or published."""
    root, elsewhere = tmp_path / "sounds", tmp_path / "elsewhere"
    write_tone(root / "dog" / "0.wav")
    write_tone(elsewhere / "0.wav", freq=300)
    (root / "cat").symlink_to(elsewhere, target_is_directory=True)
    recordings = {r.label: r for r in open_source(f"folder:{root}")}
    assert recordings["dog"].load()[1] == 8000
    with pytest.raises(BadRecording) as error:
        recordings["cat"].load()
    assert str(error.value) == (f"cat/0.wav leads outside {root} (recordings are read only from the source "
                                "folder)")
    with pytest.raises(BadSourcesError, match="folder:cat/0.wav: cat/0.wav leads outside"):
        build_bank(f"folder:{root}", split=None, count=2, sample_rate=8000, progress=False)
    bank = build_bank(f"folder:{root}", split=None, count=2, sample_rate=8000, skip_bad=True, progress=False)
    assert [s.label for s in bank.sounds] == ["dog"] and [o for o, _ in bank.skipped] == ["folder:cat/0.wav"]
