"""Natural builds: real recordings with their own strong labels, no mixing (docs/design.md §13).

Each recording is a clip with its annotations (merged by the source). A query is a shape's atoms bound to
classes one recording (the positive) answers YES by `relevant`. Its candidates are built as a planned
group is, out of recordings instead of scenes: members, each the closure of a binding's *versions* (one or
more atoms said the other way: the other order, at different times, another N, the excluded sound
present ...), the positive's member one of them; a version's recording is the positive of a sibling query,
so the natural analogue of a minimal pair. Recordings failing exactly one atom are the query's
`hard_negatives`; recordings the query is AMBIGUOUS for are never candidates; `absent` is asked only of
classes the source labels exhaustively. Pure planning over the timelines; the recordings' audio is read once
into the bank (`recording_bank`, kept in a file mapped into memory, not on the heap) and only ever copied
into the corpus.
"""
from __future__ import annotations

import logging
import tempfile
from bisect import bisect_left
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from itertools import count, permutations
from math import comb
from typing import Callable, Optional

import numpy as np
import soxr
from tqdm.auto import tqdm

from reasonaudio.core import relations
from reasonaudio.core.phrases import LABELS_SEPARATOR, lookalikes, phrase_for
from reasonaudio.core.relations import (NO, YES, Atom, Event, judge_queries, judged, mentioned, misses_one_atom,
                                        occurrences, relevant, required_labels, sounding_seconds)
from reasonaudio.core.spec import parse_spec

from .bank import AtomicSound, BadSourcesError, SoundBank, quantise
from .render import RECORDING
from .sources import SPLITS, BadRecording, open_source
from .sources.strong_labels import NATURAL_KIND, Labelling, labelling
from .tasks import TASKS, Candidate, QueryPlan, Quotas, Shape, draw_shape
from .tasks.duration import Lasts
from .tasks.members import Dealer, Pick, member_sizes, part, positive_first, subsets
from .templates import DEFAULT_STYLE, render, templates

log = logging.getLogger(__name__)
TRIES = 60                       # bindings tried per query
COMPARED = 6                     # whole groups a query compares, taking the one that keeps its shape's balance
DRAWS = 50                       # draws of a base before one is taken whatever its classes
MISSES_IN_A_ROW = 25             # queries a task fails to find in a row before it stops short (said in the log)


def is_natural(source: str) -> bool:
    return parse_spec(source)[0] == NATURAL_KIND


def source_labelling(source: str) -> Labelling:
    _, _, options = parse_spec(source)
    return labelling(options)


@dataclass(frozen=True)
class Clip:
    recording_id: str
    events: tuple[Event, ...]

    @cached_property
    def classes(self) -> frozenset[str]:
        """Worked out once: planning asks a recording for its classes millions of times."""
        return frozenset(e.label for e in self.events)

    @cached_property
    def by_label(self) -> dict[str, list[Event]]:
        """Its events by class (`relations.occurrences`), worked out once: every query asked of it reads them."""
        return occurrences(self.events)


def recording_bank(source: str, split: str, sample_rate: int, clip_seconds: float, skip_bad: bool,
                   progress: bool = True) -> tuple[SoundBank, list[Clip]]:
    """The split's recordings, mono at the corpus rate on the 16-bit grid (never trimmed or levelled: they
    are published as recorded), and their timelines. A recording longer than the clip, unreadable, silent,
    above full scale (a float file: the 16-bit grid would clip it) or with a bad row is a bad source; one the
    resampler's ringing takes above full scale is scaled to it, said in the log."""
    found = [r for r in open_source(source) if r.split_of() == split]
    if not found:
        raise ValueError(f"the source has no recordings for split {split!r}; a source without official splits "
                         "puts about 30 % of its recordings in test by hash: add ?as_split=test to use all of them")
    kept, clips, bad = [], [], []
    store = tempfile.TemporaryFile(prefix="reasonaudio-recordings-")
    for recording in tqdm(found, desc="recordings", unit="recording", disable=not progress):
        try:
            raw, rate = recording.load()
            samples = np.asarray(raw, dtype=np.float32)
            samples = samples.mean(axis=1) if samples.ndim == 2 else samples
            if not np.all(np.isfinite(samples)) or not samples.size or np.abs(samples).max() < 1e-4:
                raise BadRecording("silent, empty or not finite")
            if np.abs(samples).max() > 1:
                raise BadRecording(f"peaks at {20 * np.log10(np.abs(samples).max()):+.1f} dBFS, above full scale: "
                                   "published as recorded on the 16-bit grid it would be clipped; scale it to 0 dBFS "
                                   "or below")
            if rate != sample_rate:
                samples = soxr.resample(samples, rate, sample_rate, quality="HQ").astype(np.float32)
                if np.abs(samples).max() > 1:
                    log.warning("recording %s: resampled to %d Hz it peaks at %+.2f dBFS; scaled to full scale "
                                "rather than clipped", recording.origin, sample_rate,
                                20 * np.log10(np.abs(samples).max()))
                    samples /= np.abs(samples).max()
            if len(samples) > round(clip_seconds * sample_rate) + round(0.01 * sample_rate):
                raise BadRecording(f"lasts {len(samples) / sample_rate:.2f} s, longer than --clip-seconds "
                                   f"{clip_seconds:g}")
        except BadRecording as error:
            bad.append((recording.origin, str(error)))
            continue
        except Exception as error:  # soundfile and codecs raise many types for an unreadable file
            bad.append((recording.origin, f"unreadable: {error}"))
            continue
        samples = quantise(samples[:round(clip_seconds * sample_rate)])
        store.write(samples.tobytes())
        kept.append((recording, len(samples)))
        clips.append(Clip(recording.recording_id, tuple(
            Event(e.label, e.source_id, e.onset, min(e.offset, round(clip_seconds, 3)), 0.0) for e in recording.events)))
    if bad and not skip_bad:
        raise BadSourcesError(bad)
    for origin, reason in bad:
        log.warning("skipped bad source %s: %s", origin, reason)
    sounds = _mapped_sounds(store, kept, sample_rate)
    order = sorted(range(len(sounds)), key=lambda i: sounds[i].source_id)
    return (SoundBank(tuple(sounds[i] for i in order), sample_rate, tuple(bad)),
            [clips[i] for i in order if clips[i].events])


