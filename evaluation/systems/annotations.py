"""Reading what a split's tables say about queries and clips (for the annotation-based baselines)."""
from __future__ import annotations

import json

from generation.relations import Atom, Event


def query_atoms(queries) -> list[list[Atom]]:
    return [[Atom.from_dict(a) for a in json.loads(text)["all"]] for text in queries["constraint"]]


def clip_events(corpus) -> list[tuple[Event, ...]]:
    return [tuple(Event(**event) for event in events) for events in corpus.select_columns(["events"])["events"]]
