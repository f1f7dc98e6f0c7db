"""The adversaries the construction must hold against, and the construction's answers to them: the
relation-blind rule (which sounds are named, not what is said of them), the listwise audit (the
candidates compared with each other), and the groups that leave them nothing (closures, balanced
stand-ins, lasts partners from the same lengths)."""
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest

from reasonaudio.evaluation.systems.learned import fit_classifier
from reasonaudio.evaluation.systems.listwise_audit import candidate_features
from reasonaudio.evaluation.systems.relation_blind import pair_features
from reasonaudio.generation.bank import build_bank
from reasonaudio.core.relations import Event
from reasonaudio.generation.tasks import TASKS, Planning, Quotas, plan_group
from reasonaudio.generation.tasks.designs import design_scenes


@pytest.fixture(scope="module")
def by_label():
    return build_bank("synthetic:?variants=12", split=None, count=240, sample_rate=16000, progress=False).by_label()


def plans(by_label, task, shape, count=40):
    """The first `count` groups of `shape`, planned as a split plans them (one `Quotas` for all)."""
    found, planning = [], Planning(by_label, 10, 10.0, quotas=Quotas())
    for i in range(400):
        plan = plan_group(TASKS[task], f"q{i}", planning, np.random.default_rng([11, i]))
        if plan.shape == shape:
            found.append(plan)
        if len(found) == count:
            return found
    return found


def ev(label, onset, offset):
    return Event(label, label, onset, offset, 0.0)


def test_the_relation_blind_features_find_a_planted_position_cue():
    """Positives end on an unmentioned sound, negatives on a named one: the adversary must find it."""
    rng = np.random.default_rng(0)
    rows, labels = [], []
    for _ in range(300):
        start = float(rng.uniform(0, 2))
        named_last = [ev("x", start, start + 1), ev("u", start + 2, start + 3), ev("y", start + 4, start + 5)]
        named_inside = [ev("x", start, start + 1), ev("y", start + 2, start + 3), ev("u", start + 4, start + 5)]
        for events, label in ((named_inside, 1), (named_last, 0)):
            rows.append(pair_features({"x", "y"}, events, 10.0))
            labels.append(label)
    classifier = fit_classifier(np.array(rows), np.array(labels), 0)
    assert classifier.score(np.array(rows), np.array(labels)) > 0.95


def test_the_count_tie_counts_named_sounds_not_their_events():
    """A natural recording may hold a named class twice: the tie is that of counting the classes, the best a
    counting rule does (counting events, a rule counting classes would beat it with no relation read)."""
    from reasonaudio.evaluation.systems.counting import group_count_tie
    positive = [ev("x", 0, 1), ev("y", 2, 3)]
    repeated = [ev("x", 0, 1), ev("x", 2, 3), ev("u", 4, 5)]        # two events of x, no y
    version = [ev("y", 0, 1), ev("x", 2, 3)]
    assert group_count_tie({"x", "y"}, [positive, repeated, version], 0) == 0.5


def test_the_listwise_features_find_a_planted_centre():
    """A star member (a centre one edit from three others, which are two edits apart): the centre is found."""
    rng = np.random.default_rng(1)
    rows, labels = [], []
    for _ in range(100):
        base = [ev("p", 0, 1), ev("q", 2, 3), ev("r", 4, 5), ev("s", 6, 7)]
        flips = [[ev("t", 0, 1)] + base[1:], base[:1] + [ev("t", 2, 3)] + base[2:], base[:2] + [ev("t", 4, 5), base[3]]]
        others = [[ev(f"o{k}{i}", i * 2, i * 2 + 1) for i in range(4)] for k in range(6)]
        group = [base] + flips + others
        order = rng.permutation(len(group))
        features = candidate_features([group[i] for i in order])
        rows += features
        labels += [int(i == 0) for i in order]
    classifier = fit_classifier(np.array(rows), np.array(labels), 0)
    scores = classifier.predict_proba(np.array(rows))[:, 1].reshape(100, 10)
    found = np.mean([row.argmax() == list(label).index(1) for row, label in zip(scores, np.array(labels).reshape(100, 10))])
    assert found > 0.9


def test_the_listwise_features_ignore_the_candidates_order():
    """Tied candidates get the same features, whatever their place in the list: a rank broken by position would let
    the audit bet on where the positive was shuffled to."""
    member = [[ev("p", 0, 1), ev(label, 2, 3)] for label in "abcd"]
    features = np.array(candidate_features(member))
    reversed_ = np.array(candidate_features(member[::-1]))[::-1]
    assert np.array_equal(features, reversed_)
    assert len({tuple(row) for row in features}) == 1