def _mapped_sounds(store, kept: list, sample_rate: int) -> list[AtomicSound]:
    """The bank's sounds over one mapping of the file their samples were written to, each a view of its
    stretch: the split's audio is paged in as a clip is rendered and out under pressure, not held on the heap
    (at 16x the stand-in the heap grew 9.6x with it). Forked workers share the mapping."""
    store.flush()
    whole = np.asarray(np.memmap(store, dtype=np.float32, mode="r")) if store.tell() else np.zeros(0, np.float32)
    sounds, start = [], 0
    for recording, length in kept:
        phrase = LABELS_SEPARATOR.join(phrase_for(label) for label in recording.label.split(LABELS_SEPARATOR))
        sounds.append(AtomicSound(recording.recording_id, recording.label, phrase, RECORDING, recording.origin,
                                  recording.license, whole[start:start + length], sample_rate, recording.attribution))
        start += length
    return sounds


SCAN = 512             # recordings holding the named classes a look-up reads at most (in random order): a look-up
                       # costs the same in a corpus of any size (reading them all made planning quadratic)
CHOICES = 8            # recordings answering a version a look-up finds before taking the one that keeps the balance
FILL_DRAWS = 96        # recordings drawn at random to fill a group the recordings hold no whole member for


def _looked_at(pool, rng):
    """The recordings of `pool` a look-up reads: in random order, SCAN at most, so that a look-up costs the same in
    a corpus of any size. The order is drawn at once; the recordings are read as the caller asks for them."""
    order = rng.permutation(len(pool)) if len(pool) <= SCAN else rng.choice(len(pool), SCAN, replace=False)
    return (pool[int(i)] for i in order)


def _admit_all(recording: int) -> bool:
    """A rule that admits every recording (`RecordingIndex.alike_if_tied` without a further condition)."""
    return True


