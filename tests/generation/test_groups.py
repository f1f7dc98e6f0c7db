"""Candidate groups, planned without audio: every hard negative flips exactly one atom and changes only
what that atom tests, every clip of a group holds as many events, and no timeline statistic tells a
positive from its twins."""
from collections import Counter, defaultdict

import numpy as np
import pytest

from reasonaudio.generation.bank import build_bank
from reasonaudio.core.relations import NO, YES, Atom, mentioned, relevant
from reasonaudio.generation.tasks import TASKS, Planning, plan_group, usable_shapes
from reasonaudio.generation.tasks.members import member_sizes, parts, subsets


@pytest.fixture(scope="module")
def by_label():
    return build_bank("synthetic:?variants=12", split=None, count=240, sample_rate=16000, progress=False).by_label()


def plans(by_label, task, count=60, clip_seconds=10.0, **options):
    planning = Planning(by_label, 10, clip_seconds, **options)
    return [plan_group(TASKS[task], f"q{i}", planning, np.random.default_rng([7, i])) for i in range(count)]


def timeline(events):
    """Query-blind statistics of a clip's timeline: first onset, last offset, sounding time, lengths."""
    union, end = 0.0, -1.0
    for event in sorted(events, key=lambda e: e.onset):
        union += max(0.0, event.offset - max(event.onset, end))
        end = max(end, event.offset)
    return (round(min(e.onset for e in events), 3), round(max(e.offset for e in events), 3), round(union, 3),
            sorted(round(e.seconds, 3) for e in events))


def by_id(plan):
    return {c.clip_id: c.events for c in plan.candidates}


def put_ins(plan):
    """(the positive's event, the hard negative's) at each place where a hard negative puts an excluded sound in."""
    clips = by_id(plan)
    absent = [atom for atom in plan.atoms if atom.relation == "absent"]
    excluded = {label for atom in absent for label in atom.args}
    return [(before, after) for clip_id in plan.hard_negatives if absent and relevant(absent, clips[clip_id]) is NO
            for before, after in zip(clips[plan.positive], clips[clip_id])
            if after.label in excluded and before.label != after.label]


def moved(positive, negative):
    """Labels whose (onset, offset) differ, and labels present in one clip only."""
    a, b = ({e.label: (e.onset, e.offset) for e in events} for events in (positive, negative))
    return {label for label in a.keys() & b.keys() if a[label] != b[label]}, a.keys() ^ b.keys()


@pytest.mark.parametrize("task", list(TASKS))
def test_each_hard_negative_flips_one_atom_and_keeps_the_timeline(by_label, task):
    shapes, whole = set(), 0
    for plan in plans(by_label, task, 40):
        shapes.add(plan.shape)
        clips = by_id(plan)
        positive = clips[plan.positive]
        counts = {len(events) for events in clips.values()}
        assert len(counts) == 1 and 2 <= counts.pop() <= 5          # the event count is no cue
        flipped = []
        for clip_id in plan.hard_negatives:
            negative = clips[clip_id]
            verdicts = [relevant([atom], negative) for atom in plan.atoms]
            assert verdicts.count(NO) == 1 and verdicts.count(YES) == len(plan.atoms) - 1, (plan.text, verdicts)
            flipped.append(verdicts.index(NO))
            assert timeline(positive) == timeline(negative), plan.text
        tested = [i for i, atom in enumerate(plan.atoms) if atom.relation != "present"]
        assert len(set(flipped)) == len(flipped) and set(flipped) <= set(tested)   # at most one per tested atom
        whole += sorted(flipped) == tested      # all of them, but where the positive sits on a part of a member
    assert whole >= 0.6 * 40, whole
    fitting = usable_shapes(TASKS[task], by_label, 10.0, (2, 5), (1, 99))    # the four-sound mix needs 30 s
    assert shapes == {shape.reported_as for shape in fitting}                    # every shape that fits is drawn


