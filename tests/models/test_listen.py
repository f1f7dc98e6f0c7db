"""Systems that hear the audio: the sound-event detector (`train --model detector`, `detector:MODEL_DIR`),
two-stage on its captions, and the template holdout that tells composing from memorising."""
import json

import numpy as np
import pytest
import torch

from reasonaudio.evaluation.runner import RunSettings, run
from reasonaudio.evaluation.systems import EvalData, open_system
from reasonaudio.core.records import caption
from reasonaudio.generation.pipeline import generate
from reasonaudio.core.relations import Atom, Event
from reasonaudio.generation.tasks import TASKS, possible_texts
from reasonaudio.generation.templates import STYLES, held_out, templates
from reasonaudio.models.detector import Detected, decode
from reasonaudio.models.events import detection_scores
from reasonaudio.models.hearing import HeardEvents, atom_confidence, judged_score
from reasonaudio.models.scoring import clip_events, query_atoms
from reasonaudio.cli import main

from ..conftest import small_config

LABELS = ["dog", "rain"]


@pytest.fixture(scope="module")
def splits(tmp_path_factory):
    """Test, validation and train splits of one tiny build, from disjoint recordings."""
    out = tmp_path_factory.mktemp("listen-build")
    for split in ("test", "validation", "train"):
        generate(small_config(out, split=split, source="synthetic:?variants=30", queries_per_task=3))
    return out


@pytest.fixture(scope="module")
def detector(splits, tmp_path_factory):
    """A detector trained for two steps through the CLI."""
    out = tmp_path_factory.mktemp("detector") / "model"
    assert main(["train", "--model", "detector", "--data", str(splits), "--out", str(out), "--epochs", "1",
                 "--max-steps", "2", "--batch-size", "8", "--quiet"]) == 0
    return out


@pytest.mark.slow
def test_train_detector_writes_its_decoding_and_dcase_metrics(detector):
    record = json.loads((detector / "training.json").read_text())
    epoch = record["history"][0]
    assert set(epoch["decoding"]) == {"threshold", "median_steps", "gap_steps"}
    for metric in ("event_f1", "segment_f1", "event_error_rate"):
        assert 0 <= epoch["detection"][metric] <= (1 if metric.endswith("f1") else np.inf)
    assert record["best"]["detection"] == epoch["detection"]
    saved = json.loads((detector / "detector_config.json").read_text())
    assert {key: saved[key] for key in epoch["decoding"]} == epoch["decoding"]


@pytest.mark.slow
def test_evaluate_detector_and_two_stage_on_its_captions(splits, detector, tmp_path, capsys):
    assert main(["evaluate", "--data", str(splits), "--model", f"detector:{detector}", "--out", str(tmp_path / "d"),
                 "--quiet"]) == 0
    result = json.loads((tmp_path / "d" / "results.json").read_text())
    assert set(result["metrics"]) >= {"negation", "order", "overlap", "duration", "mix", "average"}
    assert main(["evaluate", "--data", str(splits), "--model",
                 f"two-stage:all-MiniLM-L6-v2?captions=detector:{detector}", "--out", str(tmp_path / "t"),
                 "--quiet"]) == 0
    two_stage = json.loads((tmp_path / "t" / "results.json").read_text())
    assert two_stage["spec"] == f"two-stage:all-MiniLM-L6-v2?captions=detector:{detector}"   # its captions heard
    assert sum(two_stage["metrics"]["num_queries"].values()) == len(EvalData.load(str(splits)).queries)
    assert all(0 <= two_stage["metrics"][task]["accuracy"] <= 1 for task in two_stage["metrics"]["num_queries"])


def test_detector_system_records_detection_quality_and_captions_what_it_hears(splits, detector):
    data = EvalData.load(str(splits), "test")
    system = open_system(f"detector:{detector}")
    run(system, data, RunSettings(bootstrap=0, progress=False))
    assert set(system.record) == {"detection", "decoding"} and 0 <= system.record["detection"]["event_f1"] <= 1
    two_stage = open_system(f"two-stage:all-MiniLM-L6-v2?captions=detector:{detector}")
    from reasonaudio.evaluation.systems.two_stage import NOTHING_HEARD, detected_captions

    captions = detected_captions(two_stage.detector, data, 32, False)
    heard = system.detect_corpus(data, progress=False)
    phrases = {label: sorted(found)[0] for label, found in data.phrases().items()}
    assert captions == [caption(d.events, phrases) if d.events else NOTHING_HEARD for d in heard]