@dataclass
class RecordingIndex:
    """The split's recordings and the look-ups a query's planning asks of them, worked out once per split.

    Attributes:
        clips: the recordings, by position (a recording is named by its position everywhere in planning).
        holding: class -> the positions of the recordings holding it.
        exhaustive: the classes `absent` may be asked of (those the source labels exhaustively), in order.
        most_classes: the most classes one recording holds.
        pools: the recordings holding every class of a set, by set, filled as they are asked for.
        lacking: the exhaustively labelled classes a set of classes lacks, by set, filled as they are asked for.
    """
    clips: list[Clip]
    holding: dict[str, set[int]]
    exhaustive: list[str]
    most_classes: int = 0
    pools: dict[frozenset[str], list[int]] = field(default_factory=dict)
    lacking: dict[frozenset[str], np.ndarray] = field(default_factory=dict)

    @classmethod
    def of(cls, clips: list[Clip], exhaustive: Optional[frozenset[str]]) -> "RecordingIndex":
        """The index of a split's recordings.

        Args:
            clips: the split's recordings.
            exhaustive: the classes the source labels exhaustively (`absent` is asked only of them); None when it
                labels every class exhaustively.

        Returns:
            The recordings indexed by class.
        """
        holding: dict[str, set[int]] = {}
        for index, clip in enumerate(clips):
            for label in clip.classes:
                holding.setdefault(label, set()).add(index)
        return cls(clips, holding, [v for v in sorted(holding) if exhaustive is None or v in exhaustive],
                   max((len(c.classes) for c in clips), default=0))

    def drawn(self, relates: int, rng: np.random.Generator, among: Optional[list[int]] = None) -> int:
        """A base (a positive, or another member's) drawn as the versions are found. The versions are found among
        the recordings holding the named classes, where one with k classes is C(k, relates) times likelier to be,
        so a base drawn uniformly (and its classes from it) would be the least busy recording of its member, a
        cue a ranker could use. A recording is accepted with probability C(k, relates) / C(most, relates).

        Args:
            relates: how many classes the query relates.
            rng: the query's generator.
            among: the positions to draw from; None: every recording.

        Returns:
            The position of the recording drawn (after DRAWS refusals, the last one drawn).
        """
        most = comb(self.most_classes, relates) or 1
        for _ in range(DRAWS):
            k = int(among[rng.integers(len(among))]) if among is not None else int(rng.integers(len(self.clips)))
            if rng.uniform() * most < comb(len(self.clips[k].classes), relates):
                return k
        return k

    def pool(self, needed: frozenset[str]) -> list[int] | range:
        """The recordings holding every class of `needed`, ascending; worked out once per set of classes
        (intersecting and sorting them on every look-up cost a pass over the corpus each time)."""
        if not needed:
            return range(len(self.clips))
        if needed not in self.pools:
            self.pools[needed] = sorted(set.intersection(*(self.holding.get(label, set()) for label in needed)))
        return self.pools[needed]

    def unheld(self, classes: frozenset[str]) -> np.ndarray:
        """The classes `absent` may be asked of a recording holding `classes`: the exhaustively labelled ones it
        lacks, in order; worked out once per set of classes (a binding is drawn half a million times a split)."""
        if classes not in self.lacking:
            self.lacking[classes] = np.array([label for label in self.exhaustive if label not in classes])
        return self.lacking[classes]

    def alike_if_tied(self, base: int, named: frozenset[str], level: int, rng: np.random.Generator,
                      keep: Callable[[int], bool] = _admit_all) -> int:
        """The tie rule for a member of one recording. Bases are drawn C(k, relates)-weighted (`drawn`), which
        matches a base to its versions, but a member of one recording has none, and one holding as many of the
        query's sounds as the positive does would be busier than the positive, which is uniform among the
        recordings holding its own: "the least busy candidate among those holding the most named sounds" would
        then find the positive where a rule that only counts the named sounds is tied. Such a base is redrawn
        uniformly among the recordings holding exactly the same named sounds.

        Args:
            base: the position of the base drawn.
            named: the classes the query names.
            level: how many of them the positive holds.
            rng: the query's generator.
            keep: which recordings may be taken (by position); every one by default.

        Returns:
            `base` where it holds another number of named sounds than `level`; else the first recording found (in
            random order, SCAN at most) holding exactly its named sounds that `keep` admits, or `base` if none.
        """
        held = named & self.clips[base].classes
        if len(held) != level:
            return base
        return next((k for k in _looked_at(self.pool(frozenset(held)), rng)
                     if named & self.clips[k].classes == held and keep(k)), base)


class PositiveUses:
    """How often each recording has been a positive, and those used least (ascending), kept up to date as
    queries are planned: working them out afresh scanned every recording for every query."""

    def __init__(self, recordings: int):
        self.count, self.fewest, self.least = [0] * recordings, 0, list(range(recordings))

    def add(self, recording: int) -> None:
        self.count[recording] += 1
        if self.count[recording] == self.fewest + 1:
            del self.least[bisect_left(self.least, recording)]
            if not self.least:
                self.fewest += 1
                self.least = [k for k, uses in enumerate(self.count) if uses == self.fewest]


@dataclass
class Planning:
    """What every query of a task over a split's recordings shares, set up once per split
    (`plan_natural_queries`) so that a query's planning is handed one object rather than a dozen.

    Attributes:
        index: the split's recordings (`RecordingIndex`).
        candidates: candidates per query.
        tolerance: the labels' tolerance in seconds, which every atom is stated with.
        clip_seconds: the clips' length in seconds.
        style: the text style queries are written in (`templates`).
        forbidden: texts no query may take (the other splits' and those taken so far); each query adds its own.
        quotas: the split's decks (`members.Quotas`), dealt across its tasks.
        uses: how often each recording has been a positive of the task (`PositiveUses`); set up afresh per task.
        balances: each shape's busyness balance over the task's queries so far (`Balance`); afresh per task.
    """
    index: RecordingIndex
    candidates: int
    tolerance: float
    clip_seconds: float
    style: str = DEFAULT_STYLE
    forbidden: set[str] = field(default_factory=set)
    quotas: Quotas = field(default_factory=Quotas)
    uses: PositiveUses = field(init=False)
    balances: dict[str, np.ndarray] = field(init=False, default_factory=dict)

    def __post_init__(self):
        self.uses = PositiveUses(len(self.index.clips))

    @property
    def partners(self) -> dict[str, str]:
        """The `lasts` pairs these clips and this tolerance can state (`lasts_partners`)."""
        return lasts_partners(self.clip_seconds, self.tolerance)

    def for_task(self) -> "Planning":
        """The planning of the split's next task: the same recordings, texts taken and decks, with the uses of
        positives and the shapes' balances counted afresh (each task is balanced on its own; `replace` sets up
        the fields it is not handed anew)."""
        return replace(self)


