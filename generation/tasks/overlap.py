"""overlap: X and Y at the same time. Hard negatives pull them apart (either order).

So that "some sounds overlap" never marks the positive, every clip of a group has exactly one
overlapping pair: in the positive the extra sound stands apart; pulled apart, it overlaps a or b.
"""
from dataclasses import replace

from ..relations import Atom
from .base import Aspect, Task


class Overlap(Aspect):
    name = "overlap"
    arrangements = ("overlap",)
    extra_places = ("before", "after")
    min_seconds = 1.0
    sentences = (
        "{x} and {y} at the same time",
        "{x}, with {y} heard at the same time",
        "{y} overlapping with {x}",
        "{x} sounding together with {y}",
        "{y} and, simultaneously, {x}",
    )
    clauses = ("with {x} and {y} overlapping", "{x} and {y} sounding together")

    def atoms(self, x, y, z):
        return [Atom("overlap", (x, y))]

    def flips(self, scene, negated, mentioned, specs, rng):
        return [replace(scene, arrangement="a_first", extra_place="with_b"),
                replace(scene, arrangement="b_first", extra_place="with_a")]


OVERLAP = Overlap()
TASK = Task("overlap", "whether two sounds happen at the same time", ((OVERLAP,),))