@pytest.mark.parametrize("task", list(TASKS))
def test_every_clip_of_a_group_holds_as_many_continuous_sounds_but_for_its_related_ones(by_label, task):
    """The members draw their unmentioned sounds of the same kinds in the same places, so only the sounds a
    member relates (the query's own in the positive's) may change a clip's count of continuous sounds (drawn
    freely, a member with no place of an excluded sound's kind failed the group: a third of negation's
    planning attempts)."""
    kind = {(label, sound.source_id): sound.kind for label, sounds in by_label.items() for sound in sounds}
    for plan in plans(by_label, task, 40):
        excluded = {label for atom in plan.atoms if atom.relation == "absent" for label in atom.labels}
        related = len(set(mentioned(plan.atoms)) - excluded)
        counts = [sum(kind[e.label, e.source_id] == "continuous" for e in c.events) for c in plan.candidates]
        assert max(counts) - min(counts) <= related, (plan.text, counts)


@pytest.mark.parametrize("task, shape, part", [("overlap", "overlap-before", 2), ("duration", "longer-chain", 4),
                                               ("mix", "before-overlap-absent", 2)])
def test_the_positive_sits_on_a_part_of_a_member_as_often_as_its_share(by_label, task, shape, part):
    """Every version of a member keeps its base's times (trades, put-ins), so the clips sharing a clip's times
    are its member. With whole members and a part (4+4+2, 6+4, 8+2) the positive must sit on the part as often
    as the part's share of the candidates: never there, a reader of the group's structure would find 1 in 8."""
    on_part = total = 0
    for plan in plans(by_label, task, 160):
        if plan.shape != shape:
            continue
        times = [tuple(sorted((e.onset, e.offset) for e in c.events)) for c in plan.candidates]
        own = times[[c.clip_id for c in plan.candidates].index(plan.positive)]
        on_part += times.count(own) == part
        total += 1
    assert total >= 25 and abs(on_part / total - part / 10) < 0.15, (on_part, total)


@pytest.mark.parametrize("flips, size, holding",
                         [(2, 2, False), (2, 2, True), (2, 3, True), (3, 2, True), (3, 5, False)])
def test_the_parts_dealt_have_the_odds_of_growing_a_part_one_neighbour_at_a_time(flips, size, holding):
    """`members.parts` lists every part with its exact odds; drawn as a part is grown (a version, then a
    neighbour of those kept, one at a time, then moved onto a version drawn of it), each comes up as often."""
    rng, grown = np.random.default_rng(0), Counter()
    versions = subsets(flips)
    for _ in range(20000):
        kept = [versions[rng.integers(len(versions))]]
        while len(kept) < size:
            around = sorted({tuple(sorted(set(v) ^ {i})) for v in kept for i in range(flips)} - set(kept))
            kept.append(around[rng.integers(len(around))])
        moved = kept[rng.integers(len(kept))] if holding else ()
        grown[tuple(sorted((tuple(sorted(set(v) ^ set(moved))) for v in kept), key=lambda v: (len(v), v)))] += 1
    odds = dict(parts(flips, size, holding))
    assert sum(odds.values()) == 1 and set(odds) == set(grown)
    assert all(abs(grown[p] / 20000 - float(q)) < 0.015 for p, q in odds.items()), (odds, grown)
    assert not holding or all(p[0] == () for p in odds)     # the positive, its base, is on the part


