"""What a query shape is (declarative: roles, atoms, core blocks, flips) and what a task is: a list of shapes.

A shape is one kind of query: the sounds it relates (roles a, b, c), the sounds that must be absent (z, z2), the
atoms it states, the blocks its core sounds stand in, and one minimal-pair flip per tested atom (`flips.py`);
its closure is every combination of those flips. `group.py` builds a candidate group out of members of it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from reasonaudio.core import relations
from reasonaudio.core.relations import Atom, depth

from ..bank import MIN_ACTIVE_SECONDS
from ..scene import Scene
from .flips import absent_flips, keeps_places, merged
from .members import subsets

MIN_SECONDS = MIN_ACTIVE_SECONDS
GAP_SECONDS = (0.6, 1.0)    # the silence between neighbouring blocks: over the relations' 0.5 s margins


@dataclass(frozen=True)
class Need:
    """What a sound must be to fill a role."""

    continuous: bool = False     # can be cropped or looped to any length
    steady: bool = False         # continuous and heard throughout (see bank.audible_fraction)
    min_seconds: float = MIN_SECONDS
    discrete: bool = False       # used at its own length or cropped (an excluded sound taking a discrete one's place)

    def admits(self, sound) -> bool:
        if self.continuous or self.steady:
            return sound.kind == "continuous" and (sound.steady or not self.steady)
        if self.discrete:
            return sound.kind == "discrete" and sound.seconds >= self.min_seconds
        return sound.kind == "continuous" or sound.seconds >= self.min_seconds

    @classmethod
    def like(cls, slot, seconds: float, role_need: Optional["Need"] = None) -> "Need":
        """What a sound must be to take `slot`'s place unheard-of: the same kind (a shape role's own need where the
        place is one), and long enough for `seconds` when discrete."""
        if slot.continuous:
            return role_need if role_need is not None and (role_need.continuous or role_need.steady) else cls(continuous=True)
        return cls(discrete=True, min_seconds=seconds)

    def of_kind(self, continuous: bool) -> "Need":
        """This need narrowed to continuous sounds, or to discrete ones."""
        if continuous:
            return self if self.continuous or self.steady else Need(continuous=True)
        return Need(discrete=True, min_seconds=self.min_seconds)


ANY, CONTINUOUS, STEADY = Need(), Need(continuous=True), Need(steady=True)


class Shape:
    """One query shape. Subclasses set the class attributes and `atoms`, `layout`, `flips`."""

    name = ""
    relates: tuple[str, ...] = ("a",)        # the sounds the query names, roles in the order of `atoms`
    absent = 0                               # how many sounds must be absent: roles z, z2
    partners: tuple[str, ...] = ()           # unmentioned sounds the construction needs (e.g. an overlap's receiver)
    places: tuple[str, ...] = ()             # blocks that repeat another role's sound (`copies`: a count's occurrences)
    gap_seconds: tuple[float, float] = GAP_SECONDS     # the silence between neighbouring blocks, drawn per scene
    needs: dict[str, Need] = {}              # roles' needs; unlisted roles: ANY
    fillers_between = True                   # unmentioned blocks may stand between the core blocks
    mirror_of = ""                           # a mirror (see overlap.Apart) is reported as the shape it mirrors
    cyclic = False                           # flips that do not commute: the closure is an orbit (see `orbit`)
    temporal: tuple[str, ...] = ()           # the related roles in the order the positive plays them (default: relates)
    design = None                            # groups of candidates -> a symmetric design, or None (`designs.py`)
    dealt_variants = False                   # this shape and its mirror dealt from the split's decks, not drawn

    def atoms(self, words: dict[str, str]) -> list[Atom]:
        """The atoms over `words` (role -> class label; "n" -> seconds as text)."""
        raise NotImplementedError

    def parameters(self, rng, clip_seconds: float, events: tuple[int, int]) -> dict[str, str]:
        """What the query states beyond its sounds (lasts' seconds); drawn once per group."""
        return {}

    def dealt_parameters(self, pick) -> Optional[dict[str, str]]:
        """The parameters, dealt from the split's decks (`pick(odds)` -> an outcome's index, `members.Dealer`):
        each outcome exactly as often as its odds in every deck's worth of queries, and one a query, whatever its
        attempts. None: drawn by `parameters` instead."""
        return None

    def copies(self, parameters: dict) -> dict[str, str]:
        """place -> the role whose sound it plays again (`places`); every place has one."""
        return {}

    def lengths(self, rng, parameters: dict) -> dict[str, float]:
        """Lengths of the roles whose length an atom tests or a flip needs; the rest get the room left."""
        return {}

    def longest(self, parameters: dict) -> dict[str, float]:
        """Upper bounds of `lengths` (hosts only), so that every draw fits the clip."""
        return {}

    def layout(self, rng, seconds: dict[str, float]) -> list[tuple[str, Optional[str]]]:
        """The core blocks in time order: (host role, inner role or None); by default one block per role,
        in random order (for shapes that test no order)."""
        return [(str(role), None) for role in rng.permutation(self.roles)]

    def flips(self, scene: Scene, rng, absent: dict) -> list[Scene]:
        """One minimal pair per tested atom (`absent`: role -> the AtomicSound that must be absent); by
        default, for each absent sound, that sound put in the place of an unmentioned one."""
        return absent_flips(scene, rng, absent, self.unmentioned(scene), frozenset(self.partners), self.reach(scene))

    def reach(self, scene: Scene) -> dict[str, float]:
        """role -> the longest place a flip may move the role's sound to, where that is longer than its own
        (an excluded sound put in its place follows it there, and must fit: see `flips.merged`)."""
        return {}

    def closure_size(self) -> int:
        """How many versions a member's closure has (see `closure`)."""
        return 2 ** self.tested

    def orbit(self, scene: Scene) -> list[Scene]:
        """For a `cyclic` shape, its closure as a cycle: the base, then each version one flip from the one
        before, the last one flip from the base."""
        raise NotImplementedError

    def closure(self, scene: Scene, flips: list[Scene], rng, absent: dict) -> Optional[list[Scene]]:
        """The flips and every combination of them (a square for two tested atoms, a cube for three), or None
        when they cannot all be made at once (two would change one slot); a cyclic shape's orbit, its two
        flips first. In a closure every version is one edit from as many others as any other version is: no
        version is the centre a listwise ranker could find (a base with its flips is a star whose centre is
        the base, the positive). Sound changes are merged by role; a flip that
        moves blocks (an order swap) is made anew on the merged scene."""
        if self.cyclic:
            cycle = self.orbit(scene)
            return [cycle[1], cycle[-1]] + cycle[2:-1]
        out = list(flips)
        for subset in subsets(len(flips))[1 + len(flips):]:          # the combinations of two flips or more
            moving = [i for i in subset if not keeps_places(scene, flips[i])]
            composite = merged(scene, [flips[i] for i in subset if i not in moving],
                               {sound.label: sound for sound in absent.values()})
            for index in moving:
                composite = composite and self.flips(composite, rng, absent)[index]
            if composite is None:
                return None
            out.append(composite)
        return out

    def unmentioned(self, scene: Scene) -> set[str]:
        return {slot.role for slot in scene.slots() if slot.role not in self.relates}

    # -- derived

    @property
    def reported_as(self) -> str:
        """The `shape` a query of this shape is published under: a mirror counts as the shape it mirrors, so
        every rule that reads where the named sounds sit meets both polarities in one shape."""
        return self.mirror_of or self.name

    @property
    def roles(self) -> tuple[str, ...]:
        return self.relates + self.partners + self.places

    @property
    def absent_roles(self) -> tuple[str, ...]:
        return ("z", "z2")[:self.absent]

    def need(self, role: str) -> Need:
        return self.needs.get(role, ANY)

    def symbolic_atoms(self) -> list[Atom]:
        return self.atoms({role: role for role in ("a", "b", "c", "d", "z", "z2", "n")})

    @property
    def depth(self) -> int:
        return depth(self.symbolic_atoms())

    @property
    def tested(self) -> int:
        """Atoms a flip tests: all but present(X), which the partial matches test (X missing)."""
        return len(relations.tested(self.symbolic_atoms(), presence=False))

    @property
    def core_events(self) -> int:
        return len(self.roles)

    @property
    def min_fillers(self) -> int:
        """A negated sound takes the place of an unmentioned one: a shape with none of its own needs one per
        negated sound, so that its flips can be made together (two in one place made a star: the positive
        its centre)."""
        return 0 if self.partners else self.absent

    def bind(self, atoms) -> Optional[dict[str, str]]:
        """role -> label (and "n") under which this shape states exactly `atoms`, or None."""
        pattern, atoms = self.symbolic_atoms(), list(atoms)
        if [a.relation for a in pattern] != [a.relation for a in atoms]:
            return None
        words: dict[str, str] = {}
        for symbolic, actual in zip(pattern, atoms):
            if len(symbolic.args) != len(actual.args):
                return None
            for role, value in zip(symbolic.args, actual.args):
                if words.setdefault(role, value) != value:
                    return None
        labels = [words[r] for r in words if r != "n"]
        return words if len(set(labels)) == len(labels) else None


@dataclass(frozen=True)
class Task:
    """A reasoning ability: its name, a line saying what it tests, its shapes; `opt_in`: built only when asked
    for (`--tasks`), not by default (the default build is the paper's five)."""

    name: str
    description: str
    shapes: tuple[Shape, ...]
    opt_in: bool = False

    @property
    def repeats(self) -> bool:
        """Whether a clip of this task plays a sound more than once (a count's occurrences)."""
        return any(shape.places for shape in self.shapes)

    def shapes_within(self, depths: tuple[int, int]) -> tuple[Shape, ...]:
        return tuple(s for s in self.shapes if depths[0] <= s.depth <= depths[1])
