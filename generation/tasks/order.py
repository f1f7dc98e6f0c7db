"""order: sounds one after another. The hard negative swaps two neighbours of the chain (their blocks trade
places, every length and gap kept); in a three-sound chain each neighbouring pair gives one. Unmentioned
sounds stand before or after the chain, so a swap moves the two swapped sounds and nothing else."""
from dataclasses import replace

from reasonaudio.core.relations import Atom

from .flips import alternating_cycle
from .shape import Shape, Task


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

    cyclic = True

    def closure_size(self) -> int:
        return 6

    def orbit(self, scene):
        """All six orders of the chain's blocks as a hexagon: neighbours at the chain's first and second
        places swapped, then at its second and third, in turn. Two swaps by role do not close a square (after
        one swap b and c are no longer neighbours), and a base with its flips is a star whose centre is the
        positive, which the listwise audit finds."""
        places = [i for i, block in enumerate(scene.blocks) if block.host.role in self.relates]
        return alternating_cycle(scene, lambda version: _swapped(version, places[0], places[1]),
                                 lambda version: _swapped(version, places[1], places[2]))


def _swapped(scene, i, j):
    blocks = list(scene.blocks)
    blocks[i], blocks[j] = blocks[j], blocks[i]
    return replace(scene, blocks=tuple(blocks))


TASK = Task("order", "which sound comes first, over two or three sounds", (Before(), Chain()))
