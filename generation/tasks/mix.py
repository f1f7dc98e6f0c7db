"""mix: a conjunction of two relations; each one's flip is a hard negative of its own.

Order and longer are not combined: over the same two sounds, both of their flips put the shorter sound
first, so "the first sound is the longer" would single out the positive without reading the query.
"""
from .base import Task
from .duration import LONGER
from .negation import NEGATION
from .order import ORDER
from .overlap import OVERLAP

TASK = Task("mix", "two relations at once", (
    (ORDER, NEGATION), (OVERLAP, NEGATION), (LONGER, NEGATION), (OVERLAP, LONGER),
))
