"""What a task is (declarative metadata over aspects) and the group planner every task shares.

An aspect is one relation a query can test: it constrains the scene, states its atoms, renders its
words, and knows its minimal-pair flips. A task is a list of aspect combinations (one aspect, or two
for `mix`). Planning a group: draw pair scenes whose sounds form a cycle, give each its minimal-pair
flips, verify every candidate with `relevant`, shuffle (see `_try_group`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import permutations, product
from typing import Optional

import numpy as np

from ..bank import MIN_ACTIVE_SECONDS
from ..relations import NO, YES, Atom, Event, relevant
from ..scene import ARRANGEMENTS, BLOCK_PLACES, EXTRA_PLACES, Scene, Slot

MAX_ATTEMPTS = 200
GAP_SECONDS = (0.7, 1.2)
GAIN_DB = (-6.0, 0.0)
CONTINUOUS_SECONDS = (1.0, 2.5)
MIN_SECONDS = MIN_ACTIVE_SECONDS          # the bank's shortest atomic sound


class PlanningError(ValueError):
    pass


class Aspect:
    """One testable relation. Subclasses set the class attributes and `atoms`/`flips`."""

    name = ""
    arrangements: tuple[str, ...] = ("a_first", "b_first", "overlap")   # "apart" is only ever a flip
    extra_places: tuple[str, ...] = EXTRA_PLACES
    continuous_pair = False                 # a and b must be croppable to any length
    steady_pair = False                     # a and b must be heard throughout (what overlaps them is heard with them)
    extra_like_pair = False                 # the extra sound is continuous and as long as the longer of a, b
    pair_seconds: Optional[tuple[tuple[float, float], tuple[float, float]]] = None  # (a range, b range)
    min_seconds = MIN_SECONDS               # shortest sound usable in a or b
    needs_negated = False                   # draws a class z that the positive lacks
    sentences: tuple[str, ...] = ()         # full queries, with {x} {y} {z}
    clauses: tuple[str, ...] = ()           # the same aspect as a clause added to another one

    def atoms(self, x: str, y: str, z: Optional[str]) -> list[Atom]:
        raise NotImplementedError

    def pair_lengths(self, rng) -> Optional[tuple[float, float]]:
        """Lengths of a and b when they depend on each other; None: each drawn from its slot's range."""
        return None

    def flips(self, scene: Scene, negated, mentioned: set[str]) -> list[Scene]:
        """The ways to change the scene only in what this aspect tests; the planner takes one of them
        (`negated`: the AtomicSound a negation puts in; `mentioned`: the labels the query names)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Task:
    name: str
    description: str
    combos: tuple[tuple[Aspect, ...], ...]


@dataclass(frozen=True)
class Candidate:
    clip_id: str
    events: tuple[Event, ...]


@dataclass(frozen=True)
class QueryPlan:
    query_id: str
    task: str
    text: str
    atoms: tuple[Atom, ...]
    candidates: tuple[Candidate, ...]
    positive: str
    hard_negatives: tuple[str, ...]      # minimal pairs: only the tested attribute changed


def longest_discrete(clip_seconds: float) -> float:
    """The longest a discrete sound may be: three of them and two gaps always fit in a clip."""
    return min(3.0, (clip_seconds - 2 * GAP_SECONDS[1] - 0.03) / 3)


@dataclass(frozen=True)
class SlotSpec:
    """What may fill a slot. Lengths are bounded so that every candidate of a group fits the clip
    whatever is drawn: no draw is ever rejected for its length, so the positive and the negatives
    share one length distribution (a rejected draw would favour short sounds in the positive,
    which appears in most candidates, and hand a query-blind classifier a shortcut)."""

    continuous: bool                 # only sounds that can be cropped or looped to any length
    min_seconds: float
    max_seconds: float
    seconds: tuple[float, float]     # the length a continuous sound gets here
    steady: bool = False             # only sounds heard throughout (see bank.audible_fraction)

    def admits(self, sound) -> bool:
        if self.steady and not sound.steady:
            return False
        if sound.kind == "continuous":
            return True
        return not self.continuous and self.min_seconds <= sound.seconds <= self.max_seconds


def slot_specs(combo, clip_seconds: float) -> dict[str, SlotSpec]:
    cap = longest_discrete(clip_seconds)
    continuous = any(aspect.continuous_pair for aspect in combo)
    shortest = max(aspect.min_seconds for aspect in combo)
    default = (CONTINUOUS_SECONDS[0], min(CONTINUOUS_SECONDS[1], cap))
    ranges = next((aspect.pair_seconds for aspect in combo if aspect.pair_seconds), (default, default))
    steady = any(aspect.steady_pair for aspect in combo)
    pair = {role: SlotSpec(continuous, shortest, r[1] if continuous else cap, r, steady) for role, r in zip("ab", ranges)}
    if any(aspect.extra_like_pair for aspect in combo):
        return {**pair, "extra": pair["a"]}
    room = clip_seconds - pair["a"].max_seconds - pair["b"].max_seconds - 2 * GAP_SECONDS[1] - 0.03
    extra_range = (min(CONTINUOUS_SECONDS[0], room / 2), min(CONTINUOUS_SECONDS[1], room))
    return {**pair, "extra": SlotSpec(False, shortest, room, extra_range)}


@dataclass
class SoundPicker:
    """Draws sounds uniformly over the classes that have a sound a slot admits."""

    by_label: dict[str, list]                      # label -> AtomicSound list
    rng: np.random.Generator
    _eligible: dict = field(default_factory=dict, repr=False)   # per SlotSpec: planning asks the same few

    def eligible(self, spec: SlotSpec) -> dict[str, list]:
        if spec not in self._eligible:
            found = {label: [s for s in sounds if spec.admits(s)] for label, sounds in self.by_label.items()}
            self._eligible[spec] = {label: sounds for label, sounds in found.items() if sounds}
        return self._eligible[spec]

    def unlooped(self, sound, seconds: float, spec: SlotSpec):
        """A recording of the sound's class that the slot admits, long enough to play `seconds` without a
        loop, when the class has one (a loop is inaudible, but needing none is better still); else `sound`."""
        if sound.kind != "continuous" or sound.seconds >= seconds:
            return sound
        longer = [s for s in self.eligible(spec).get(sound.label, []) if s.kind == "continuous" and s.seconds >= seconds]
        return longer[self.rng.integers(len(longer))] if longer else sound

    def pick(self, spec: SlotSpec, exclude: set[str] = frozenset()):
        options = {k: v for k, v in self.eligible(spec).items() if k not in exclude}
        if not options:
            return None
        label = sorted(options)[self.rng.integers(len(options))]
        return options[label][self.rng.integers(len(options[label]))]


def _continuous_seconds(spec: SlotSpec, rng) -> float:
    """The length a continuous sound gets in a slot of this spec."""
    return round(float(rng.uniform(*spec.seconds)), 3)


def _slot(sound, rng, spec: SlotSpec) -> Slot:
    continuous = sound.kind == "continuous"
    seconds = _continuous_seconds(spec, rng) if continuous else round(float(sound.seconds), 3)
    return Slot(sound.label, sound.source_id, seconds, round(float(rng.uniform(*GAIN_DB)), 1), continuous)


def fits(sound, slot: Slot) -> bool:
    """Can `sound` take `slot`'s place at exactly its length: looped or cropped, never stretched?"""
    return sound.kind == "continuous" or sound.seconds >= slot.seconds


