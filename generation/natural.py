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
from itertools import combinations, count, permutations
from math import comb
from typing import Optional

import numpy as np
import soxr
from tqdm.auto import tqdm

from reasonaudio.core import relations
from reasonaudio.core.phrases import LABELS_SEPARATOR, lookalikes, phrase_for
from reasonaudio.core.relations import (NO, YES, Atom, Event, judge_queries, judged, mentioned, occurrences,
                                        relevant, required_labels, sounding_seconds, verdict)
from reasonaudio.core.spec import parse_spec

from .bank import AtomicSound, BadSourcesError, SoundBank, quantise
from .render import RECORDING
from .sources import SPLITS, BadRecording, open_source
from .sources.strong_labels import NATURAL_KIND, Labelling, labelling
from .tasks import TASKS, Candidate, QueryPlan, Quotas, Shape, draw_shape
from .tasks.duration import Lasts
from .tasks.members import Dealer, Pick, member_sizes, part, positive_first
from .templates import render, templates

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


@dataclass
class _Index:
    clips: list[Clip]
    holding: dict[str, set[int]]
    exhaustive: list[str]          # the classes `absent` may be asked of
    most_classes: int = 0          # the most classes one recording holds
    pools: dict[frozenset[str], list[int]] = field(default_factory=dict)
    lacking: dict[frozenset[str], np.ndarray] = field(default_factory=dict)

    @classmethod
    def of(cls, clips: list[Clip], exhaustive: Optional[frozenset[str]]) -> "_Index":
        holding: dict[str, set[int]] = {}
        for index, clip in enumerate(clips):
            for label in clip.classes:
                holding.setdefault(label, set()).add(index)
        return cls(clips, holding, [v for v in sorted(holding) if exhaustive is None or v in exhaustive],
                   max((len(c.classes) for c in clips), default=0))

    def drawn(self, relates: int, rng, among=None) -> int:
        """A base (a positive, or another member's) drawn as the versions are: `_answering` finds those among the
        recordings holding the named classes, where one with k classes is C(k, relates) times likelier to be,
        so a base drawn uniformly (and its classes from it) would be the least busy of its member, which
        least-busy finds. Accepted with probability C(k, relates) / C(most, relates)."""
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


def _failing(atoms, clip: Clip) -> list[int]:
    """The atoms a recording answers NO."""
    return [j for j, atom in enumerate(atoms) if verdict(atom, clip.by_label) is NO]


OPPOSITE = {"present": "absent", "absent": "present", "overlap": "apart", "apart": "overlap", "long": "short",
            "short": "long"}


def mirror(atom: Atom, partners: dict[str, str]) -> Atom:
    """The atom that says the opposite of `atom`: the other order or length, at different times for at the same
    time, present for absent; for lasts(X, N), X for about N's partner M (`lasts_partners`)."""
    if atom.relation in OPPOSITE:
        return replace(atom, relation=OPPOSITE[atom.relation])
    if atom.relation in ("before", "longer"):
        return replace(atom, args=atom.args[::-1])
    return replace(atom, args=(atom.args[0], partners[atom.args[1]]))


@lru_cache(maxsize=None)
def lasts_partners(clip_seconds: float, tolerance: float) -> dict[str, str]:
    """N -> the M a natural `lasts` version states: the planned pairs for clips this long (`Lasts.pairs`), each
    end of which an event of exactly that length answers YES and the other end NO at the tolerance, each N in
    one pair (the first such with both ends free). A version then holds X for about M and M's own query's
    version X for about N, so X's length tells nothing to a rule that does not read N (with N from a fixed
    set, only 5 and 8 s have a yes window at 0.2 s, and the candidate whose X lasts 5 or 8 s would be the
    positive, which a relation-blind ranker finds). At the default 0.2 s no pair of 10 s clips
    is one (2 s has no yes window), and a natural build states no `lasts`."""
    def clear(n: int, m: int) -> bool:
        event = (Event("x", "x", 0.0, float(n), 0.0),)
        return relevant([Atom("lasts", ("x", str(n)), tolerance)], event) is YES and \
            relevant([Atom("lasts", ("x", str(m)), tolerance)], event) is NO
    partners: dict[str, str] = {}
    for a, b in Lasts.pairs(clip_seconds):
        if str(a) not in partners and str(b) not in partners and clear(a, b) and clear(b, a):
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
    return [flipped for size in range(len(tested) + 1) for flipped in combinations(tested, size)]


def _version(atoms, flipped: tuple[int, ...], partners: dict[str, str]) -> list[Atom]:
    """What a recording of a version answers YES: the atoms with those of `flipped` said the other way."""
    return [mirror(atom, partners) if j in flipped else atom for j, atom in enumerate(atoms)]


