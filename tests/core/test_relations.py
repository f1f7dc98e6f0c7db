"""Relations and the relevance function: margins, three-valued logic, minimal-pair properties."""
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasonaudio.core.relations import AMBIGUOUS, NO, YES, Atom, Event, judge_corpus, relevant

seconds = st.floats(min_value=0.6, max_value=3.0)
gaps = st.floats(min_value=0.5, max_value=2.0)
labels = st.lists(st.sampled_from(["dog", "horn", "rain", "siren", "bell", "wind"]), min_size=3, max_size=3, unique=True)


def ev(label, onset, offset):
    return Event(label, f"{label}/0", round(onset, 3), round(offset, 3), 0.0)


@given(labels, seconds, seconds, gaps)
def test_swapping_an_order_positive_gives_a_negative(names, dx, dy, gap):
    x, y, _ = names
    atoms = [Atom("before", (x, y))]
    positive = [ev(x, 0, dx), ev(y, dx + gap + 0.01, dx + gap + 0.01 + dy)]
    swapped = [ev(y, 0, dy), ev(x, dy + gap + 0.01, dy + gap + 0.01 + dx)]
    assert relevant(atoms, positive) is YES
    assert relevant(atoms, swapped) is NO


@given(labels, seconds, seconds, st.floats(0, 1))
def test_inserting_the_negated_sound_gives_a_negative(names, dx, dz, where):
    x, z, other = names
    atoms = [Atom("present", (x,)), Atom("absent", (z,))]
    positive = [ev(x, 0, dx), ev(other, 4 * where, 4 * where + dz)]
    inserted = [ev(x, 0, dx), ev(z, 4 * where, 4 * where + dz)]
    assert relevant(atoms, positive) is YES
    assert relevant(atoms, inserted) is NO


@given(labels, seconds, seconds, gaps)
def test_pulling_an_overlap_apart_gives_a_negative(names, dx, dy, gap):
    x, y, _ = names
    atoms = [Atom("overlap", (x, y))]
    inner = min(dx, dy)
    together = [ev(x, 0, max(dx, dy)), ev(y, 0, inner)]
    apart = [ev(x, 0, dx), ev(y, dx + gap + 0.01, dx + gap + 0.01 + dy)]
    assert relevant(atoms, together) is YES
    assert relevant(atoms, apart) is NO
    assert relevant([Atom("overlap", (y, x))], together) is YES  # symmetric


@given(labels, st.floats(4.0, 6.0), st.floats(0.3, 1.5))
def test_exchanging_durations_gives_a_negative(names, long, short):
    x, y, _ = names
    for atoms in ([Atom("longer", (x, y))], [Atom("long", (x,)), Atom("short", (y,))]):
        assert relevant(atoms, [ev(x, 0, long), ev(y, 7, 7 + short)]) is YES
        assert relevant(atoms, [ev(x, 0, short), ev(y, 7, 7 + long)]) is NO


@given(labels, seconds, seconds, gaps)
def test_replacing_a_mentioned_sound_gives_a_negative(names, dx, dy, gap):
    x, y, w = names
    for relation in ("before", "overlap", "longer"):
        assert relevant([Atom(relation, (x, y))], [ev(w, 0, dx), ev(y, dx + gap, dx + gap + dy)]) is NO