def mirror(atom: Atom, partners: dict[str, str]) -> Atom:
    """The atom that says the opposite of `atom`: the other order or length, at different times for at the same
    time, present for absent; for lasts(X, N), X for about N's partner M (`lasts_partners`)."""
    opposite = relations.REGISTRY[atom.relation].opposite
    if opposite is not None:
        return replace(atom, relation=opposite)
    if atom.relation in ("before", "longer"):
        return replace(atom, args=atom.args[::-1])
    return replace(atom, args=(atom.args[0], partners[atom.args[1]]))


def _clear_pair(n: int, m: int, tolerance: float) -> bool:
    """Does an event lasting exactly N seconds answer YES to lasting about N and NO to lasting about M at the
    tolerance? Only such a pair lets a version hold the sound for about M as a clear no."""
    event = (Event("x", "x", 0.0, float(n), 0.0),)
    return relevant([Atom("lasts", ("x", str(n)), tolerance)], event) is YES and \
        relevant([Atom("lasts", ("x", str(m)), tolerance)], event) is NO


@lru_cache(maxsize=None)
def lasts_partners(clip_seconds: float, tolerance: float) -> dict[str, str]:
    """N -> the M a natural `lasts` version states: the planned pairs for clips this long (`Lasts.pairs`), each
    end of which an event of exactly that length answers YES and the other end NO at the tolerance, each N in
    one pair (the first such with both ends free). A version then holds X for about M and M's own query's
    version X for about N, so X's length tells nothing to a rule that does not read N (with N from a fixed
    set, only 5 and 8 s have a yes window at 0.2 s, and the candidate whose X lasts 5 or 8 s would be the
    positive, which a rule that ignores the relation finds). At the default 0.2 s no pair of 10 s clips
    is one (2 s has no yes window), and a natural build states no `lasts`."""
    partners: dict[str, str] = {}
    for a, b in Lasts.pairs(clip_seconds):
        if str(a) not in partners and str(b) not in partners and _clear_pair(a, b, tolerance) and \
                _clear_pair(b, a, tolerance):
            partners.update({str(a): str(b), str(b): str(a)})
    return partners


@lru_cache(maxsize=None)
def states_seconds(shape: Shape) -> bool:
    """Does the shape state a number of seconds (`lasts`)? (Asked of every binding drawn: worked out once.)"""
    return any("n" in atom.args for atom in shape.symbolic_atoms())


def _closure(atoms) -> list[tuple[int, ...]]:
    """Every set of tested atoms a version flips, the empty one (the base) first, by size: a pair for one
    tested atom, a square for two, a cube for three (as a planned member's closure, docs/design.md §5)."""
    tested = relations.tested(atoms)
    return [tuple(tested[i] for i in version) for version in subsets(len(tested))]


def _version(atoms, flipped: tuple[int, ...], partners: dict[str, str]) -> list[Atom]:
    """What a recording of a version answers YES: the atoms with those of `flipped` said the other way."""
    return [mirror(atom, partners) if j in flipped else atom for j, atom in enumerate(atoms)]


def _versions_held(atoms, size: int, pick: Pick) -> list[tuple[int, ...]]:
    """The versions a member of `size` recordings holds: its whole closure where `size` holds it, else a connected
    part of it holding the base (`members.part`, as `pick` deals it), so that a member cut short is still a
    neighbourhood of its base and not a scatter of versions a listener could tell apart from a whole one."""
    tested, closure = relations.tested(atoms), _closure(atoms)
    if size >= len(closure):
        return closure
    return [tuple(tested[i] for i in version) for version in part(len(tested), size, pick, holding_base=True)]


def _clean(named: frozenset[str], clip: Clip) -> bool:
    """Does the recording hold no look-alike of a class the query names (`phrases.LOOKALIKES`), nor the query
    name two look-alikes? A listener could hear its text true or false through one."""
    held = clip.classes | named
    return not any(lookalikes({label}) & held for label in named)


def _answers_no(queries, clip: Clip) -> bool:
    return all(judged(query, clip.by_label) is NO for query in queries)


