"""order: sounds one after another. The hard negative swaps two neighbours of the chain (their blocks trade
places, every length and gap kept); in a three-sound chain each neighbouring pair gives one. Unmentioned
sounds stand before or after the chain, so a swap moves the two swapped sounds and nothing else."""
from ..relations import Atom
from .base import Shape, Task


class Before(Shape):
    name = "before"
    relates = ("a", "b")
    fillers_between = False      # so a swap of neighbours moves them alone

    def atoms(self, w):
        return [Atom("before", (w["a"], w["b"]))]

    def layout(self, rng, seconds):
        return [(role, None) for role in self.relates]

    def flips(self, scene, rng, absent):
        return [scene.swap_blocks("a", "b")] + super().flips(scene, rng, absent)


class Chain(Before):
    name = "chain"
    relates = ("a", "b", "c")

    def atoms(self, w):
        return [Atom("before", (w["a"], w["b"])), Atom("before", (w["b"], w["c"]))]

    def flips(self, scene, rng, absent):
        return [scene.swap_blocks("a", "b"), scene.swap_blocks("b", "c")]


TASK = Task("order", "which sound comes first, over two or three sounds", (Before(), Chain()))