@pytest.mark.parametrize("events, atom, expected", [
    ([ev("a", 0, 1), ev("b", 1.5, 2)], Atom("before", ("a", "b")), YES),      # gap exactly 0.5 s
    ([ev("a", 0, 1), ev("b", 1.3, 2)], Atom("before", ("a", "b")), AMBIGUOUS),  # inside the margin
    ([ev("a", 0, 2), ev("b", 1.0, 3)], Atom("before", ("a", "b")), NO),        # they overlap
    ([ev("a", 0, 2), ev("b", 1.0, 2.0)], Atom("overlap", ("a", "b")), YES),    # 1 s shared, all of b
    ([ev("a", 0, 2), ev("b", 1.5, 3)], Atom("overlap", ("a", "b")), AMBIGUOUS),  # 0.5 s < half of b
    ([ev("a", 0, 2), ev("b", 1.7, 3)], Atom("overlap", ("a", "b")), AMBIGUOUS),  # only 0.3 s shared
    ([ev("a", 0, 1), ev("b", 1.2, 3)], Atom("overlap", ("a", "b")), AMBIGUOUS),  # gap below 0.5 s
    ([ev("a", 0, 1), ev("b", 1.5, 3)], Atom("overlap", ("a", "b")), NO),
    ([ev("a", 0, 1), ev("b", 1.5, 3)], Atom("apart", ("a", "b")), YES),        # overlap's clear no: a gap of 0.5 s
    ([ev("a", 0, 1), ev("b", 1.2, 3)], Atom("apart", ("a", "b")), AMBIGUOUS),  # gap below 0.5 s
    ([ev("a", 0, 2), ev("b", 1.5, 3)], Atom("apart", ("a", "b")), AMBIGUOUS),  # overlapping, below overlap's yes
    ([ev("a", 0, 2), ev("b", 1.0, 2.0)], Atom("apart", ("a", "b")), NO),       # overlap's yes
    ([ev("a", 0, 1)], Atom("apart", ("a", "b")), NO),                          # b not there at all
    ([ev("a", 0, 3), ev("b", 4, 5.6)], Atom("longer", ("a", "b")), AMBIGUOUS),  # 1.9 x
    ([ev("a", 0, 2.5)], Atom("long", ("a",)), AMBIGUOUS),
    ([ev("a", 0, 2.5)], Atom("short", ("a",)), AMBIGUOUS),
    ([ev("a", 0, 1.5)], Atom("short", ("a",)), YES),
    ([ev("a", 0, 5.5)], Atom("lasts", ("a", "5")), YES),          # within max(0.25, 0.1 N) = 0.5 s
    ([ev("a", 0, 5.6)], Atom("lasts", ("a", "5")), AMBIGUOUS),    # between the margins
    ([ev("a", 0, 3.0)], Atom("lasts", ("a", "5")), NO),           # max(1, 0.4 N) = 2 s away
    ([ev("a", 0, 2.25)], Atom("lasts", ("a", "2")), YES),         # the 0.25 s floor
    ([ev("a", 0, 2.9)], Atom("lasts", ("a", "2")), AMBIGUOUS),
    ([ev("a", 0, 3.0)], Atom("lasts", ("a", "2")), NO),           # the 1 s floor
    ([ev("a", 0, 12.0)], Atom("lasts", ("a", "20")), NO),         # 0.4 N = 8 s away
    ([ev("b", 0, 5.0)], Atom("lasts", ("a", "5")), NO),           # not there at all
])
def test_margins(events, atom, expected):
    assert relevant([atom], events) is expected


@pytest.mark.parametrize("events, atom, expected", [
    ([ev("a", 0.1, 8.9)], Atom("lasts", ("a", "8")), YES),                    # 0.8 s off: on the yes bound
    ([ev("a", 0.1, 0.7), ev("b", 1.3, 1.6)], Atom("longer", ("a", "b")), YES),  # exactly 2 x
    ([ev("a", 0.1, 0.7), ev("b", 1.3, 1.9)], Atom("longer", ("a", "b")), NO),   # equal lengths
    ([ev("a", 0.1, 1.1), ev("b", 1.6, 2.0)], Atom("before", ("a", "b")), YES),  # a gap of exactly 0.5 s
    ([ev("a", 0.1, 1.3), ev("b", 0.7, 1.9)], Atom("overlap", ("a", "b")), YES),  # shared exactly half of each
    ([ev("a", 0.1, 1.1), ev("b", 1.6, 2.0)], Atom("apart", ("a", "b")), YES),    # a gap of exactly 0.5 s
    ([ev("a", 0.2, 3.2)], Atom("lasts", ("a", "5")), NO),                       # exactly max(1, 0.4 N) = 2 s off
    ([ev("a", 0.3, 1.8)], Atom("short", ("a",)), YES),                          # exactly 1.5 s
])
def test_margins_are_decided_exactly_on_their_bounds(events, atom, expected):
    """Times in decimal seconds whose differences are not exact in binary (8.9 - 0.1 = 8.800000000000001):
    the spec decides, in integer milliseconds, not floating-point rounding."""
    assert relevant([atom], events) is expected