SCAN = 512             # recordings holding the named classes a look-up reads at most (in random order): a look-up
                       # costs the same in a corpus of any size (reading them all made planning quadratic)
CHOICES = 8            # recordings answering a version a look-up finds before taking the one that keeps the balance
FILL_DRAWS = 96        # recordings drawn at random to fill a group the recordings hold no whole member for


def _clean(named: frozenset[str], clip: Clip) -> bool:
    """Does the recording hold no look-alike of a class the query names (`phrases.LOOKALIKES`), nor the query
    name two look-alikes? A listener could hear its text true or false through one."""
    held = clip.classes | named
    return not any(lookalikes({label}) & held for label in named)


def _answering(version, index: _Index, nos, taken: set[int], rng, cost) -> Optional[int]:
    """A recording (in random order, SCAN at most), not taken, that answers YES to the `version` and NO to every
    query of `nos`: of the first CHOICES found, the first of the lowest `cost` (`Balance.cost`: the one that keeps
    the shape's balance most even). Not the one nearest the positive's busyness: that would make the positive its
    group's centre, which a query-blind medoid of events, classes and sounding time finds; the bases are drawn
    as the versions are (`_Index.drawn`)."""
    pool = index.pool(frozenset(required_labels(version)))
    looked_at = rng.permutation(len(pool)) if len(pool) <= SCAN else rng.choice(len(pool), SCAN, replace=False)
    named = frozenset(mentioned(nos[0]))            # the query's own (`nos` opens with the query)
    found = []
    for i in looked_at:
        clip = index.clips[pool[int(i)]]
        if pool[int(i)] not in taken and judged(version, clip.by_label) is YES and _answers_no(nos, clip) and \
                _clean(named, clip):
            found.append(pool[int(i)])
            if len(found) == CHOICES:
                break
    return min(found, key=lambda k: cost(index.clips[k])) if found else None


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


def _member(atoms, base: int, nos, index: _Index, taken: set[int], size: int, partners: dict[str, str], pick: Pick,
            rng, sums: np.ndarray):
    """A member of the group: recordings of the versions of `atoms` (the base recording answers them; each
    version's recording NO to every query of `nos`), all of its closure when `size` holds it, else a connected
    part of it holding the base (`members.part`, as `pick` deals it: the positive, where the base is, anywhere
    on it); whether the recordings held every version; and what its versions add to the shape's busyness
    balance `sums` (`Balance`: a row per version of the closure)."""
    tested, closure = relations.tested(atoms), _closure(atoms)
    versions = closure                              # the balance's rows
    if size < len(closure):
        closure = [tuple(tested[i] for i in version) for version in part(len(tested), size, pick, holding_base=True)]
    balance = Balance(sums.copy(), index.clips[base], frozenset(mentioned(atoms)))
    found = []
    for flipped in closure:
        if not flipped:                             # the base: the recording the member's atoms were drawn on
            found.append(base)
            continue
        kind = versions.index(flipped)
        chosen = _answering(_version(atoms, flipped, partners), index, nos, taken | set(found), rng,
                            lambda clip: balance.cost(clip, kind))
        if chosen is not None:
            found.append(chosen)
            balance.take(index.clips[chosen], kind)
    return found, len(found) == len(closure), balance.sums - sums


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


def _alike_if_tied(index: _Index, base: int, named: frozenset[str], level: int, rng, keep=lambda k: True) -> int:
    """`base`, or, where it holds as many of the query's named sounds as the positive does (`level`), the first
    recording found (in random order, SCAN at most) holding exactly the same named sounds that `keep` admits.
    Bases are drawn C(k, relates)-weighted (`_Index.drawn`), which matches a base to its versions, but a member
    of one recording has none, and one holding the query's sounds by chance would be busier than the positive,
    uniform among the recordings holding its own: "the least busy candidate holding the most named sounds" would
    find the positive above bag-of-sounds' tie."""
    held = named & index.clips[base].classes
    if len(held) != level:
        return base
    pool = index.pool(frozenset(held))
    looked_at = rng.permutation(len(pool)) if len(pool) <= SCAN else rng.choice(len(pool), SCAN, replace=False)
    return next((pool[int(i)] for i in looked_at
                 if named & index.clips[pool[int(i)]].classes == held and keep(pool[int(i)])), base)


def sizes_of(atoms, candidates: int) -> list[int]:
    """The members' sizes: whole closures, then a part of one with what is left (`member_sizes`)."""
    return member_sizes(len(_closure(atoms)), candidates)