def _outside(atoms) -> list[tuple[Atom, ...]]:
    """The queries every recording outside the positive's member answers NO: the query and, where it says only
    which sounds are there and which are not (negation), the query with its sounds renamed among themselves in
    every way. A recording that is only NO to "A, without Z" holds Z, or lacks A, more often than chance: the
    group would then hold A less often than Z, and the positive, holding A and not Z, would be the candidate
    whose sounds the others share least, which a listwise ranker finds. Renamed every way, a recording outside holds the
    query's sounds in no pattern one naming makes YES (for "A, without Z": both or neither), each as often."""
    if any(atom.relation not in ("present", "absent") for atom in atoms):
        return [tuple(atoms)]
    names = sorted({atom.args[0] for atom in atoms})
    renamed = (tuple(replace(atom, args=(dict(zip(names, order))[atom.args[0]],)) for atom in atoms)
               for order in permutations(names))
    return list(dict.fromkeys(renamed))


BUSYNESS = ("unnamed classes", "events", "sounding seconds")


def busyness(clip: Clip, named: frozenset[str]) -> np.ndarray:
    """What makes a recording busy to a listener (`BUSYNESS`): its unnamed classes, its events, the seconds any
    sound plays (to 0.1 s)."""
    return np.array([len(clip.classes - named), len(clip.events), round(sounding_seconds(clip.events), 1)])


class Balance:
    """A shape's busyness balance: for each version of its closure (a row: the other order, the excluded sound
    in, both, ...) and each statistic of `busyness`, the times a member's base was busier than its recording of
    that version less the times it was less busy, over the split's queries (`sums`), the positive's member and
    the others apart. In natural recordings busyness goes with relations (two sounds overlap more often in a
    busy recording: a positive of `overlap` tends to hold more events than its version where the two sound
    apart), so versions taken as found would make "the fewest events among the candidates holding the named
    sounds" miss the positive. A version is taken, of the first CHOICES found, the first that brings its row
    nearest zero, and a query takes, of its first COMPARED whole groups, the one that leaves the balance most
    even: the base is then the busier of a version about as often as the less busy, by every statistic."""

    def __init__(self, sums: np.ndarray, base: Clip, named: frozenset[str]):   # `sums`: this member's own copy
        self.sums, self.named, self.base = sums, named, busyness(base, named)

    def signs(self, clip: Clip) -> np.ndarray:
        return np.sign(self.base - busyness(clip, self.named)).astype(int)

    def cost(self, clip: Clip, version: int) -> int:
        return int(np.abs(self.sums[version] + self.signs(clip)).sum())

    def take(self, clip: Clip, version: int) -> None:
        self.sums[version] += self.signs(clip)


def balance_of(atoms) -> np.ndarray:
    """A shape's busyness balance at the split's start: the positive's member, then the other members; a row per
    version of the closure; a column per statistic (`Balance`)."""
    return np.zeros((2, len(_closure(atoms)), len(BUSYNESS)), int)


def sizes_of(atoms, candidates: int) -> list[int]:
    """The members' sizes: whole closures, then a part of one with what is left (`member_sizes`)."""
    return member_sizes(len(_closure(atoms)), candidates)


def _binding(planning: Planning, shape: Shape, clip: Clip, rng):
    """Draw the named sounds: atoms of `shape` over classes of `clip` (absent ones over exhaustively labelled
    classes it lacks) that the clip answers YES, and the words that state them; None when this draw finds none
    (the recording holds too few classes, or none of the numbers `lasts` may state fits)."""
    classes, absent = sorted(clip.classes), planning.index.unheld(clip.classes)
    if len(classes) < len(shape.relates) or len(absent) < shape.absent:
        return None
    words = dict(zip(shape.relates, (str(c) for c in rng.choice(classes, len(shape.relates), replace=False))))
    words.update(zip(shape.absent_roles, (str(z) for z in rng.choice(absent, shape.absent, replace=False))))
    numbers = sorted(planning.partners, key=float)
    for n in rng.permutation(numbers) if states_seconds(shape) else [None]:
        stated = {**words, "n": str(n)} if n is not None else words
        atoms = tuple(Atom(atom.relation, atom.args, planning.tolerance) for atom in shape.atoms(stated))
        if judged(atoms, clip.by_label) is YES:
            return atoms, stated
    return None


