"""duration: X lasts longer than Y (relative), or X is long and Y short (absolute).

Both sounds are continuous, so the hard negative exchanges their lengths and nothing else.
"""
from dataclasses import replace

from ..relations import Atom
from .base import Aspect, Task

LONG = (4.3, 5.0)    # >= 4 s (long) and >= 2 x any short one
SHORT = (0.7, 1.2)   # <= 1.5 s (short)


class Duration(Aspect):
    continuous_pair = True
    pair_seconds = (LONG, SHORT)
    min_seconds = 0.7

    def flips(self, scene, negated, mentioned, specs, rng):
        return [replace(scene, a=replace(scene.a, seconds=scene.b.seconds), b=replace(scene.b, seconds=scene.a.seconds))]


class Longer(Duration):
    name = "longer"
    sentences = (
        "{x} lasting much longer than {y}",
        "{y}, much shorter than {x}",
        "{x} going on far longer than {y}",
        "{y} only briefly, {x} for much longer",
    )
    clauses = ("with {x} lasting much longer than {y}", "and {y} much shorter than {x}")

    def atoms(self, x, y, z):
        return [Atom("longer", (x, y))]


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
