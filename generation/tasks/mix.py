"""mix: two or three atoms from different tasks over three or four sounds; each tested atom has its own
hard negative, built exactly as its task builds it."""
from ..relations import Atom
from .base import CONTINUOUS, GAP_SECONDS, ROOM_PER_BLOCK, STEADY, Shape, Task
from .duration import Lasts, Longer
from .order import Before
from .overlap import Overlap, OverlapBefore


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


class LastsBeforeAbsent(Lasts):
    """a lasts about N seconds and comes before b; a's partner stands before b too, so trading recordings
    with it keeps a before b."""

    name = "lasts-before-absent"
    relates = ("a", "b")
    absent = 1
    room = ROOM_PER_BLOCK + GAP_SECONDS[1]

    def atoms(self, w):
        return super().atoms(w) + [Atom("before", (w["a"], w["b"]))] + _absent(w)

    def layout(self, rng, seconds):
        pair = [("a", None), ("w", None)]
        return (pair if rng.uniform() < 0.5 else pair[::-1]) + [("b", None)]

    def flips(self, scene, rng, absent):
        return [scene.swap_sounds("a", "w"), scene.swap_blocks("a", "b")] + Shape.flips(self, scene, rng, absent)


class BeforeOverlapAbsent(OverlapBefore):
    """a, then b holding c. As in overlap-before, both flips trade places with a stand-in: c with w, a
    with v (both after b)."""

    name = "before-overlap-absent"
    absent = 1
    needs = {"a": CONTINUOUS, "b": STEADY, "c": STEADY, "w": STEADY, "v": CONTINUOUS}
    host_roles = ("b",)

    def atoms(self, w):
        return [Atom("before", (w["a"], w["b"])), Atom("overlap", (w["b"], w["c"]))] + _absent(w)

    def inner_of(self, host):
        return "c"

    def lengths(self, rng, parameters):
        lengths = Overlap.lengths(self, rng, parameters)
        lone = round(float(rng.uniform(*self.lone_seconds)), 3)
        return lengths | {"a": lone, "v": lone}

    def longest(self, parameters):
        return Overlap.longest(self, parameters) | {"a": self.lone_seconds[1], "v": self.lone_seconds[1]}

    def layout(self, rng, seconds):
        """a, b holding c, then w and v in either order: c in w's place still comes after a and b."""
        tail = [("w", None), ("v", None)]
        return [("a", None), ("b", "c")] + (tail if rng.uniform() < 0.5 else tail[::-1])

    def flips(self, scene, rng, absent):
        return [scene.swap_sounds("a", "v"), scene.swap_sounds("c", "w")] + Shape.flips(self, scene, rng, absent)


TASK = Task("mix", "atoms of different tasks at once", (
    BeforeAbsent(), OverlapAbsent(), LongerAbsent(), LastsBeforeAbsent(), BeforeOverlapAbsent(),
))