def test_detector_and_trained_refuse_each_others_folders(splits, detector, tmp_path):
    small = tmp_path / "small"
    assert main(["train", "--data", str(splits), "--out", str(small), "--epochs", "1", "--max-steps", "1",
                 "--batch-size", "4", "--quiet"]) == 0
    with pytest.raises(ValueError, match="holds a 'small' model, not a detector"):
        open_system(f"detector:{small}")
    with pytest.raises(ValueError, match="score it with --model detector:"):
        run(open_system(f"trained:{detector}"), EvalData.load(str(splits), "test"),
            RunSettings(bootstrap=0, progress=False))


def test_perfect_detections_score_like_the_oracle(splits):
    """The detector's judging on events equal to the annotations (confidence 1 where a sound plays) ranks
    every positive first: the verdict and the graded part never put a negative above it."""
    data = EvalData.load(str(splits), "test")
    labels = {e.label for clip in clip_events(data.corpus) for e in clip}
    heard = [Detected(tuple(events), {label: float(any(e.label == label for e in events)) for label in labels})
             for events in clip_events(data.corpus)]
    result = run(HeardEvents(heard), data, RunSettings(bootstrap=0, progress=False))
    assert result["average"]["accuracy"] == 1.0
    assert run(open_system("oracle"), data, RunSettings(bootstrap=0, progress=False))["average"]["accuracy"] == 1.0
    assert all(judged_score(atoms, heard[0]) < 3 for atoms in query_atoms(data.queries))


def test_decode_keeps_one_event_a_class_its_largest_run_with_short_gaps_closed():
    probabilities = np.zeros((20, 2))
    probabilities[2:6, 0] = 0.9           # dog: steps 2-5, a gap of 2 steps, 8-9 ...
    probabilities[8:10, 0] = 0.9
    probabilities[15, 0] = 0.95           # ... and a lone blip far away
    probabilities[10:18, 1] = 0.6         # rain
    found = decode(probabilities, 0.1, LABELS, threshold=0.5, median_steps=1, gap_steps=3)
    assert [(e.label, e.onset, e.offset) for e in found.events] == [("dog", 0.2, 1.0), ("rain", 1.0, 1.8)]
    assert found.peak == {"dog": 0.95, "rain": 0.6}
    apart = decode(probabilities, 0.1, LABELS, threshold=0.5, median_steps=1, gap_steps=0)
    assert [(e.onset, e.offset) for e in apart.events if e.label == "dog"] == [(0.2, 0.6)]
    higher = decode(probabilities, 0.1, LABELS, threshold=0.7, median_steps=1, gap_steps=3)
    assert [e.label for e in higher.events] == ["dog"]
    filtered = decode(probabilities, 0.1, LABELS, threshold=0.5, median_steps=3, gap_steps=0)
    assert all(e.offset - e.onset > 0.1 for e in filtered.events)


def test_atom_confidence_grows_with_the_margin():
    def events(dog_offset):
        return {"dog": Event("dog", "", 0.0, dog_offset, 0.0), "rain": Event("rain", "", 3.0, 5.0, 0.0)}

    before = Atom("before", ("dog", "rain"))
    peak = {"dog": 0.9, "rain": 0.8}
    assert atom_confidence(before, events(1.0), peak) > atom_confidence(before, events(2.6), peak) > \
        atom_confidence(before, events(4.0), peak)
    assert atom_confidence(Atom("present", ("dog",)), {}, peak) == 0.9
    assert atom_confidence(Atom("absent", ("rain",)), {}, peak) == pytest.approx(0.2)
    lasts = Atom("lasts", ("rain", "2"))
    assert atom_confidence(lasts, events(1.0), peak) > 0.9 > 0.1 > atom_confidence(
        lasts, {"rain": Event("rain", "", 0.0, 4.0, 0.0)}, peak)


