"""negation: some sounds are there and others are not. The hard negative puts an absent sound in the place
of an unmentioned one, at exactly its place and length (it is drawn to fit), nothing else moved."""
from ..relations import Atom
from .shape import Shape, Task


class PresentAbsent(Shape):
    name = "present-absent"
    absent = 1
    ring = 2

    def atoms(self, w):
        return [Atom("present", (w["a"],)), Atom("absent", (w["z"],))]


class TwoPresentAbsent(Shape):
    name = "two-present-absent"
    relates = ("a", "b")
    absent = 1
    ring = 3

    def atoms(self, w):
        return [Atom("present", (w["a"],)), Atom("present", (w["b"],)), Atom("absent", (w["z"],))]


class PresentTwoAbsent(Shape):
    name = "present-two-absent"
    absent = 2

    def atoms(self, w):
        return [Atom("present", (w["a"],)), Atom("absent", (w["z"],)), Atom("absent", (w["z2"],))]


TASK = Task("negation", "sounds that are present and sounds that must be absent",
            (PresentAbsent(), TwoPresentAbsent(), PresentTwoAbsent()))
