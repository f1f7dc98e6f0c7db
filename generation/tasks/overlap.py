"""overlap: two sounds at the same time, or at different times (the mirror). The shorter (the inner sound) sits inside the longer (the host);
its stand-in, an unmentioned sound exactly as long, sits inside a host of its own (an unmentioned sound
drawn like the pair's host), before or after the pair. The hard negative makes the inner sound and its
stand-in trade places (Scene.swap_sounds): the stand-in is heard inside the named host, the inner sound
inside the other. Every time stays where it was, and both versions are two hosts each holding a sound:
the first, last, longest and loudest sound heard is a host in both, so where the named sounds sit says
nothing but whether they overlap. (With the stand-in alone after the pair, the inner sound would be the last
sound heard in the hard negative and never in the positive: "no named sound is last" would find the positive.)

All of them are continuous and steady (heard throughout), so the host is heard all along what it holds:
"at the same time" holds for what a listener hears.

Every shape that states an overlap has **mirrors**, published under the same shape name and drawn as
often as the shape itself: the same member of versions with another version the positive, stated so that
it is. `Apart` says "a and b at different times" (apart: disjoint by the 0.5 s margin, overlap's clear
no); `After`, where the order atom is made by a sound trading places with its stand-in, reads that atom
the other way ("c, then a" for "a, then c"). Without them, "the named sounds sound together" would find every
overlap positive, and "a named sound is heard last" half of the rest (a rule that knows which sounds the
query names, not what it says of them); with them every version of a member is the positive as often as any
other, and only the words decide.
"""

from reasonaudio.core.relations import Atom

from .shape import CONTINUOUS, STEADY, Shape, Task

HOST_SECONDS = (1.5, 3.0)
INNER_SHARE = (0.35, 0.85)     # of the host; and at least OVERLAP_MIN, so the shared time passes the margin
OVERLAP_MIN = 0.6


class Overlap(Shape):
    name = "overlap"
    together = "overlap"           # the relation the pair is stated in: `Apart` states "apart"
    relates = ("a", "b")
    partners = ("w", "h")          # the inner sound's stand-in, and the host that holds it
    needs = {"a": STEADY, "b": STEADY, "w": STEADY, "h": CONTINUOUS}
    host_roles = ("a", "b")        # which of the pair holds the other: drawn per scene
    host_seconds, inner_share = HOST_SECONDS, INNER_SHARE

    def atoms(self, w):
        return [Atom(self.together, (w["a"], w["b"]))]

    def lengths(self, rng, parameters):
        host = round(float(rng.uniform(*self.host_seconds)), 3)
        inner = round(max(OVERLAP_MIN, float(rng.uniform(*self.inner_share)) * host), 3)
        first = self.host_roles[rng.integers(len(self.host_roles))]
        other = round(max(float(rng.uniform(*self.host_seconds)), inner / self.inner_share[1]), 3)
        return {first: host, self.inner_of(first): inner, "w": inner, "h": other}

    def longest(self, parameters):
        most = self.host_seconds[1]
        return {role: most for role in self.host_roles} | {"w": most * self.inner_share[1], "h": most}

    def inner_of(self, host: str) -> str:
        return "b" if host == "a" else "a"

    def pair(self, seconds):
        host = max(self.host_roles, key=lambda r: seconds[r])
        return host, self.inner_of(host)

    def layout(self, rng, seconds):
        """The pair and the stand-in's host holding it, in either order: in the hard negative the inner
        sound then starts before its named host as often as after it (which of the two the text names
        first is drawn apart from that, so taking the sound named first as heard first gains nothing)."""
        blocks = [self.pair(seconds), ("h", "w")]
        return blocks if rng.uniform() < 0.5 else blocks[::-1]

    def flips(self, scene, rng, absent):
        inner = next(b.inner.role for b in scene.blocks if b.inner is not None and b.inner.role in self.relates)
        return [scene.swap_sounds(inner, "w")] + super().flips(scene, rng, absent)


class OverlapBefore(Overlap):
    """a holds b, and c follows a. c's stand-in v (as long) stands before a: the order flip makes c and v
    trade places, so, like the overlap flip, it moves no time and the overlapping pair stays put (a
    block swap would move the pair, and where it sat would tell the versions apart to the audit)."""

    name = "overlap-before"
    relates = ("a", "b", "c")
    partners = ("w", "v")
    needs = {"a": STEADY, "b": STEADY, "c": CONTINUOUS, "w": STEADY, "v": CONTINUOUS}
    host_roles = ("a",)
    host_seconds, inner_share = (1.5, 2.2), (0.35, 0.7)
    lone_seconds = (1.0, 1.6)      # c and its stand-in

    def atoms(self, w):
        return [Atom(self.together, (w["a"], w["b"])), Atom("before", (w["a"], w["c"]))]

    def lengths(self, rng, parameters):
        lone = round(float(rng.uniform(*self.lone_seconds)), 3)
        lengths = super().lengths(rng, parameters)
        lengths.pop("h")                 # five sounds leave no room for the stand-in's own host
        return lengths | {"c": lone, "v": lone}

    def longest(self, parameters):
        longest = super().longest(parameters)
        longest.pop("h")
        return longest | {"c": self.lone_seconds[1], "v": self.lone_seconds[1]}

    def layout(self, rng, seconds):
        """v, a holding b, w, c: b in w's place still comes after a and before c."""
        return [("v", None), ("a", "b"), ("w", None), ("c", None)]

    def flips(self, scene, rng, absent):
        return [scene.swap_sounds("b", "w"), scene.swap_sounds("c", "v")]


def traded(blocks: list, first: str, second: str) -> list:
    """A layout's blocks with the roles `first` and `second` in each other's places."""
    trade = {first: second, second: first}
    return [(trade.get(host, host), inner and trade.get(inner, inner)) for host, inner in blocks]


class Apart:
    """The mirror of an overlap shape (a mixin before it): the inner sound and its stand-in trade places in the
    layout, so the base is the overlap shape's hard negative and its flip the overlap shape's positive; the
    atom says "apart". Lengths, places, members and flips are the overlap shape's own."""

    together = "apart"

    def layout(self, rng, seconds):
        blocks = super().layout(rng, seconds)
        return traded(blocks, next(inner for _, inner in blocks if inner in self.relates), "w")


class After:
    """The order mirror (a mixin before a shape whose order flip trades a sound with its stand-in,
    `order_trade`): the two trade places in the layout, so the base is the shape's order flip, and the order
    atom is read the other way. `temporal`: the related sounds in the order the positive plays them."""

    order_trade: tuple[str, str] = ("c", "v")

    def layout(self, rng, seconds):
        return traded(super().layout(rng, seconds), *self.order_trade)

    def atoms(self, w):
        return [Atom("before", atom.args[::-1]) if atom.relation == "before" else atom for atom in super().atoms(w)]


class ApartPair(Apart, Overlap):
    name, mirror_of = "apart", "overlap"


class ApartBefore(Apart, OverlapBefore):
    name, mirror_of = "apart-before", "overlap-before"


class OverlapAfter(After, OverlapBefore):
    name, mirror_of, temporal = "overlap-after", "overlap-before", ("c", "a", "b")


class ApartAfter(After, Apart, OverlapBefore):
    name, mirror_of, temporal = "apart-after", "overlap-before", ("c", "a", "b")


TASK = Task("overlap", "whether two sounds happen at the same time (or at different times), alone or before a third",
            (Overlap(), ApartPair(), OverlapBefore(), ApartBefore(), OverlapAfter(), ApartAfter()))
