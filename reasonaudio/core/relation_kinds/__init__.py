"""The relations of DESIGN §4, each declared once (`Relation`, in the module of its family), and the one registry
that every table of `reasonaudio.core.relations`, an atom's parsing, the relevance function, a natural flip and a
detector's confidence read.

A relation is added by declaring its `Relation` in a module here (its own, or its family's) and one line in
`REGISTRY` below.
"""
from __future__ import annotations

from . import count, duration, order, presence
from .base import Relation

REGISTRY: dict[str, Relation] = {relation.name: relation for relation in (
    presence.PRESENT,
    presence.ABSENT,
    order.BEFORE,
    order.OVERLAP,
    order.APART,
    duration.LONGER_THAN,
    duration.SHORT,
    duration.LONG,
    duration.LASTS,
    count.TIMES,
    count.MORE_OFTEN,
    count.AS_OFTEN,
    count.DIFFERS_OFTEN,
)}
