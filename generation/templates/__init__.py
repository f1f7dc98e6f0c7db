"""Query templates: one module per text style, registered here; `--text-style` picks one.

A style maps every query shape (see generation/tasks) to plain format strings over the shape's roles:
{a} {b} {c} (the sounds it relates, in temporal order where order is tested), {z} {z2} (sounds that must
be absent) and {n} (seconds). Phrases carry their article ("a dog barking", "rain"), so a template never
adds one. Where a shape tests order, its templates say the sounds in temporal order as often as there are
candidates with all of them (half the time for two sounds, a third for three): a rule that ranks the
first-mentioned sound first then does no better than recognising the sounds (see docs/design.md).
To add a style: write a module with a TEMPLATES dict like natural.py and add it to STYLES.
"""
from __future__ import annotations

import string

from . import natural

STYLES: dict[str, dict[str, tuple[str, ...]]] = {"natural": natural.TEMPLATES}
DEFAULT_STYLE = "natural"


def templates(style: str, shape: str) -> tuple[str, ...]:
    if style not in STYLES:
        raise ValueError(f"unknown text style {style!r}; choose from {', '.join(STYLES)}")
    found = STYLES[style].get(shape)
    if not found:
        raise ValueError(f"text style {style!r} has no templates for the query shape {shape!r}")
    return found


def fields(template: str) -> set[str]:
    """The roles a template names."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def render(template: str, words: dict[str, str]) -> str:
    text = template.format(**words)
    return text[:1].upper() + text[1:]