def test_a_split_puts_the_positive_on_the_part_exactly_as_often_as_its_share_and_pairs_it_with_each_flip_alike(tmp_path):
    """Drawn per query, where the positive sits swings by build, and a listwise audit betting on the part gains
    or loses by it. Dealt from a split's
    decks (`members.Quotas`), every shape's groups put it on the part within one of the part's share of them,
    and a part of two pairs it with each of its one-atom flips within one of each other."""
    from reasonaudio.generation.config import GenerateConfig
    from reasonaudio.generation.pipeline import plan_split
    queries = plan_split(GenerateConfig(out=str(tmp_path), queries_per_task=200, tasks=("overlap", "duration", "mix"),
                                        sample_rate=16000, progress=False)).queries
    shapes = {shape.name: shape for task in TASKS.values() for shape in task.shapes}
    on_part, groups, flipped = Counter(), Counter(), defaultdict(Counter)
    for plan in queries:
        times = [tuple(sorted((e.onset, e.offset) for e in c.events)) for c in plan.candidates]
        own = times[[c.clip_id for c in plan.candidates].index(plan.positive)]
        sizes = sorted(Counter(times).values())
        if len(set(sizes)) < 2 or sizes != sorted(member_sizes(shapes[plan.shape].closure_size(), 10)):
            continue                        # no part, or versions that move sounds (members not told by times)
        groups[plan.shape, sizes[0]] += 1
        if times.count(own) == sizes[0]:
            on_part[plan.shape, sizes[0]] += 1
            if sizes[0] == 2:
                mate = next(c for c, t in zip(plan.candidates, times) if t == own and c.clip_id != plan.positive)
                failed = tuple(i for i, atom in enumerate(plan.atoms) if relevant([atom], mate.events) is not YES)
                flipped[plan.shape][failed] += 1
    assert len(groups) >= 5, groups
    for (shape, part), total in groups.items():
        assert abs(on_part[shape, part] - total * part / 10) < 1.5, (shape, on_part[shape, part], total)
    for shape, mates in flipped.items():
        assert max(mates.values()) - min(mates.values()) <= 1, (shape, mates)
        assert all(len(atoms) == 1 for atoms in mates), (shape, mates)          # a pair: the positive and a flip


@pytest.mark.parametrize("task", ["overlap", "mix"])
def test_named_sounds_sounding_together_tell_nothing_without_the_words(by_label, task):
    """Every shape that states an overlap has its mirror ("at different times") under the same name: a rule
    that prefers the clip whose named sounds sound together finds the positive in about half of those
    groups and the hard negative in the others; the relation word alone decides."""
    together = []
    for plan in plans(by_label, task, 80):
        pair = next((atom for atom in plan.atoms if atom.relation in ("overlap", "apart")), None)
        if pair is None:
            continue
        clips = by_id(plan)
        for clip_id in plan.hard_negatives:
            if relevant([pair], clips[clip_id]) is NO:          # the hard negative that flips the pair
                heard = [relevant([Atom("overlap", pair.args)], clips[c]) is YES for c in (plan.positive, clip_id)]
                assert heard[0] != heard[1], plan.text
                together.append(heard[0])
    assert len(together) >= 20 and 0.3 < np.mean(together) < 0.7, (len(together), np.mean(together))


def test_swaps_and_moves_change_only_the_tested_sounds(by_label):
    for task in ("order", "overlap", "negation"):
        for plan in plans(by_label, task, 40):
            clips = by_id(plan)
            for clip_id in plan.hard_negatives:
                changed, swapped = moved(clips[plan.positive], clips[clip_id])
                named = {label for atom in plan.atoms for label in atom.labels}
                if task == "negation":                                # one sound put in, one left out
                    assert len(swapped) == 2 and len(swapped & named) == 1
                    kept = [[(e.label, round(e.seconds, 3)) for e in clips[c] if e.label not in swapped]
                            for c in (plan.positive, clip_id)]
                    assert kept[0] == kept[1]                       # every other sound in its order, as long
                    # a design whose classes take more places than a candidate fills (`designs.py`): the
                    # put-in sits at its own place, and the sounds after it move up
                    assert not changed or plan.shape != "present-absent", plan.text
                elif task == "order":                                 # two neighbours swapped
                    assert not swapped and changed <= named and len(changed) == 2, plan.text
                else:                                                 # a sound traded places with its stand-in
                    assert not swapped and len(changed) == 2 and len(changed & named) == 1, plan.text