def put(slot: Slot, sound) -> Slot:
    """`slot` holding `sound` (an AtomicSound that `fits` it) instead: place, length and gain kept, so the
    clip changes in that sound alone (a discrete sound is cropped to the length)."""
    return replace(slot, label=sound.label, source_id=sound.source_id, continuous=sound.kind == "continuous")


def negated_spec(scene: Scene, mentioned: set[str], spec: SlotSpec) -> SlotSpec:
    """What the negated sound may be: one that fits the shortest unmentioned slot it could replace."""
    shortest = min(slot.seconds for slot in scene.slots().values() if slot.label not in mentioned)
    return replace(spec, min_seconds=max(spec.min_seconds, shortest), max_seconds=float("inf"))


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def query_texts(combo, phrases: dict[str, str]) -> list[str]:
    """Every text the templates give a combo: a sentence of the first aspect, a clause of each other."""
    parts = [combo[0].sentences] + [aspect.clauses for aspect in combo[1:]]
    return [capitalise(", ".join(part.format(**phrases) for part in chosen)) for chosen in product(*parts)]


def possible_texts(task: Task, atoms, phrases: dict[str, str]) -> set[str]:
    """The texts that a query of `task` with these atoms can have (`validate` regenerates them): every
    assignment of the mentioned classes to x, y, z under which a combo states exactly these atoms."""
    atoms, labels = tuple(atoms), sorted({label for atom in atoms for label in atom.args})
    texts = set()
    for combo in task.combos:
        for x, y, z in set(permutations(labels + [None] * 3, 3)):
            if tuple(atom for aspect in combo for atom in aspect.atoms(x, y, z)) == atoms:
                texts.update(query_texts(combo, {"x": phrases.get(x, ""), "y": phrases.get(y, ""),
                                                 "z": phrases.get(z, "")}))
    return texts