def test_detection_scores_come_from_sed_eval():
    truth = [[Event("dog", "", 1.0, 2.0, 0.0), Event("rain", "", 3.0, 7.0, 0.0)]]
    assert detection_scores(truth, truth, LABELS)["event_f1"] == 1.0
    late = [[Event("dog", "", 1.5, 2.5, 0.0), Event("rain", "", 3.1, 7.0, 0.0)]]
    scores = detection_scores(truth, late, LABELS)
    assert scores["event_f1"] == 0.5          # the dog's onset is 0.5 s late: past the 200 ms collar
    assert 0.5 < scores["segment_f1"] < 1


def test_template_holdout_splits_every_shape_in_two():
    for shape, found in STYLES["natural"].items():
        seen, held = templates("natural:seen", shape), templates("natural:held-out", shape)
        assert set(seen) | set(held) == set(found) and not set(seen) & set(held) and seen and held
    assert held_out(6) == {5, 2} and held_out(2) == {1}
    with pytest.raises(ValueError, match="unknown text style"):
        templates("natural:unseen", "before")


@pytest.mark.slow
def test_a_held_out_split_uses_only_held_out_templates(tmp_path):
    generate(small_config(tmp_path, split="train", text_style="natural:seen", queries_per_task=3))
    generate(small_config(tmp_path, split="test", text_style="natural:held-out", queries_per_task=3))
    for split, style, other in (("train", "natural:seen", "natural:held-out"), ("test", "natural:held-out", "natural:seen")):
        data = EvalData.load(str(tmp_path), split)
        phrases = {label: sorted(found)[0] for label, found in data.phrases().items()}
        for task, atoms, text in zip(data.queries["task"], query_atoms(data.queries), data.queries["text"]):
            assert text in possible_texts(TASKS[task], atoms, phrases, style)
            assert text not in possible_texts(TASKS[task], atoms, phrases, other)


def test_dual_encoder_trains_on_the_detector_and_scores_as_trained(splits, detector, tmp_path):
    out = tmp_path / "dual"
    assert main(["train", "--model", f"dual:{detector}", "--data", str(splits), "--out", str(out),
                 "--epochs", "1", "--max-steps", "2", "--batch-size", "8", "--quiet"]) == 0
    record = json.loads((out / "training.json").read_text())
    system = open_system(f"trained:{out}")
    data = EvalData.load(str(splits), "validation")
    result = run(system, data, RunSettings(bootstrap=0, progress=False))
    assert result["average"]["accuracy"] == record["best"]["accuracy"]
    saved = torch.load(out / "dual_weights.pt", weights_only=True)
    assert not any(key.startswith("text_encoder.") for key in saved) and "hearing.event_head.weight" in saved
    hearing = torch.load(detector / "detector_weights.pt", weights_only=True)
    assert torch.equal(saved["hearing.event_head.weight"], hearing["event_head.weight"])   # frozen


def test_a_count_confidence_follows_the_detected_occurrences():
    beeps = [Event("beep", "", t, t + 0.5, 0.0) for t in (0.0, 2.0, 4.0)]
    heard = {"beep": beeps, "bell": [Event("bell", "", 6.0, 6.5, 0.0)]}
    events, peak = {label: found[0] for label, found in heard.items()}, {"beep": 0.9, "bell": 0.9}
    three, two = Atom("times", ("beep", "3")), Atom("times", ("beep", "2"))
    assert atom_confidence(three, events, peak, heard) > 0.8 > atom_confidence(two, events, peak, heard)
    assert atom_confidence(Atom("more_often", ("beep", "bell")), events, peak, heard) > 0.9 > 0.1 > \
        atom_confidence(Atom("more_often", ("bell", "beep")), events, peak, heard)
    assert atom_confidence(Atom("as_often", ("beep", "bell")), events, peak, heard) < 0.1
    assert atom_confidence(two, events, peak) < atom_confidence(Atom("times", ("beep", "1")), events, peak)