class _Group:
    """One query's group as it is built, step by step (`build_group`): the recordings taken so far (the positive
    first, then its member's versions, then the other members'), and what every step reads (the query, its
    named sounds, the queries a recording outside the positive's member answers NO, the shape's balance)."""

    def __init__(self, planning: Planning, shape: Shape, atoms, positive: int, rng, dealer: Dealer,
                 sums: np.ndarray):
        self.planning, self.index, self.shape, self.atoms, self.rng, self.dealer, self.sums = \
            planning, planning.index, shape, atoms, rng, dealer, sums
        self.named = frozenset(mentioned(atoms))
        self.outside = _outside(atoms)
        self.level = len(self.named & self.index.clips[positive].classes)   # the named sounds the positive holds
        self.positive = positive
        self.recordings: list[int] = []
        self.own, self.whole, self.members, self.lone = 0, False, 0, []

    def admits(self, k: int, taken, nos) -> bool:
        """May the group take recording `k`: not taken, NO to every query of `nos` (so that it cannot be read as
        the query's answer), holding no look-alike of a named sound (a listener could hear the text true)?"""
        clip = self.index.clips[k]
        return k not in taken and _answers_no(nos, clip) and _clean(self.named, clip)

    def admits_outside(self, k: int) -> bool:
        """May the group take recording `k` outside the positive's member (`admits`, against the group so far)?"""
        return self.admits(k, self.recordings, self.outside)

    def answering(self, version, nos, taken: set[int], balance: Balance, row: int) -> Optional[int]:
        """Draw the recording of a version: one (in random order, SCAN at most), not taken, that answers YES to the
        `version` and NO to every query of `nos`: of the first CHOICES found, the first of the lowest cost to the
        balance (`Balance.cost`: the one that keeps the shape's balance most even). Not the one nearest the
        positive's busyness: that would make the positive its group's centre, which a query-blind medoid of
        events, classes and sounding time finds; the bases are drawn as the versions are
        (`RecordingIndex.drawn`). None where the recordings hold no such one."""
        found = []
        for k in _looked_at(self.index.pool(frozenset(required_labels(version))), self.rng):
            if judged(version, self.index.clips[k].by_label) is YES and self.admits(k, taken, nos):
                found.append(k)
                if len(found) == CHOICES:
                    break
        return min(found, key=lambda k: balance.cost(self.index.clips[k], row)) if found else None

    def member(self, atoms, base: int, nos, size: int, pick: Pick, side: int) -> tuple[list[int], bool, np.ndarray]:
        """Build a member: the base, which answers `atoms`, and a recording of each other version it holds
        (`_versions_held`), each NO to every query of `nos`, so that every candidate of the group is one version
        of a member and no statistic of the group marks the positive.

        Returns the recordings found (the base first), whether the recordings held every version, and what they
        add to the shape's balance on `side` (0: the positive's member, 1: the others; a row per version)."""
        closure = _closure(atoms)                  # the balance's rows
        balance = Balance(self.sums[side].copy(), self.index.clips[base], frozenset(mentioned(atoms)))
        taken, found, held = set(self.recordings), [], _versions_held(atoms, size, pick)
        for flipped in held:
            if not flipped:                        # the base: the recording the member's atoms were drawn on
                found.append(base)
                continue
            row = closure.index(flipped)
            chosen = self.answering(_version(atoms, flipped, self.planning.partners), nos, taken | set(found),
                                    balance, row)
            if chosen is not None:
                found.append(chosen)
                balance.take(self.index.clips[chosen], row)
        return found, len(found) == len(held), balance.sums - self.sums[side]

    def close(self, found: list[int], whole: bool, added: np.ndarray, side: int) -> None:
        """Close a member into the group: its recordings taken, its versions added to the shape's balance on
        `side`, counted as a member where it is whole."""
        self.recordings += found
        self.sums[side] += added
        self.members += int(whole)

    def positives_member(self) -> list[int]:
        """Build the positive's member and close it, whole or not (it is the query's own); returns the sizes of
        the other members. The positive sits on a part as often as its share (`members.positive_first`). Where
        the recordings hold part of the positive's member only, every other member is a part as large: the
        positive alone, or with one of its versions, among whole members sharing their classes would be the
        candidate whose sounds the others share least, which a listwise ranker finds."""
        candidates = self.planning.candidates
        sizes = positive_first(sizes_of(self.atoms, candidates), candidates,
                               self.dealer.asking("place", self.shape.name))
        found, self.whole, added = self.member(self.atoms, self.positive, [self.atoms], sizes[0],
                                               self.dealer.asking("part", self.shape.name), 0)
        self.close(found, self.whole, added, 0)
        self.own = len(found)
        if not self.whole:
            sizes = [self.own] * (candidates // self.own) + [candidates % self.own] * bool(candidates % self.own)
        return sizes[1:]

    def drawn_base(self, size: int) -> int:
        """Draw the base of another member as the versions are found (`RecordingIndex.drawn`); for a member of one
        recording, by the tie rule (`RecordingIndex.alike_if_tied`), since it has no versions to match."""
        base = self.index.drawn(len(self.shape.relates), self.rng)
        return self.index.alike_if_tied(base, self.named, self.level, self.rng) if size == 1 else base

    def other_member(self, size: int) -> None:
        """Up to TRIES draws of a base and atoms of the shape over its own classes, until one makes a whole member
        of `size`, which is closed into the group: members of the same shape over other classes make every
        candidate one version of a member. A base whose member is not whole is kept to fill with (`fill`)."""
        for _ in range(TRIES):
            base = self.drawn_base(size)
            bound = _binding(self.planning, self.shape, self.index.clips[base], self.rng)
            if bound is None or not self.admits_outside(base):
                continue
            found, whole, added = self.member(bound[0], base, self.outside, size,
                                              self.dealer.asking("part", self.shape.name, self.members), 1)
            if whole:
                self.close(found, whole, added, 1)
                return
            self.lone.append(base)

    def fill(self) -> None:
        """Fill the group where the recordings hold no whole member for it: the bases kept alone (each by the tie
        rule, as a member of one recording), then recordings drawn at random that the query is no for, the first
        found; short where none is found."""
        lone = list(dict.fromkeys(self.lone))
        while len(self.recordings) < self.planning.candidates:
            lone = [i for i in lone if i not in self.recordings]
            pool = lone or [k for k in dict.fromkeys(map(int, self.rng.integers(len(self.index.clips),
                                                                                 size=FILL_DRAWS)))
                            if self.admits_outside(k)]
            if not pool:
                break
            self.recordings.append(self.index.alike_if_tied(pool[0], self.named, self.level, self.rng,
                                                            self.admits_outside) if lone else pool[0])
            lone = lone[1:]

    def published(self) -> tuple[list[int], int, tuple[bool, int]]:
        """The group as `build_group` returns it."""
        return self.recordings[1:], self.own - 1, (self.whole, self.members)


def build_group(planning: Planning, shape: Shape, atoms, positive: int, rng: np.random.Generator,
                dealer: Optional[Dealer] = None,
                sums: Optional[np.ndarray] = None) -> tuple[list[int], int, tuple[bool, int]]:
    """A query's candidates besides the positive. The positive's member (its closure: the recordings answering
    each version of the query, one atom or more said the other way) and members of the same shape over other
    classes, each a closure of its own (pairs, squares, a cube and a pair, as in a planned group): every
    candidate is then one version of a member, so no statistic of the group marks the positive (a positive with
    its one-atom misses is a star whose centre, the positive, a listwise ranker finds). Every recording is the
    first found that would do, every base drawn as the versions are found. Where the recordings hold no whole
    member, bases alone and other recordings the query is no for fill in.

    Args:
        planning: the split's recordings and the group's size (`Planning`).
        shape: the query's shape.
        atoms: the query's atoms, which the positive answers YES.
        positive: the positive's position in `planning.index`.
        rng: the query's generator.
        dealer: the query's share of the split's decks (`members.Quotas`); None: a draw of its own.
        sums: the shape's busyness balance over the split so far (`Balance`), updated in place with the group's
            versions, each taken to keep it even; None: the group's own.

    Returns:
        The negatives' positions (the positive's member's first), how many of them are the positive's member's,
        and (whether the positive's member is whole, how many whole members the group holds).
    """
    group = _Group(planning, shape, atoms, positive, rng, Quotas().query(rng) if dealer is None else dealer,
                   balance_of(atoms) if sums is None else sums)
    for size in group.positives_member():
        group.other_member(size)
    group.fill()
    return group.published()


def _drawn_query(planning: Planning, shape: Shape, least_used: list[int], rng):
    """Draw a positive (half the time among the recordings used least as positives, so that every recording
    serves about as often) and atoms of `shape` over its classes, with the texts that state them, none taken
    yet. None where this draw finds none: no atoms the recording answers, a look-alike of a named sound in it,
    or every text taken."""
    positive = planning.index.drawn(len(shape.relates), rng, least_used if rng.uniform() < 0.5 else None)
    bound = _binding(planning, shape, planning.index.clips[positive], rng)
    if bound is None:
        return None
    atoms, words = bound
    if not _clean(frozenset(mentioned(atoms)), planning.index.clips[positive]):
        return None
    phrases = {role: (label if role == "n" else phrase_for(label)) for role, label in words.items()}
    texts = [t for t in (render(t, phrases) for t in templates(planning.style, shape.name))
             if t not in planning.forbidden]
    return (positive, atoms, texts) if texts else None


@dataclass
class _Found:
    """A group found for a query, with what ranks it against the other groups the query compares."""
    rank: tuple
    shape: Shape
    atoms: tuple
    positive: int
    negatives: list[int]
    own: int
    text: str
    sums: np.ndarray


def _published(task, query_id: str, planning: Planning, found: _Found, rng) -> QueryPlan:
    """Publish the group taken: its balance kept as the shape's, its candidates in random order (where the
    positive sits tells nothing), the versions of the positive's member that miss one atom as its hard
    negatives, the positive's use and the text recorded."""
    planning.balances[found.shape.name] = found.sums
    members = [found.positive] + found.negatives
    order = rng.permutation(len(members))
    clips = tuple(Candidate(f"{query_id}-{pos:02d}", planning.index.clips[members[i]].events)
                  for pos, i in enumerate(order))
    at = {int(i): pos for pos, i in enumerate(order)}
    hard = tuple(sorted(clips[at[k]].clip_id for k in range(1, found.own + 1)
                        if misses_one_atom(found.atoms, planning.index.clips[members[k]].by_label)))
    planning.uses.add(found.positive)
    planning.forbidden.add(found.text)
    return QueryPlan(query_id, task.name, found.shape.reported_as, found.text, found.atoms, clips,
                     clips[at[0]].clip_id, hard)


def plan_query(task, shapes: tuple[Shape, ...], query_id: str, planning: Planning, rng) -> Optional[QueryPlan]:
    """One query over the recordings: a shape drawn as in planned builds (another one when the recordings
    state it nowhere), then up to TRIES draws of a positive and classes of it, until the recordings hold a whole
    group of members (`build_group`); of its first COMPARED whole groups, the one that leaves the shape's
    busyness balance (`Balance`) most even is taken. None where no draw finds a full group."""
    best, whole, least_used, dealer = None, 0, planning.uses.least, planning.quotas.query(rng)
    for shape in [draw_shape(shapes, rng) for _ in range(3)]:
        for _ in range(TRIES):
            drawn = _drawn_query(planning, shape, least_used, rng)
            if drawn is None:
                continue
            positive, atoms, texts = drawn
            if shape.name not in planning.balances:
                planning.balances[shape.name] = balance_of(atoms)
            sums = planning.balances[shape.name].copy()
            negatives, own, score = build_group(planning, shape, atoms, positive, rng, dealer, sums)
            if len(negatives) < planning.candidates - 1:
                continue
            rank = (score, -int(np.abs(sums[0]).sum()), -int(np.abs(sums[1]).sum()))   # whole, then the most even
            if best is None or rank > best.rank:
                best = _Found(rank, shape, atoms, positive, negatives, own, texts[rng.integers(len(texts))], sums)
            whole += score == (True, len(sizes_of(atoms, planning.candidates)))
            if whole == COMPARED:
                break
        if best is not None:
            break
    return None if best is None else _published(task, query_id, planning, best, rng)


def plan_natural_queries(config, clips: list[Clip], forbidden: frozenset[str]) -> list[QueryPlan]:
    """Up to --queries-per-task queries per task over the recordings; a task whose shapes the recordings
    cannot state stops short, said in the log (a natural build cannot be balanced by construction)."""
    labels = source_labelling(config.source)
    index = RecordingIndex.of(clips, labels.exhaustive)
    if len(clips) < config.candidates:
        raise ValueError(f"{len(clips)} annotated recordings in split {config.split!r}: fewer than one group of "
                         f"{config.candidates} candidates")
    split = Planning(index, config.candidates, labels.tolerance, config.clip_seconds, config.text_style,
                     set(forbidden))
    split_index, queries = SPLITS.index(config.split), []
    stated = bool(split.partners)    # can these labels state a lasts?
    for task_index, name in enumerate(config.tasks):
        shapes = tuple(s for s in TASKS[name].shapes_within(config.depth) if stated or not states_seconds(s))
        if not shapes:
            log.warning("task %s: no shape of depth %d-%d states anything but a lasts, which these labels' tolerance "
                        "cannot state with a clear-no partner", name, *config.depth)
            continue
        planning, planned, misses = split.for_task(), [], 0
        for i in count():
            if len(planned) >= config.queries_per_task or misses >= MISSES_IN_A_ROW:
                break
            rng = np.random.default_rng([config.seed, split_index, task_index, i])
            plan = plan_query(TASKS[name], shapes, f"{config.split}-{name}-{len(planned):04d}", planning, rng)
            misses = 0 if plan else misses + 1
            planned += [plan] if plan else []
        if len(planned) < config.queries_per_task:
            log.warning("task %s: %d of %d queries: the recordings state no more of its shapes", name, len(planned),
                        config.queries_per_task)
        queries += planned
    return queries


def natural_summary(queries: list[QueryPlan], all_clips) -> dict:
    """Per shape: queries; negatives failing exactly one atom (for a one-atom query, all of them); minimal
    pairs (`hard_negatives`: recordings of the positive's own classes with one atom said the other way);
    and the corpus's clips each query is ambiguous for (left out of corpus scoring)."""
    ambiguous = {q: sum(v is not YES for _, v in pairs)
                 for q, pairs in judge_queries([(q.query_id, q.atoms) for q in queries], all_clips)}
    shapes = {}
    for query in queries:
        entry = shapes.setdefault(f"{query.task}/{query.shape}", {"queries": 0, "one_atom_misses": 0,
                                                                  "minimal_pairs": 0, "ambiguous": 0})
        entry["queries"] += 1
        entry["one_atom_misses"] += sum(misses_one_atom(query.atoms, Clip("", c.events).by_label)
                                        for c in query.candidates if c.clip_id != query.positive)
        entry["minimal_pairs"] += len(query.hard_negatives)
        entry["ambiguous"] += ambiguous[query.query_id]
    pairs = len(queries) * len(all_clips)
    return {"shapes": shapes, "ambiguous_pairs": sum(ambiguous.values()), "pairs": pairs}