# An independent reading of the relations over repeated occurrences with an annotation tolerance t
# (docs/design.md §4, natural builds): floats on a 10 ms grid, the tolerance as every boundary moved by
# -t, 0 or +t, and "every" / "some" over the occurrences' combinations written out as loops.
def _pair_plain(relation, x, y):
    """One occurrence each, no tolerance, straight from the table (times on a 10 ms grid: exact enough)."""
    shared = min(x[1], y[1]) - max(x[0], y[0])
    overlap = YES if shared >= 0.5 * min(x[1] - x[0], y[1] - y[0]) - 1e-9 and shared >= 0.5 - 1e-9 else \
        NO if -shared >= 0.5 - 1e-9 else AMBIGUOUS
    if relation == "overlap":
        return overlap
    if relation == "before":
        if overlap is YES or y[1] + 0.5 <= x[0] + 1e-9:
            return NO
        return YES if x[1] + 0.5 <= y[0] + 1e-9 else AMBIGUOUS
    lx, ly = x[1] - x[0], y[1] - y[0]
    return YES if lx >= 2 * ly - 1e-9 else NO if lx <= ly + 1e-9 else AMBIGUOUS     # longer


def _pair_robust(relation, x, y, t):
    """YES / NO only when every shift of the four boundaries by -t, 0 or +t says so."""
    shifts = (-t, 0.0, t) if t else (0.0,)
    found = {_pair_plain(relation, (x[0] + a, x[1] + b), (y[0] + c, y[1] + d))
             for a in shifts for b in shifts for c in shifts for d in shifts
             if x[1] + b > x[0] + a and y[1] + d > y[0] + c}
    return found.pop() if len(found) == 1 else AMBIGUOUS


spans = st.lists(st.tuples(st.integers(0, 900), st.integers(5, 400)), min_size=1, max_size=3)


@given(st.sampled_from(["before", "overlap", "apart", "longer"]), spans, spans, st.sampled_from([0.0, 0.1, 0.2]))
def test_repeated_occurrences_agree_with_an_independent_check(relation, xs, ys, t):
    """Natural recordings repeat a class: `before`, `longer` and `apart` hold when every X and Y occurrence
    says so, no when every one says no (so "an X at a separate time from a Y" and "X and Y never together"
    agree on every yes and no); `overlap` when some X and Y sound together, no when none may; `apart`'s pairs
    are overlap's mirror. With a tolerance, a yes or a no never depends on where within it a boundary lies."""
    x = [(a / 100, (a + n) / 100) for a, n in xs]
    y = [(a / 100, (a + n) / 100) for a, n in ys]
    events = [ev("x", *s) for s in x] + [ev("y", *s) for s in y]
    found = relevant([Atom(relation, ("x", "y"), t)], events)
    plain = "overlap" if relation == "apart" else relation
    mirror = (lambda v: {YES: NO, NO: YES}.get(v, AMBIGUOUS)) if relation == "apart" else (lambda v: v)
    pairs = [mirror(_pair_plain(plain, p, q)) for p in x for q in y]
    if t == 0:
        if relation == "overlap":
            expected = YES if YES in pairs else NO if set(pairs) == {NO} else AMBIGUOUS
        else:
            expected = YES if set(pairs) == {YES} else NO if set(pairs) == {NO} else AMBIGUOUS
        assert found is expected
    robust = [mirror(_pair_robust(plain, p, q, t)) for p in x for q in y]
    if found is YES:    # sound: what it asserts survives every shift
        assert (YES in robust) if relation == "overlap" else set(robust) == {YES}
    if found is NO:
        assert set(robust) == {NO}


