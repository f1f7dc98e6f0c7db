"""duration: how long sounds last, relative to each other (`longer`, and a chain of two) or absolute
(`lasts`: "X for about N seconds").

Every hard negative makes two sounds trade recordings, every time kept (Scene.swap_sounds): the clip's
timeline is exactly the positive's and only which sound has which length changes. So all sounds whose
length is tested are continuous (croppable to any length), and `lasts` pairs its sound with a partner
whose length is across the margin; the partner is longer as often as shorter, so "the named sound is
the longer" is right half the time.
"""

from reasonaudio.core.relations import LASTS_NO, LASTS_YES, Atom

from .flips import alternating_cycle
from .group import layout_for
from .shape import CONTINUOUS, STEADY, Shape, Task

LONGER_SECONDS = (1.5, 4.0)     # the longer of a `longer` pair ...
LONGER_RATIO = (2.1, 2.6)       # ... is this many times the shorter (>= 2, the relation's margin): the
                                # ranges overlap (shorter up to 1.9 s), so no length alone tells the longer
CHAIN_SECONDS = (3.5, 4.5)      # the longest of a chain; each next one 2.1-2.3 times shorter
CHAIN_RATIO = (2.1, 2.3)
# lasts: the pairs (N, M) a group may state N of and give the partner the length M of (the flip gives M to the
# named sound); M is beyond the "no" margin of N and N of M's, so each pair serves both ways: drawn as a pair,
# then which end N is, so (N, M) and (M, N) are equally likely. The partner is then as long as a named sound of
# M (M +- a third of its "yes" tolerance), and whatever the named sound's length and its partner's, the
# positive holds the one as often as its hard negative does: a rule that knows the named sound but not N
# learns nothing from the two lengths (with one fixed partner per N, "the named sound lasts one of the Ns"
# would find every positive; a pair used one way only would give its N away).
# 10 s clips: N 2 or 5; clips of 30 s or more add 10, 15 and 20 (the paper's set), each pair fitting 25 s.
# Each pair is (shorter, longer): `Lasts.parameters` picks its end by index.
LASTS_PAIRS = {10.0: ((2, 5),), 30.0: ((2, 5), (2, 10), (2, 15), (2, 20), (5, 10), (5, 15), (5, 20))}

class Longer(Shape):
    name = "longer"
    relates = ("a", "b")
    needs = {"a": CONTINUOUS, "b": CONTINUOUS}

    def atoms(self, w):
        return [Atom("longer", (w["a"], w["b"]))]

    def lengths(self, rng, parameters):
        longer = float(rng.uniform(*LONGER_SECONDS))
        ratio = float(rng.uniform(LONGER_RATIO[0], min(LONGER_RATIO[1], longer / 0.7)))
        return {"a": round(longer, 3), "b": round(longer / ratio, 3)}

    def longest(self, parameters):
        return {"a": LONGER_SECONDS[1], "b": LONGER_SECONDS[1] / LONGER_RATIO[0]}

    def flips(self, scene, rng, absent):
        return [scene.swap_sounds("a", "b")] + super().flips(scene, rng, absent)


class LongerChain(Shape):
    name = "longer-chain"
    relates = ("a", "b", "c")
    needs = {"a": CONTINUOUS, "b": CONTINUOUS, "c": CONTINUOUS}

    def atoms(self, w):
        return [Atom("longer", (w["a"], w["b"])), Atom("longer", (w["b"], w["c"]))]

    def lengths(self, rng, parameters):
        a = float(rng.uniform(*CHAIN_SECONDS))
        b = a / float(rng.uniform(*CHAIN_RATIO))
        return {"a": round(a, 3), "b": round(b, 3), "c": round(b / float(rng.uniform(*CHAIN_RATIO)), 3)}

    def longest(self, parameters):
        b = CHAIN_SECONDS[1] / CHAIN_RATIO[0]
        return {"a": CHAIN_SECONDS[1], "b": b, "c": b / CHAIN_RATIO[0]}

    def flips(self, scene, rng, absent):
        return [scene.swap_sounds("a", "b"), scene.swap_sounds("b", "c")]

    cyclic = True

    def closure_size(self) -> int:
        return 6

    def orbit(self, scene):
        """All six ways the three recordings can take the three lengths, as a hexagon of trades (a with b,
        then b with c, in turn): each is one trade from two others, so no version is a centre."""
        return alternating_cycle(scene, lambda version: version.swap_sounds("a", "b"),
                                 lambda version: version.swap_sounds("b", "c"))


def tolerance(n: float) -> tuple[float, float]:
    """How far from N a length is a clear yes, and from how far a clear no (relations.LASTS_*)."""
    return max(LASTS_YES[0], LASTS_YES[1] * n), max(LASTS_NO[0], LASTS_NO[1] * n)


class Lasts(Shape):
    name = "lasts"
    partners = ("w",)
    needs = {"a": STEADY, "w": STEADY}

    def atoms(self, w):
        return [Atom("lasts", (w["a"], w["n"]))]

    @staticmethod
    def pairs(clip_seconds: float) -> tuple[tuple[int, int], ...]:
        """The (N, M) pairs of LASTS_PAIRS for clips this long."""
        return LASTS_PAIRS[max((length for length in LASTS_PAIRS if length <= clip_seconds), default=min(LASTS_PAIRS))]

    def _partners(self, n: int, parameters: dict) -> list[int]:
        return [m for pair in self.pairs(float(parameters.get("clip", 10.0))) if n in pair for m in pair if m != n]

    def parameters(self, rng, clip_seconds, events):
        """A pair that fits the clip with as many events as asked, then which of its ends N is (the shorter
        or the longer: half the groups each), so the partner is the longer as often as the shorter."""
        fits = [pair for pair in self.pairs(clip_seconds)
                if any(layout_for(self, e, {"n": str(n), "clip": str(clip_seconds)}, clip_seconds)
                       for n in pair for e in range(events[0], events[1] + 1))]
        if not fits:
            return {"n": str(self.pairs(clip_seconds)[0][0]), "clip": str(clip_seconds)}   # check_feasible says so
        longer_end = int(rng.integers(2))
        pair = fits[rng.integers(len(fits))]
        return {"n": str(pair[longer_end]), "clip": str(clip_seconds)}

    def lengths(self, rng, parameters):
        """The named sound about N, the partner about one of N's partners M (drawn evenly), each within a third
        of its "yes" tolerance: so (N, M) and (M, N) are equally likely."""
        n = int(parameters["n"])
        partners = self._partners(n, parameters)
        m = partners[rng.integers(len(partners))] if len(partners) > 1 else partners[0]
        return {"a": round(n + float(rng.uniform(-tolerance(n)[0], tolerance(n)[0])) / 3, 3),
                "w": round(m + float(rng.uniform(-tolerance(m)[0], tolerance(m)[0])) / 3, 3)}

    def longest(self, parameters):
        n = int(parameters["n"])
        return {"a": n + tolerance(n)[0] / 3, "w": max(m + tolerance(m)[0] / 3 for m in self._partners(n, parameters))}

    def flips(self, scene, rng, absent):
        return [scene.swap_sounds("a", "w")] + super().flips(scene, rng, absent)

    def reach(self, scene):
        """The partner's sound may take the named sound's place (the lasts flip), which may be the longer."""
        return {"w": max(scene.slot("a").seconds, scene.slot("w").seconds)}


TASK = Task("duration", "how long sounds last: one longer than another, a chain of three, or about N seconds",
            (Longer(), LongerChain(), Lasts()))
