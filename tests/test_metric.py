"""The metric: exactness against pytrec_eval, tie expectations, baselines, errors, evaluate wrapper."""
import itertools

import evaluate
import numpy as np
import pytest
import torch

from reasonaudio_metric.functional import score

TASKS = ["negation", "order", "overlap", "duration", "mix"]
PYTREC = {"ndcg@10": "ndcg_cut_10", "recall@1": "recall_1", "recall@5": "recall_5", "recall@10": "recall_10",
          "mrr": "recip_rank", "map@100": "map_cut_100", "hit@10": "success_10"}


def flat(result: dict) -> dict:
    """Nested results as {(key, ...): value}, so that pytest.approx can compare them."""
    out = {}
    for key, value in result.items():
        if isinstance(value, (dict, tuple)):
            value = value if isinstance(value, dict) else dict(enumerate(value))
            out.update({(key, *k): v for k, v in flat(value).items()})
        else:
            out[(key,)] = value
    return out


def corpus_case(seed, queries=25, clips=150, ties=False):
    rng = np.random.default_rng(seed)
    similarity = rng.integers(0, 4, (queries, clips)).astype(np.float32) if ties else \
        rng.standard_normal((queries, clips)).astype(np.float32)
    query_ids, clip_ids = [f"q{i}" for i in range(queries)], [f"c{j}" for j in range(clips)]
    qrels = {"query_id": [], "clip_id": [], "score": []}
    for i in range(queries):
        chosen = rng.choice(clips, rng.integers(2, min(25, clips)), replace=False)
        for n, j in enumerate(chosen):
            qrels["query_id"].append(query_ids[i])
            qrels["clip_id"].append(clip_ids[j])
            qrels["score"].append(-1 if n % 4 == 3 else 1)
    table = {"query_id": query_ids, "task": [TASKS[i % 5] for i in range(queries)]}
    return similarity, table, clip_ids, qrels


def group_case(seed, queries=50, candidates=10):
    rng = np.random.default_rng(seed)
    ids = [f"q{i}" for i in range(queries)]
    groups = [[f"q{i}-{j}" for j in range(candidates)] for i in range(queries)]
    table = {"query_id": ids, "task": [TASKS[i % 5] for i in range(queries)], "candidates": groups,
             "positive": [g[rng.integers(candidates)] for g in groups]}
    return rng.standard_normal((queries, candidates)).astype(np.float32), table


