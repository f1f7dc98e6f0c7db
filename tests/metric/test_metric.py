"""The metric: exactness against pytrec_eval, tie expectations, baselines, errors, evaluate wrapper."""
import itertools
import re

import datasets
import evaluate
import numpy as np
import pytest
import torch

from reasonaudio_metric.functional import RESULT_KEYS, score

TASKS = ["negation", "order", "overlap", "duration", "mix"]
PYTREC = {"ndcg@10": "ndcg_cut_10", "recall@1": "recall_1", "recall@5": "recall_5", "recall@10": "recall_10",
          "mrr": "recip_rank", "map@100": "map_cut_100", "hit@10": "success_10"}


def flat(result: dict) -> dict:
    """Nested results as {(key, ...): value}, so that pytest.approx can compare them."""
    out = {}
    for key, value in result.items():
        if isinstance(value, (dict, tuple, list)):
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
    assert result["random"]["average"]["accuracy"] == 0.1 and repr(result["random"]["order"]["accuracy"]) == "0.1"
    similarity, queries, clip_ids, qrels = corpus_case(1)
    result = score(np.full_like(similarity, 0.3), queries, clip_ids, qrels, bootstrap=0)
    for task in TASKS + ["average"]:
        assert flat(result[task]) == pytest.approx(flat(result["random"][task]), abs=1e-12)


@pytest.mark.parametrize("ties", [False, True])
def test_corpus_mode_in_small_blocks_gives_the_same_results(monkeypatch, ties):
    """The ranking copies a bounded block of rows at a time (memory that does not grow with the corpus):
    blocks of one row and of a few give exactly the one-block results, ties and exclusions included."""
    from reasonaudio_metric import functional

    similarity, queries, clip_ids, qrels = corpus_case(5, ties=ties)
    whole = score(similarity, queries, clip_ids, qrels, bootstrap=0, per_query=True)
    for scores_a_block in (1, 3 * 150):
        monkeypatch.setattr(functional, "BLOCK_SCORES", scores_a_block)
        assert score(similarity, queries, clip_ids, qrels, bootstrap=0, per_query=True) == whole


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


def test_an_unknown_keyword_is_one_line_naming_every_keyword_score_takes():
    """A misspelt interval setting (`seeds=`) is refused, through `compute` too, not silently ignored."""
    similarity, queries = group_case(10)
    message = re.escape("score: unknown keyword(s) ['seeds']; it takes similarity, queries, corpus_ids, qrels, "
                        "baseline_similarity, per_query, by, bootstrap, seed, confidence")
    with pytest.raises(ValueError, match=message):
        score(similarity, queries, bootstrap=0, seeds=3)
    with pytest.raises(ValueError, match=message):
        evaluate.load("./reasonaudio_metric").compute(similarity=similarity, queries=queries, seeds=3)
    assert score(similarity, queries, bootstrap=50, seed=2, confidence=0.9) == \
        score(similarity, queries, **{"bootstrap": 50, "seed": 2, "confidence": 0.9})


def depth_case():
    """Six queries of three candidates, the positive first; depths out of order to check the cells' order.
    Per query accuracy: 1 (ranked first), 0.5 (tied with one), 0 (below one), 1, 1/3 (all tied), 1."""
    queries = {"query_id": [f"q{i}" for i in range(6)], "task": ["order"] * 3 + ["negation"] * 3,
               "depth": [2, 1, 2, 3, 1, 1], "shape": ["before-chain", "before", "before-chain", "x", "y", "y"],
               "candidates": [[f"q{i}-{j}" for j in range(3)] for i in range(6)],
               "positive": [f"q{i}-0" for i in range(6)]}
    similarity = np.array([[2, 1, 0], [1, 1, 0], [0, 1, 0], [2, 1, 0], [1, 1, 1], [2, 0, 1]], dtype=np.float32)
    return similarity, queries


