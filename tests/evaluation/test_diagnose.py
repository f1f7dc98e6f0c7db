"""Why a model fails: the failure taxonomy and the reasoning profile, judged by the one relevance function."""
import datasets
import numpy as np
import pytest

from reasonaudio.cli import main
from reasonaudio.core.records import constraint_atoms
from reasonaudio.core.relations import FAILURE_KINDS, NO, Atom, Event, broken, relevant
from reasonaudio.evaluation.diagnose import failure_counts, hard_negative_kinds
from reasonaudio.evaluation.runner import RunSettings, run
from reasonaudio.evaluation.systems import EvalData, open_system
from reasonaudio.generation.config import GenerateConfig
from reasonaudio.generation.pipeline import plan_split, query_row
from reasonaudio_metric.functional import KINDS, score


def _event(label, onset, offset):
    return Event(label, f"{label}/0", onset, offset, -6.0)


@pytest.mark.parametrize("atoms, events, kinds", [
    ([Atom("present", ("dog",))], [_event("rain", 0, 5)], ["missing"]),
    ([Atom("absent", ("siren",))], [_event("siren", 0, 2)], ["negation"]),
    ([Atom("before", ("dog", "horn"))], [_event("horn", 0, 1), _event("dog", 3, 4)], ["order"]),
    ([Atom("before", ("dog", "horn"))], [_event("dog", 0, 1)], ["missing"]),     # the horn never sounds
    ([Atom("overlap", ("dog", "rain"))], [_event("dog", 0, 1), _event("rain", 4, 8)], ["overlap"]),
    ([Atom("lasts", ("rain", "5"))], [_event("rain", 0, 1.5)], ["duration"]),
    ([Atom("times", ("dog", "2"))], [_event("dog", 0, 1)], ["count"]),
    ([Atom("before", ("dog", "horn")), Atom("absent", ("siren",))],
     [_event("horn", 0, 1), _event("dog", 3, 4), _event("siren", 5, 6)], ["negation", "order"]),
    ([Atom("before", ("dog", "horn"))], [_event("dog", 0, 1), _event("horn", 3, 4)], []),
])
def test_broken_names_what_a_clip_gets_wrong(atoms, events, kinds):
    assert broken(atoms, events) == kinds
    assert (relevant(atoms, events) is NO) == bool(kinds)


@pytest.fixture(scope="module")
def demo_plan(tmp_path_factory):
    """The demo's test split as planned (`reasonaudio demo`: the built-in bank, 20 queries a task, 16 kHz): the
    taxonomy and the profile read its annotations, not its audio."""
    config = GenerateConfig(out=str(tmp_path_factory.mktemp("demo")), queries_per_task=20, sample_rate=16000,
                            progress=False)
    return plan_split(config, frozenset())


def test_the_taxonomy_agrees_with_the_relevance_function_on_every_candidate(demo_plan):
    kinds_seen = set()
    for query in demo_plan.queries:
        for candidate in query.candidates:
            kinds = broken(query.atoms, candidate.events)
            assert bool(kinds) == (relevant(query.atoms, candidate.events) is NO), (query.query_id, candidate.clip_id)
            assert (candidate.clip_id == query.positive) == (not kinds)
            kinds_seen |= set(kinds)
    events = {c.clip_id: c.events for q in demo_plan.queries for c in q.candidates}
    named = hard_negative_kinds([q.atoms for q in demo_plan.queries], [q.hard_negatives for q in demo_plan.queries],
                                events)
    assert all(kind in FAILURE_KINDS for kinds in named for kind in kinds)    # one kind each: minimal pairs
    assert {"negation", "order", "overlap", "duration"} <= {kind for kinds in named for kind in kinds}
    assert kinds_seen <= set(FAILURE_KINDS)


def _eval_data(plan) -> EvalData:
    """The plan's tables as `evaluate` reads them, less the audio (these systems read the annotations)."""
    queries = datasets.Dataset.from_list([query_row(q).to_row() for q in plan.queries])
    corpus = datasets.Dataset.from_list([{"clip_id": c.clip_id, "events": [e.to_dict() for e in c.events]}
                                         for _, c in plan.clips])
    return EvalData(queries, corpus, None, "planned")


