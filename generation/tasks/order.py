"""order: sounds one after another. The hard negative swaps two neighbours of the chain (their blocks trade
places, every length and gap kept); in a three-sound chain each neighbouring pair gives one. Unmentioned
sounds stand before or after the chain, so a swap moves the two swapped sounds and nothing else."""
from dataclasses import replace
from itertools import permutations

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

    def closure_size(self) -> int:
        return 6

    def closure(self, scene, flips, rng, absent):
        """All six orders of the chain's blocks (its orbit under swaps of neighbours: a hexagon, each order
        one swap from two others), the two flips first. Two swaps by role do not close a square (after
        one swap b and c are no longer neighbours), and a base with its flips is a star whose centre is
        the positive (the listwise audit found 33.7 % on chains)."""
        positions = [i for i, block in enumerate(scene.blocks) if block.host.role in self.relates]
        orders = []
        for order in permutations([scene.blocks[i] for i in positions]):
            blocks = list(scene.blocks)
            for position, block in zip(positions, order):
                blocks[position] = block
            orders.append(replace(scene, blocks=tuple(blocks)))
        return flips + [o for o in orders if o.blocks not in {s.blocks for s in (scene, *flips)}]


TASK = Task("order", "which sound comes first, over two or three sounds", (Before(), Chain()))