def test_breakdown_by_task_and_depth_by_hand():
    similarity, queries = depth_case()
    result = score(similarity, queries, by=("task", "depth"), bootstrap=200)
    cells = result["breakdown"]["cells"]
    assert result["breakdown"]["by"] == ["task", "depth"]
    assert list(cells) == ["order/depth=1", "order/depth=2", "negation/depth=1", "negation/depth=3"]
    assert {key: cell["accuracy"] for key, cell in cells.items()} == pytest.approx({
        "order/depth=1": 0.5, "order/depth=2": (1 + 0) / 2, "negation/depth=1": (1 / 3 + 1) / 2, "negation/depth=3": 1})
    assert {key: cell["num_queries"] for key, cell in cells.items()} == {
        "order/depth=1": 1, "order/depth=2": 2, "negation/depth=1": 2, "negation/depth=3": 1}
    assert cells["negation/depth=1"]["where"] == {"task": "negation", "depth": 1}
    assert cells["order/depth=1"]["mrr"] == pytest.approx((1 + 1 / 2) / 2)
    for cell in cells.values():
        assert cell["random"] == pytest.approx({"accuracy": 1 / 3, "mrr": (1 + 1 / 2 + 1 / 3) / 3})
        low, high = cell["intervals"]["accuracy"]
        assert low <= cell["accuracy"] <= high
    assert cells["negation/depth=3"]["intervals"]["accuracy"] == (1.0, 1.0)   # one query: nothing to resample
    headline = score(similarity, queries, bootstrap=200)
    assert "breakdown" not in headline
    assert {k: v for k, v in result.items() if k != "breakdown"} == headline   # the headline is unchanged
    assert headline["order"]["accuracy"] == pytest.approx(0.5)
    assert headline["average"]["accuracy"] == pytest.approx((0.5 + (1 + 1 / 3 + 1) / 3) / 2)


def test_breakdown_by_any_columns_from_a_dataset_and_through_evaluate():
    similarity, queries = depth_case()
    table = datasets.Dataset.from_dict(queries)
    by_shape = score(similarity, table, by=("task", "shape"), bootstrap=0)["breakdown"]
    assert list(by_shape["cells"]) == ["order/shape=before-chain", "order/shape=before", "negation/shape=x",
                                       "negation/shape=y"]                  # strings: as the queries name them
    assert "intervals" not in by_shape["cells"]["negation/shape=y"]
    assert by_shape["cells"]["negation/shape=y"]["accuracy"] == pytest.approx((1 / 3 + 1) / 2)
    only_depth = score(similarity, table, by=["depth"], bootstrap=0)["breakdown"]["cells"]
    assert {key: cell["num_queries"] for key, cell in only_depth.items()} == {"depth=1": 3, "depth=2": 2, "depth=3": 1}
    metric = evaluate.load("./reasonaudio_metric")
    direct = score(similarity, table, by=("task", "depth"), bootstrap=50)
    assert metric.compute(similarity=similarity, queries=table, by=("task", "depth"), bootstrap=50) == direct
    metric.add_batch(similarity=similarity.tolist(), query_id=queries["query_id"])
    assert flat(metric.compute(queries=table, by=("task", "depth"), bootstrap=50)) == pytest.approx(flat(direct))


def test_breakdown_in_corpus_mode_averages_each_cells_queries():
    similarity, queries, clip_ids, qrels = corpus_case(12)
    queries["depth"] = [1 + i % 3 for i in range(len(queries["query_id"]))]
    result = score(similarity, queries, clip_ids, qrels, bootstrap=0, per_query=True, by=("task", "depth"))
    per_query = {m: np.asarray(v) for m, v in result["per_query"].items() if m != "query_id"}
    for cell in result["breakdown"]["cells"].values():
        members = [i for i, (t, d) in enumerate(zip(queries["task"], queries["depth"]))
                   if (t, d) == (cell["where"]["task"], cell["where"]["depth"])]
        assert cell["num_queries"] == len(members)
        assert {m: cell[m] for m in per_query} == pytest.approx({m: v[members].mean() for m, v in per_query.items()})


def test_breakdown_errors_name_the_problem():
    similarity, queries = depth_case()
    without_depth = {k: v for k, v in queries.items() if k != "depth"}
    with pytest.raises(ValueError, match="lacks the column 'depth'"):
        score(similarity, without_depth, by=("task", "depth"))
    with pytest.raises(ValueError, match="lacks the column 'depth'"):
        score(similarity, datasets.Dataset.from_dict(without_depth), by=("task", "depth"))
    for by in ("depth", (), ("task", "task"), ("task", 3)):
        with pytest.raises(ValueError, match="by must be a tuple of distinct query column names"):
            score(similarity, queries, by=by)