def test_longer_needs_a_comparison_not_the_absolute_contrast(by_label):
    pairs = []
    for plan in plans(by_label, "duration", 120):
        if plan.shape != "longer":
            continue
        x, y = plan.atoms[0].args
        events = {e.label: e.seconds for e in by_id(plan)[plan.positive]}
        pairs.append((events[x], events[y]))
    longs, shorts = np.array(pairs).T
    assert np.all(longs >= 2 * shorts)
    assert np.mean(longs < 4.0) > 0.5 and np.mean(shorts > 1.5) > 0.05   # neither is "long" / "short" by itself
    assert np.mean(longs < shorts.max()) > 0.05                           # nor is any length a threshold


@pytest.mark.parametrize("clip_seconds, options", [(10.0, {2, 5}), (30.0, {2, 5, 10, 15, 20})])
def test_lasts_states_a_length_that_fits_and_is_not_told_by_being_the_longer(by_label, clip_seconds, options):
    named_longer, seen = [], set()
    for plan in plans(by_label, "duration", 150, clip_seconds):
        if plan.shape != "lasts":
            continue
        (atom,) = plan.atoms
        seen.add(int(atom.args[1]))
        events = by_id(plan)[plan.positive]
        named = next(e for e in events if e.label == atom.args[0])
        assert abs(named.seconds - int(atom.args[1])) <= max(0.25, 0.1 * int(atom.args[1]))
        named_longer.append(named.seconds == max(e.seconds for e in events))
    assert seen == options
    assert 0.3 < np.mean(named_longer) < 0.75


def test_depth_and_events_per_clip_follow_the_options(by_label):
    for plan in plans(by_label, "order", 20, depths=(2, 2), events=(4, 4)):
        assert plan.shape == "chain" and plan.depth == 2 and plan.num_sounds == 3
        assert all(len(c.events) == 4 for c in plan.candidates)
    deep = plans(by_label, "mix", 30, depths=(3, 3))
    assert {p.shape for p in deep} == {"lasts-present-absent", "before-overlap-absent"}
    assert {p.atoms[1].relation for p in deep if p.shape == "before-overlap-absent"} == {"overlap", "apart"}
    assert all(p.depth == 3 for p in deep) and {p.num_sounds for p in deep} == {3, 4}


def test_the_four_sound_mix_is_closed_and_each_flip_keeps_the_timeline(by_label):
    """The paper's mix ("A for about N seconds, then B, and then C and D overlap", 30 s clips of 8 sounds):
    three flips, each flipping its atom alone and keeping every time, closed into a cube and a pair (the positive
    on either)."""
    from reasonaudio.core.relations import occurrences, verdict

    found = [p for p in plans(by_label, "mix", 40, 30.0, events=(8, 8), depths=(4, 4))]
    assert {p.shape for p in found} == {"lasts-before-overlap"}
    for plan in found:
        events = by_id(plan)
        positive = events[plan.positive]
        assert len(plan.hard_negatives) in (1, 3)       # 1: the positive on the pair (as often as 2 in 10)
        for clip_id in plan.hard_negatives:
            assert timeline(events[clip_id]) == timeline(positive)
            by_label_ = occurrences(events[clip_id])
            assert sum(verdict(atom, by_label_) is NO for atom in plan.atoms) == 1
        failing = sorted(tuple(verdict(atom, occurrences(e)) is NO for atom in plan.atoms) for e in events.values())
        assert len(set(failing)) >= (8 if len(plan.hard_negatives) == 3 else 2)   # the cube: its eight versions


@pytest.mark.parametrize("task", list(TASKS))
def test_no_clip_holds_a_lookalike_of_a_sound_the_query_names(by_label, task):
    """A listener may take a steady dial tone for a tone alternating between two pitches: the query names no
    two look-alikes, no candidate holds a look-alike of a sound it names, and the positive none of a sound it
    lacks."""
    from reasonaudio.core.phrases import LOOKALIKES, lookalikes

    seen = set()
    for plan in plans(by_label, task, 40):
        named = set(mentioned(plan.atoms))
        assert not any(pair <= named for pair in LOOKALIKES), plan.text
        for candidate in plan.candidates:
            held = {e.label for e in candidate.events}
            assert not held & lookalikes(named), (plan.text, held)
            seen |= held
    assert seen & set().union(*LOOKALIKES), "the bank's look-alikes are drawn at all"


