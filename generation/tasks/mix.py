"""mix: a conjunction of two relations; each one's flip is a hard negative of its own."""
from .base import Task
from .duration import LONGER
from .negation import NEGATION
from .order import ORDER
from .overlap import OVERLAP

TASK = Task("mix", "two relations at once", (
    (ORDER, NEGATION), (OVERLAP, NEGATION), (LONGER, NEGATION), (ORDER, LONGER), (OVERLAP, LONGER),
))
