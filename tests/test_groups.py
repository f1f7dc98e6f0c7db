"""Candidate groups, planned without audio: every hard negative changes only what its atom tests, and no
timeline statistic tells a positive from its twin."""
import numpy as np
import pytest

from generation.bank import build_bank
from generation.relations import Atom
from generation.tasks import TASKS, plan_group


@pytest.fixture(scope="module")
def by_label():
    return build_bank("synthetic:?variants=12", split=None, count=240, sample_rate=16000, progress=False).by_label()


def plans(by_label, task, count=60):
    return [plan_group(TASKS[task], f"q{i}", by_label, np.random.default_rng([7, i]), 10, 10.0) for i in range(count)]


def timeline(events):
    """Query-blind statistics of a clip's timeline: span, first onset, last offset, silence in total."""
    union, end = 0.0, -1.0
    for event in sorted(events, key=lambda e: e.onset):
        union += max(0.0, event.offset - max(event.onset, end))
        end = max(end, event.offset)
    return (round(min(e.onset for e in events), 3), round(max(e.offset for e in events), 3), round(union, 3))


def by_id(plan):
    return {c.clip_id: c.events for c in plan.candidates}


def moved(positive, negative):
    """Labels whose (onset, offset) differ, and labels present in one clip only."""
    a, b = ({e.label: (e.onset, e.offset) for e in events} for events in (positive, negative))
    return {label for label in a.keys() & b.keys() if a[label] != b[label]}, a.keys() ^ b.keys()


def test_overlap_twins_share_every_timeline_statistic(by_label):
    for plan in plans(by_label, "overlap"):
        clips = by_id(plan)
        positive = clips[plan.positive]
        (negative,) = [clips[c] for c in plan.hard_negatives]
        assert timeline(positive) == timeline(negative)
        changed, swapped = moved(positive, negative)
        assert not swapped and len(changed) == 1        # only the shorter sound moved, into the extra sound
        assert changed <= set(plan.atoms[0].args)


def test_order_and_negation_flips_move_nothing_else(by_label):
    for plan in plans(by_label, "order", 40):
        clips = by_id(plan)
        (negative,) = [clips[c] for c in plan.hard_negatives]
        changed, swapped = moved(clips[plan.positive], negative)
        assert not swapped and changed == set(plan.atoms[0].args)
        assert timeline(clips[plan.positive]) == timeline(negative)
    for plan in plans(by_label, "negation", 40):
        clips = by_id(plan)
        (negative,) = [clips[c] for c in plan.hard_negatives]
        changed, swapped = moved(clips[plan.positive], negative)
        absent = next(atom.args[0] for atom in plan.atoms if atom.relation == "absent")
        assert not changed and absent in swapped and len(swapped) == 2   # one sound replaced in place
        assert timeline(clips[plan.positive]) == timeline(negative)


def test_longer_needs_a_comparison_not_the_absolute_contrast(by_label):
    pairs = []
    for plan in plans(by_label, "duration", 120):
        if plan.atoms != (Atom("longer", plan.atoms[0].args),):
            continue
        x, y = plan.atoms[0].args
        events = {e.label: e.seconds for e in by_id(plan)[plan.positive]}
        pairs.append((events[x], events[y]))
    longs, shorts = np.array(pairs).T
    assert np.all(longs >= 2 * shorts)
    assert np.mean(longs < 4.0) > 0.5 and np.mean(shorts > 1.5) > 0.05   # neither is "long" / "short" by itself
    assert np.mean(longs < shorts.max()) > 0.05                           # nor is any length a threshold
