"""count (opt-in, `--tasks count`): how many separate times a sound is heard ("a struck bell, heard twice") and
which of two is heard more often.

A counted sound plays in several blocks of one scene, each an occurrence: blocks are parted by at least
COUNT_GAP[0] of silence of that sound, beyond the relation's 1 s margin (`relations.COUNT_APART`). Every clip
holds COUNT_BLOCKS counted blocks, the named sound's and an unmentioned partner's (`w`), so the number of
events says nothing; a hard negative gives one block of the partner to the named sound or one of the named
sound's to the partner (`times`), or trades the two compared sounds everywhere (`more-often`). Every version
then keeps the positive's timeline, and only which sound plays one block changes.

`times` is two variants, one whose hard negative counts one more and one whose counts one fewer, drawn alike;
each draws N so that a pair (k, k + 1) is the positive's (N = k, one more) as often as it is (N = k + 1, one
fewer): a rule that counts the named sound but does not know N learns nothing from the two counts.
"""
from reasonaudio.core.relations import Atom

from .shape import Need, Shape, Task

COUNT_BLOCKS = 4             # the counted blocks of every clip: the named sound's and the partner's
COUNT_GAP = (1.1, 1.5)       # the silence between neighbouring blocks: over COUNT_APART by a margin
OCCURRENCE_SECONDS = (0.3, 0.6)     # how long each counted block plays
COUNTED = Need(discrete=True, min_seconds=OCCURRENCE_SECONDS[1])     # any counted sound fits any counted block
PLACES = tuple(f"p{i}" for i in range(1, COUNT_BLOCKS - 1))         # the blocks beyond the first of a and of w


class _Counted(Shape):
    """What the count shapes share: discrete sounds in short blocks, wide gaps, places that copy a or w."""

    partners = ("w",)
    places = PLACES
    gap_seconds = COUNT_GAP
    fillers_between = True
    parameters_per_query = True     # a count drawn anew on each failed attempt would be kept as often as its text
                                    # is free: a count the other split names more often (2, in both variants of
                                    # `times`) would be the positive's less often, and the count alone would tell

    @property
    def needs(self):
        return {role: COUNTED for role in self.roles}

    def lengths(self, rng, parameters):
        return {role: round(float(rng.uniform(*OCCURRENCE_SECONDS)), 3) for role in self.roles}

    def longest(self, parameters):
        return {role: OCCURRENCE_SECONDS[1] for role in self.roles}


class Times(_Counted):
    """times(a, N): a plays N of the COUNT_BLOCKS blocks, the partner the rest. `more`: whether the hard
    negative gives the named sound a block of the partner's (N + 1) or the partner one of its (N - 1)."""

    name = "times"
    relates = ("a",)

    def __init__(self, more: bool):
        self.more = more

    def atoms(self, w):
        return [Atom("times", (w["a"], w["n"]))]

    def parameters(self, rng, clip_seconds, events):
        """N uniformly over the counts whose hard negative keeps one block of each sound (1 to COUNT_BLOCKS - 2
        with one more, 2 to COUNT_BLOCKS - 1 with one fewer)."""
        return {"n": str(int(rng.integers(1, COUNT_BLOCKS - 1)) + (not self.more))}

    def copies(self, parameters):
        n = int(parameters["n"])
        return {place: "a" if i < n - 1 else "w" for i, place in enumerate(PLACES)}

    def flips(self, scene, rng, absent):
        named = scene.slot("a")
        giving = [place for place in PLACES if (scene.slot(place).label == named.label) != self.more]
        place = giving[rng.integers(len(giving))]
        return [scene.with_sound_of(place, "w" if not self.more else "a")]


class MoreOften(_Counted):
    """more_often(a, b): a plays more of the counted blocks than b (3 to 1 or 2 to 1, the partner the rest);
    the hard negative trades the two sounds in every block."""

    name = "more-often"
    relates = ("a", "b")
    partners = ("w",)
    places = PLACES[:2]
    SPLITS = ((3, 1), (2, 1))       # (a's blocks, b's), the partner the rest of the five

    def atoms(self, w):
        return [Atom("more_often", (w["a"], w["b"]))]

    def parameters(self, rng, clip_seconds, events):
        return {"split": str(int(rng.integers(len(self.SPLITS))))}

    def copies(self, parameters):
        more, _ = self.SPLITS[int(parameters["split"])]
        return {place: "a" if i < more - 1 else "w" for i, place in enumerate(self.places)}

    def flips(self, scene, rng, absent):
        return [scene.trade_sounds("a", "b")]


TASK = Task("count", "how many separate times a sound is heard, or which of two is heard more often",
            (Times(more=True), Times(more=False), MoreOften()), opt_in=True)