def test_the_sound_an_excluded_one_replaces_is_one_recording_in_every_candidate_holding_its_class(by_label):
    """A member already holding the replaced sound's class puts the positive's very recording there (keeping its
    own, the positive's exact recordings would be held by fewer candidates than its classes, which "the most
    shared recordings" tells)."""
    held = {"same": 0, "other": 0}
    for plan in plans(by_label, "mix", 240):
        for sound in {before for before, _ in put_ins(plan)}:
            for events in by_id(plan).values():
                for event in events:
                    if event.label == sound.label:
                        held["same" if event.source_id == sound.source_id else "other"] += 1
    assert held["same"] >= 300 and held["other"] == 0, held


def test_an_excluded_sound_put_in_plays_as_much_of_itself_as_the_sound_it_replaces(by_label):
    """A put-in place plays one length in the positive and in the hard negative that puts an excluded discrete
    sound there, never longer than either recording; and the excluded sound is drawn as the replaced one was, so
    which of the two plays the smaller share of its recording is a coin toss. (Drawn as long as any free block,
    the excluded sound would play about half of itself and the replaced one most of itself: "the longest discrete
    recording" and "the lowest share played" would find the positive's hard negatives.)"""
    recording = {(label, sound.source_id): sound for label, sounds in by_label.items() for sound in sounds}
    less = {"replaced": 0, "excluded": 0}       # which sound of a put-in place plays the smaller share of itself
    for plan in plans(by_label, "mix", 240):
        for before, after in put_ins(plan):
            replaced, excluded = recording[before.label, before.source_id], recording[after.label, after.source_id]
            if replaced.kind == "continuous":
                continue
            assert before.seconds == after.seconds <= min(replaced.seconds, excluded.seconds) + 1e-6, plan.text
            if replaced.seconds != excluded.seconds:
                less["excluded" if excluded.seconds > replaced.seconds else "replaced"] += 1
    assert sum(less.values()) >= 30, less
    assert min(less.values()) >= sum(less.values()) / 3, less


def test_an_excluded_continuous_sound_is_a_recording_that_plays_without_a_loop_where_its_class_has_one(by_label):
    """Every sound of a group is a recording long enough to play unlooped where its class has one (`unlooped`),
    the excluded sound too: drawn without it, a put-in loops more often than the sound it replaces, and "the
    highest summed recording length" finds the positive. Here every continuous recording gets a 1.5 s twin."""
    from dataclasses import replace
    short = {label: sounds + [replace(sound, source_id=sound.source_id + "-short",
                                      samples=sound.samples[:int(1.5 * sound.sample_rate)])
                              for sound in sounds if sound.kind == "continuous"]
             for label, sounds in by_label.items()}
    recording = {(label, sound.source_id): sound for label, sounds in short.items() for sound in sounds}
    longest = {label: max(sound.seconds for sound in sounds) for label, sounds in short.items()}

    def needless_loop(event):
        sound = recording[event.label, event.source_id]
        return sound.kind == "continuous" and sound.seconds + 1e-6 < event.seconds <= longest[event.label]

    looped = {"excluded": 0, "replaced": 0, "continuous put-ins": 0}
    for plan in plans(short, "mix", 120):
        for before, after in put_ins(plan):
            looped["continuous put-ins"] += recording[after.label, after.source_id].kind == "continuous"
            looped["excluded"] += needless_loop(after)
            looped["replaced"] += needless_loop(before)
    assert looped["continuous put-ins"] >= 30 and looped["excluded"] == looped["replaced"] == 0, looped