def _group(shape: Shape, atoms, positive: int, index: _Index, candidates: int, tolerance: float,
           clip_seconds: float, rng, dealer: Optional[Dealer] = None,
           sums: Optional[np.ndarray] = None) -> tuple[list[int], tuple[bool, int]]:
    """The positive's member (its closure: the recordings answering each version of the query, one atom or
    more said the other way) and members of the same shape over other classes, each a closure of its own
    (pairs, squares, a cube and a pair, as in a planned group, the positive on the part as often as its share,
    `members.positive_first`): every candidate is then one version of a member, so no statistic of the group
    marks the positive (a positive with its one-atom misses is a star whose centre, the positive, a listwise
    ranker finds). Every recording is the first found that would do (`_answering`),
    every base drawn as the versions are found (`_Index.drawn`). Where the recordings hold no whole member,
    bases alone and other recordings the query is no for fill in. Where they hold part of the positive's
    member only, every other member is a part as large (the positive alone, or with one of its versions, among
    whole members sharing their classes would be the candidate whose sounds the others share least, which a
    listwise ranker finds). Returns the negatives (the
    positive's member's first), how many are its member's, and (whether it is whole, how many members are).
    `dealer`: the query's share of the split's decks (`members.Quotas`; without it, a draw); `sums`: the
    shape's busyness balance over the split so far (`Balance`; updated in place; without it, the group's own),
    every member's versions taken to keep it even."""
    dealer = Quotas().query(rng) if dealer is None else dealer
    sums = balance_of(atoms) if sums is None else sums
    sizes = positive_first(sizes_of(atoms, candidates), candidates, dealer.asking("place", shape.name))
    partners = lasts_partners(clip_seconds, tolerance)
    group, whole, added = _member(atoms, positive, [atoms], index, set(), sizes[0], partners,
                                  dealer.asking("part", shape.name), rng, sums[0])
    sums[0] += added
    outside = _outside(atoms)
    named = frozenset(mentioned(atoms))
    own, members, lone = len(group), int(whole), []
    level = len(named & index.clips[positive].classes)
    if not whole:          # the recordings hold part of the positive's member only: every member as large
        sizes = [own] * (candidates // own) + [candidates % own] * bool(candidates % own)
    for member_size in sizes[1:]:
        for _ in range(TRIES):
            base = index.drawn(len(shape.relates), rng)
            if member_size == 1:
                base = _alike_if_tied(index, base, named, level, rng)
            bound = _binding(shape, index.clips[base], index, tolerance, clip_seconds, rng)
            if bound is None or base in group or not _answers_no(outside, index.clips[base]) or \
                    not _clean(named, index.clips[base]):
                continue
            member, complete, added = _member(bound[0], base, outside, index, set(group), member_size, partners,
                                              dealer.asking("part", shape.name, members), rng, sums[1])
            if complete:
                group += member
                sums[1] += added
                members += 1
                break
            lone.append(base)

    def admitted(k: int) -> bool:          # a recording the group may still take
        return k not in group and _answers_no(outside, index.clips[k]) and _clean(named, index.clips[k])

    lone = list(dict.fromkeys(lone))
    while len(group) < candidates:         # where the recordings hold no whole member: bases alone, then any
        lone = [i for i in lone if i not in group]
        pool = lone or [k for k in dict.fromkeys(map(int, rng.integers(len(index.clips), size=FILL_DRAWS)))
                        if admitted(k)]
        if not pool:                       # recordings the query is no for, the first found
            break
        group.append(_alike_if_tied(index, pool[0], named, level, rng, admitted) if lone else pool[0])
        lone = lone[1:]
    return group[1:], own - 1, (whole, members)


def _binding(shape: Shape, clip: Clip, index: _Index, tolerance: float, clip_seconds: float, rng):
    """Atoms of `shape` over classes of `clip` (absent ones over exhaustively labelled classes it lacks) that
    the clip answers YES, and the words that state them; None when this draw finds none."""
    classes, absent = sorted(clip.classes), index.unheld(clip.classes)
    if len(classes) < len(shape.relates) or len(absent) < shape.absent:
        return None
    words = dict(zip(shape.relates, (str(c) for c in rng.choice(classes, len(shape.relates), replace=False))))
    words.update(zip(shape.absent_roles, (str(z) for z in rng.choice(absent, shape.absent, replace=False))))
    numbers = sorted(lasts_partners(clip_seconds, tolerance), key=float)
    for n in rng.permutation(numbers) if states_seconds(shape) else [None]:
        stated = {**words, "n": str(n)} if n is not None else words
        atoms = tuple(Atom(atom.relation, atom.args, tolerance) for atom in shape.atoms(stated))
        if judged(atoms, clip.by_label) is YES:
            return atoms, stated
    return None


def plan_query(task, shapes: tuple[Shape, ...], query_id: str, index: _Index, used: PositiveUses, candidates: int,
               tolerance: float, clip_seconds: float, forbidden: set[str], style: str, rng,
               quotas: Optional[Quotas] = None, balances: Optional[dict[str, np.ndarray]] = None) -> Optional[QueryPlan]:
    """One query over the recordings: a shape drawn as in planned builds (another one when the recordings
    state it nowhere), then up to TRIES draws of a positive (half of them among the recordings used least as
    positives) and classes of it, until the recordings hold a whole group of members (`_group`). `balances`:
    each shape's busyness balance over the split (`Balance`), the query's group added to its shape's."""
    balances, whole = {} if balances is None else balances, 0
    best, least_used, dealer = None, used.least, (Quotas() if quotas is None else quotas).query(rng)
    for shape in [draw_shape(shapes, rng) for _ in range(3)]:
        for _ in range(TRIES):
            positive = index.drawn(len(shape.relates), rng, least_used if rng.uniform() < 0.5 else None)
            bound = _binding(shape, index.clips[positive], index, tolerance, clip_seconds, rng)
            if bound is None:
                continue
            atoms, words = bound
            if not _clean(frozenset(mentioned(atoms)), index.clips[positive]):
                continue
            phrases = {role: (label if role == "n" else phrase_for(label)) for role, label in words.items()}
            texts = [t for t in (render(t, phrases) for t in templates(style, shape.name)) if t not in forbidden]
            if not texts:
                continue
            if shape.name not in balances:
                balances[shape.name] = balance_of(atoms)
            sums = balances[shape.name].copy()
            negatives, own, score = _group(shape, atoms, positive, index, candidates, tolerance, clip_seconds, rng,
                                           dealer, sums)
            if len(negatives) < candidates - 1:
                continue
            rank = (score, -int(np.abs(sums[0]).sum()), -int(np.abs(sums[1]).sum()))   # whole, then the most even
            if best is None or rank > best[0]:
                best = (rank, shape, atoms, positive, negatives, own, texts[rng.integers(len(texts))], sums)
            whole += score == (True, len(sizes_of(atoms, candidates)))
            if whole == COMPARED:
                break
        if best is not None:
            break
    if best is None:
        return None
    _, shape, atoms, positive, negatives, own, text, balances[shape.name] = best
    members = [positive] + negatives
    order = rng.permutation(len(members))
    clips = tuple(Candidate(f"{query_id}-{pos:02d}", index.clips[members[i]].events) for pos, i in enumerate(order))
    at = {int(i): pos for pos, i in enumerate(order)}
    hard = tuple(sorted(clips[at[k]].clip_id for k in range(1, own + 1)       # the positive's member's versions
                        if len(_failing(atoms, index.clips[members[k]])) == 1))      # that flip one atom
    used.add(positive)
    forbidden.add(text)
    return QueryPlan(query_id, task.name, shape.reported_as, text, atoms, clips, clips[at[0]].clip_id, hard)


def plan_natural_queries(config, clips: list[Clip], forbidden: frozenset[str]) -> list[QueryPlan]:
    """Up to --queries-per-task queries per task over the recordings; a task whose shapes the recordings
    cannot state stops short, said in the log (a natural build cannot be balanced by construction)."""
    labels = source_labelling(config.source)
    index = _Index.of(clips, labels.exhaustive)
    if len(clips) < config.candidates:
        raise ValueError(f"{len(clips)} annotated recordings in split {config.split!r}: fewer than one group of "
                         f"{config.candidates} candidates")
    split_index, queries, taken, quotas = SPLITS.index(config.split), [], set(forbidden), Quotas()
    stated = bool(lasts_partners(config.clip_seconds, labels.tolerance))    # can these labels state a lasts?
    for task_index, name in enumerate(config.tasks):
        shapes = tuple(s for s in TASKS[name].shapes_within(config.depth) if stated or not states_seconds(s))
        if not shapes:
            log.warning("task %s: no shape of depth %d-%d states anything but a lasts, which these labels' tolerance "
                        "cannot state with a clear-no partner", name, *config.depth)
            continue
        used, balances = PositiveUses(len(index.clips)), {}
        planned, misses = [], 0
        for i in count():
            if len(planned) >= config.queries_per_task or misses >= MISSES_IN_A_ROW:
                break
            rng = np.random.default_rng([config.seed, split_index, task_index, i])
            plan = plan_query(TASKS[name], shapes, f"{config.split}-{name}-{len(planned):04d}", index, used,
                              config.candidates, labels.tolerance, config.clip_seconds, taken, config.text_style, rng,
                              quotas, balances)
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
        entry["one_atom_misses"] += sum(len(_failing(query.atoms, Clip("", c.events))) == 1
                                        for c in query.candidates if c.clip_id != query.positive)
        entry["minimal_pairs"] += len(query.hard_negatives)
        entry["ambiguous"] += ambiguous[query.query_id]
    pairs = len(queries) * len(all_clips)
    return {"shapes": shapes, "ambiguous_pairs": sum(ambiguous.values()), "pairs": pairs}