def test_bag_of_sounds_fails_negation_and_the_oracle_nothing(demo_plan):
    data = _eval_data(demo_plan)
    settings = RunSettings(bootstrap=200, progress=False)
    bag, oracle = (run(open_system(name), data, settings, per_query=True) for name in ("bag-of-sounds", "oracle"))
    assert bag["profile"]["negation"]["share"] <= 0.5
    assert bag["profile"]["negation"]["interval"][1] <= 0.5
    assert all(found["share"] == 1.0 for found in oracle["profile"].values()), oracle["profile"]
    assert set(oracle["profile"]) == set(bag["profile"]) >= {"negation", "order", "overlap", "duration"}
    rows = bag["per_query"]
    wrong = [i for i, (chosen, positive) in enumerate(zip(rows["chosen"], rows["positive"])) if chosen != positive]
    assert wrong and all(rows["broken"][i] for i in wrong)        # every wrong first-ranked clip names what it breaks
    assert all(not kinds for kinds in oracle["per_query"]["broken"])
    assert oracle["failures"]["all"] == {"queries": len(data.queries), "wrong": 0, "kinds": {}}
    assert bag["failures"]["all"]["wrong"] == len(wrong) and bag["failures"]["negation"]["kinds"]["negation"] > 0


def test_the_profile_is_the_share_of_minimal_pairs_ordered_right():
    queries = {"query_id": ["q0", "q1"], "task": ["order", "negation"], "candidates": [["a", "b", "c"], ["d", "e", "f"]],
               "positive": ["a", "d"], "hard_negatives": [["b", "c"], ["e"]], KINDS: [["order", "negation"], ["order"]]}
    similarity = np.array([[0.9, 0.1, 0.9], [0.2, 0.2, 0.0]])     # q0 beats b, ties c; q1 ties e
    profile = score(similarity, queries, bootstrap=100)["profile"]
    assert profile["order"]["share"] == 0.75 and profile["order"]["pairs"] == 2 and profile["order"]["queries"] == 2
    assert profile["negation"] == {"share": 0.5, "pairs": 1, "queries": 1, "random": 0.5, "interval": (0.5, 0.5)}
    low, high = profile["order"]["interval"]
    assert 0.5 <= low <= 0.75 <= high <= 1.0
    assert "profile" not in score(similarity, {k: v for k, v in queries.items() if k != KINDS}, bootstrap=0)


@pytest.mark.parametrize("kinds, needle", [
    ([["order"], ["order"]], r"one kind \(text\) per hard negative, 2 here"),
    ([["order", ""], ["order"]], "one kind"),
])
def test_kinds_that_do_not_match_the_hard_negatives_are_one_error(kinds, needle):
    queries = {"query_id": ["q0", "q1"], "task": ["order", "order"], "candidates": [["a", "b", "c"], ["d", "e", "f"]],
               "positive": ["a", "d"], "hard_negatives": [["b", "c"], ["e"]], KINDS: kinds}
    with pytest.raises(ValueError, match=needle):
        score(np.zeros((2, 3)), queries, bootstrap=0)


def test_failure_counts_sum_the_taxonomy_per_task():
    counts = failure_counts(["order", "order", "negation"], [["order"], [], ["negation", "missing"]], [True, False, True])
    assert counts["order"] == {"queries": 2, "wrong": 1, "kinds": {"order": 1}}
    assert counts["all"] == {"queries": 3, "wrong": 2, "kinds": {"missing": 1, "negation": 1, "order": 1}}


def test_evaluate_writes_the_taxonomy_and_the_profile(small_corpus, tmp_path):
    import json

    import pyarrow.parquet as pq

    out = tmp_path / "run"
    assert main(["evaluate", "--model", "bag-of-sounds", "--data", str(small_corpus), "--out", str(out), "--quiet"]) == 0
    record = json.loads((out / "results.json").read_text())
    assert record["metrics"]["profile"]["negation"]["share"] <= 0.5
    assert record["metrics"]["failures"]["all"]["queries"] == 30
    rows = pq.read_table(out / "per_query.parquet").to_pylist()
    assert all(bool(row["broken"]) == (row["chosen"] != row["positive"]) for row in rows)
    atoms = {row["query_id"]: constraint_atoms(row["constraint"]) for row in
             pq.read_table(small_corpus / "queries" / "test-00000-of-00001.parquet").to_pylist()}
    assert set(atoms) == {row["query_id"] for row in rows}
    text = (out / "results.md").read_text()
    assert "## Reasoning profile" in text and "## Why the first-ranked clip is wrong" in text


def test_with_hard_negative_kinds_gives_any_score_the_profile(small_corpus):
    import reasonaudio

    build = reasonaudio.load_reasonaudio(str(small_corpus))
    queries = reasonaudio.with_hard_negative_kinds(build.queries, build.corpus)
    assert reasonaudio.with_hard_negative_kinds(queries, build.corpus) is queries          # once is enough
    constant = np.zeros((len(queries), len(queries[0]["candidates"])))
    profile = reasonaudio.score(constant, queries, bootstrap=0)["profile"]
    assert profile and all(found["share"] == 0.5 for found in profile.values())        # ties: one half each
    assert "profile" not in reasonaudio.score(constant, build.queries, bootstrap=0)
