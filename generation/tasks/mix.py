"""mix: two or three atoms from different tasks over three or four sounds; each tested atom has its own
hard negative, built exactly as its task builds it."""
from ..relations import Atom
from .base import CONTINUOUS, STEADY, Shape, Task
from .duration import Lasts, Longer
from .order import Before
from .overlap import After, Apart, Overlap, OverlapBefore


def _absent(w) -> list[Atom]:
    return [Atom("absent", (w["z"],))]


class BeforeAbsent(Before):
    name = "before-absent"
    absent = 1

    def atoms(self, w):
        return super().atoms(w) + _absent(w)


class OverlapAbsent(Overlap):
    name = "overlap-absent"
    absent = 1

    def atoms(self, w):
        return super().atoms(w) + _absent(w)


class LongerAbsent(Longer):
    name = "longer-absent"
    absent = 1

    def atoms(self, w):
        return super().atoms(w) + _absent(w)


class LastsPresentAbsent(Lasts):
    """a lasts about N seconds, b is there, z is not. (With order instead of presence — "a for about N
    seconds, then b" — a flip that keeps the timeline would need a stand-in as long as a on b's other
    side, which a 10 s clip has no room for; a block swap leaves the long sound last in the flip and
    never in the positive: a rule "the longest sound is not last" scored 13 % in simulation.)"""

    name = "lasts-present-absent"
    relates = ("a", "b")
    absent = 1
    needs = {"a": STEADY, "w": STEADY, "b": CONTINUOUS}

    def atoms(self, w):
        return super().atoms(w) + [Atom("present", (w["b"],))] + _absent(w)

    def lengths(self, rng, parameters):
        """b sits inside the longer of the two places (N's and its partner's, 2 and 5 s in 10 s clips:
        three blocks of them would not fit), a third to three fifths of it."""
        lengths = super().lengths(rng, parameters)
        return lengths | {"b": round(float(rng.uniform(0.35, 0.6)) * max(lengths["a"], lengths["w"]), 3)}

    def layout(self, rng, seconds):
        host = max(("a", "w"), key=lambda role: seconds[role])
        blocks = [("a", "b" if host == "a" else None), ("w", "b" if host == "w" else None)]
        return blocks if rng.uniform() < 0.5 else blocks[::-1]


class BeforeOverlapAbsent(OverlapBefore):
    """a, then b holding c. As in overlap-before, both flips trade places with a stand-in: c with w, a
    with v (both after b)."""

    name = "before-overlap-absent"
    absent = 1
    needs = {"a": CONTINUOUS, "b": STEADY, "c": STEADY, "w": STEADY, "v": CONTINUOUS}
    host_roles = ("b",)

    def atoms(self, w):
        return [Atom("before", (w["a"], w["b"])), Atom(self.together, (w["b"], w["c"]))] + _absent(w)

    def inner_of(self, host):
        return "c"

    def lengths(self, rng, parameters):
        lengths = Overlap.lengths(self, rng, parameters)
        lengths.pop("h")                 # five sounds: no host of the stand-in's own (as overlap-before)
        lone = round(float(rng.uniform(*self.lone_seconds)), 3)
        return lengths | {"a": lone, "v": lone}

    def longest(self, parameters):
        longest = Overlap.longest(self, parameters)
        longest.pop("h")
        return longest | {"a": self.lone_seconds[1], "v": self.lone_seconds[1]}

    def layout(self, rng, seconds):
        """a, b holding c, then w and v in either order: c in w's place still comes after a and b."""
        tail = [("w", None), ("v", None)]
        return [("a", None), ("b", "c")] + (tail if rng.uniform() < 0.5 else tail[::-1])

    def flips(self, scene, rng, absent):
        return [scene.swap_sounds("a", "v"), scene.swap_sounds("c", "w")] + Shape.flips(self, scene, rng, absent)


class ApartAbsent(Apart, OverlapAbsent):
    name, mirror_of = "apart-absent", "overlap-absent"


class BeforeApartAbsent(Apart, BeforeOverlapAbsent):
    name, mirror_of = "before-apart-absent", "before-overlap-absent"


class AfterOverlapAbsent(After, BeforeOverlapAbsent):
    """b holding c, then a: the order flip's version the positive (a and its stand-in v trade places)."""

    name, mirror_of, temporal, order_trade = "after-overlap-absent", "before-overlap-absent", ("b", "c", "a"), ("a", "v")


class AfterApartAbsent(After, Apart, BeforeOverlapAbsent):
    name, mirror_of, temporal, order_trade = "after-apart-absent", "before-overlap-absent", ("b", "a", "c"), ("a", "v")


TASK = Task("mix", "atoms of different tasks at once", (
    BeforeAbsent(), OverlapAbsent(), ApartAbsent(), LongerAbsent(), LastsPresentAbsent(), BeforeOverlapAbsent(),
    BeforeApartAbsent(), AfterOverlapAbsent(), AfterApartAbsent(),
))
