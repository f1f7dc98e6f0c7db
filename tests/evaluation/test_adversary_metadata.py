"""Each baseline declares what `reasonaudio baselines` holds it to once, in its own module (`METADATA`), and
the command, its notes and the validity table derive from it."""
from __future__ import annotations

import importlib
import re
import subprocess
from pathlib import Path

import pytest

from reasonaudio.evaluation import cli
from reasonaudio.evaluation.systems import BASELINES, SYSTEMS, BaselineMetadata, metadata
from reasonaudio.evaluation.systems.counting import TIES
from reasonaudio.evaluation.systems.metadata import CHANCE

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("reasonaudio", "reasonaudio_dataset", "reasonaudio_metric", "generation", "bench")


def test_every_baseline_module_declares_complete_metadata():
    assert {"random", "oracle", "shortcut-audit", "relation-blind", "two-stage"} <= set(BASELINES)
    provided = {found.provides for found in BASELINES.values() if found.provides}
    for kind, found in BASELINES.items():
        module = importlib.import_module(f"reasonaudio.evaluation.systems.{SYSTEMS[kind]}")
        assert module.METADATA is found, kind
        assert found.name == kind and found.reads and found.shows, kind
        assert found.held_to in ("", CHANCE, *TIES, *provided), kind
        assert not found.held_to or found.flag, kind
        assert found.flags == "above" or not found.margin, kind
    assert all(metadata(module) is None for kind, module in SYSTEMS.items() if kind not in BASELINES)


def test_metadata_refuses_an_unknown_direction_and_a_rule_without_words():
    with pytest.raises(ValueError, match="flags must be one of"):
        BaselineMetadata(name="x", reads="nothing", shows="x", held_to=CHANCE, flags="below", flag="f")
    with pytest.raises(ValueError, match="says not what a flag means"):
        BaselineMetadata(name="x", reads="nothing", shows="x", held_to=CHANCE)


def test_the_command_runs_what_the_metadata_declares():
    assert cli.BASELINES == tuple(found.spec or found.name for found in BASELINES.values())
    assert set(cli.LEARNED) == {kind for kind, found in BASELINES.items() if found.needs_train}
    assert [BASELINES[kind].short for kind in cli.MAIN] == sorted(f.short for f in BASELINES.values() if f.short)


def _flagged(monkeypatch, declared: dict, accuracy: list[float], tie: float) -> list[str]:
    """The notes of a toy registry with one system scoring `accuracy` per query, its chance `tie`."""
    monkeypatch.setattr(cli, "DECLARED", declared)
    n = len(accuracy)
    result = {"per_query": {"accuracy": accuracy, "task": ["order"] * n}, "random": {"average": {"accuracy": tie}}}
    return cli.cell_notes({"toy": result})


def test_a_toy_adversary_is_flagged_by_its_declared_rule(monkeypatch):
    n = 4 * cli.MIN_CELL
    below = [0.0] * n
    both = BaselineMetadata(name="toy", reads="nothing", shows="a toy", held_to=CHANCE, flag="the toy cue finds it")
    notes = _flagged(monkeypatch, {"toy": both}, below, 0.5)
    assert len(notes) == 1 and notes[0].startswith(f"order (n={n}): toy is -50.0 points")
    assert "from chance: the construction avoids the positive" in notes[0]
    assert "the toy cue finds it" in _flagged(monkeypatch, {"toy": both}, [1.0] * n, 0.5)[0]
    above = BaselineMetadata(name="toy", reads="nothing", shows="a toy", held_to=CHANCE, flags="above",
                             flag="the toy cue finds it")
    quiet = _flagged(monkeypatch, {"toy": above}, below, 0.5)            # below its tie: no flag when only above flags
    assert quiet == [f"no task, and no cell of {cli.MIN_CELL} queries or more, where toy beats chance, beyond its "
                     "interval (95 % over the cells tested)"]
    unheld = BaselineMetadata(name="toy", reads="nothing", shows="a toy")
    assert "toy" not in _flagged(monkeypatch, {"toy": unheld}, below, 0.5)[0]   # reported only


def test_a_baseline_held_to_another_is_read_against_that_ones_accuracy(monkeypatch):
    n = 2 * cli.MIN_CELL
    declared = {"floor": BaselineMetadata(name="floor", reads="nothing", shows="x", provides="floor tie"),
                "words": BaselineMetadata(name="words", reads="the words", shows="x", held_to="floor tie",
                                          flags="above", margin=0.1, flag="the words give it away")}
    monkeypatch.setattr(cli, "DECLARED", declared)
    rows = {"floor": [0.0] * n, "words": [1.0] * n}
    results = {name: {"per_query": {"accuracy": values, "task": ["order"] * n}} for name, values in rows.items()}
    notes = cli.cell_notes(results)
    assert len(notes) == 1 and "words is +100.0 points" in notes[0] and "from floor: the words give it away" in notes[0]


def test_each_adversary_is_named_in_its_own_module_and_one_registry_line_only():
    for kind, module in SYSTEMS.items():
        # the reasoning-free ones (a baseline with a model spec, two-stage, is a model the docs name); a plain word
        # (random, oracle) is everywhere
        if kind not in BASELINES or BASELINES[kind].spec or not re.search(r"[-_]", kind):
            continue
        for name in (kind, module):
            found = subprocess.run(["grep", "-rlw", "--include=*.py", "--", name, *SOURCES], cwd=ROOT,
                                   capture_output=True, text=True).stdout.split()
            allowed = {f"reasonaudio/evaluation/systems/{module}.py", "reasonaudio/evaluation/systems/__init__.py"}
            assert set(found) <= allowed, (name, sorted(set(found) - allowed))


def test_the_toy_adversary_of_the_docs_is_one_file(small_corpus, tmp_path, monkeypatch):
    """The adversary docs/architecture.md shows, written as the one file it says and registered with its one
    line, is opened by its spec, scores a build, and is read as held to chance."""
    import reasonaudio.evaluation.systems as systems
    from reasonaudio.evaluation.runner import RunSettings, run
    from reasonaudio.evaluation.systems import EvalData, open_system

    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page[page.index("## Adding an adversary"):]
    (tmp_path / "busiest.py").write_text(re.findall(r"```python\n(.*?)```", section, re.S)[0], encoding="utf-8")
    monkeypatch.setattr(systems, "__path__", [*systems.__path__, str(tmp_path)])
    monkeypatch.setitem(systems.SYSTEMS, "busiest", "busiest")
    declared = systems.metadata("busiest")
    assert declared.name == "busiest" and declared.held_to == CHANCE and declared.reads == "nothing"
    assert systems.check_spec("busiest")[0] == "busiest"
    scored = run(open_system("busiest"), EvalData.load(str(small_corpus), "test"),
                 RunSettings(bootstrap=0, progress=False), per_query=True)
    assert 0.0 <= scored["average"]["accuracy"] <= 1.0 and len(scored["per_query"]["accuracy"]) > 0
    notes = _flagged(monkeypatch, {"toy": declared}, [1.0] * 4 * cli.MIN_CELL, 0.5)    # were it always right
    assert len(notes) == 1 and "toy is +50.0 points" in notes[0] and "how many events a candidate holds" in notes[0]