def test_repeated_occurrences_in_words():
    dog_twice = [ev("dog", 0, 1), ev("horn", 2, 3), ev("dog", 4, 5)]
    assert relevant([Atom("before", ("dog", "horn"))], dog_twice) is AMBIGUOUS   # one bark before, one after
    assert relevant([Atom("before", ("dog", "horn"))], dog_twice[:2]) is YES
    rain = [ev("rain", 0, 10), ev("dog", 2, 3), ev("dog", 6, 7)]
    assert relevant([Atom("overlap", ("dog", "rain"))], rain) is YES
    assert relevant([Atom("apart", ("dog", "horn"))], dog_twice) is YES
    whistle_twice = [ev("whistle", 3.2, 5.7), ev("crackle", 4.0, 6.0), ev("whistle", 7.3, 8.9)]
    assert relevant([Atom("apart", ("whistle", "crackle"))], whistle_twice) is AMBIGUOUS  # one together, one apart
    assert relevant([Atom("apart", ("whistle", "crackle"))], whistle_twice[:2]) is NO
    assert relevant([Atom("present", ("dog",)), Atom("absent", ("horn",))], rain) is YES
    near = [ev("dog", 0, 1), ev("horn", 1.6, 2)]
    assert relevant([Atom("before", ("dog", "horn"))], near) is YES
    assert relevant([Atom("before", ("dog", "horn"), 0.2)], near) is AMBIGUOUS   # 0.6 s < 0.5 + 2 x 0.2


def test_a_tolerance_is_published_with_its_atom():
    atom = Atom("before", ("dog", "horn"), 0.2)
    assert Atom.from_dict(atom.to_dict()) == atom
    assert "tolerance" not in Atom("before", ("dog", "horn")).to_dict()     # planned builds: as before
    for bad in (-0.1, 2.0, "0.2", True):
        with pytest.raises(ValueError, match="tolerance"):
            Atom.from_dict({"relation": "before", "args": ["a", "b"], "tolerance": bad})


def test_unknown_relation_is_rejected():
    with pytest.raises(ValueError, match="unknown relation"):
        Atom.from_dict({"relation": "after", "args": ["a", "b"]})
    for args in (["a"], ["a", "b"], ["a", "-1"], ["a", "nan"], ["a", 5]):
        with pytest.raises(ValueError, match="lasts takes|list of strings"):
            Atom.from_dict({"relation": "lasts", "args": args})


def test_depth_counts_atoms_but_not_an_implied_presence():
    from reasonaudio.core.relations import depth, mentioned
    atoms = [Atom("present", ("a",)), Atom("before", ("a", "b")), Atom("absent", ("z",))]
    assert depth(atoms) == 2 and mentioned(atoms) == ["a", "b", "z"]
    assert depth([Atom("present", ("a",)), Atom("absent", ("z",))]) == 2
    assert depth([Atom("lasts", ("a", "5"))]) == 1 and mentioned([Atom("lasts", ("a", "5"))]) == ["a"]


def test_judge_corpus_matches_relevant_on_every_pair():
    clips = [("c0", [ev("a", 0, 1), ev("b", 2, 3)]), ("c1", [ev("b", 0, 1), ev("a", 2, 3)]),
             ("c2", [ev("a", 0, 1), ev("b", 1.2, 3)]), ("c3", [ev("c", 0, 1)])]
    queries = [("q0", [Atom("before", ("a", "b"))]), ("q1", [Atom("absent", ("a",))])]
    judged = judge_corpus(queries, clips)
    for query_id, atoms in queries:
        for clip_id, events in clips:
            assert judged.get((query_id, clip_id), NO) is relevant(atoms, events)


def test_a_clip_misses_a_query_by_one_atom_only_when_exactly_one_answers_no():
    from reasonaudio.core.relations import misses_one_atom, occurrences

    def sound(label, onset, offset):
        return Event(label, label, onset, offset, 0.0)

    atoms = [Atom("before", ("dog", "rain")), Atom("absent", ("siren",))]
    dog, rain, siren = sound("dog", 0.0, 1.0), sound("rain", 2.0, 4.0), sound("siren", 5.0, 6.0)
    assert not misses_one_atom(atoms, occurrences([dog, rain]))                  # the positive: no atom missed
    assert misses_one_atom(atoms, occurrences([dog, rain, siren]))               # the siren flipped
    assert misses_one_atom(atoms, occurrences([sound("rain", 0.0, 1.0), sound("dog", 2.0, 4.0)]))   # order flipped
    assert not misses_one_atom(atoms, occurrences([sound("rain", 0.0, 1.0), sound("dog", 2.0, 4.0), siren]))
    assert not misses_one_atom(atoms, occurrences([sound("dog", 0.0, 1.0), sound("rain", 1.2, 4.0)]))  # ambiguous


# --- counting: how many separate times a sound is heard ---------------------------------------------------------