@pytest.mark.parametrize("task", [*RESULT_KEYS, "", None, "negation ", 3])
def test_a_task_name_that_would_overwrite_or_split_a_headline_is_refused(task):
    """A key of the result ('average', 'hard_negative_queries', ...) would overwrite what the result says
    under it; a blank, spaced or non-text name would add a sixth task and move the average."""
    similarity, queries = group_case(10)
    tasks = list(queries["task"])
    tasks[3] = task
    with pytest.raises(ValueError, match="task"):
        score(similarity, {**queries, "task": tasks}, bootstrap=0)
    similarity, queries, corpus_ids, qrels = corpus_case(9)
    tasks = list(queries["task"])
    tasks[0] = task
    with pytest.raises(ValueError, match="task"):
        score(similarity, {**queries, "task": tasks}, corpus_ids, qrels, bootstrap=0)


def test_a_result_with_everything_asked_holds_its_tasks_and_exactly_the_result_keys():
    similarity, queries = group_case(10)
    negatives = [[c for c in group if c != positive][:1] if i % 2 else []
                 for i, (group, positive) in enumerate(zip(queries["candidates"], queries["positive"]))]
    queries = {**queries, "hard_negatives": negatives, "depth": [i % 3 for i in range(len(negatives))],
               "hard_negative_kinds": [["order"] * len(n) for n in negatives]}
    result = score(similarity, queries, baseline_similarity=similarity[:, ::-1], bootstrap=20, per_query=True,
                   by=("task", "depth"))
    assert list(result) == [*TASKS, *RESULT_KEYS]


def _nested(qrels: dict) -> dict:
    """The qrels table as BEIR's and pytrec_eval's {query_id: {clip_id: score}}."""
    nested = {}
    for query, clip, value in zip(qrels["query_id"], qrels["clip_id"], qrels["score"]):
        nested.setdefault(query, {})[clip] = value
    return nested


def test_qrels_as_a_nested_mapping_score_as_the_qrels_table():
    similarity, queries, clip_ids, qrels = corpus_case(11)
    table = score(similarity, queries, clip_ids, qrels, bootstrap=50, per_query=True)
    assert score(similarity, queries, clip_ids, _nested(qrels), bootstrap=50, per_query=True) == table
    metric = evaluate.load("./reasonaudio_metric")
    assert metric.compute(similarity=similarity, queries=queries, corpus_ids=clip_ids, qrels=_nested(qrels),
                          bootstrap=50, per_query=True) == table
    for i, query_id in enumerate(queries["query_id"]):
        metric.add_batch(similarity=[similarity[i].tolist()], query_id=[query_id])
    assert flat(metric.compute(queries=queries, corpus_ids=clip_ids, qrels=_nested(qrels), bootstrap=50,
                               per_query=True)) == pytest.approx(flat(table))
    with pytest.raises(ValueError, match="query 'q1' maps to a list, not {clip_id: score}"):
        score(similarity, queries, clip_ids, {**_nested(qrels), "q1": ["c1"]}, bootstrap=0)


def test_a_positive_listed_as_its_own_hard_negative_is_refused():
    similarity, queries = group_case(10)
    negatives = [[c for c in group if c != positive][:1] for group, positive in zip(queries["candidates"], queries["positive"])]
    negatives[2] = [queries["positive"][2]]
    with pytest.raises(ValueError, match="its own hard negative"):
        score(similarity, {**queries, "hard_negatives": negatives}, bootstrap=0)


def test_a_masked_or_meta_matrix_is_refused():
    similarity, queries = group_case(10)
    masked = np.ma.masked_array(similarity, mask=np.zeros_like(similarity, dtype=bool))
    masked.mask[:, 0] = True
    with pytest.raises(ValueError, match="masked"):
        score(masked, queries, bootstrap=0)
    assert score(np.ma.masked_array(similarity), queries, bootstrap=0) == score(similarity, queries, bootstrap=0)
    with pytest.raises(ValueError, match="meta"):
        score(torch.empty(similarity.shape, device="meta"), queries, bootstrap=0)
