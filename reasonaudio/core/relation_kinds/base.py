"""What every relation is declared with (`Relation`) and what its verdicts are over: a clip's events, three-valued
verdicts, times in integer milliseconds, and what a detector heard of a class (`Heard`)."""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Callable, Optional, Sequence


class Relevance(enum.Enum):
    NO = 0
    YES = 1
    AMBIGUOUS = -1


YES, NO, AMBIGUOUS = Relevance.YES, Relevance.NO, Relevance.AMBIGUOUS


def ms(seconds: float) -> int:
    """A time in integer milliseconds, the resolution events are planned and published at: every margin is
    then compared exactly (a `longer` at exactly 2x, equal lengths, a `lasts` on its bound mean what the
    margins say, not what floating-point rounding makes of them)."""
    return round(seconds * 1000)


@dataclass(frozen=True)
class Event:
    """One sound event of a clip timeline (times in seconds)."""

    label: str
    source_id: str
    onset: float
    offset: float
    gain_db: float

    @property
    def seconds(self) -> float:
        return self.offset - self.onset

    @cached_property
    def span_ms(self) -> tuple[int, int]:
        """Onset and offset in integer milliseconds (`ms`), worked out once: planning a natural split compares
        them some 25 million times."""
        return ms(self.onset), ms(self.offset)

    def to_dict(self) -> dict:
        return {"label": self.label, "source_id": self.source_id, "onset": self.onset,
                "offset": self.offset, "gain_db": self.gain_db}


def clear(condition_yes: bool, condition_no: bool) -> Relevance:
    """YES where the yes condition holds, else NO where the no condition does, else AMBIGUOUS."""
    return YES if condition_yes else NO if condition_no else AMBIGUOUS


def mirrored(verdict: Relevance) -> Relevance:
    """A relation's mirror's verdict: its clear no is a yes, its yes a no."""
    return NO if verdict is YES else YES if verdict is NO else AMBIGUOUS


def length(x: Event) -> int:
    return x.span_ms[1] - x.span_ms[0]


def exact(value: float) -> Fraction:
    """A margin as the decimal it is written as (0.1 is 1/10, not the nearest double)."""
    return Fraction(str(value))


def at_least(value: int, ratio: Fraction, of: int) -> bool:
    """value >= ratio x of, in integers."""
    return value * ratio.denominator >= ratio.numerator * of


def every(verdicts: list[Relevance]) -> Relevance:
    """Yes when every combination of occurrences says yes, no when every one says no, else ambiguous."""
    return clear(all(v is YES for v in verdicts), all(v is NO for v in verdicts))


def some(verdicts: list[Relevance]) -> Relevance:
    """Yes when some combination of occurrences says yes, no when every one says no, else ambiguous."""
    return clear(any(v is YES for v in verdicts), all(v is NO for v in verdicts))


@dataclass(frozen=True)
class Number:
    """The number a relation takes after its class labels, written as text: how an error names it, and which
    texts are one."""

    said: str
    valid: Callable[[str], bool]


def _seconds(text: str) -> bool:
    try:
        return 0 < float(text) < float("inf")
    except ValueError:
        return False


SECONDS = Number("a number of seconds", _seconds)
COUNT = Number("a whole count from 1", lambda text: text.isdigit() and int(text) >= 1)


@dataclass(frozen=True)
class Heard:
    """What a detector heard of one class: its peak probability, the detected event a relation over one occurrence
    reads (None: none detected) and every detected event of the class (what a count reads)."""

    peak: float
    event: Optional[Event] = None
    events: Sequence[Event] = ()


Truth = Callable[..., Relevance]
Combine = Callable[[list[Relevance]], Relevance]
Confidence = Callable[[Sequence[Heard], Sequence[str]], float]


UNHEARD = 0.25      # a relation on a class the detector did not find: this share of the named classes' lowest peak


def logistic(margin: float, scale: float) -> float:
    """A confidence from how far past a relation's margin a detection is: 1/2 on it, towards 1 past its yes side.

    Args:
        margin: how far past (seconds, a count, a log ratio; negative: short of it).
        scale: how far past makes it about 0.73.

    Returns:
        The confidence, in (0, 1).
    """
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, margin / scale))))


def of_events(margin: Callable[..., float], read: Callable[[Heard], object] = lambda heard: heard.event) -> Confidence:
    """A relation's confidence (`Relation.confidence`) from a confidence over what the detector heard of each named
    class. A class it did not find: UNHEARD x the lowest peak probability of the named classes.

    Args:
        margin: the confidence over what `read` takes of each named class, then the relation's numbers.
        read: what `margin` reads of a class's `Heard` (by default its detected event, `Heard.event`).

    Returns:
        The relation's confidence, over each named class's `Heard` and the numbers.
    """
    def confidence(heard: Sequence[Heard], numbers: Sequence[str]) -> float:
        if any(h.event is None for h in heard):
            return UNHEARD * min(h.peak for h in heard)
        return margin(*(read(h) for h in heard), *numbers)
    return confidence


@dataclass(frozen=True, slots=True)
class Relation:
    """One relation of DESIGN §4, declared once: every table of `reasonaudio.core.relations`, an atom's parsing,
    the relevance function, a natural flip and a detector's confidence read it from the registry
    (`reasonaudio.core.relation_kinds.REGISTRY`).

    Args:
        name: how atoms name it ("before").
        labels: the class labels an atom of it names, before its number.
        number: the number it takes after them (`SECONDS`, `COUNT`); None: none.
        requires_presence: it holds only if every class it names sounds (a clip lacking one is a clear no).
        truth: its three-valued verdict. With `combine`, over one occurrence of each class, then the numbers and
            `slack` (the milliseconds an annotated boundary may be off; every margin widens by 2 x slack);
            without, the same over every occurrence of each class at once (a sequence of events a class).
        combine: how the verdicts over every combination of occurrences make one (`every`, `some`); None: `truth`
            reads every occurrence at once.
        counts: it counts a class's occurrences (a build must let each be heard apart).
        confidence: how sure a detector is that it holds, in [0, 1], from what it heard of each named class
            (`Heard`) and the numbers.
        opposite: the relation that says the opposite of the same arguments (a natural flip); None: none.
        fails_as: what a clip that breaks it gets wrong, as the failure taxonomy says it ("order": `relations.broken`):
            the kind of minimal pair that flips it in a model's reasoning profile.
    """

    name: str
    labels: int
    number: Optional[Number]
    requires_presence: bool
    truth: Truth
    combine: Optional[Combine]
    confidence: Confidence
    fails_as: str
    counts: bool = False
    opposite: Optional[str] = None

    @property
    def arguments(self) -> int:
        """How many arguments an atom of it takes: its labels and its number."""
        return self.labels + (self.number is not None)
