"""duration: X lasts longer than Y (relative), or X is long and Y short (absolute).

Both sounds are continuous, the extra sound before or after them, so the hard negative exchanges their
lengths and nothing else moves but, in sequence, the second sound's onset (overlapping, the shorter
stays inside the longer: nothing moves). `longer` draws its pairs
across the whole range (3 s vs 1.2 s, 2.4 s vs 1 s ...), so that it needs a comparison and is never
answered by the absolute long/short contrast.
"""
from dataclasses import replace

from ..relations import Atom
from .base import Aspect, Task

LONG = (4.3, 5.0)    # >= 4 s (long) and >= 2 x any short one
SHORT = (0.7, 1.2)   # <= 1.5 s (short)
LONGER_SECONDS = (1.5, 4.0)     # the longer of a `longer` pair ...
LONGER_RATIO = (2.1, 2.6)       # ... is this many times the shorter (>= 2, the relation's margin): the
                                # ranges overlap (shorter up to 1.9 s), so no length alone tells the longer


class Duration(Aspect):
    extra_places = ("before", "after")
    continuous_pair = True
    pair_seconds = (LONG, SHORT)
    min_seconds = 0.7

    def flips(self, scene, negated, mentioned):
        return [replace(scene, a=replace(scene.a, seconds=scene.b.seconds), b=replace(scene.b, seconds=scene.a.seconds))]


class Longer(Duration):
    name = "longer"
    pair_seconds = (LONGER_SECONDS, (Duration.min_seconds, LONGER_SECONDS[1] / LONGER_RATIO[0]))
    sentences = (
        "{x} lasting much longer than {y}",
        "{y}, much shorter than {x}",
        "{x} going on far longer than {y}",
        "{y} only briefly, {x} for much longer",
    )
    clauses = ("with {x} lasting much longer than {y}", "and {y} much shorter than {x}")

    def atoms(self, x, y, z):
        return [Atom("longer", (x, y))]

    def pair_lengths(self, rng) -> tuple[float, float]:
        longer = float(rng.uniform(*LONGER_SECONDS))
        ratio = float(rng.uniform(LONGER_RATIO[0], min(LONGER_RATIO[1], longer / self.min_seconds)))
        return round(longer, 3), round(longer / ratio, 3)


class LongShort(Duration):
    name = "long-short"
    sentences = (
        "{x} for a long time and {y} only briefly",
        "a brief moment of {y} and a long stretch of {x}",
        "{y} very briefly, {x} at length",
        "{x} going on at length, {y} just for a moment",
    )

    def atoms(self, x, y, z):
        return [Atom("long", (x,)), Atom("short", (y,))]


LONGER = Longer()
TASK = Task("duration", "which sound lasts longer, or which is long and which short",
            ((LONGER,), (LongShort(),)))
