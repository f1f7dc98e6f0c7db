"""Natural builds: real (here: stand-in) recordings with strong labels, in DCASE's and AudioSet's layouts.

The stand-in (generation/standin.py, `reasonaudio standin`) renders recordings whose truth is known
(repeated classes, free overlaps), and writes what an annotator would: boundaries jittered by up to 0.1 s, some events split by a
short gap. The natural builder reads nothing but the recordings and the table."""
import json
import mmap
from dataclasses import replace

import numpy as np
import pyarrow.parquet as pq
import pytest

from reasonaudio.generation.bank import quantise
from reasonaudio.generation.config import GenerateConfig
from reasonaudio.generation.kinds import BALANCED_RECORDINGS
from reasonaudio.generation.natural import Clip, Planning, RecordingIndex, build_group, recording_bank
from reasonaudio.generation.pipeline import generate
from reasonaudio.core.relations import NO, YES, Atom, Event, occurrences, relevant, verdict
from reasonaudio.generation.sources import open_source
from reasonaudio.generation.sources.strong_labels import merged
from reasonaudio.generation.standin import write_standin
from reasonaudio.generation.validate import validate
from reasonaudio.cli import main

QUERIES = 12


def _clip(name, *labels):
    """A recording of the classes one after another, each sounding for a second, starting two seconds apart."""
    return Clip(name, tuple(Event(label, label, 2.0 * i, 2.0 * i + 1, 0.0) for i, label in enumerate(labels)))


def _planning(clips):
    """The planning of a split of these recordings: ten candidates a query, no tolerance, 10 s clips."""
    return Planning(RecordingIndex.of(clips, None), 10, 0.0, 10.0)


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    folder = tmp_path_factory.mktemp("standin")
    return folder, write_standin(folder, recordings=60)


@pytest.fixture(scope="module")
def natural(standin, tmp_path_factory):
    folder, _ = standin
    out = tmp_path_factory.mktemp("natural") / "build"
    generate(GenerateConfig(source=f"strong:{folder}?labels=labels.tsv&as_split=test&license=CC0-1.0", out=str(out),
                            queries_per_task=QUERIES, sample_rate=16000, progress=False))
    return out


def _table(out, config, columns=None):
    return pq.read_table(out / config, columns=columns).to_pylist()


def test_both_layouts_read_the_same_timelines(standin):
    folder, truth = standin
    dcase = {r.recording_id.removesuffix(".wav"): r.events for r in open_source(f"strong:{folder}?labels=labels.tsv")}
    audioset = {r.recording_id: r.events for r in
                open_source(f"strong:{folder}?labels=audioset.tsv&ontology=ontology.json")}
    assert set(dcase) == set(audioset) == set(truth)
    for name, events in audioset.items():
        assert [(e.label, e.onset, e.offset) for e in events] == [(e.label, e.onset, e.offset) for e in dcase[name]]
        assert len(events) <= 3 * len(truth[name])       # merged: split annotations are one event again


@pytest.mark.slow
def test_a_natural_build_validates_and_every_judgement_holds_on_the_true_timelines(natural, standin):
    """The independent check: each candidate judged again on the recording's true events (before jitter
    and splitting), with no tolerance: the tolerance (0.2 s, above the 0.1 s jitter) made every published
    yes and no robust to where the annotator put the boundaries."""
    _, truth = standin
    assert validate(natural) == []
    queries = _table(natural, "queries")
    clips = {r["clip_id"]: r["events"] for r in _table(natural, "corpus", ["clip_id", "events"])}
    assert {q["task"] for q in queries} == {"negation", "order", "overlap", "duration", "mix"}
    assert any(query["hard_negatives"] for query in queries)          # the loop below has minimal pairs to judge
    assert all(set(query["hard_negatives"]) <= set(query["candidates"]) - {query["positive"]} for query in queries)
    for query in queries:
        atoms = [Atom.from_dict(a) for a in json.loads(query["constraint"])["all"]]
        assert all(atom.tolerance == 0.2 for atom in atoms)
        plain = [replace(atom, tolerance=0.0) for atom in atoms]
        for clip_id in query["candidates"]:
            recording = clips[clip_id][0]["source_id"].removesuffix(".wav")
            true_events = merged(list(truth[recording]), 0.25)
            expected = YES if clip_id == query["positive"] else NO
            assert relevant(plain, true_events) is expected, (query["text"], clip_id)
        for clip_id in query["hard_negatives"]:       # one-atom misses: exactly one atom fails
            by_label = occurrences(Event(**e) for e in clips[clip_id])
            assert sum(verdict(atom, by_label) is NO for atom in atoms) == 1


