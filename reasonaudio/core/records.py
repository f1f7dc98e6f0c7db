"""How a build's meaning is written down: the fields the fingerprint reads (`rows` declares the tables), a query's
constraint as JSON, the timestamped caption of a clip, and the fingerprint that names a split.

The generator writes these and the validator, models and baselines read them back: each is defined here once so
that writing and reading cannot drift apart.
"""
from __future__ import annotations

import hashlib
import json
from typing import Iterable, Mapping, Sequence

from reasonaudio.core.relations import Atom, Event
from reasonaudio.core.rows import AUDIO, QueryRow, SourceRow

# what the fingerprint reads of a sound and of a query: their columns, the samples aside (`contents` says them)
SOURCE_FIELDS = tuple(name for name, kind in SourceRow.own_columns() if kind != AUDIO)
QUERY_FIELDS = tuple(name for name, _ in QueryRow.own_columns())


def constraint_text(atoms: Iterable[Atom]) -> str:
    """A query's constraint as the `constraint` column holds it: `{"all": [atom, ...]}`.

    Args:
        atoms: the query's atoms, all of which a relevant clip satisfies.

    Returns:
        The JSON text.
    """
    return json.dumps({"all": [atom.to_dict() for atom in atoms]})


def constraint_atoms(text: str) -> list[Atom]:
    """The atoms of a `constraint` column value (the inverse of `constraint_text`).

    Args:
        text: the JSON text.

    Returns:
        The query's atoms.
    """
    return [Atom.from_dict(a) for a in json.loads(text)["all"]]


def caption(events: Sequence[Event], phrases: Mapping[str, str]) -> str:
    """A clip's events as a timestamped caption ("A dog barking from 0.5 to 2.1 s, and rain from ...").

    Args:
        events: the clip's events, in the order to say them.
        phrases: each class's phrase.

    Returns:
        One sentence.
    """
    parts = [f"{phrases[e.label]} from {e.onset:.1f} to {e.offset:.1f} s" for e in events]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + ", and " + parts[-1]
    return text[:1].upper() + text[1:] + "."


def fingerprint(parameters: dict, sources: Sequence[SourceRow], queries: Sequence[QueryRow],
                events: Mapping[str, Sequence[Event]], contents: list[str] | None = None) -> str:
    """What a split is, as 16 hex digits: its parameters, its sounds, its queries and every candidate's
    events, and in a natural build each recording's content (`contents`, in `sources` order: its clips are
    the recordings as read, so an edited recording with the same labels is another corpus). A pure function
    of the published tables, so that `validate` recomputes it from the files.

    Args:
        parameters: the split's generation parameters.
        sources: the `sources` rows.
        queries: the `queries` rows.
        events: each candidate clip's events.
        contents: each recording's content digest, natural builds only.

    Returns:
        The fingerprint.
    """
    digest = hashlib.sha256(json.dumps(parameters, sort_keys=True).encode())
    if contents is not None:
        digest.update(json.dumps(contents).encode())
    digest.update(json.dumps([{k: round(float(s.duration), 3) if k == "duration" else getattr(s, k)
                               for k in SOURCE_FIELDS} for s in sources], sort_keys=True).encode())
    for query in queries:
        digest.update(json.dumps({k: getattr(query, k) for k in QUERY_FIELDS}, sort_keys=True).encode())
        digest.update(json.dumps([[e.to_dict() for e in events[c]] for c in query.candidates], sort_keys=True).encode())
    return digest.hexdigest()[:16]
