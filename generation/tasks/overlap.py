"""overlap: X and Y at the same time. The hard negative pulls them apart by moving the shorter of the
two from inside the longer into the extra sound, a block of the same length (see `Scene._blocks`):
nothing else moves, and every clip of a group has exactly one overlapping pair.

Both sounds and the extra are continuous and steady (heard throughout), so the one that hosts the
shorter is heard all along it: "at the same time" holds for what a listener hears.
"""
from dataclasses import replace

from ..relations import Atom
from .base import Aspect, Task


class Overlap(Aspect):
    name = "overlap"
    arrangements = ("overlap",)
    extra_places = ("before", "after")
    continuous_pair = True
    steady_pair = True
    extra_like_pair = True
    min_seconds = 0.5          # the shorter lies wholly inside the longer: shared time = its length
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

    def flips(self, scene, negated, mentioned):
        return [replace(scene, arrangement="apart")]


OVERLAP = Overlap()
TASK = Task("overlap", "whether two sounds happen at the same time", ((OVERLAP,),))