def _edit_degree(plan) -> dict[str, int]:
    """Per candidate: how many others of the group are one edit (one or two slots changed) away."""
    slots = {c.clip_id: {(e.label, e.onset, e.offset) for e in c.events} for c in plan.candidates}
    return {a: sum(0 < len(slots[a] ^ slots[b]) <= 4 for b in slots if b != a) for a in slots}


@pytest.mark.parametrize("task, shape, degree", [("overlap", "overlap-before", 2), ("order", "chain", 2),
                                                 ("duration", "longer-chain", 3), ("mix", "before-absent", 2),
                                                 ("mix", "longer-absent", 2),
                                                 # stars before excluded sounds put in followed the trades:
                                                 ("mix", "before-overlap-absent", 4), ("mix", "lasts-present-absent", 3)])
def test_the_positive_is_no_centre_of_its_member(by_label, task, shape, degree):
    """Two tested atoms: the positive's member is a closure (a square: base, both flips, both at once; for
    chains all six orders, or all six ways three lengths fall), or, for an orbit, as often as the rest
    allows, an arc of one through the positive: the positive is never one edit from more candidates than
    most of the group is, and in a whole closure exactly as many as each of its hard negatives."""
    whole = 0
    for plan in plans(by_label, task, shape, 20):
        found = _edit_degree(plan)
        assert sum(found[c] >= found[plan.positive] for c in found if c != plan.positive) >= 5, plan.text
        if found[plan.positive] == degree and {found[c] for c in plan.hard_negatives} == {degree}:
            whole += 1
    assert whole >= 12


def test_in_a_design_the_positive_sits_anywhere_in_the_one_edit_graph(by_label):
    """A design (`designs.py`) has no member to be the centre of: its candidates' one-edit degrees depend on
    where the left-out places fall in time, drawn at random, so the positive out-ranks as many candidates as a
    candidate drawn at random (about half of the others)."""
    ranks = []
    for plan in plans(by_label, "negation", "present-two-absent", 60):
        found = _edit_degree(plan)
        others = [found[c] for c in found if c != plan.positive]
        ranks.append((sum(d < found[plan.positive] for d in others) + sum(d == found[plan.positive] for d in others) / 2)
                     / len(others))
    assert len(ranks) == 60 and abs(np.mean(ranks) - 0.5) < 0.1, np.mean(ranks)


def test_overlap_stand_ins_sit_before_and_after_the_pair_alike(by_label):
    """In the hard negative the inner sound stands alone where the stand-in stood: after the pair as often
    as before it, so "no named sound is last" does not find the positive."""
    last = Counter()
    for plan in plans(by_label, "overlap", "overlap", 60):
        clips = {c.clip_id: c.events for c in plan.candidates}
        named = set(plan.atoms[0].labels)
        for clip in (plan.positive, *plan.hard_negatives):
            final = max(clips[clip], key=lambda e: (e.offset, e.onset))
            last[clip == plan.positive, final.label in named] += 1
    positive = last[True, True] / (last[True, True] + last[True, False])
    negative = last[False, True] / (last[False, True] + last[False, False])
    assert abs(positive - negative) < 0.2, (positive, negative)


def test_a_lasts_sound_is_as_long_in_hard_negatives_as_in_positives(by_label):
    """The named sound lasts about 2 s in a positive and about 5 s in its hard negative, or the reverse,
    half the groups each way: its length alone says nothing (with one fixed partner length per N, it
    would find every positive)."""
    pairs = Counter()
    for plan in plans(by_label, "duration", "lasts", 60):
        clips = {c.clip_id: c.events for c in plan.candidates}
        label = plan.atoms[0].labels[0]

        def near(clip):
            seconds = next(e.seconds for e in clips[clip] if e.label == label)
            assert min(abs(seconds - 2), abs(seconds - 5)) < 0.6
            return min((2, 5), key=lambda n: abs(n - seconds))
        pairs[near(plan.positive), near(plan.hard_negatives[0])] += 1
    assert set(pairs) == {(2, 5), (5, 2)} and 0.3 < pairs[2, 5] / sum(pairs.values()) < 0.7


@pytest.mark.parametrize("shape", ["present-absent", "two-present-absent"])
def test_an_excluded_sound_is_held_as_often_as_the_sound_it_replaces(by_label, shape):
    """Every member's hard negatives put the excluded sound in the place of the same sound: in the group, as
    many candidates hold the one as the other, so neither tells the positive's member (half the other
    members holding the excluded sound, each its own, would make it the group's rarest pair, and so would a
    short discrete replaced sound left out of the members whose places are longer)."""
    gaps = []
    for plan in plans(by_label, "negation", shape, 30):
        clips = {c.clip_id: {e.label for e in c.events} for c in plan.candidates}
        excluded = next(atom.labels[0] for atom in plan.atoms if atom.relation == "absent")
        (replaced,) = clips[plan.positive] - clips[plan.hard_negatives[0]]
        holding = Counter(label for labels in clips.values() for label in labels)
        gaps.append(holding[excluded] - holding[replaced])
    assert len(gaps) == 30 and not any(gaps), gaps


