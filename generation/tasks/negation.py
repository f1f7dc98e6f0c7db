"""negation: X is there and Z is not. Hard negatives put Z in place of an unmentioned sound, at exactly
its place and length (Z is drawn so that it fits: continuous, or at least as long), nothing else moved."""
from dataclasses import replace

from ..relations import Atom
from .base import Aspect, Task, fits, put


class Negation(Aspect):
    name = "negation"
    needs_negated = True
    sentences = (
        "{x}, without {z}",
        "{x} but not {z}",
        "{x}, and no sign of {z}",
        "no trace of {z}, but {x}",
        "without {z}, but with {x}",
    )
    clauses = ("without {z}", "and no sign of {z}", "but not {z}", "with no trace of {z}")

    def atoms(self, x, y, z):
        return [Atom("present", (x,)), Atom("absent", (z,))]

    def flips(self, scene, negated, mentioned):
        return [replace(scene, **{role: put(slot, negated)})
                for role, slot in scene.slots().items() if slot.label not in mentioned and fits(negated, slot)]


NEGATION = Negation()
TASK = Task("negation", "a sound that is present and one that must be absent", ((NEGATION,),))
