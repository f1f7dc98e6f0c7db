"""Counting the sounds a query names: the scores of the recognisers that do no reasoning, and the ties a
reasoning-free baseline is held to, per query, from the annotations alone (what a rule that counts the named
sounds scores, ties by their expectation). A baseline names its tie in its `METADATA.held_to` (`TIES`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from reasonaudio.models.system import clip_events, query_atoms

from .annotations import mentioned_labels

if TYPE_CHECKING:
    import torch

    from reasonaudio.models.scoring import EvalData

EXTRA_PENALTY = 0.01   # per unmentioned sound: below any difference in mentioned sounds, only breaks ties


def count_scores(mentioned: Sequence[set[str]], present: Sequence[set[str]], device: str = "cpu") -> torch.Tensor:
    """(queries x clips) float64: the mentioned sounds each clip holds."""
    import torch

    vocabulary = {label: i for i, label in enumerate(sorted(set().union(*mentioned, *present)))}

    def multi_hot(label_sets):
        matrix = torch.zeros(len(label_sets), len(vocabulary), dtype=torch.float64)
        for row, labels in enumerate(label_sets):
            matrix[row, [vocabulary[label] for label in labels]] = 1.0
        return matrix.to(device)

    return multi_hot(mentioned) @ multi_hot(present).T


def bag_scores(mentioned: Sequence[set[str]], present: Sequence[set[str]], device: str = "cpu") -> torch.Tensor:
    """(queries x clips) float64: mentioned sounds present, less EXTRA_PENALTY x unmentioned sounds present: "all
    the mentioned sounds, fewest extras"."""
    import torch

    found = count_scores(mentioned, present, device)
    sizes = torch.tensor([float(len(labels)) for labels in present], dtype=torch.float64, device=found.device)
    return found - EXTRA_PENALTY * (sizes[None, :] - found)


def named_count_tie(data: EvalData) -> np.ndarray:
    """Per query, the accuracy of counting the named sounds alone: 1 / the candidates holding the most named
    sounds when the positive is among them, else 0. A recogniser breaking those ties by busyness (fewest other
    sounds, fewest events) is held to it: off it, busyness tells the positive."""
    events = clip_events(data.corpus)
    row = {clip: i for i, clip in enumerate(data.corpus["clip_id"])}
    ties = []
    for atoms, group, positive in zip(query_atoms(data.queries), data.queries["candidates"], data.queries["positive"]):
        named = mentioned_labels(atoms)
        counts = [len(named & {e.label for e in events[row[clip]]}) for clip in group]
        best = max(counts)
        ties.append(1 / counts.count(best) if counts[group.index(positive)] == best else 0.0)
    return np.asarray(ties)


def group_count_tie(mentioned: set[str], group: list, positive: int) -> float:
    """The accuracy of the best rule that sees only *how many* of the named sounds each candidate (a timeline)
    holds: 1 / the candidates holding as many as the positive. Sounds, not events: a natural recording may
    hold a class several times, and counting events, a rule counting the classes would beat the tie with no
    relation read."""
    counts = [len(mentioned & {e.label for e in events}) for events in group]
    return 1 / counts.count(counts[positive])


def count_tie(data: EvalData) -> np.ndarray:
    """Per query, `group_count_tie`. `named_count_tie` counts every named sound as wanted; where a query excludes
    a sound, any rule that knows which sounds are named and counts them beats it (the positive alone lacks one
    named sound, or shares that with its partial matches), so such a rule is held to this one: above it, where
    the named sounds sit gives the answer away."""
    events = clip_events(data.corpus)
    row = {clip: i for i, clip in enumerate(data.corpus["clip_id"])}
    return np.asarray([group_count_tie(mentioned_labels(atoms), [events[row[clip]] for clip in group],
                                       group.index(positive))
                       for atoms, group, positive in zip(query_atoms(data.queries), data.queries["candidates"],
                                                         data.queries["positive"])])


TIES = {"the named sounds' count tie": named_count_tie, "its count tie": count_tie}
