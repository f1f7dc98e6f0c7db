"""order: X then Y. The hard negative swaps the two sounds' order, gaps and lengths unchanged; the extra
sound stands before or after the pair, so it stays where it is."""
from dataclasses import replace

from ..relations import Atom
from .base import Aspect, Task


class Order(Aspect):
    name = "order"
    arrangements = ("a_first",)
    extra_places = ("before", "after")
    sentences = (
        "{x}, then {y}",
        "{x} followed by {y}",
        "{y}, after {x}",
        "first {x}, and afterwards {y}",
        "{y}, preceded by {x}",
        "{x}, and later {y}",
    )
    clauses = ("with {x} coming before {y}", "and {x} before {y}", "with {y} following {x}")

    def atoms(self, x, y, z):
        return [Atom("before", (x, y))]

    def flips(self, scene, negated, mentioned):
        return [replace(scene, arrangement="b_first")]


ORDER = Order()
TASK = Task("order", "which of two sounds comes first", ((ORDER,),))
