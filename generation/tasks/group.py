"""The planned group builder: members that all look alike (a base scene and the closure of its flips, `shape.py`,
`flips.py`), whose related sounds form a cycle; every clip of the group padded to the same number of events with
unmentioned sounds, every candidate verified with `relevant`, then shuffled (see `_GroupDraw`).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache, partial
from itertools import combinations
from typing import Callable, Optional

import numpy as np

from reasonaudio.core.phrases import lookalikes
from reasonaudio.core.relations import NO, OVERLAP_SECONDS, YES, Atom, Event, depth, mentioned, relevant

from ..acoustics.condition import MIX_GAIN_DB
from ..scene import Block, Scene, Slot
from ..templates import DEFAULT_STYLE, render, templates
from .flips import fits_where_moved
from .members import Dealer, Pick, Quotas, member_sizes, part, positive_first, subsets
from .designs import Design, design_scenes
from .shape import CONTINUOUS, GAP_SECONDS, MIN_SECONDS, Need, Shape, Task

MAX_ATTEMPTS = 200
CLOSED_ATTEMPTS = 20        # group draws that must close before stars are taken
LONGEST_FREE = 3.0          # the longest a sound whose length no atom tests gets (the bank's discrete cap)
ROOM_PER_BLOCK = 1.0        # a block gets at least this much time, or an unmentioned sound goes inside another
MARGIN = 0.05               # clip time never planned, so rounding never pushes an event past the end
EVENTS_PER_CLIP = (2, 5)


class PlanningError(ValueError):
    pass


@dataclass(frozen=True)
class Candidate:
    clip_id: str
    events: tuple[Event, ...]


@dataclass(frozen=True)
class QueryPlan:
    query_id: str
    task: str
    shape: str
    text: str
    atoms: tuple[Atom, ...]
    candidates: tuple[Candidate, ...]
    positive: str
    hard_negatives: tuple[str, ...]      # minimal pairs: one tested atom flipped, nothing else changed

    @property
    def depth(self) -> int:
        return depth(self.atoms)

    @property
    def num_sounds(self) -> int:
        return len(mentioned(self.atoms))


def longest_discrete(clip_seconds: float) -> float:
    """The longest a discrete sound is kept: two of them and a gap always fit in a clip."""
    return min(LONGEST_FREE, (clip_seconds - GAP_SECONDS[1] - MARGIN) / 2)


@dataclass(frozen=True)
class Layout:
    """How a group's clips hold `events` sounds: the shape's core blocks, `blocks` blocks of unmentioned
    sounds, `inner` more unmentioned sounds inside those, and the room a block of free length gets."""

    events: int
    blocks: int
    inner: int
    room: float


def layout_for(shape: Shape, events: int, parameters: dict, clip_seconds: float) -> Optional[Layout]:
    """The way to fit `events` sounds, with as many blocks as leave each free block ROOM_PER_BLOCK."""
    return _layout(shape, events, tuple(sorted(parameters.items())), clip_seconds)


@lru_cache(maxsize=4096)
def _layout(shape: Shape, events: int, parameters: tuple, clip_seconds: float) -> Optional[Layout]:
    """`layout_for`, worked out once per shape, events, parameters and clip length (every attempt asked
    again: a twentieth of the planner's time)."""
    parameters = dict(parameters)
    fillers = events - shape.core_events
    if fillers < shape.min_fillers:
        return None
    longest = shape.longest(parameters)
    core = shape.layout(np.random.default_rng(0), longest)
    fixed = [longest[host] for host, _ in core if host in longest]
    free_core = len(core) - len(fixed)
    for blocks in range(fillers, (fillers + 1) // 2 - 1, -1):     # each filler block hosts at most one more
        hosts = len(core) + blocks
        free = free_core + blocks
        left = clip_seconds - MARGIN - sum(fixed) - (hosts - 1) * shape.gap_seconds[1]
        if free == 0 and left >= 0:
            return Layout(events, blocks, fillers - blocks, 0.0)
        if free and left / free >= ROOM_PER_BLOCK:
            return Layout(events, blocks, fillers - blocks, min(LONGEST_FREE, left / free))
    return None


@dataclass
class SoundPicker:
    """Draws sounds uniformly over the classes that have a sound a need admits."""

    by_label: dict[str, list]                      # label -> AtomicSound list
    rng: np.random.Generator
    _eligible: dict = field(default_factory=dict, repr=False)

    def eligible(self, need: Need) -> dict[str, list]:
        if need not in self._eligible:
            found = {label: [s for s in sounds if need.admits(s)] for label, sounds in self.by_label.items()}
            self._eligible[need] = {label: sounds for label, sounds in found.items() if sounds}
        return self._eligible[need]

    def pick(self, need: Need, exclude=frozenset(), uses: Optional[Counter] = None):
        """A sound of a class not in `exclude`, uniformly over the classes (those `uses` counts least)."""
        options = {k: v for k, v in self.eligible(need).items() if k not in exclude}
        if uses is not None and options:
            least = min(uses[k] for k in options)
            options = {k: v for k, v in options.items() if uses[k] == least}
        if not options:
            return None
        label = sorted(options)[self.rng.integers(len(options))]
        return options[label][self.rng.integers(len(options[label]))]

    def unlooped(self, sound, seconds: float, need: Need):
        """A recording of the sound's class that the need admits, long enough to play `seconds` without a
        loop, when the class has one (a loop is inaudible, but needing none is better still); else one of its
        longest, so that no version loops it more than it must (keeping the draw, a 1.5 s recording looped in a
        2 s place beside 5 s ones); `sound` itself when it is one of those."""
        if sound.kind != "continuous" or sound.seconds >= seconds:
            return sound
        recordings = [s for s in self.eligible(need).get(sound.label, []) if s.kind == "continuous"]
        longer = [s for s in recordings if s.seconds >= seconds]
        if not longer:
            longest = max((s.seconds for s in recordings), default=sound.seconds)
            if sound.seconds >= longest:
                return sound
            longer = [s for s in recordings if s.seconds >= longest]
        return longer[self.rng.integers(len(longer))]


def _with_replaced(scene: Scene, shape: Shape, shared: list, places: set[str], reach: dict, room: float,
                   rng) -> Scene:
    """`scene` holding, for each (excluded, replaced, role) of the group, the replaced sound where the excluded
    one will fit: in the place of its class where the scene has it, else in the role it has in the positive's
    member where it can, else a place as `absent_flips` would choose (stand-ins first); and saying so
    (`Scene.replaces`), so that the hard negative puts the excluded sound there. The put-ins then sit alike in
    every member (left out, the members would hold the excluded sound more often than the one it replaces, and the
    positive's sounds would be the group's least shared, which a listwise ranker finds). A discrete one's
    place gets a length drawn as the positive's member drew it (`_shared_seconds`); a sound played in several blocks
    (a count's partner) is replaced in all of them, each block keeping its length."""
    taken = scene.named | {sound.label for excluded, replaced, _ in shared for sound in (excluded, replaced)}
    for excluded, replaced, role in shared:
        kind = [slot.role for slot in scene.slots() if slot.role in places
                and (slot.label == replaced.label or slot.label not in taken)
                and fits_where_moved(excluded, replace(slot, seconds=min(slot.seconds, excluded.seconds)), reach)
                and _admits(scene, shape, slot.role, replaced) and slot.continuous == (replaced.kind == "continuous")]
        held = [r for r in kind if scene.slot(r).label == replaced.label]
        if replaced.label in scene.labels() and not held:
            continue
        free = held or ([role] if role in kind else [r for r in kind if r in shape.partners] or kind)
        if free:
            place = scene.slot(free[rng.integers(len(free))])
            if shape.places:        # a sound played in several blocks (a count's partner): replaced in all
                scene = scene.with_sound_everywhere(place.role, replaced)
                continue
            seconds = place.seconds if replaced.kind == "continuous" else \
                _shared_seconds(replaced, excluded, _drawn_seconds(scene, place.role, replaced, room, rng))
            scene = scene.with_sound(place.role, replaced, seconds)
    return replace(scene, replaces=tuple((excluded.label, replaced.label) for excluded, replaced, _ in shared))


def _drawn_seconds(scene: Scene, role: str, sound, room: float, rng) -> float:
    """A length for `sound` in the unmentioned place `role`, drawn as `_scene` draws one (a free block's, or an
    inner sound's in its host)."""
    host = next((block.host for block in scene.blocks if block.inner is not None and block.inner.role == role), None)
    return _free_seconds(sound, room, rng) if host is None else _inner_seconds(sound, host.seconds, rng)


def _shared_seconds(replaced, excluded, seconds: float) -> float:
    """The length a discrete place plays in every version, whichever of the two sounds it holds: `seconds`, at
    most either recording. The excluded sound is drawn as the replaced one was (its kind, never longer than it
    must be), so which of the two plays cut off, and how much of it, is a coin toss. (Drawn as long as any free
    block, the excluded sound would play about half its recording and the replaced one whole or nearly: "the
    longest discrete recording" or "the lowest share played" would find the positive's hard negatives, and so
    would "the fewest cut-off sounds" were the replaced sound never cut.)"""
    return round(min(seconds, replaced.seconds, excluded.seconds), 3)


def _admits(scene: Scene, shape: Shape, role: str, sound) -> bool:
    """Can `sound` stand in `role` (a stand-in's need; a host holding another sound must be continuous)?"""
    if role in shape.roles:
        return shape.need(role).admits(sound)
    hosting = any(block.host.role == role and block.inner is not None for block in scene.blocks)
    return CONTINUOUS.admits(sound) if hosting else True


def _excluded(shape: Shape, scene: Scene, unmentioned: set[str], reach: dict, draw,
              picker: SoundPicker) -> Optional[tuple[dict, Scene]]:
    """The query's excluded sounds (role -> AtomicSound), drawn with the positive's base, and that base with
    their places made ready; None when the bank has none. Each is of the kind of an unmentioned place it will
    take (a stand-in's first, as `absent_flips` chooses), drawn as that place's sound was (`_excluded_need`),
    each at a place of its own: so a put-in keeps the kind of sound, and no count of continuous sounds tells
    the positive from its hard negatives. The place is then as long as both sounds allow (`_shared_seconds`)
    and says which sound the excluded one replaces (`Scene.replaces`), so that the flips put it there. A
    continuous one is a recording long enough not to loop, as `_scene` makes every other sound (`unlooped`;
    drawn without it, a put-in loops more often than the sound it replaces, and "the highest summed recording
    length" finds the positive)."""
    rng = picker.rng
    longest = max(slot.seconds for slot in scene.slots())
    spare = [role for role in sorted(unmentioned) if role in shape.partners]
    others = [role for role in sorted(unmentioned) if role not in shape.partners]
    places = [spare[i] for i in rng.permutation(len(spare))] + [others[i] for i in rng.permutation(len(others))]
    chosen: dict = {}
    replaces = []
    for role in shape.absent_roles:
        held = scene.labels() | {s.label for s in chosen.values()}
        taken = frozenset(held | lookalikes(held))      # the positive holds no look-alike of a sound it lacks
        needs = ((place, _excluded_need(shape, scene.slot(place), reach)) for place in places)
        drawn = ((place, need, draw(need, taken)) for place, need in needs)
        place, need, sound = next((found for found in drawn if found[2] is not None), (None, None, None))
        if sound is None:
            return None
        slot = scene.slot(place)
        sound = picker.unlooped(sound, longest, need)
        chosen[role] = sound
        places.remove(place)
        if not slot.continuous:
            scene = scene.with_length(place, min(slot.seconds, sound.seconds))
        replaces.append((sound.label, slot.label))
    return chosen, replace(scene, replaces=tuple(replaces))


def _excluded_need(shape: Shape, slot: Slot, reach: dict) -> Need:
    """What an excluded sound for `slot`'s place must be: what its own sound had to be (its kind, a shape role's
    own need), and long enough for the place where flips move it."""
    role_need = shape.need(slot.role) if slot.role in shape.roles else None
    return Need.like(slot, max(reach.get(slot.role, 0.0), (role_need or Need()).min_seconds), role_need)


def _put_in_for(scene: Scene, flips: list[Scene], absent: dict, by_label: dict) -> dict[str, tuple]:
    """label of each sound put in by a flip -> (the AtomicSound whose place it took in `scene`, that place)."""
    labels, replaced = {sound.label for sound in absent.values()}, {}
    for flip in flips:
        for before, after in zip(scene.slots(), flip.slots()):
            if after.label in labels and before.label != after.label:
                sound = next(s for s in by_label[before.label] if s.source_id == before.source_id)
                replaced[after.label] = (sound, before.role)
    return replaced

def check_feasible(task: Task, by_label: dict[str, list], clip_seconds: float,
                   events: tuple[int, int] = EVENTS_PER_CLIP, depths: tuple[int, int] = (1, 99)) -> None:
    """Fail before any rendering when the bank, the clip length, the events per clip or the depths leave a
    task without a shape it can build."""
    shapes = task.shapes_within(depths)
    if not shapes:
        raise PlanningError(f"task {task.name!r} has no query shape of depth {depths[0]}-{depths[1]}; its shapes' "
                            f"depths: {sorted({s.depth for s in task.shapes})}")
    picker, problems = SoundPicker(by_label, np.random.default_rng(0)), []
    for shape in shapes:
        rng = np.random.default_rng(0)
        if not _event_counts(shape, rng, events, clip_seconds, 10 ** 6):
            problems.append(f"{shape.name}: {shape.core_events + shape.min_fillers}+ sounds do not fit in "
                            f"{clip_seconds} s clips with {events[0]}-{events[1]} events per clip")
            continue
        classes = {label for role in shape.roles for label in picker.eligible(shape.need(role))}
        wanted = len(shape.relates) + shape.absent + max(events[0], shape.core_events + shape.min_fillers)
        if len(by_label) < wanted or any(len(picker.eligible(shape.need(r))) < 2 for r in shape.roles):
            problems.append(f"{shape.name}: needs {wanted} classes, 2+ of them with sounds for each of its roles "
                            f"({', '.join(f'{r}: {_describe(shape.need(r))}' for r in shape.roles)}); the bank has "
                            f"{len(by_label)} classes, {len(classes)} usable in its roles")
    if len(problems) == len(shapes):
        raise PlanningError(f"task {task.name!r} cannot be planned: " + "; ".join(problems))


def _describe(need: Need) -> str:
    return "steady continuous" if need.steady else "continuous" if need.continuous else "any"


def usable_shapes(task: Task, by_label, clip_seconds: float, events, depths) -> tuple[Shape, ...]:
    """The task's shapes within `depths` that this bank and clip length can build (see check_feasible)."""
    picker = SoundPicker(by_label, np.random.default_rng(0))
    return tuple(s for s in task.shapes_within(depths)
                 if _event_counts(s, np.random.default_rng(0), events, clip_seconds, len(by_label))
                 and all(len(picker.eligible(s.need(r))) >= 2 for r in s.roles))


def _event_counts(shape: Shape, rng, events: tuple[int, int], clip_seconds: float, classes: int,
                  parameters: Optional[dict] = None) -> list[int]:
    """The events per clip that fit the clip, and that a bank of `classes` classes can fill with classes
    the query does not name (a clip holds each class once)."""
    parameters = shape.parameters(rng, clip_seconds, events) if parameters is None else parameters
    most = min(events[1], classes - len(shape.relates) - shape.absent)
    return [n for n in range(events[0], most + 1) if layout_for(shape, n, parameters, clip_seconds)]


@dataclass(frozen=True)
class Planning:
    """What every query of a split is planned with: the bank, the group's size and the clip, the split's rules.

    Built once for a split's task and handed to `plan_group` for each of its queries; the caches and decks it
    holds (`eligible`, `quotas`) are then shared by those queries.

    Attributes:
        by_label: label -> the bank's AtomicSounds of that class.
        candidates: the candidates of a query's group.
        clip_seconds: every clip's length.
        forbidden_texts: query texts another split has; a query drawing one is drawn again.
        events: the fewest and most events a clip holds.
        depths: the fewest and most atoms a query states.
        style: the templates' style (`templates.py`).
        shapes: the task's shapes to draw from; None: those the bank and clip can build (`usable_shapes`).
        weights: published shape -> how much more often it is drawn.
        heard: `heard(x, y)`, the seconds two events are heard together at a stretch
            (`render.heard_together`), which every overlap the positive or a hard negative holds of a pair the
            query relates must reach: a group failing it is drawn again. None: not checked.
        eligible: the sounds each need admits (`SoundPicker.eligible`; made afresh for every query, it was a
            sixth of the planner's time).
        quotas: the decks where the positive sits is dealt from (`members.Quotas`); None: a draw per query.
    """

    by_label: dict[str, list]
    candidates: int
    clip_seconds: float
    forbidden_texts: frozenset[str] = frozenset()
    events: tuple[int, int] = EVENTS_PER_CLIP
    depths: tuple[int, int] = (1, 99)
    style: str = DEFAULT_STYLE
    shapes: Optional[tuple[Shape, ...]] = None
    weights: Optional[dict[str, float]] = None
    heard: Optional[Callable] = None
    eligible: dict = field(default_factory=dict)
    quotas: Optional[Quotas] = None


@dataclass(frozen=True)
class _Query:
    """One query being planned: its task and id, the split's `Planning`, and the query's own draws (its sounds
    and `rng` in `picker`, where its positive sits in `dealer`), which every attempt at its group goes on from."""

    task: Task
    query_id: str
    planning: Planning
    picker: "SoundPicker"
    dealer: Dealer

    @property
    def rng(self) -> np.random.Generator:
        return self.picker.rng

    def parameters(self, shape: Shape) -> dict[str, str]:
        """`shape`'s parameters for an attempt: dealt from the split's decks where the shape deals them (once a
        query, kept through its attempts: `Shape.dealt_parameters`), else drawn anew."""
        dealt = shape.dealt_parameters(self.dealer.asking("parameters", shape.name))
        return shape.parameters(self.rng, self.planning.clip_seconds, self.planning.events) if dealt is None else dealt


class _Failed(Exception):
    """An attempt drew a group that cannot be published (the bank ran out of classes, a flip or a scene did not
    fit, a verdict was wrong): the query draws again."""


class _NoClosure(_Failed):
    """An attempt drew a member whose flips cannot all be made at once (two would change one slot)."""


def plan_group(task: Task, query_id: str, planning: Planning, rng: np.random.Generator) -> QueryPlan:
    """One query and its candidate group.

    The shape is drawn once (`Planning.weights`: published shape -> how much more often), and kept for half the
    attempts: drawn again on every failed attempt, the shapes that fail most were the rarest (the four-sound
    mix: 14 in 200 instead of 33). A group whose flips cannot all be combined is drawn again, and made of stars
    only after CLOSED_ATTEMPTS such draws (its partial members were then never the positive's). A group whose
    text is forbidden, or whose overlaps are not heard together (`Planning.heard`), is drawn again.

    Args:
        task: the task the query is of.
        query_id: the query's id; its candidates' ids start with it.
        planning: what every query of the split is planned with.
        rng: the query's own generator (planning stays seeded whatever the order queries are planned in).

    Returns:
        The query's plan.

    Raises:
        PlanningError: when no attempt of MAX_ATTEMPTS gives a group, or the bank cannot build the task.
    """
    query = _Query(task, query_id, planning, SoundPicker(planning.by_label, rng, planning.eligible),
                   (Quotas() if planning.quotas is None else planning.quotas).query(rng))
    shapes = planning.shapes or usable_shapes(task, planning.by_label, planning.clip_seconds, planning.events,
                                              planning.depths)
    if not shapes:
        check_feasible(task, planning.by_label, planning.clip_seconds, planning.events, planning.depths)
    shape = draw_shape(shapes, rng, planning.weights, query.dealer)
    for attempt in range(MAX_ATTEMPTS):
        if attempt >= MAX_ATTEMPTS // 2:        # this shape is not to be had from this bank: any other
            shape = draw_shape(shapes, rng, planning.weights, query.dealer)
        plan = _attempt(query, shape, stars=attempt >= CLOSED_ATTEMPTS)
        if plan is not None and plan.text not in planning.forbidden_texts and \
                (planning.heard is None or overlaps_heard(plan, planning.heard)):
            return plan
    raise PlanningError(f"could not plan a valid group for {query_id} in {MAX_ATTEMPTS} attempts; "
                        f"the bank has too few distinct classes for {planning.candidates} candidates")


def _attempt(query: _Query, shape: Shape, stars: bool) -> Optional[QueryPlan]:
    """One draw of the query's group: a symmetric design where the shape has one for this many candidates, else
    members closed under their flips; where those do not close and `stars` allows, members that are stars (a
    base and its flips) drawn at once after it. None when the draw failed."""
    design = shape.design and shape.design(query.planning.candidates)
    try:
        return _design_group(query, shape, design) if design else _GroupDraw(query, shape, closed=True).plan()
    except _NoClosure:
        if not stars:
            return None
    except _Failed:
        return None
    try:
        return _GroupDraw(query, shape, closed=False).plan()
    except _Failed:
        return None


def overlaps_heard(plan: QueryPlan, heard) -> bool:
    """Is every pair an overlap or apart atom relates heard together for OVERLAP_SECONDS where it overlaps, in
    the positive and its hard negatives (the apart mirror's overlap is its hard negative's)?"""
    pairs = [atom.args for atom in plan.atoms if atom.relation in ("overlap", "apart")]
    clips = {c.clip_id: c.events for c in plan.candidates}
    for events in (clips[clip_id] for clip_id in (plan.positive, *plan.hard_negatives)):
        by_label = {e.label: e for e in events}
        for x, y in pairs:
            if x in by_label and y in by_label and relevant([Atom("overlap", (x, y))], events) is YES and \
                    heard(by_label[x], by_label[y]) < OVERLAP_SECONDS:
                return False
    return True


def draw_shape(shapes: tuple[Shape, ...], rng, weights: Optional[dict[str, float]] = None,
               dealer: Optional[Dealer] = None) -> Shape:
    """A published shape (uniformly, or by `weights`), then one of its polarities (the shape itself or its
    mirror) uniformly: dealt from the split's decks (`dealer`) where every polarity says so (`Shape.dealt_variants`:
    each exactly as often in every deck's worth of queries), else drawn."""
    published = list(dict.fromkeys(shape.reported_as for shape in shapes))
    if weights and any(name in weights for name in published):
        odds = np.array([weights.get(name, 1.0) for name in published])
        chosen = published[rng.choice(len(published), p=odds / odds.sum())]
    else:
        chosen = published[rng.integers(len(published))]
    variants = [shape for shape in shapes if shape.reported_as == chosen]
    if dealer is not None and len(variants) > 1 and all(shape.dealt_variants for shape in variants):
        return variants[dealer.pick(("variant", chosen), [Fraction(1, len(variants))] * len(variants))]
    return variants[rng.integers(len(variants))]


def _free_seconds(sound, room: float, rng) -> float:
    """A length no atom tests: drawn over the room a block gets; a discrete sound never grows."""
    seconds = float(rng.uniform(max(MIN_SECONDS, 0.4 * room), room))
    return round(seconds if sound.kind == "continuous" else min(seconds, sound.seconds), 3)


def _inner_seconds(sound, host: float, rng) -> float:
    seconds = float(rng.uniform(0.3, 0.8)) * host
    return round(seconds if sound.kind == "continuous" else min(seconds, sound.seconds), 3)


def _scene(shape: Shape, layout: Layout, sounds: dict, lengths: dict, picker: SoundPicker) -> Scene:
    """A member's base scene: the core blocks, the unmentioned sounds' blocks at random places among them
    (the first `layout.inner` of those hold one more unmentioned sound inside)."""
    rng = picker.rng
    hosts = [f"f{i}" for i in range(layout.blocks)]
    inners = [f"f{layout.blocks + i}" for i in range(layout.inner)]
    seconds = {role: lengths[role] if role in lengths else _free_seconds(sound, layout.room, rng)
               for role, sound in sounds.items() if role not in inners}
    seconds.update({inner: _inner_seconds(sounds[inner], seconds[host], rng) for host, inner in zip(hosts, inners)})
    longest = max(seconds.values())
    for role in list(sounds):                # a flip may give a continuous sound any length of the scene
        need = shape.need(role) if role in shape.roles else CONTINUOUS
        sounds[role] = picker.unlooped(sounds[role], longest, need)

    def slot(role):
        sound = sounds[role]
        return Slot(role, sound.label, sound.source_id, seconds[role], round(float(rng.uniform(*MIX_GAIN_DB)), 1),
                    sound.kind == "continuous")

    blocks = [Block(slot(host), inner and slot(inner), float(rng.uniform())) for host, inner in shape.layout(rng, seconds)]
    for i, host in enumerate(hosts):
        inner = inners[i] if i < len(inners) else None
        at = int(rng.integers(len(blocks) + 1)) if shape.fillers_between else len(blocks) * int(rng.integers(2))
        blocks.insert(at, Block(slot(host), inner and slot(inner), float(rng.uniform())))
    named = frozenset(sounds[role].label for role in shape.relates)
    return Scene(tuple(blocks), round(float(rng.uniform(*shape.gap_seconds)), 3), float(rng.uniform()), named)


@dataclass
class _ClassDraws:
    """A group's sound draws: each of one of the classes the group has drawn least (new ones first), so that a
    small bank's classes are reused evenly (reusing any, the first member's, drawn new, would be the ones later
    members share most)."""

    picker: SoundPicker
    uses: Counter = field(default_factory=Counter)      # how many draws of the group each class has had

    def __call__(self, need: Need, exclude: frozenset[str]):
        """A sound `need` admits, of a class not in `exclude`; None when the bank has none."""
        sound = self.picker.pick(need, exclude=exclude, uses=self.uses)
        if sound is not None:
            self.uses[sound.label] += 1
        return sound


class _GroupDraw:
    """One attempt at a group of members that all look alike: each is a base scene with its minimal-pair flips
    (one per tested atom) closed under combination (`Shape.closure`; a star, the base and its flips, where
    `closed` is off or the candidates are too few for a closure), and the positive is the base of the first.

    When the query relates sounds, the members' sounds form a cycle (c0,c1), (c1,c2), ... (cm,c0) — for three
    sounds (c0,c1,c2), (c2,c3,c4), ... — so every sound, the query's own included, appears equally often and
    neighbouring members are partial matches. A group built as the positive plus one-sound replacements of it
    would make the positive the hub of a star, which a query-blind classifier ranks *below* chance. Every clip
    of the group holds the same number of events, so the count is no cue.

    `plan` draws the group step by step; a step that fails raises `_Failed`.
    """

    def __init__(self, query: _Query, shape: Shape, closed: bool):
        """Draws the group's parameters, events per clip and members' sizes."""
        planning, rng = query.planning, query.rng
        self.query, self.shape, self.rng, self.picker = query, shape, rng, query.picker
        self.parameters = query.parameters(shape)
        counts = _event_counts(shape, rng, planning.events, planning.clip_seconds, len(planning.by_label),
                               self.parameters)
        if not counts:
            raise _Failed
        self.layout = layout_for(shape, counts[rng.integers(len(counts))], self.parameters, planning.clip_seconds)
        self.closed = closed and shape.closure_size() <= planning.candidates
        if self.closed:     # whole closures (a pair, a square, a cube, an orbit), the rest a part of one more
            self.sizes = positive_first(member_sizes(shape.closure_size(), planning.candidates),
                                        planning.candidates, query.dealer.asking("place", shape.name))
        else:               # too few candidates for a closure: stars (a base and its flips), composites fill in
            self.sizes = [1 + shape.tested] * max(1, planning.candidates // (1 + shape.tested))
        self.draws = _ClassDraws(self.picker)
        self.named: set[str] = set()        # the classes the query names, added as they are drawn
        self.relating: set[str] = set()     # the classes the members relate, once they are drawn
        self.kinds: Optional[dict[str, bool]] = None    # role -> continuous: every clip's unmentioned sounds' kinds

    def plan(self) -> QueryPlan:
        """The group's query (`_published`): the members' related sounds, their unmentioned ones, the positive's
        member with the excluded sounds, the other members, then lone scenes for the candidates left."""
        related = self.related_sounds()
        self.relating.update(s.label for member in related for s in member)
        unmentioned = self.unmentioned_first(related)
        scene, flips, absent, words, shared = self.positive_member(related[0], unmentioned[0])
        positive, singles = self.member(0, scene, flips, absent)
        members = [(positive, absent)]
        for j in range(1, len(related)):
            scene, flips, absent = self.other_member(related[j], unmentioned[j], shared)
            members.append((self.member(j, scene, flips, absent)[0], absent))
        candidates = self.query.planning.candidates
        scenes = [scene for versions, _ in members for scene in versions] if self.closed else \
            _fill(self.shape, members, candidates, self.rng)
        while len(scenes) < candidates:          # no composite left (a single flip per member): lone base scenes
            scenes.append(self.lone_scene())
        hard = [i for i, version in enumerate(positive[:candidates]) if i and version in singles]
        return _published(self.query, self.shape, scenes[:candidates], hard, words, self.parameters)

    def pick(self, need: Need, own=frozenset()):
        """A sound of a class not in the scene (`own`), nor one the query names, nor one another member relates:
        every member's related sounds are then as rare in the group as the query's own (reusing only the
        others' would make the positive's member the one whose sounds the others share least, which a listwise
        ranker finds). Never a look-alike (`phrases.LOOKALIKES`) of a class the query names: a listener could
        hear the text true of a negative through it. None when the bank has none."""
        return self.draws(need, own | self.named | self.relating | lookalikes(self.named))

    def draw(self, need: Need, own=frozenset()):
        """`pick`; raises `_Failed` when the bank has no such sound."""
        sound = self.pick(need, own)
        if sound is None:
            raise _Failed
        return sound

    def pick_unlike_related(self, need: Need, own=frozenset()):
        """`pick`, and no look-alike of a sound any member relates (an excluded sound, drawn after them)."""
        return self.pick(need, own | lookalikes(self.relating))

    def related_sounds(self) -> list[list]:
        """Each member's related sounds, in the order of `Shape.relates`; the first member's are the query's.

        In a ring a member's neighbours hold one of its related sounds each. Where every member puts an excluded
        sound in and a relation is tested besides (the mix shapes), a neighbour's put-in then holds as many
        named sounds as the positive, one in a related place and the excluded one in an unmentioned: a
        rule blind to the relations would tell them from it, so there each member draws its own. Where only presence is
        tested (negation) the ring stays: without it the positive would be the one candidate holding the named
        sounds but no excluded one."""
        shape, members = self.shape, len(self.sizes)
        relates = shape.relates
        cycle_need = {shape.need(r) for r in relates}
        stride = len(relates) - 1
        ringed = stride and (not shape.absent or shape.tested == shape.absent)
        if ringed and len(cycle_need) == 1 and members >= 3 and \
                members * stride <= len(self.picker.eligible(next(iter(cycle_need)))):
            ring = []
            for _ in range(members * stride):
                ring.append(self.draw(next(iter(cycle_need))))
                if len(ring) <= len(relates):            # the query's own sounds, named as soon as drawn
                    self.named.add(ring[-1].label)
            return [[ring[(j * stride + i) % len(ring)] for i in range(len(relates))] for j in range(members)]
        related = []
        for _ in range(members):
            chosen = []
            for role in relates:
                chosen.append(self.draw(shape.need(role), frozenset(s.label for s in chosen)))
                if not related:                       # the first member's are the query's: named as drawn
                    self.named.add(chosen[-1].label)
            related.append(chosen)
        return related

    def unmentioned_first(self, related: list[list]) -> list[dict]:
        """Each member's unmentioned sounds (`unmentioned`), drawn member by member in random order: the
        positive's member is not the first to draw (a small bank's first draws are the classes later ones
        reuse). The first member drawn sets the group's kinds."""
        drawn = {}
        for j in self.rng.permutation(len(related)):
            drawn[int(j)] = self.unmentioned(dict(zip(self.shape.relates, related[j])))
            self.kinds = self.kinds or {role: sound.kind == "continuous" for role, sound in drawn[int(j)].items()}
        return [drawn[j] for j in range(len(related))]

    def unmentioned(self, sounds: dict, named=frozenset(), drawn: Optional[dict] = None) -> dict:
        """The partners and fillers of one scene holding `sounds`: classes not in it (nor, for a lone scene,
        `named`); `drawn`: those drawn before, kept but for any the query has named since (an excluded sound
        drawn after them). Every clip holds the group's kinds of unmentioned sound in the same places
        (`kinds`; drawn freely, a member with no place of an excluded sound's kind failed the group: a third of
        negation's attempts, and the kept groups were those whose members' kinds happened to agree)."""
        shape, layout = self.shape, self.layout
        kept = {role: sound for role, sound in (drawn or {}).items()
                if sound.label not in named and sound.label not in lookalikes(named)}
        own = set(named) | {s.label for s in sounds.values()} | {s.label for s in kept.values()}
        extra = {}
        fillers = [f"f{i}" for i in range(layout.blocks + layout.inner)]
        for role in shape.partners + tuple(fillers):
            if role in kept:
                extra[role] = kept[role]
                continue
            need = CONTINUOUS if role in fillers[:layout.inner] else shape.need(role)
            extra[role] = self.draw(need if self.kinds is None else need.of_kind(self.kinds[role]), frozenset(own))
            own.add(extra[role].label)
        return extra

    def base(self, sounds: dict) -> Scene:
        """A member's base scene holding `sounds` (role -> AtomicSound), each place playing the sound it copies."""
        copies = {place: sounds[role] for place, role in self.shape.copies(self.parameters).items()}
        return _scene(self.shape, self.layout, {**sounds, **copies}, self.shape.lengths(self.rng, self.parameters),
                      self.picker)

    def flips(self, scene: Scene, absent: dict) -> list[Scene]:
        """The scene's minimal pairs, one per tested atom (`Shape.flips`); raises `_Failed` where one cannot be
        made."""
        flips = self.shape.flips(scene, self.rng, absent)
        if len(flips) != self.shape.tested:
            raise _Failed
        return flips

    def positive_member(self, related: list, unmentioned: dict) -> tuple[Scene, list[Scene], dict, dict, list]:
        """The positive's member, drawn with the query.

        Returns:
            The positive; its flips; the excluded sounds (role -> AtomicSound, `_excluded`); the query's words
            (role -> label, and the shape's parameters); and for each excluded sound (it, the sound it replaces
            in the positive, that sound's role), where every other member puts it in (`other_member`).
        """
        shape = self.shape
        sounds = {**dict(zip(shape.relates, related)), **unmentioned}
        scene, absent = self.base(sounds), {}
        if shape.absent:
            unmentioned_roles = {role for role in sounds if role not in shape.relates}
            excluded = _excluded(shape, scene, unmentioned_roles, shape.reach(scene), self.pick_unlike_related,
                                 self.picker)
            if excluded is None:
                raise _Failed
            absent, scene = excluded
        self.named.update(s.label for s in absent.values())
        words = {**{role: s.label for role, s in zip(shape.relates, related)},
                 **{role: s.label for role, s in absent.items()}, **self.parameters}
        flips = self.flips(scene, absent)
        replaced = _put_in_for(scene, flips, absent, self.picker.by_label) if absent else {}
        return scene, flips, absent, words, [(sound, *replaced[sound.label]) for sound in absent.values()]

    def other_member(self, related: list, unmentioned: dict, shared: list) -> tuple[Scene, list[Scene], dict]:
        """Another member's base, its flips and its excluded sounds: the query's, each put in where the positive's
        flips put it (`shared`, see `positive_member`). Each excluded sound is then held by as many candidates
        as the sound it replaces, in every member alike (half the other members holding the excluded sound, each
        its own, would mark the positive's member for a listwise ranker; holding the replaced sound too, more
        so)."""
        shape = self.shape
        sounds = dict(zip(shape.relates, related))
        sounds.update(self.unmentioned(sounds, frozenset(self.named), unmentioned))
        scene = self.base(sounds)
        if shared:
            unmentioned_roles = {role for role in sounds if role not in shape.relates}
            scene = _with_replaced(scene, shape, shared, unmentioned_roles, shape.reach(scene), self.layout.room,
                                   self.rng)
        absent = dict(zip(shape.absent_roles, (excluded for excluded, _, _ in shared)))
        return scene, self.flips(scene, absent), absent

    def member(self, index: int, scene: Scene, flips: list[Scene], absent: dict) -> tuple[list[Scene], list[Scene]]:
        """The versions member `index` (0: the positive's) keeps of its base `scene` and `flips`, and its versions
        one flip from the base: a star (the base and its flips), or where the group is `closed` the flips
        closed under combination, cut to the member's size (`_member_part`); raises `_NoClosure` where they
        cannot all be made at once."""
        if not self.closed:
            return [scene] + flips, flips
        closure = self.shape.closure(scene, flips, self.rng, absent)
        if closure is None:
            raise _NoClosure
        positive = index == 0
        kept = _member_part(self.shape, scene, closure, self.sizes[index], positive,
                            self.query.dealer.asking("part", self.shape.name, positive))
        return kept, closure[:self.shape.tested]      # a closure's first versions are the flips'

    def lone_scene(self) -> Scene:
        """A base scene of classes the query does not name, for a candidate no member fills."""
        sounds = {}
        for role in self.shape.relates:
            held = {s.label for s in sounds.values() if s}
            sounds[role] = self.pick(self.shape.need(role), frozenset(self.named | held))
        if any(s is None for s in sounds.values()):
            raise _Failed
        return self.base({**sounds, **self.unmentioned(sounds, self.named)})


def _published(query: _Query, shape: Shape, scenes: list[Scene], hard: list[int], words: dict,
               parameters: dict) -> QueryPlan:
    """The query of a group's `scenes` (the positive's first; `hard`: its hard negatives' indexes), each
    verified with `relevant`, shuffled; raises `_Failed` when a scene does not fit, two are alike or a verdict is
    wrong."""
    rng, clip_seconds = query.rng, query.planning.clip_seconds
    atoms = tuple(shape.atoms(words))
    timelines = [s.events(clip_seconds) for s in scenes]
    if any(t is None for t in timelines) or len(set(timelines)) != len(timelines):
        raise _Failed
    verdicts = [relevant(atoms, t) for t in timelines]
    if verdicts[0] is not YES or any(v is not NO for v in verdicts[1:]):
        raise _Failed
    order = rng.permutation(len(scenes))
    clips = tuple(Candidate(f"{query.query_id}-{pos:02d}", timelines[i]) for pos, i in enumerate(order))
    position = np.argsort(order)          # where each planned scene landed
    positive = clips[position[0]].clip_id
    hard_ids = tuple(sorted(clips[position[i]].clip_id for i in hard))
    phrases = {role: query.picker.by_label[label][0].phrase for role, label in words.items() if role not in parameters}
    options = templates(query.planning.style, shape.name)
    text = render(options[rng.integers(len(options))], {**phrases, **parameters})
    return QueryPlan(query.query_id, query.task.name, shape.reported_as, text, atoms, clips, positive, hard_ids)


def _design_group(query: _Query, shape: Shape, design: Design) -> QueryPlan:
    """A negation group as a symmetric design (`designs.py`), every class drawn as a group of members draws
    one (`_ClassDraws`)."""
    planning = query.planning
    rooms = {blocks: room for blocks in range(planning.events[0], planning.events[1] + 1)
             if (room := _block_room(blocks, planning.clip_seconds)) is not None}
    drawn = design_scenes(shape, design, rooms, _ClassDraws(query.picker), partial(_free_seconds, rng=query.rng),
                          MIX_GAIN_DB, GAP_SECONDS, query.rng)
    if drawn is None:
        raise _Failed
    scenes, words = drawn
    return _published(query, shape, scenes, design.hard, words, {})


def _block_room(blocks: int, clip_seconds: float) -> Optional[float]:
    """The room each of `blocks` blocks of free length gets in a clip; None when it is under ROOM_PER_BLOCK."""
    room = (clip_seconds - MARGIN - (blocks - 1) * GAP_SECONDS[1]) / blocks
    return min(LONGEST_FREE, room) if room >= ROOM_PER_BLOCK else None


def _member_part(shape: Shape, scene: Scene, closure: list[Scene], size: int, positive: bool,
                 pick: Pick) -> list[Scene]:
    """The versions a member of `size` keeps of its closure (`closure`: all but the base `scene`), the base
    first in the positive's member, then its flips: all of them, or a connected part (`members.part`: a version
    and neighbours of it; always the base and its flips, the sounds the base holds would be the group's most
    frequent, which a listwise ranker finds). A part of an orbit is an arc of the cycle. The positive
    sits on the part as often as the part's share of the candidates (`members.positive_first`), anywhere on it: then no
    ranker that reads the group's structure finds it more often than 1 in the candidates (never on the part of
    4+4+2 or 8+2, a reader of members would find 1 in 8; on an arc's inner vertices only, 1 in 8 too). Where it sits
    at the part's end, the group holds one of its flips, not all. `pick`: which part, dealt from the split's
    decks (`members.Quotas`): each kind of part as often as its odds."""
    if size == len(closure) + 1:
        return [scene] + closure
    if shape.cyclic:
        cycle = shape.orbit(scene)
        offset = pick([Fraction(1, size)] * size)
        arc = [cycle[(k - offset) % len(cycle)] for k in range(size)]
        return [scene] + sorted((v for v in arc if v is not scene), key=lambda v: v not in (cycle[1], cycle[-1])) \
            if positive else arc
    version = dict(zip(subsets(shape.tested), [scene] + closure))
    return [version[s] for s in part(shape.tested, size, pick, holding_base=positive)]


def _fill(shape: Shape, members: list, candidates: int, rng) -> list[Scene]:
    """Every member's versions, the first member's first, and the candidates that do not fill a whole
    member as *composites* (two or more flips at once) of members drawn at random. Every statistic a
    member's versions share (all flips keep the timeline) then finds the positive at chance: with
    whole members of v versions and lone scenes instead, it would find it 1 / (v x draws), below chance."""
    extra = [[] for _ in members]
    left = candidates - sum(len(versions) for versions, _ in members)
    for j in rng.integers(len(members), size=max(0, left)):
        versions, absent = members[j]
        subsets = [subset for size in range(2, len(versions)) for subset in combinations(range(len(versions) - 1), size)]
        if len(extra[j]) >= len(subsets):
            continue
        composite = versions[0]
        for index in subsets[len(extra[j])]:
            flips = shape.flips(composite, rng, absent)
            composite = flips[index] if index < len(flips) else None
            if composite is None:
                break
        if composite is not None:
            extra[j].append(composite)
    return [scene for (versions, _), more in zip(members, extra) for scene in versions + more]


def query_texts(shape: Shape, words: dict[str, str], style: str = DEFAULT_STYLE) -> list[str]:
    return [render(t, words) for t in templates(style, shape.name)]


def possible_texts(task: Task, atoms, phrases: dict[str, str], style: str = DEFAULT_STYLE) -> set[str]:
    """The texts a query of `task` with these atoms can have (`validate` regenerates them)."""
    texts = set()
    for shape in task.shapes:
        words = shape.bind(atoms)
        if words is not None and all(w in phrases for r, w in words.items() if r != "n"):
            texts.update(query_texts(shape, {r: w if r == "n" else phrases[w] for r, w in words.items()}, style))
    return texts


def shape_of(task: Task, atoms) -> Optional[Shape]:
    return next((s for s in task.shapes if s.bind(atoms) is not None), None)