def _query_text(combo, phrases: dict[str, str], rng) -> str:
    texts = query_texts(combo, phrases)
    return texts[rng.integers(len(texts))]


def requirements(combo) -> dict:
    arrangements = [a for a in ARRANGEMENTS if all(a in aspect.arrangements for aspect in combo)]
    places = [p for p in EXTRA_PLACES if all(p in aspect.extra_places for aspect in combo)]
    return {"arrangements": arrangements, "places": places, "negated": any(a.needs_negated for a in combo)}


def check_feasible(task: Task, by_label: dict[str, list], clip_seconds: float) -> None:
    """Fail before any rendering when the bank or the clip length cannot supply a task's groups."""
    picker = SoundPicker(by_label, np.random.default_rng(0))
    for combo in task.combos:
        name = f"task {task.name!r} ({'+'.join(a.name for a in combo)})"
        specs = slot_specs(combo, clip_seconds)
        if specs["extra"].max_seconds < MIN_SECONDS:
            raise PlanningError(f"{name}: {clip_seconds} s clips leave no room for a third sound; use longer clips")
        pair, extra = picker.eligible(specs["a"]), picker.eligible(specs["extra"])
        total = 3 + requirements(combo)["negated"] + 1          # a, b, extra, the negated class, one more pair
        if len(pair) < 3 or len(set(pair) | set(extra)) < total:
            kind = "continuous " if specs["a"].continuous else ""
            raise PlanningError(
                f"{name} needs at least {total} usable classes, 3 of them with {kind}sounds of "
                f"{specs['a'].min_seconds}-{specs['a'].max_seconds:.2f} s; the bank has {len(by_label)} classes, "
                f"{len(pair)} eligible: {sorted(pair)}")


def plan_group(task: Task, query_id: str, by_label: dict[str, list], rng: np.random.Generator,
               candidates: int, clip_seconds: float, forbidden_texts: frozenset[str] = frozenset()) -> QueryPlan:
    """One query and its candidate group; a text in `forbidden_texts` (another split's) is drawn again."""
    picker = SoundPicker(by_label, rng)
    for _ in range(MAX_ATTEMPTS):
        plan = _try_group(task, query_id, picker, rng, candidates, clip_seconds)
        if plan is not None and plan.text not in forbidden_texts:
            return plan
    raise PlanningError(f"could not plan a valid group for {query_id} in {MAX_ATTEMPTS} attempts; "
                        f"the bank has too few distinct classes for {candidates} candidates")


def _layout(combo, need: dict, specs: dict, picker: SoundPicker, a, b, extra) -> Scene:
    rng = picker.rng
    slots = {"a": _slot(a, rng, specs["a"]), "b": _slot(b, rng, specs["b"]), "extra": _slot(extra, rng, specs["extra"])}
    lengths = next((found for aspect in combo if (found := aspect.pair_lengths(rng)) is not None), None)
    if lengths is not None:
        slots["a"], slots["b"] = (replace(slots[r], seconds=n) for r, n in zip("ab", lengths))
    if any(aspect.extra_like_pair for aspect in combo):
        slots["extra"] = replace(slots["extra"], seconds=max(slots["a"].seconds, slots["b"].seconds))
    longest = max(slots["a"].seconds, slots["b"].seconds)      # a flip may give either of the pair this length
    for role, sound in (("a", a), ("b", b), ("extra", extra)):
        chosen = picker.unlooped(sound, longest if role != "extra" else slots["extra"].seconds, specs[role])
        slots[role] = replace(slots[role], source_id=chosen.source_id)
    arrangement = need["arrangements"][rng.integers(len(need["arrangements"]))]
    places = [p for p in need["places"] if arrangement != "overlap" or p in BLOCK_PLACES]
    return Scene(
        **slots, arrangement=arrangement, extra_place=places[rng.integers(len(places))],
        gap=round(float(rng.uniform(*GAP_SECONDS)), 3), shift=float(rng.uniform()), lead=float(rng.uniform()),
    )


