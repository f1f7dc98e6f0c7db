"""count (opt-in, `--tasks count`): how many separate times a sound is heard ("a struck bell, heard twice"), also
beside a sound that must be absent or one that comes after, and how the counts of two compare (more often; as often,
or a different number of times).

A counted sound plays in several blocks of one scene, each an occurrence: blocks are parted by at least
COUNT_GAP[0] of silence of that sound, beyond the relation's 1 s margin (`relations.COUNT_APART`). Every clip of
a shape holds as many counted blocks (COUNT_BLOCKS with one named sound, one more with two that play), the named
sounds' and an unmentioned partner's (`w`), so the number of events says nothing; a hard negative gives one block
of the partner to a named sound or one of a named sound's to the partner (`times`, `as-often`), trades the two
compared sounds everywhere (`more-often`), plays an excluded sound in every block of the partner (`times-absent`)
or trades the sounds of a counted block and the later sound's (`times-before`). Every version then keeps the
positive's timeline, and only which sound plays a block changes.

In `times` a pair of counts (k, k + 1) is the positive's and its hard negative's (N = k, one more) exactly as
often as (N = k + 1, one fewer), dealt from the split's decks: a rule that counts the named sound but does not
know N learns nothing from the two counts.
"""
from fractions import Fraction

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

    @property
    def needs(self):
        return {role: COUNTED for role in self.roles}

    def lengths(self, rng, parameters):
        return {role: round(float(rng.uniform(*OCCURRENCE_SECONDS)), 3) for role in self.roles}

    def longest(self, parameters):
        return {role: OCCURRENCE_SECONDS[1] for role in self.roles}


class Times(_Counted):
    """times(a, N): a plays N of the COUNT_BLOCKS blocks, the partner the rest. The hard negative changes the last
    place: the partner's there gives the named sound one block more, the named sound's there one fewer."""

    name = "times"
    relates = ("a",)
    # (N, the hard negative's count): each pair (k, k + 1) as often with N = k as with N = k + 1
    CASES = ((1, 2), (2, 3), (2, 1), (3, 2))

    def atoms(self, w):
        return [Atom("times", (w["a"], w["n"]))]

    def dealt_parameters(self, pick):
        """A case dealt from the split's deck: in every four queries each exactly once (drawn, a small split
        holds one more often by luck, and the count alone tells its positives)."""
        n, other = self.CASES[pick([Fraction(1, len(self.CASES))] * len(self.CASES))]
        return {"n": str(n), "other": str(other)}

    def copies(self, parameters):
        n, other = int(parameters["n"]), int(parameters["other"])
        held = ["a"] * (n - 1) + ["w"] * (len(PLACES) - n + 1)
        last = "w" if other > n else "a"        # the place the hard negative changes
        held.remove(last)
        return dict(zip(PLACES, held + [last]))

    def flips(self, scene, rng, absent):
        last = PLACES[-1]
        named = scene.slot(last).label == scene.slot("a").label
        return [scene.with_sound_of(last, "w" if named else "a")]


class _TimesAnd(Times):
    """times(a, N) and one atom more, whose hard negative (`other_flip`) changes blocks the count's leaves alone: the
    two combine into a square, the count's flip first."""

    def other_flip(self, scene, absent):
        """The other atom's hard negative of `scene`, or None where it cannot be made."""
        raise NotImplementedError

    def flips(self, scene, rng, absent):
        other = self.other_flip(scene, absent)
        return super().flips(scene, rng, absent) + ([other] if other else [])

    def closure(self, scene, flips, rng, absent):
        counted, other = flips
        return [counted, other, self.other_flip(counted, absent)]


class TimesAbsent(_TimesAnd):
    """times(a, N) and absent(z): "a struck bell, heard twice, and no drum hit" (count with negation). The excluded
    sound's hard negative plays it in every block of the partner (`_excluded_as_partner`), so it is heard 4 - N
    times, counts spread as N's are. (Put in once, beside a named sound heard several times, it was told from the
    counted one without the words: a rule that counts the named sounds' occurrences found 46 % of the positives
    against its 20 % tie.)"""

    name = "times-absent"
    absent = 1

    def atoms(self, w):
        return super().atoms(w) + [Atom("absent", (w["z"],))]

    def other_flip(self, scene, absent):
        return _excluded_as_partner(scene, absent["z"])


