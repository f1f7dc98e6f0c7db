"""negation: some sounds are there and others are not. A group is a symmetric design (`designs.py`): a ring
of windows, or every candidate leaving out two of five classes. A hard negative holds an excluded class where
the positive holds an unmentioned one, every class at one length, the other sounds in their order."""

from reasonaudio.core.relations import Atom

from .designs import Complements, Ring
from .shape import Shape, Task


class PresentAbsent(Shape):
    name = "present-absent"
    absent = 1
    design = Ring(2)

    def atoms(self, w):
        return [Atom("present", (w["a"],)), Atom("absent", (w["z"],))]


class TwoPresentAbsent(Shape):
    name = "two-present-absent"
    relates = ("a", "b")
    absent = 1
    design = Ring(3)

    def atoms(self, w):
        return [Atom("present", (w["a"],)), Atom("present", (w["b"],)), Atom("absent", (w["z"],))]


class PresentTwoAbsent(Shape):
    name = "present-two-absent"
    absent = 2
    design = Complements()

    def atoms(self, w):
        return [Atom("present", (w["a"],)), Atom("absent", (w["z"],)), Atom("absent", (w["z2"],))]


TASK = Task("negation", "sounds that are present and sounds that must be absent",
            (PresentAbsent(), TwoPresentAbsent(), PresentTwoAbsent()))
