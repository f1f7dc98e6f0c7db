"""Query templates: one module per text style, registered here; `--text-style` picks one.

A style maps every query shape (see generation/tasks) to plain format strings over the shape's roles:
{a} {b} {c} (the sounds it relates, in temporal order where order is tested), {z} {z2} (sounds that must
be absent) and {n} (seconds; a count, said as a person says it with {n:times}). Phrases carry their article
("a dog barking", "rain"), so a template never adds one; a sound a template names again `render` makes definite
("... after the dog barking"). Where a shape tests order or length, each ordered pair (x before y, x longer than
y) is named x first in exactly half of its templates, and all the related sounds in temporal order in at most 1 / (order
flips + 1) of them: a rule reading the order the words name the sounds in then does no better than
recognising the sounds, in either direction (see docs/design.md).
To add a style: write a module with a TEMPLATES dict like natural.py and add it to STYLES.

Holding templates out (does a model compose, or memorise sentences?): `STYLE:seen` draws only on the
templates of each shape that `STYLE:held-out` keeps apart, every third counting back from the last (of
six: the third and the sixth; of two: the second). Train on `natural:seen`, test on `natural:held-out`:
the same shapes and relations, in sentences the model has never read.
"""
from __future__ import annotations

import string

from reasonaudio.core.phrases import definite, times_phrase

from . import natural, paper

STYLES: dict[str, dict[str, tuple[str, ...]]] = {"natural": natural.TEMPLATES, "paper": paper.TEMPLATES}
DEFAULT_STYLE = "natural"
PARAMETERS = frozenset({"n"})        # roles that carry a value (seconds, a count), not a sound
SPOKEN = {"times": times_phrase}     # {n:times}: a count as said ("twice", "three separate times")
HOLDOUTS = ("seen", "held-out")      # STYLE:seen and STYLE:held-out split each shape's templates in two


def known_style(style: str) -> bool:
    """A registered style, or one of its two template holdouts (`natural:seen`, `natural:held-out`)."""
    base, _, holdout = style.partition(":")
    return base in STYLES and holdout in ("", *HOLDOUTS)


def held_out(count: int) -> set[int]:
    """The indices of the templates a shape with `count` of them holds out: every third from the last."""
    return set(range(count - 1, -1, -3))


def templates(style: str, shape: str) -> tuple[str, ...]:
    if not known_style(style):
        raise ValueError(f"unknown text style {style!r}; choose from {', '.join(STYLES)} (or STYLE:seen, "
                         "STYLE:held-out)")
    base, _, holdout = style.partition(":")
    found = STYLES[base].get(shape, ())
    if holdout:
        kept = held_out(len(found))
        found = tuple(t for i, t in enumerate(found) if (i in kept) == (holdout == "held-out"))
    if not found:
        raise ValueError(f"text style {style!r} has no templates for the query shape {shape!r}")
    return found


def fields(template: str) -> set[str]:
    """The roles a template names."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def render(template: str, words: dict[str, str]) -> str:
    """The text `template` says over `words` (role -> phrase, or a parameter's value). A sound named again reads
    definite ("{c} after {a}, with {b} at the same time as {a}": "..., with a bus at the same time as the
    helicopter"), so that it reads as the one sound.

    Args:
        template: a format string over the roles (see the module's docstring).
        words: each role's phrase, with its article, and each parameter's value.

    Returns:
        The text, its first letter capitalised.
    """
    named, parts = set(), []
    for literal, role, spoken, _ in string.Formatter().parse(template):
        parts.append(literal)
        if role:
            again = role in named and role not in PARAMETERS
            parts.append(SPOKEN[spoken](words[role]) if spoken else definite(words[role]) if again else words[role])
            named.add(role)
    text = "".join(parts)
    return text[:1].upper() + text[1:]
