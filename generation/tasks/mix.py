"""mix: two or three atoms from different tasks over three or four sounds; each tested atom has its own
hard negative, built exactly as its task builds it."""
from reasonaudio.core.relations import Atom

from .shape import CONTINUOUS, STEADY, Shape, Task
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
    never in the positive: a rule "the longest sound is not last" would find the positive.)"""

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


class LastsBeforeOverlap(Lasts):
    """The paper's four-sound mix: a for about N seconds, then b, then c and d at the same time (it needs
    clips of 30 s and eight sounds: `--profile paper`). Three flips, each a trade that keeps every time: a and
    its partner x trade recordings (lasts), b and its stand-in u, as long and before a, trade places
    (before(a, b)), d and its stand-in w, inside a host h of its own, trade places (overlap). before(b, c)
    holds in every version (b stays before c's block from either place), so it is stated and judged but
    tested by no pair: with it the closure would be 16 versions, more than a group of 10 holds, and a member
    that is not closed is a star whose centre, the positive, the listwise audit finds (§5)."""

    name = "lasts-before-overlap"
    together = "overlap"
    relates = ("a", "b", "c", "d")
    partners = ("x", "u", "w", "h")
    needs = {"a": STEADY, "x": STEADY, "b": CONTINUOUS, "u": CONTINUOUS, "c": STEADY, "d": STEADY, "w": STEADY,
             "h": CONTINUOUS}
    tested = 3
    order = (("a", "b"), ("b", "c"))          # the before atoms, in the positive's order
    lone_seconds, host_seconds, inner_share = (1.0, 1.6), (1.5, 2.2), (0.35, 0.7)

    def atoms(self, w):
        return ([Atom("lasts", (w["a"], w["n"]))] + [Atom("before", (w[x], w[y])) for x, y in self.order]
                + [Atom(self.together, (w["c"], w["d"]))])

    def lengths(self, rng, parameters):
        named = super().lengths(rng, parameters)
        lone = round(float(rng.uniform(*self.lone_seconds)), 3)
        host = round(float(rng.uniform(*self.host_seconds)), 3)
        inner = round(max(0.6, float(rng.uniform(*self.inner_share)) * host), 3)
        other = round(max(float(rng.uniform(*self.host_seconds)), inner / self.inner_share[1]), 3)
        return {"a": named["a"], "x": named["w"], "b": lone, "u": lone, "c": host, "d": inner, "w": inner, "h": other}

    def longest(self, parameters):
        named = super().longest(parameters)
        return {"a": named["a"], "x": named["w"], "b": self.lone_seconds[1], "u": self.lone_seconds[1],
                "c": self.host_seconds[1], "h": self.host_seconds[1]}

    def layout(self, rng, seconds):
        """u, then a and its partner side by side in either order (a in the partner's place is still after u
        and before b, so each flip flips its atom alone, composites too), b, c holding d; the stand-in's host
        first or last."""
        named = [("a", None), ("x", None)]
        core = [("u", None)] + (named if rng.uniform() < 0.5 else named[::-1]) + [("b", None), ("c", "d")]
        return core + [("h", "w")] if rng.uniform() < 0.5 else [("h", "w")] + core

    def flips(self, scene, rng, absent):
        return [scene.swap_sounds("a", "x"), scene.swap_sounds("b", "u"), scene.swap_sounds("d", "w")]

    def reach(self, scene):
        return {}


class LastsBeforeApart(Apart, LastsBeforeOverlap):
    name, mirror_of = "lasts-before-apart", "lasts-before-overlap"


class LastsAfter(After):
    """The order mirror of the four-sound mix (a mixin before it): b before a (b and u traded in the layout), "b,
    then a for about N seconds"; b still comes before c. Its `order` already reads the atom the other way, so
    the atoms are the four-sound mix's own, not After's."""

    order_trade = ("b", "u")
    order, temporal = (("b", "a"), ("b", "c")), ("b", "a", "c", "d")

    def atoms(self, w):
        return LastsBeforeOverlap.atoms(self, w)


class LastsAfterOverlap(LastsAfter, LastsBeforeOverlap):
    name, mirror_of = "lasts-after-overlap", "lasts-before-overlap"


class LastsAfterApart(LastsAfter, Apart, LastsBeforeOverlap):
    name, mirror_of = "lasts-after-apart", "lasts-before-overlap"


TASK = Task("mix", "atoms of different tasks at once", (
    BeforeAbsent(), OverlapAbsent(), ApartAbsent(), LongerAbsent(), LastsPresentAbsent(), BeforeOverlapAbsent(),
    BeforeApartAbsent(), AfterOverlapAbsent(), AfterApartAbsent(),
    LastsBeforeOverlap(), LastsBeforeApart(), LastsAfterOverlap(), LastsAfterApart(),
))