def test_the_card_and_record_say_what_a_natural_build_is(natural):
    record = json.loads((natural / ".reasonaudio" / "test.json").read_text())
    summary = record["natural"]
    assert sum(s["queries"] for s in summary["shapes"].values()) == 5 * QUERIES
    assert 0 <= summary["ambiguous_pairs"] < summary["pairs"]
    card = (natural / "README.md").read_text()
    assert "A natural split" in card and "minimal pairs (`hard_negatives`) per query" in card and "CC0-1.0" in card
    assert "The opt-in `count` task is not built from natural recordings: their annotations do not say" in card
    assert summary["recordings"] == 60 and summary["balanced_from"] == BALANCED_RECORDINGS
    assert f"built from 60 annotated recordings. **That is fewer than the {BALANCED_RECORDINGS:,} a split" in card


def test_a_split_of_fewer_recordings_than_its_groups_balance_from_warns(standin, tmp_path, caplog):
    from reasonaudio.generation.pipeline import plan_split

    folder, _ = standin
    config = GenerateConfig(source=f"strong:{folder}?labels=labels.tsv&as_split=test", out=str(tmp_path / "b"),
                            queries_per_task=1, sample_rate=16000, progress=False)
    with caplog.at_level("WARNING"):
        plan_split(config, forbidden=frozenset())
    assert f"split test has 60 annotated recordings, fewer than the {BALANCED_RECORDINGS} from which" in caplog.text


def test_recordings_repeat_classes_as_heard(natural):
    """Repeats are what a natural recording has (a planned clip holds a class once: validate refuses more)."""
    clips = _table(natural, "corpus", ["events"])
    assert any(len(found) > 1 for row in clips for found in occurrences(Event(**e) for e in row["events"]).values())


@pytest.mark.parametrize("row, message", [
    ("Ystandin0000_0\t1.0\t0.5\t/m/standin00", "audioset.tsv row 2: offset 0.5 s is not after onset 1 s"),
    ("Ystandin0000_0\t1.0\t2.0\t/m/nothing", "audioset.tsv row 2: unknown label id '/m/nothing'"),
    ("Ystandin0000_0\t1.0\t12.5\t/m/standin00", "ends at 12.5 s, beyond the recording's 10.000 s"),
    ("Ymissing_0\t1.0\t2.0\t/m/standin00", "audioset.tsv: recording 'Ymissing_0' is not in"),
    ("Ystandin0000_0\tone\t2.0\t/m/standin00", "audioset.tsv row 2: onset 'one' is not a number of seconds"),
])
def test_bad_rows_are_one_line_naming_table_and_row_or_skipped(standin, tmp_path, capsys, row, message):
    folder, _ = standin
    table = tmp_path / "audioset.tsv"
    lines = (folder / "audioset.tsv").read_text().splitlines()
    table.write_text("\n".join([lines[0], row] + lines[1:]) + "\n")
    spec = f"strong:{folder}?labels={table}&ontology={folder / 'ontology.json'}&as_split=test"
    assert main(["generate", "--source", spec, "--out", str(tmp_path / "out"), "--queries-per-task", "2",
                 "--sample-rate", "16000", "--quiet"]) == 2
    assert message in capsys.readouterr().err
    assert main(["generate", "--source", spec, "--out", str(tmp_path / "out"), "--queries-per-task", "2",
                 "--sample-rate", "16000", "--quiet", "--skip-bad-sources"]) == 0
    record = json.loads((tmp_path / "out" / ".reasonaudio" / "test.json").read_text())
    assert any(message.split(": ", 1)[-1][:20] in s["reason"] for s in record["skipped_sources"])