@pytest.mark.parametrize("seed", range(4))
def test_corpus_metrics_equal_pytrec_eval_without_ties(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    similarity, queries, clip_ids, qrels = corpus_case(seed)
    result = score(similarity, queries, clip_ids, qrels, bootstrap=0, per_query=True)
    relevant, excluded = {}, set()
    for q, c, s in zip(qrels["query_id"], qrels["clip_id"], qrels["score"]):
        if s == 1:
            relevant.setdefault(q, {})[c] = 1
        else:
            excluded.add((q, c))
    run = {q: {c: float(similarity[i, j]) for j, c in enumerate(clip_ids) if (q, c) not in excluded}
           for i, q in enumerate(queries["query_id"])}
    reference = pytrec_eval.RelevanceEvaluator(relevant, set(PYTREC.values())).evaluate(run)
    for ours, theirs in PYTREC.items():
        expected = [reference[q][theirs] for q in queries["query_id"]]
        np.testing.assert_allclose(result["per_query"][ours], expected, atol=1e-6, err_msg=ours)


def _tie_broken_average(similarity, queries, clip_ids, qrels, permutations):
    """The mean over explicit tie-breaking orders: jitter below the score resolution, by permutation rank."""
    total = None
    for order in permutations:
        jitter = np.asarray(order, dtype=np.float64)[None, :] * 1e-3
        values = score(similarity.astype(np.float64) + jitter, queries, clip_ids, qrels, bootstrap=0, per_query=True)
        per_query = {k: np.asarray(v) for k, v in values["per_query"].items() if k != "query_id"}
        total = per_query if total is None else {k: total[k] + v for k, v in per_query.items()}
    return {k: v / len(permutations) for k, v in total.items()}


def test_ties_count_by_their_exact_expectation_in_corpus_mode():
    similarity, queries, clip_ids, qrels = corpus_case(7, queries=10, clips=6, ties=True)
    exact = score(similarity, queries, clip_ids, qrels, bootstrap=0, per_query=True)
    averaged = _tie_broken_average(similarity, queries, clip_ids, qrels, list(itertools.permutations(range(6))))
    for metric, values in averaged.items():
        np.testing.assert_allclose(exact["per_query"][metric], values, atol=1e-9, err_msg=metric)


def test_ties_at_the_depth_boundary_match_random_tie_breaking():
    """Integer scores over more clips than the depth of 100: ties straddle every cut-off."""
    similarity, queries, clip_ids, qrels = corpus_case(11, queries=10, clips=130, ties=True)
    exact = score(similarity, queries, clip_ids, qrels, bootstrap=0, per_query=True)["per_query"]
    rng = np.random.default_rng(0)
    sampled = _tie_broken_average(similarity, queries, clip_ids, qrels, [rng.permutation(130) for _ in range(600)])
    for metric, values in sampled.items():
        assert np.mean(exact[metric]) == pytest.approx(np.mean(values), abs=0.01), metric


def test_ties_count_by_their_exact_expectation_in_group_mode():
    queries = {"query_id": ["a", "b"], "task": ["order", "mix"], "candidates": [list("vwxyz"), list("VWXYZ")],
               "positive": ["x", "V"]}
    similarity = np.array([[1, 2, 1, 1, 0], [3, 3, 1, 3, 3]], dtype=np.float32)
    exact = score(similarity, queries, bootstrap=0, per_query=True)["per_query"]
    # a: 1 ahead, tie of 3 -> ranks 2..4; b: tie of 4 at ranks 1..4
    assert exact["accuracy"] == pytest.approx([0.0, 0.25])
    assert exact["mrr"] == pytest.approx([(1 / 2 + 1 / 3 + 1 / 4) / 3, (1 + 1 / 2 + 1 / 3 + 1 / 4) / 4])


def test_constant_scores_give_exactly_the_random_baseline():
    similarity, queries = group_case(0)
    result = score(np.zeros_like(similarity), queries, bootstrap=0)
    assert result["average"]["accuracy"] == pytest.approx(0.1, abs=1e-12)
    assert flat(result["average"]) == pytest.approx(flat(result["random"]["average"]), abs=1e-12)
    similarity, queries, clip_ids, qrels = corpus_case(1)
    result = score(np.full_like(similarity, 0.3), queries, clip_ids, qrels, bootstrap=0)
    for task in TASKS + ["average"]:
        assert flat(result[task]) == pytest.approx(flat(result["random"][task]), abs=1e-12)


def test_torch_tensors_give_the_numpy_results():
    similarity, queries, clip_ids, qrels = corpus_case(2)
    as_numpy = score(similarity, queries, clip_ids, qrels, bootstrap=0)
    as_torch = score(torch.from_numpy(similarity), queries, clip_ids, qrels, bootstrap=0)
    assert flat(as_numpy) == pytest.approx(flat(as_torch))
    similarity, queries = group_case(3)
    assert flat(score(similarity, queries, bootstrap=0)) == pytest.approx(
        flat(score(torch.from_numpy(similarity), queries, bootstrap=0)))


def test_evaluate_module_fast_path_and_add_batch_agree():
    metric = evaluate.load("./reasonaudio_metric")
    similarity, queries = group_case(4)
    direct = score(similarity, queries, bootstrap=50)
    assert metric.compute(similarity=similarity, queries=queries, bootstrap=50) == direct
    for i in reversed(range(len(similarity))):
        metric.add_batch(similarity=[similarity[i].tolist()], query_id=[queries["query_id"][i]])
    assert flat(metric.compute(queries=queries, bootstrap=50)) == pytest.approx(flat(direct))
    corpus = corpus_case(5)
    assert metric.compute(similarity=corpus[0], queries=corpus[1], corpus_ids=corpus[2], qrels=corpus[3],
                          bootstrap=0) == score(*corpus, bootstrap=0)


def test_intervals_are_seeded_and_bracket_the_estimate():
    similarity, queries = group_case(6, queries=200)
    first, second = score(similarity, queries, bootstrap=300, seed=1), score(similarity, queries, bootstrap=300, seed=1)
    assert first["intervals"] == second["intervals"]
    for task in TASKS + ["average"]:
        low, high = first["intervals"][task]["accuracy"]
        assert low <= first[task]["accuracy"] <= high and high > low


def test_paired_significance_against_a_second_system():
    similarity, queries = group_case(8, queries=300)
    rows = np.arange(300)
    positive = [g.index(p) for g, p in zip(queries["candidates"], queries["positive"])]
    better = similarity.copy()
    better[rows, positive] += 5.0
    same = score(similarity, queries, baseline_similarity=similarity, bootstrap=200)
    assert all(p == 1.0 for p in same["p_values"]["average"].values())
    different = score(better, queries, baseline_similarity=similarity, bootstrap=200)
    assert different["p_values"]["average"]["accuracy"] < 0.01
    assert all(different["p_values"][t]["accuracy"] < 0.05 for t in TASKS)


@pytest.mark.parametrize("change, message", [
    (lambda s, q, c, r: (s[:, :-1], q, c, r), "shape"),
    (lambda s, q, c, r: (np.where(s > 2, np.nan, s), q, c, r), "NaN or inf"),
    (lambda s, q, c, r: (np.where(s > 2, np.inf, s), q, c, r), "NaN or inf"),
    (lambda s, q, c, r: (s, q, c, {**r, "clip_id": ["nope"] + r["clip_id"][1:]}), "unknown clip"),
    (lambda s, q, c, r: (s, q, c, {**r, "query_id": ["nope"] + r["query_id"][1:]}), "unknown query"),
    (lambda s, q, c, r: (s, {**q, "query_id": ["q1"] + q["query_id"][1:]}, c, r), "duplicate query_id"),
    (lambda s, q, c, r: (s, q, ["c1"] + c[1:], r), "duplicate corpus id"),
    (lambda s, q, c, r: (s, q, c, {k: [v for v, x in zip(r[k], r["query_id"]) if x != "q3"] for k in r}),
     "no relevant clip"),
    (lambda s, q, c, r: (s, q, c, {k: v + v[:1] for k, v in r.items()}), "twice"),
    (lambda s, q, c, r: (s, q, c, {**r, "score": [2] + r["score"][1:]}), "must be 1"),
    (lambda s, q, c, r: (s[:0], {k: [] for k in q}, c, r), "empty"),
])
def test_bad_input_is_a_clear_error(change, message):
    with pytest.raises(ValueError, match=message):
        score(*change(*corpus_case(9)), bootstrap=0)


def test_group_mode_errors():
    similarity, queries = group_case(10)
    with pytest.raises(ValueError, match="not among its candidates"):
        score(similarity, {**queries, "positive": ["x"] * 50}, bootstrap=0)
    with pytest.raises(ValueError, match="both corpus_ids and qrels"):
        score(similarity, queries, corpus_ids=["a"], bootstrap=0)
    with pytest.raises(ValueError, match="lacks the column"):
        score(similarity, {"query_id": queries["query_id"]}, bootstrap=0)
