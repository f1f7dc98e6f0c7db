"""The plan's fingerprint comes from what each field of GenerateConfig declares: a field that changes the corpus
is part of it, one that only says how the corpus is computed plans the same corpus whatever its value."""
from dataclasses import fields, replace

import pytest

from reasonaudio.generation.config import BUILD, ROLE, WORK, GenerateConfig
from reasonaudio.generation.pipeline import plan_split, query_row
from tests.conftest import small_config

BASE = {"source": "synthetic:", "split": "test", "queries_per_task": 200, "candidates": 10, "atomic_sounds": 200,
        "clip_seconds": 10.0, "sample_rate": 44100, "seed": 0,
        "tasks": ("negation", "order", "overlap", "duration", "mix"), "events_per_clip": [2, 5], "depth": [1, 9],
        "text_style": "natural", "skip_bad_sources": False}
NOISY = {"name": "noisy", "description": "Stationary noise, coloured (white to brown) or white Gaussian, 5-20 dB "
         "below the quietest annotated sound of the group (so every annotated sound stays at least 5 dB above it).",
         "version": 2, "transforms": [{"OneOf": {"transforms": [
             {"AddColorNoise": {"min_snr_db": 5, "max_snr_db": 20, "p": 1.0}},
             {"AddGaussianSNR": {"min_snr_db": 5, "max_snr_db": 20, "p": 1.0}}], "p": 1.0}}]}
# content() as it was when the fingerprint's parameters were a hand-kept list: the published fingerprints hold them
RECORDED = [
    (lambda: GenerateConfig(), BASE),
    (lambda: GenerateConfig.from_profile("paper"),
     {**BASE, "clip_seconds": 30.0, "events_per_clip": [2, 8], "text_style": "paper",
      "shape_weights": {"lasts-before-overlap": 30.0}}),
    (lambda: GenerateConfig(acoustics="noisy"), {**BASE, "acoustics": [NOISY]}),
    (lambda: GenerateConfig(tasks=("mix",), shape_weights=(("lasts-before-overlap", 3),)),
     {**BASE, "tasks": ("mix",), "shape_weights": {"lasts-before-overlap": 3.0}}),
    (lambda: GenerateConfig(tasks=("count",), split="train", seed=5, sample_rate=16000, out="elsewhere", workers=4),
     {**BASE, "split": "train", "sample_rate": 16000, "seed": 5, "tasks": ("count",)}),
]
TINY = dict(tasks=("order",), queries_per_task=2, atomic_sounds=24)
# another valid value of each field that only says how the corpus is computed
WORK_CHANGES = {"out": {"out": "another-folder"}, "force": {"force": True}, "workers": {"workers": 3},
                "num_shards": {"num_shards": 4}, "shard_index": {"num_shards": 4, "shard_index": 2},
                "executor": {"executor": "ray:auto"}, "progress": {"progress": True}}
# another valid value of each field that decides the corpus
BUILD_CHANGES = {"source": "synthetic:", "split": "train", "queries_per_task": 3, "candidates": 5,
                 "atomic_sounds": 30, "clip_seconds": 12.0, "sample_rate": 22050, "seed": 5,
                 "tasks": ("order", "negation"), "events_per_clip": (2, 4), "depth": (1, 3), "text_style": "paper",
                 "skip_bad_sources": True, "acoustics": ("noisy",), "shape_weights": (("chain", 2.0),)}


def roles(role):
    return {f.name for f in fields(GenerateConfig) if f.metadata.get(ROLE) == role}


@pytest.mark.parametrize("make, expected", RECORDED)
def test_content_is_the_recorded_parameters_key_for_key(make, expected):
    content = make().content()
    assert content == expected and list(content) == list(expected)
    assert [type(v) for v in content.values()] == [type(v) for v in expected.values()]


def test_every_field_declares_whether_it_changes_the_build():
    undeclared = {f.name for f in fields(GenerateConfig)} - roles(BUILD) - roles(WORK)
    assert not undeclared, f"fields declaring neither build() nor work(): {sorted(undeclared)}"
    assert set(WORK_CHANGES) == roles(WORK) and set(BUILD_CHANGES) == roles(BUILD)


def planned(config):
    plan = plan_split(config, frozenset())
    return ([query_row(q) for q in plan.queries],
            [[e.to_dict() for e in c.events] for q in plan.queries for c in q.candidates], plan.fingerprint)


def test_a_work_field_plans_the_same_corpus_whatever_its_value(tmp_path):
    base = small_config(tmp_path / "a", **TINY)
    queries, events, print_ = planned(base)
    assert queries
    for name, changes in WORK_CHANGES.items():
        changes = {k: str(tmp_path / v) if k == "out" else v for k, v in changes.items()}
        other = replace(base, **changes)
        assert getattr(other, name) != getattr(base, name)
        assert planned(other) == (queries, events, print_), name


def test_a_build_field_changes_the_content():
    base = small_config("unused", **TINY)
    for name, value in BUILD_CHANGES.items():
        assert getattr(base, name) != value
        assert replace(base, **{name: value}).content() != base.content(), name


def test_acoustics_are_checked_on_creation_as_before():
    with pytest.raises(ValueError, match="acoustics names no condition"):
        GenerateConfig(acoustics=())
    with pytest.raises(ValueError, match="takes --acoustics clean only"):
        GenerateConfig(source="strong:somewhere?labels=x.tsv", tasks=("order",), acoustics="noisy")
    assert [c.name for c in GenerateConfig(acoustics=("noisy", "telephone")).conditions] == ["clean", "noisy",
                                                                                              "telephone"]


def test_a_shape_weighted_0_is_never_planned_and_a_task_keeps_one_shape():
    """Weight 0 leaves a shape out (a train split without it tests composition); nothing else moves."""
    config = small_config("unused", **{**TINY, "queries_per_task": 12})
    shapes = {q.shape for q in plan_split(config, frozenset()).queries}
    assert shapes == {"before", "chain"}
    without = plan_split(replace(config, shape_weights=(("chain", 0),)), frozenset()).queries
    assert {q.shape for q in without} == {"before"}
    with pytest.raises(ValueError, match="every shape it can plan has shape weight 0"):
        plan_split(replace(config, shape_weights=(("chain", 0), ("before", 0.0))), frozenset())
    with pytest.raises(ValueError, match=r"chain=-1: .* number >= 0"):
        replace(config, shape_weights=(("chain", -1),))
