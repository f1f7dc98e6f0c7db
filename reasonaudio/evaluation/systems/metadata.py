"""What `reasonaudio baselines` runs of a baseline and what it holds it to, declared once in the baseline's own
module (`METADATA = BaselineMetadata(...)` beside its `build`), as an mteb task declares its metadata. The CLI, the
report tables and the validity table read it from there, so a rule is written in one place.

The registry imports the module and reads its `METADATA` as the object it is (any expression, any arguments): the
module keeps model libraries out of its top (see evaluation/systems/__init__.py), so listing the baselines
(`reasonaudio --help`) loads none."""
from __future__ import annotations

from dataclasses import dataclass

CHANCE = "chance"             # a tie: the random baseline's expected accuracy, 1 / candidates
DIRECTIONS = ("both", "above")


@dataclass(frozen=True)
class BaselineMetadata:
    """One baseline's entry in `reasonaudio baselines`.

    Args:
        name: its spec kind, as registered (`reasonaudio evaluate --model NAME`).
        reads: what it sees beyond the candidates' annotations or audio ("nothing", "the clips", "the named
            sounds", ...): the cue a flag blames.
        held_to: what its accuracy must not move off: CHANCE, a tie of `counting.TIES`, or the tie another baseline
            `provides`; "" for a baseline only reported (a bound or a reference).
        flags: "both": off its tie either way beyond its interval (a construction that avoids the positive marks
            it too); "above": only above it by more than `margin` (its tie is the best a weaker rule does, not a
            chance level).
        margin: the gain over its tie allowed before a flag ("above" only), as a fraction.
        needs_train: it learns from a train split, checked before any baseline runs.
        flag: what a flag above its tie means, as the notes print it.
        shows: what its row of the tables shows, in one sentence.
        spec: the spec `baselines` runs (default: `name`); `{text_model}` is filled in from --text-model.
        short: its place in the short table and the plot, from 1; 0: not there.
        provides: the name of the tie its accuracy stands for, for baselines held to it ("" if none).
        tie_row: the row name under which the tables show its tie per task ("" for no row).
        verdict: `baselines` prints a verdict on the whole build: its interval against chance.
    """

    name: str
    reads: str
    shows: str
    held_to: str = ""
    flags: str = "both"
    margin: float = 0.0
    needs_train: bool = False
    flag: str = ""
    spec: str = ""
    short: int = 0
    provides: str = ""
    tie_row: str = ""
    verdict: bool = False

    def __post_init__(self):
        if self.flags not in DIRECTIONS:
            raise ValueError(f"{self.name}: flags must be one of {', '.join(DIRECTIONS)}, got {self.flags!r}")
        if self.held_to and not self.flag:
            raise ValueError(f"{self.name}: held to {self.held_to} but says not what a flag means")

