"""Each relation is declared once, as a `Relation` in the registry (`reasonaudio.core.relation_kinds`): an atom's
parsing, the relevance function and a detector's confidence read it from there."""
from __future__ import annotations

import dataclasses
import importlib
import re
import sys
from pathlib import Path

import pytest

from reasonaudio.core.relation_kinds import REGISTRY
from reasonaudio.core.relation_kinds.base import NO, YES, Event, Heard, Number, Relation, every, some
from reasonaudio.core.relations import (AMBIGUOUS, FAILURE_KINDS, Atom, judge_corpus, occurrences, relevant,
                                        verdict)
from reasonaudio.models.hearing import atom_confidence

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def starts_first(tmp_path, monkeypatch):
    """The toy relation of docs/architecture.md: its module, written as the page shows it, and its one line."""
    import reasonaudio.core.relation_kinds as relation_kinds

    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    module, line = re.findall(r"```python\n(.*?)```", page[page.index("## Adding a relation"):], re.S)[:2]
    (tmp_path / "starts_first.py").write_text(module, encoding="utf-8")
    monkeypatch.setattr(relation_kinds, "__path__", [*relation_kinds.__path__, str(tmp_path)])
    monkeypatch.delitem(sys.modules, "reasonaudio.core.relation_kinds.starts_first", raising=False)
    starts_first = importlib.import_module("reasonaudio.core.relation_kinds.starts_first")
    relation = eval(line.strip().rstrip(","), {"starts_first": starts_first})
    monkeypatch.setitem(REGISTRY, relation.name, relation)
    yield relation
    sys.modules.pop("reasonaudio.core.relation_kinds.starts_first", None)


def _event(label: str, onset: float, offset: float) -> Event:
    return Event(label, label, onset, offset, 0.0)


def test_a_relation_added_to_the_registry_is_parsed_judged_and_scored(starts_first):
    atom = Atom.from_dict({"relation": "starts_first", "args": ["dog", "bell"]})
    assert atom == Atom("starts_first", ("dog", "bell")) and atom.labels == ("dog", "bell")
    with pytest.raises(ValueError, match=r"^starts_first takes 2 class label\(s\), got \['dog'\]$"):
        Atom.from_dict({"relation": "starts_first", "args": ["dog"]})
    early, late = _event("dog", 0.0, 5.0), _event("bell", 2.0, 3.0)
    assert relevant([atom], [early, late]) is YES
    assert relevant([atom], [_event("dog", 1.8, 5.0), late]) is AMBIGUOUS
    assert relevant([atom], [_event("dog", 2.5, 3.0), late]) is NO
    assert relevant([atom], [early]) is NO                        # requires presence: no bell, a clear no
    assert verdict(atom, occurrences([early, _event("dog", 4.0, 5.0), late])) is AMBIGUOUS   # every occurrence
    assert judge_corpus([("q", [atom])], [("c1", [early, late]), ("c2", [early])]) == {("q", "c1"): YES}
    peak = {"dog": 0.9, "bell": 0.8}
    sure = atom_confidence(atom, {"dog": early, "bell": late}, peak)
    unsure = atom_confidence(atom, {"dog": _event("dog", 2.5, 3.0), "bell": late}, peak)
    assert sure > 0.9 > 0.1 > unsure
    assert atom_confidence(atom, {"dog": early}, peak) == pytest.approx(0.25 * 0.8)   # the bell not detected


def test_a_relation_left_out_of_the_registry_is_unknown():
    with pytest.raises(ValueError, match="^unknown relation 'starts_first'; known: "):
        Atom.from_dict({"relation": "starts_first", "args": ["dog", "bell"]})


def test_a_relation_declares_every_field():
    required = {f.name for f in dataclasses.fields(Relation) if f.default is dataclasses.MISSING}
    assert required == {"name", "labels", "number", "requires_presence", "truth", "combine", "confidence", "fails_as"}
    with pytest.raises(TypeError):
        Relation("starts_first", labels=2, number=None, requires_presence=True, truth=lambda x, y, slack=0: NO, combine=every)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_registered_relation_is_whole(name):
    relation = REGISTRY[name]
    assert isinstance(relation, Relation) and relation.name == name
    assert isinstance(relation.labels, int) and relation.labels >= 1 and isinstance(relation.requires_presence, bool)
    assert relation.number is None or isinstance(relation.number, Number)
    assert callable(relation.truth) and relation.combine in (every, some, None) and callable(relation.confidence)
    assert relation.opposite is None or REGISTRY[relation.opposite].opposite == name    # opposites name each other
    assert relation.fails_as in FAILURE_KINDS
    number = ("2",) if relation.number else ()
    labels = ("dog", "bell")[:relation.labels]
    clip = occurrences([_event("dog", 0.0, 2.0), _event("dog", 4.0, 6.0), _event("bell", 1.0, 5.0)])
    assert verdict(Atom(name, labels + number), clip) in (YES, NO, AMBIGUOUS)
    heard = [Heard(0.7, clip[label][0], clip[label]) for label in labels]
    assert 0.0 <= relation.confidence(heard, number) <= 1.0