def test_a_table_in_neither_layout_or_without_its_ontology_is_one_line(standin, tmp_path, capsys):
    folder, _ = standin
    (tmp_path / "odd.tsv").write_text("file\tstart\tend\tclass\n")
    for spec, message in ((f"strong:{folder}?labels={tmp_path / 'odd.tsv'}", "is neither DCASE's"),
                          (f"strong:{folder}?labels=audioset.tsv", "name the ontology")):
        assert main(["generate", "--source", spec, "--out", str(tmp_path / "out"), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1


def test_absent_is_asked_only_of_exhaustively_labelled_classes(standin, tmp_path):
    folder, _ = standin
    vocabulary = sorted({e.label for r in open_source(f"strong:{folder}?labels=labels.tsv") for e in r.events})
    covered = vocabulary[:4]
    out = tmp_path / "build"
    generate(GenerateConfig(source=f"strong:{folder}?labels=labels.tsv&as_split=test&exhaustive={'|'.join(covered)}",
                            out=str(out), queries_per_task=6, tasks=("negation",), sample_rate=16000, progress=False))
    for query in _table(out, "queries"):
        for atom in json.loads(query["constraint"])["all"]:
            if atom["relation"] == "absent":
                assert atom["args"][0] in covered


def test_bases_are_drawn_as_the_versions_are_found():
    """Versions are found among the recordings holding the named classes, where one with k classes is C(k, 2)
    times likelier to be for a pair; a base (a positive) drawn uniformly would be the least busy of its member,
    a cue a ranker could use. Drawn by C(k, relates), both are alike."""
    index = RecordingIndex.of([_clip("two", "a", "b"), _clip("four", "a", "b", "c", "d")], None)
    rng = np.random.default_rng(0)
    draws = [index.drawn(2, rng) for _ in range(2000)]
    assert abs(draws.count(1) / draws.count(0) - 6) < 1.5       # C(4, 2) / C(2, 2)
    assert {index.drawn(1, rng, among=[0]) for _ in range(20)} == {0}
    assert {index.drawn(3, rng) for _ in range(50)} == {1}       # a two-class recording states no three classes


def test_a_lone_base_holding_as_many_named_sounds_as_the_positive_is_drawn_as_the_positive_is():
    """Bases are drawn C(k, relates)-weighted (to match their versions), so a member of one recording that held
    the query's sounds by chance would be busier than the positive, uniform among the recordings holding its own
    ("least busy among the most named sounds" would beat counting the named sounds). Such a base is redrawn
    uniformly among the recordings holding exactly its named sounds."""
    index = RecordingIndex.of([_clip("quiet", "a", "z"), _clip("busy", "a", "z", "c", "d", "e"),
                               _clip("all", "a", "b", "z"), _clip("other", "a", "c")], None)
    named, rng = frozenset({"a", "b", "z"}), np.random.default_rng(0)
    draws = [index.alike_if_tied(1, named, 2, rng) for _ in range(2000)]
    assert set(draws) == {0, 1} and abs(draws.count(1) / draws.count(0) - 1) < 0.2     # was C(5, 2) = 10 times
    assert {index.alike_if_tied(3, named, 2, rng) for _ in range(20)} == {3}           # not tied: kept
    assert {index.alike_if_tied(1, named, 2, rng, keep=lambda k: k != 0) for _ in range(20)} == {1}


def test_where_the_positive_has_no_version_no_other_member_has_one():
    """The recordings hold no version of the positive (nothing plays b before a), but whole pairs of other
    classes (c before d and d before c): every other member is then a part as large as the positive's, a
    recording alone. (Among whole pairs sharing their classes, the lone positive would be the candidate whose
    sounds the others share least, which a listwise ranker finds.)"""
    from reasonaudio.generation.tasks import TASKS

    pairs = [(f"c{k}", f"d{k}") for k in range(12)]
    clips = [_clip("positive", "a", "b")] + [_clip(f"{c}{d}", c, d) for c, d in pairs] + \
        [_clip(f"{d}{c}", d, c) for c, d in pairs]
    planning = _planning(clips)
    before = next(shape for shape in TASKS["order"].shapes if shape.name == "before")
    atoms = (Atom("before", ("a", "b")),)
    negatives, own, (whole, members) = build_group(planning, before, atoms, 0, np.random.default_rng(0))
    held = {frozenset(clips[i].classes) for i in negatives}
    assert own == 0 and not whole and len(negatives) == 9
    assert members == 9 and len(held) > 5, (members, held)   # nine parts of one (whole pairs: four, 5 classes)


def test_least_used_positives_kept_up_to_date_equal_a_fresh_count():
    """The planner keeps the recordings used least as positives as it goes (a fresh count per query scanned
    the whole corpus): after any sequence of uses, the same recordings, in the same order, as counting anew."""
    import numpy as np
    from collections import Counter

    from reasonaudio.generation.natural import PositiveUses

    rng = np.random.default_rng(0)
    uses, counted = PositiveUses(7), Counter()
    for recording in rng.integers(0, 7, 60):
        fewest = min(counted[i] for i in range(7))
        assert uses.least == [i for i in range(7) if counted[i] == fewest]
        uses.add(int(recording))
        counted[int(recording)] += 1



def test_the_recordings_are_kept_in_one_mapped_file_not_on_the_heap(standin):
    """Each recording's samples are a view of one file mapping (the heap grew with the split: 9.6x at 16x the
    stand-in), read exactly as the source gives them."""
    folder, truth = standin
    bank, clips = recording_bank(f"strong:{folder}?labels=labels.tsv&as_split=test", "test", 16000, 10.0, False,
                                 progress=False)

    def mapping(array):
        while isinstance(array, np.ndarray):
            array = array.base
        return array

    assert len(bank.sounds) == len(truth) and {type(mapping(s.samples)) for s in bank.sounds} == {mmap.mmap}
    assert len({id(mapping(s.samples)) for s in bank.sounds}) == 1
    recording = next(r for r in open_source(f"strong:{folder}?labels=labels.tsv") if r.recording_id.startswith(
        bank.sounds[0].source_id))
    raw, rate = recording.load()
    assert rate == 16000 and np.array_equal(bank.sounds[0].samples, quantise(np.asarray(raw, dtype=np.float32)))


@pytest.mark.slow
def test_lasts_is_stated_in_pairs_both_ways_or_not_at_all(tmp_path):
    """A natural `lasts` states N of a pair (N, M) whose ends are each a clear no of the other at the labels'
    tolerance, and its version holds the sound for about M: X's length alone then tells no rule that does not
    read N (with N from a fixed set, only 5 and 8 s are statable at 0.2 s, and the positive would be the candidate
    whose X lasts that long, which a rule that ignores the relation finds). At 0.2 s no pair is: no lasts."""
    from reasonaudio.generation.natural import lasts_partners
    from reasonaudio.generation.pipeline import plan_split
    write_standin(tmp_path, recordings=200)       # enough recordings to hold a sound for about N and for M
    shapes, checked = {}, 0
    for tolerance in (0.1, 0.2):
        config = GenerateConfig(source=f"strong:{tmp_path}?labels=labels.tsv&as_split=test&tolerance={tolerance}",
                                tasks=("duration",), queries_per_task=30, sample_rate=16000, progress=False)
        plans = plan_split(config, forbidden=frozenset()).queries
        shapes[tolerance] = {plan.shape for plan in plans}
        partners = lasts_partners(config.clip_seconds, tolerance)
        for plan in plans:
            if plan.shape != "lasts":
                continue
            (atom,) = plan.atoms
            version = Atom("lasts", (atom.args[0], partners[atom.args[1]]), tolerance)
            clips = {c.clip_id: c.events for c in plan.candidates}
            assert all(relevant([version], clips[clip]) is YES for clip in plan.hard_negatives), plan.text
            checked += len(plan.hard_negatives)
    assert lasts_partners(10.0, 0.1) == {"2": "5", "5": "2"} and lasts_partners(10.0, 0.2) == {}
    assert "lasts" in shapes[0.1] and "lasts" not in shapes[0.2] and checked, (shapes, checked)


@pytest.mark.parametrize("shape_name", ["present-absent", "present-two-absent", "two-present-absent"])
def test_outside_the_positives_member_no_renaming_of_a_negation_is_yes(shape_name):
    """A recording that is only NO to "A, without Z" holds Z, or lacks A, more often than chance: the group would
    hold A less often than Z, and the positive (A, no Z) would be the candidate whose sounds the others share
    least, which a listwise ranker finds. Outside the positive's member
    every recording is NO to the query with its classes renamed among themselves in every way."""
    from itertools import permutations

    from reasonaudio.generation.tasks import TASKS

    rng = np.random.default_rng(0)
    classes = ["a", "b", "z", "y"] + [f"c{k}" for k in range(8)]
    clips = [Clip(f"r{i}", tuple(Event(label, label, 2.0 * j, 2.0 * j + 1, 0.0) for j, label in
                                 enumerate(rng.choice(classes, int(rng.integers(2, 5)), replace=False))))
             for i in range(400)]
    shape = next(s for s in TASKS["negation"].shapes if s.name == shape_name)
    words = {"a": "a", "b": "b", "z": "z", "z2": "y"}
    atoms = tuple(shape.atoms(words))
    positive = next(i for i, clip in enumerate(clips) if relevant(atoms, clip.events) is YES)
    planning = _planning(clips)
    named = sorted({atom.args[0] for atom in atoms})
    renamed = [tuple(replace(atom, args=(dict(zip(named, order))[atom.args[0]],)) for atom in atoms)
               for order in permutations(named)]
    outside = 0
    for seed in range(10):
        negatives, own, _ = build_group(planning, shape, atoms, positive, np.random.default_rng(seed))
        assert len(negatives) == 9
        for i in negatives[own:]:
            assert all(relevant(query, clips[i].events) is NO for query in renamed), (clips[i].classes, atoms)
            outside += 1
    assert outside >= 10


def test_no_recording_of_a_group_holds_a_lookalike_of_a_sound_the_query_names(natural):
    """The stand-in mixes the built-in bank's classes, some of which a listener may take for one another (a
    crackle and a click train): no candidate holds a look-alike of a sound its query names."""
    from reasonaudio.core.phrases import lookalikes

    events = {row["clip_id"]: {e["label"] for e in row["events"]} for row in _table(natural, "corpus", ["clip_id", "events"])}
    checked = 0
    for query in _table(natural, "queries", ["constraint", "candidates"]):
        named = {label for atom in json.loads(query["constraint"])["all"] for label in atom["args"][:2]
                 if not label.replace(".", "").isdigit()}
        for clip in query["candidates"]:
            assert not events[clip] & lookalikes(named), (named, events[clip])
            checked += 1
    assert checked


def test_a_positive_is_busier_than_its_version_as_often_as_less_busy():
    """In natural recordings busyness goes with relations (two sounds overlap more often in a busy recording),
    and versions taken as found would carry it to the positive: "the fewest events among the candidates
    holding the named sounds" would miss the positive of `overlap`.
    Here every overlapping recording is busy and seven apart ones in ten quiet: over a split's queries (one
    balance), the positive is busier than its version, by each statistic, as often as it is less busy."""
    from reasonaudio.generation.natural import balance_of, busyness
    from reasonaudio.generation.tasks import TASKS

    def recording(name, overlapping: bool, extra: int):
        b = Event("b", "b", 1.0, 2.5, 0.0) if overlapping else Event("b", "b", 3.0, 4.0, 0.0)
        busy = tuple(Event(f"x{k}", f"x{k}", 5.0 + k, 5.5 + k, 0.0) for k in range(extra))
        return Clip(name, (Event("a", "a", 0.0, 2.0, 0.0), b) + busy)

    clips = [recording(f"o{i}", True, 2) for i in range(30)] + \
        [recording(f"p{i}", False, 0 if i % 10 < 7 else 4) for i in range(60)]
    planning = _planning(clips)
    overlap = next(shape for shape in TASKS["overlap"].shapes if shape.name == "overlap")
    atoms = (Atom("overlap", ("a", "b")),)
    sums, signs = balance_of(atoms), []
    for positive in range(30):
        negatives, own, _ = build_group(planning, overlap, atoms, positive, np.random.default_rng(positive),
                                        sums=sums)
        assert own == 1 and not clips[negatives[0]].recording_id.startswith("o")
        named = frozenset("ab")
        signs.append(np.sign(busyness(clips[positive], named) - busyness(clips[negatives[0]], named)))
    busier, less = (np.array(signs) > 0).sum(0), (np.array(signs) < 0).sum(0)
    assert (np.abs(busier - less) <= 2).all(), (busier, less)   # taken as found: 22 to 8 by each



def test_a_standin_that_cannot_be_written_is_one_line_naming_the_file(tmp_path, capsys, monkeypatch):
    """libsndfile's own error (a read-only or full folder) was a traceback."""
    import soundfile

    def refused(path, *args, **kwargs):
        raise soundfile.LibsndfileError(2, f"Error opening {str(path)!r}: ")

    monkeypatch.setattr(soundfile, "write", refused)
    assert main(["standin", str(tmp_path / "st"), "--recordings", "2"]) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]          # after the progress bar, on a line of its own
    assert error.startswith("reasonaudio standin: cannot write") and "writable" in error
