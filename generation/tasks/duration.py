"""duration: how long sounds last, relative to each other (`longer`, and a chain of two) or absolute
(`lasts`: "X for about N seconds").

Every hard negative makes two sounds trade recordings, every time kept (Scene.swap_sounds): the clip's
timeline is exactly the positive's and only which sound has which length changes. So all sounds whose
length is tested are continuous (croppable to any length), and `lasts` pairs its sound with a partner
whose length is across the margin; the partner is longer as often as shorter, so "the named sound is
the longer" is right half the time.
"""
from ..relations import LASTS_NO, LASTS_YES, Atom
from .base import CONTINUOUS, STEADY, Shape, Task, alternating_cycle, layout_for

LONGER_SECONDS = (1.5, 4.0)     # the longer of a `longer` pair ...
LONGER_RATIO = (2.1, 2.6)       # ... is this many times the shorter (>= 2, the relation's margin): the
                                # ranges overlap (shorter up to 1.9 s), so no length alone tells the longer
CHAIN_SECONDS = (3.5, 4.5)      # the longest of a chain; each next one 2.1-2.3 times shorter
CHAIN_RATIO = (2.1, 2.3)
# lasts: N -> the partner's length (the flip gives it to the named sound) and how far it may vary; always
# beyond the "no" margin of N. In 10 s clips N is 2 or 5 and each one's partner is the other, as long as a
# named sound of that N (its N +- a third of its "yes" tolerance): the named sound's length then has the
# same distribution in positives and hard negatives, so a rule that knows the named sound but not N learns
# nothing from it (with 2 -> 4, 5 -> 1.2, 8 -> 0.6 s partners, "the named sound lasts 2, 5 or 8 s" found
# every positive). 30 s clips keep partners outside the set (10 -> 15, 15 -> 8, 20 -> 5 s).
LASTS_PARTNER = {2: (5.0, 0.5 / 3), 5: (2.0, 0.25 / 3), 10: (15.0, 0.5), 15: (8.0, 0.5), 20: (5.0, 0.5)}


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
    set_for = {10.0: (2, 5), 30.0: (10, 15, 20)}   # N that fit clips of at least this length

    def atoms(self, w):
        return [Atom("lasts", (w["a"], w["n"]))]

    def _seconds(self, n: int) -> tuple[float, float]:
        """The longest the named sound and its partner may be for N."""
        return n + tolerance(n)[0] / 3, sum(LASTS_PARTNER[n])

    def parameters(self, rng, clip_seconds, events):
        """N, among those that fit the clip with as many events as asked, drawn so that the partner is
        longer in half the groups and shorter in the other half."""
        options = next((ns for length, ns in sorted(self.set_for.items(), reverse=True) if clip_seconds >= length),
                       self.set_for[10.0])
        fitting = [n for n in options
                   if any(layout_for(self, e, {"n": str(n)}, clip_seconds) for e in range(events[0], events[1] + 1))]
        sides = [side for side in ([n for n in fitting if LASTS_PARTNER[n][0] > n],
                                   [n for n in fitting if LASTS_PARTNER[n][0] < n])
                 if side]
        if not sides:
            return {"n": str(options[0])}        # nothing fits: layout_for refuses, check_feasible says so
        side = sides[rng.integers(len(sides))]
        return {"n": str(side[rng.integers(len(side))])}

    def lengths(self, rng, parameters):
        n = int(parameters["n"])
        (tight, _), (partner, jitter) = tolerance(n), LASTS_PARTNER[n]
        return {"a": round(n + float(rng.uniform(-tight, tight)) / 3, 3),
                "w": round(partner + float(rng.uniform(-jitter, jitter)), 3)}

    def longest(self, parameters):
        return dict(zip(("a", "w"), self._seconds(int(parameters["n"]))))

    def flips(self, scene, rng, absent):
        return [scene.swap_sounds("a", "w")] + super().flips(scene, rng, absent)

    def reach(self, scene):
        """The partner's sound may take the named sound's place (the lasts flip), which may be the longer."""
        return {"w": max(scene.slot("a").seconds, scene.slot("w").seconds)}


TASK = Task("duration", "how long sounds last: one longer than another, a chain of three, or about N seconds",
            (Longer(), LongerChain(), Lasts()))