class TimesBefore(_TimesAnd):
    """times(a, N) and before(a, b): "a struck bell, heard twice, then a drum hit" (count with order). b plays after
    the blocks of a and of the partner; the order's hard negative trades the sounds of a's own block and b's (a
    heard as often, one of its occurrences now after b), the count's replays the last place as in `Times`, before b
    either way. Named in either order by the templates, as `order.Before` is."""

    name = "times-before"
    relates = ("a", "b")

    def atoms(self, w):
        return super().atoms(w) + [Atom("before", (w["a"], w["b"]))]

    def layout(self, rng, seconds):
        counted = [role for role in self.roles if role != "b"]
        return [(str(role), None) for role in rng.permutation(counted)] + [("b", None)]

    def other_flip(self, scene, absent):
        return scene.swap_sounds("a", "b")


def _excluded_as_partner(scene, sound):
    """`sound` in every block of the partner; None where the sound it replaces in the group (`Scene.replaces`) is
    not the partner's but a filler's (put in there, it would be heard once: the cue `TimesAbsent` removes)."""
    partner = scene.slot("w")
    if dict(scene.replaces).get(sound.label, partner.label) != partner.label:
        return None
    return scene.with_sound_everywhere("w", sound)


class MoreOften(_Counted):
    """more_often(a, b): a plays more of the counted blocks than b (3 to 1 or 2 to 1, the partner the rest);
    the hard negative trades the two sounds in every block."""

    name = "more-often"
    relates = ("a", "b")
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


class AsOften(_Counted):
    """as_often(a, b): a and b play as many of the counted blocks (one each, the partner three; or two each, the
    partner one); the hard negative replays the last place (`_replay_last`). Its mirror, `DifferentOften`, states
    that the counts differ: the same versions, another the positive. Both are dealt alike with their cases, so the
    named sounds' counts (their total, whether they are equal) say nothing without the relation."""

    name = "as-often"
    relates = ("a", "b")
    dealt_variants = True
    CASES = (("w", "w"), ("w", "w"), ("a", "b"), ("b", "a"))     # the places' roles: counts (1, 1) or (2, 2)

    def atoms(self, w):
        return [Atom("as_often", (w["a"], w["b"]))]

    def dealt_parameters(self, pick):
        return {"case": str(pick([Fraction(1, len(self.CASES))] * len(self.CASES)))}

    def copies(self, parameters):
        return dict(zip(PLACES, self.CASES[int(parameters["case"])]))

    def flips(self, scene, rng, absent):
        return [_replay_last(scene)]


class DifferentOften(AsOften):
    """differs_often(a, b): counts (2, 1) or (1, 2), the partner the rest; `AsOften`'s mirror."""

    name = "different-often"
    mirror_of = "as-often"
    CASES = (("a", "w"), ("w", "a"), ("b", "w"), ("w", "b"))

    def atoms(self, w):
        return [Atom("differs_often", (w["a"], w["b"]))]


def _replay_last(scene):
    """The last place played by another sound: a named sound's by the partner, the partner's by the named sound
    heard fewer times (of two heard as often, the one that plays first). One named count moves by one, so equal
    counts become unequal and (2, 1) or (1, 2) equal."""
    last, named = scene.slot(PLACES[-1]), {role: scene.slot(role) for role in ("a", "b", "w")}
    if last.label != named["w"].label:
        return scene.with_sound_of(PLACES[-1], "w")
    heard = {role: sum(slot.label == named[role].label for slot in scene.slots()) for role in ("a", "b")}
    order = [block.host.role for block in scene.blocks]
    return scene.with_sound_of(PLACES[-1], min(("a", "b"), key=lambda role: (heard[role], order.index(role))))


TASK = Task("count", "how many separate times a sound is heard, or how the counts of two sounds compare",
            (Times(), MoreOften(), AsOften(), DifferentOften(), TimesAbsent(), TimesBefore()),
            opt_in=True)