def test_occurrences_are_counted_by_the_pauses_between_them():
    beeps = [ev("beep", 0, 0.5), ev("beep", 2, 2.5), ev("beep", 4, 4.5)]          # 1.5 s pauses: three
    assert relevant([Atom("times", ("beep", "3"))], beeps) is YES
    assert relevant([Atom("times", ("beep", "2"))], beeps) is NO
    joined = [ev("beep", 0, 0.5), ev("beep", 0.6, 1.0)]                             # 0.1 s: one occurrence
    assert relevant([Atom("times", ("beep", "1"))], joined) is YES
    unclear = [ev("beep", 0, 0.5), ev("beep", 1.0, 1.5)]                            # 0.5 s: one or two
    assert relevant([Atom("times", ("beep", "1"))], unclear) is AMBIGUOUS
    assert relevant([Atom("times", ("beep", "2"))], unclear) is AMBIGUOUS
    assert relevant([Atom("times", ("beep", "3"))], unclear) is NO
    assert relevant([Atom("times", ("beep", "1"))], [ev("dog", 0, 1)]) is NO        # not heard at all
    assert relevant([Atom("times", ("beep", "2"), 0.2)], [ev("beep", 0, 0.5), ev("beep", 1.6, 2)]) is AMBIGUOUS
    dog, bell = beeps, [ev("bell", 6, 6.5), ev("bell", 8, 8.5)]
    assert relevant([Atom("more_often", ("beep", "bell"))], dog + bell) is YES
    assert relevant([Atom("more_often", ("bell", "beep"))], dog + bell) is NO
    assert relevant([Atom("as_often", ("beep", "bell"))], dog + bell) is NO
    assert relevant([Atom("as_often", ("beep", "bell"))], dog[:2] + bell) is YES
    assert relevant([Atom("more_often", ("beep", "bell"))], dog[:2] + bell) is NO   # as often is not more often
    assert relevant([Atom("as_often", ("beep", "bell"))], unclear + bell) is AMBIGUOUS


@given(spans, st.integers(1, 4), st.sampled_from([0.0, 0.1]))
def test_a_count_verdict_holds_on_every_reading_of_its_pauses(xs, n, t):
    """times(X, N) is YES only when every reading of the pauses (each one heard as a break or not, within the
    margins, each boundary anywhere within the tolerance) counts N, and NO only when none does."""
    x = [(a / 100, (a + m) / 100) for a, m in xs]
    found = relevant([Atom("times", ("x", str(n)), t)], [ev("x", *s) for s in x])
    readings = set()
    for shift in product(*([(-t, 0.0, t)] * (2 * len(x)))):
        if all(off + shift[2 * i + 1] > on + shift[2 * i] for i, (on, off) in enumerate(x)):
            for threshold in (0.4, 0.7, 1.0):         # a pause between the margins is heard either way
                moved = sorted((on + shift[2 * i], off + shift[2 * i + 1]) for i, (on, off) in enumerate(x))
                count, until = 1, moved[0][1]
                for onset, offset in moved[1:]:
                    count += onset - until >= threshold - 1e-9
                    until = max(until, offset)
                readings.add(count)
    if found is YES:
        assert readings == {n}
    if found is NO:
        assert n not in readings


def test_a_count_is_a_whole_number_from_one():
    for args in (["a", "0"], ["a", "2.5"], ["a", "-1"], ["a"], ["a", "b", "2"]):
        with pytest.raises(ValueError, match="times takes"):
            Atom.from_dict({"relation": "times", "args": args})
    assert Atom.from_dict({"relation": "times", "args": ["a", "3"]}).labels == ("a",)


def test_differing_counts_are_as_often_mirrored():
    beeps = [ev("beep", 0, 0.5), ev("beep", 2, 2.5)]
    bells = [ev("bell", 4, 4.5), ev("bell", 6, 6.5)]
    unclear = [ev("bell", 4, 4.5), ev("bell", 5.2, 5.7)]            # one or two bells
    for events, expected in ((beeps + bells, NO), (beeps + bells[:1], YES), (beeps + unclear, AMBIGUOUS)):
        assert relevant([Atom("differs_often", ("beep", "bell"))], events) is expected
        mirrored = {YES: NO, NO: YES}.get(expected, AMBIGUOUS)
        assert relevant([Atom("as_often", ("beep", "bell"))], events) is mirrored
