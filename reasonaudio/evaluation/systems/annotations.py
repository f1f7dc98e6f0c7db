"""What the annotation-based baselines read off a split's annotations (the atoms and events themselves:
models/scoring.py's `query_atoms` and `clip_events`): the sounds a query names, a clip's timeline statistics."""
from __future__ import annotations


def mentioned_labels(atoms) -> set[str]:
    """The sound classes a query names (lasts' number of seconds is not one)."""
    return {label for atom in atoms for label in atom.labels}


TIMELINE_FEATURES = ("span", "first_onset", "last_offset", "silence", "events", "blocks", "overlapping_pairs",
                     "largest_gap", "smallest_gap", "longest_event", "shortest_event",
                     *(f"length_{i}" for i in range(5)), *(f"onset_gap_{i}" for i in range(4)))


def timeline_features(events, clip_seconds: float) -> list[float]:
    """Query-blind statistics of a clip's timeline: span, first onset, last offset, silence, gaps,
    blocks of sounding time, and the events' lengths and onset gaps in onset order (what a model could
    read off the audio's envelope without knowing the query)."""
    events = sorted(events, key=lambda e: (e.onset, e.offset))
    blocks, gaps = [], []
    for event in events:
        if blocks and event.onset <= blocks[-1][1]:
            blocks[-1][1] = max(blocks[-1][1], event.offset)
        else:
            if blocks:
                gaps.append(event.onset - blocks[-1][1])
            blocks.append([event.onset, event.offset])
    sounding = sum(end - start for start, end in blocks)
    overlapping = sum(min(a.offset, b.offset) > max(a.onset, b.onset) for i, a in enumerate(events) for b in events[i + 1:])
    lengths = [e.seconds for e in events]
    onset_gaps = [b.onset - a.onset for a, b in zip(events, events[1:])]
    return [blocks[-1][1] - blocks[0][0], events[0].onset, blocks[-1][1], clip_seconds - sounding, len(events),
            len(blocks), overlapping, max(gaps, default=0.0), min(gaps, default=0.0), max(lengths), min(lengths),
            *(lengths + [0.0] * 5)[:5], *(onset_gaps + [0.0] * 4)[:4]]