def _try_group(task, query_id, picker, rng, candidates, clip_seconds) -> Optional[QueryPlan]:
    """A group of pair scenes that all look alike: each is a base scene plus one minimal-pair flip per
    aspect, and the positive is the base of the first. When the query relates two sounds, the pairs'
    sounds form a cycle (c0,c1), (c1,c2), ... (cm,c0), so every sound, the query's own included,
    appears equally often and neighbouring pairs are partial matches (one mentioned sound shared).
    A group built as the positive plus one-sound replacements of it would make the positive the hub
    of a star, which a query-blind classifier ranks *below* chance (the audit found exactly that)."""
    combo = task.combos[rng.integers(len(task.combos))]
    need, specs = requirements(combo), slot_specs(combo, clip_seconds)
    versions = 1 + len(combo)
    pairs = max(1, candidates // versions)
    relates_two = any(not aspect.needs_negated for aspect in combo)   # b is a mentioned sound
    taken: set[str] = set()

    def draw(spec, own=frozenset()):
        """A class new to the group when the bank has one; else (a small bank) any class that is not in
        the scene (`own`) nor one the query names."""
        sound = picker.pick(spec, exclude=taken | own) or picker.pick(spec, exclude=own | named)
        if sound is not None:
            taken.add(sound.label)
        return sound

    named: set[str] = set()
    if relates_two and 3 <= pairs <= len(picker.eligible(specs["a"])):
        cycle = [draw(specs["a"]) for _ in range(pairs)]
        members = [(cycle[k], cycle[(k + 1) % pairs]) for k in range(pairs)]
    else:
        members = []
        for _ in range(pairs):
            a = draw(specs["a"])
            members.append((a, a and draw(specs["b"], frozenset({a.label}))))
    if any(sound is None for pair in members for sound in pair):
        return None
    named.update({members[0][0].label} | ({members[0][1].label} if relates_two else set()))
    scenes, negated = [], []
    for a, b in members:
        extra = draw(specs["extra"], frozenset({a.label, b.label}))
        if extra is None:
            return None
        scene = _layout(combo, need, specs, picker, a, b, extra)
        mentioned = {a.label, b.label} if relates_two else {a.label}
        z = None
        if need["negated"]:
            spec = negated_spec(scene, mentioned, specs["extra"])
            z = draw(spec, frozenset({a.label, b.label, extra.label}))
            if z is None:
                return None
            z = picker.unlooped(z, max(slot.seconds for slot in scene.slots().values() if slot.label not in mentioned), spec)
            if not negated:
                named.add(z.label)
        flips = [aspect.flips(scene, z, mentioned) for aspect in combo]
        if not all(flips):
            return None
        scenes.append([scene] + [options[rng.integers(len(options))] for options in flips])
        negated.append(z)
    for _ in range(candidates - pairs * versions):  # what does not fill a whole pair: lone base scenes
        a = draw(specs["a"], frozenset(named))
        b = a and draw(specs["b"], frozenset(named | {a.label}))
        extra = b and draw(specs["extra"], frozenset(named | {a.label, b.label}))
        if extra is None:
            return None
        scenes.append([_layout(combo, need, specs, picker, a, b, extra)])
    ordered = [scene for group in scenes for scene in group][:candidates]
    x, y, z = members[0][0], members[0][1], negated[0]
    atoms = tuple(atom for aspect in combo for atom in aspect.atoms(x.label, y.label, z and z.label))
    timelines = [s.events(clip_seconds) for s in ordered]
    if any(t is None for t in timelines) or len(set(timelines)) != len(timelines):
        return None
    verdicts = [relevant(atoms, t) for t in timelines]
    if verdicts[0] is not YES or any(v is not NO for v in verdicts[1:]):
        return None
    order = rng.permutation(candidates)
    clips = tuple(Candidate(f"{query_id}-{pos:02d}", timelines[i]) for pos, i in enumerate(order))
    position = np.argsort(order)          # where each planned scene landed
    positive = clips[position[0]].clip_id
    hard_ids = tuple(sorted(clips[position[i]].clip_id for i in range(1, min(versions, candidates))))
    phrases = {"x": x.phrase, "y": y.phrase, "z": z.phrase if z else ""}
    return QueryPlan(query_id, task.name, _query_text(combo, phrases, rng), atoms, clips, positive, hard_ids)