@pytest.mark.parametrize("shape", ["present-absent", "two-present-absent", "present-two-absent"])
def test_no_named_sound_is_held_more_often_and_the_positive_has_a_mirror(by_label, shape):
    """A symmetric design (`generation/tasks/designs.py`): every named sound is held by as many candidates, and
    renaming an excluded sound as a present one maps the group on itself with the positive on another
    candidate, so a rule blind to which named sound is excluded ties the two (as members, every flip would hold the
    excluded sound: five candidates to the wanted one's two, and "the candidate holding the named sound fewest
    hold" would find every positive of present-absent)."""
    for plan in plans(by_label, "negation", shape, 30):
        clips = {c.clip_id: frozenset(e.label for e in c.events) for c in plan.candidates}
        named = {label for atom in plan.atoms for label in atom.labels}
        assert len({sum(label in held for held in clips.values()) for label in named}) == 1, plan.text
        excluded = next(atom.labels[0] for atom in plan.atoms if atom.relation == "absent")
        patterns = Counter(held & named for held in clips.values())

        def renamed(held, present):
            return frozenset({excluded: present, present: excluded}.get(label, label) for label in held)
        mirrored = [present for present in clips[plan.positive] & named
                    if Counter({renamed(p, present): n for p, n in patterns.items()}) == patterns]
        assert mirrored, plan.text
        mirror = renamed(clips[plan.positive] & named, mirrored[0])
        assert [c for c, held in clips.items() if held & named == mirror] != [plan.positive], plan.text


def test_only_the_positives_member_holds_as_many_named_sounds_in_a_mix_with_an_excluded_one(by_label):
    """Where a mix query excludes a sound and tests a relation besides, the clips holding as many of the named
    sounds as the positive are its own member's versions (every flip keeps the clip's lengths): with the
    members' related
    sounds in a ring, a neighbour's put-in would hold one named sound in a related place and the excluded one in an
    unmentioned, and a relation-blind rule would tell those from the positive."""
    checked = 0
    planning = Planning(by_label, 10, 10.0)
    for i in range(120):
        plan = plan_group(TASKS["mix"], f"q{i}", planning, np.random.default_rng([13, i]))
        excluded = {label for atom in plan.atoms if atom.relation == "absent" for label in atom.labels}
        if not excluded:
            continue
        named = set().union(*(atom.labels for atom in plan.atoms))
        clips = {c.clip_id: c.events for c in plan.candidates}
        count = {clip: len(named & {e.label for e in events}) for clip, events in clips.items()}
        lengths = {clip: sorted(round(e.seconds, 3) for e in events) for clip, events in clips.items()}
        tied = [clip for clip in clips if count[clip] == count[plan.positive]]
        assert all(lengths[clip] == lengths[plan.positive] for clip in tied), plan.text
        checked += 1
    assert checked >= 60, checked


@pytest.mark.parametrize("shape", ["present-absent", "two-present-absent", "present-two-absent"])
def test_a_designs_positive_holds_every_drawn_class_alike(shape):
    """The classes are drawn one by one, each leaving out the look-alikes of those before it, so the first drawn
    are the classes with look-alikes; held by the positive, they would find it with no query ("the candidate
    with the most classes that have a look-alike"). Which drawn class the positive
    holds must not follow the draw order."""
    task_shape = next(s for s in TASKS["negation"].shapes if s.name == shape)
    design = task_shape.design(10)
    first_held = Counter()
    for seed in range(400):
        drawn = iter(range(100))

        def draw(need, exclude):
            k = next(drawn)
            return SimpleNamespace(label=f"c{k}", source_id=f"s{k}", kind="continuous")
        scenes, _ = design_scenes(task_shape, design, {n: 2.0 for n in range(3, 6)}, draw, lambda sound, room: 1.0,
                                  (-6.0, 0.0), (0.2, 0.5), np.random.default_rng(seed))
        first_held[any(block.host.label == "c0" for block in scenes[0].blocks)] += 1
    share = len(design.holds[0]) / design.classes        # of the design's classes, the positive's share
    assert abs(first_held[True] / 400 - share) < 0.08, (first_held, share)
