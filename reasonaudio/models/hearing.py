"""A detector's events judged per query by the one relevance function (reasonaudio/core/relations.py): how the
`detector:` system scores and how training chooses a detector's decoding (threshold, median filter, gap).

Ranking: a clip scores 2 when the detected events answer the query (YES), 1 when ambiguous, 0 when not,
plus a graded part below 1 that orders clips of one verdict: the mean over the query's atoms of the
detector's confidence that the atom holds (present / absent: the class's peak probability, or one minus
it; a relation: a logistic of how far the detected timeline is past the relation's own margins). A clip
without a sound the query requires is a NO without judging (in corpus mode, unless it is a candidate of
the query, its graded part is a quarter of the mean peak probability of the required sounds).
"""
from __future__ import annotations

from itertools import product
from typing import Mapping, Optional, Sequence

import numpy as np
import torch

from reasonaudio.core import relations
from reasonaudio.core.relations import AMBIGUOUS, REGISTRY, UNHEARD, YES, Heard, required_labels, relevant

from .detector import GAP_STEPS, MEDIAN_STEPS, THRESHOLDS
from .events import detection_scores
from .scoring import System, clip_events, group_accuracy, query_atoms

LEVEL = {YES: 2.0, AMBIGUOUS: 1.0}      # NO: 0
GRADED = 0.999                          # the graded part stays below the next verdict


def atom_confidence(atom, events: dict, peak: dict[str, float], heard: Optional[Mapping] = None) -> float:
    """How sure the detector is that `atom` holds, in [0, 1]: its relation's confidence (`Relation.confidence`)
    over what the detector heard of each class the atom names.

    Args:
        atom: one atom of the query.
        events: label -> a detected event of that class.
        peak: label -> the class's peak probability.
        heard: label -> every detected event of that class (`relations.occurrences`), which a count needs;
            None: `events`' one each.

    Returns:
        The confidence.
    """
    heard = {label: [event] for label, event in events.items()} if heard is None else heard
    said = [Heard(peak.get(label, 0.0), events.get(label), heard.get(label, ())) for label in atom.labels]
    return REGISTRY[atom.relation].confidence(said, atom.args[len(said):])


def judged_score(atoms, detected) -> float:
    """The verdict of the relevance function on the detected events, plus the graded part."""
    events = {event.label: event for event in detected.events}
    heard = relations.occurrences(detected.events)
    confidence = sum(atom_confidence(atom, events, detected.peak, heard) for atom in atoms) / len(atoms)
    return LEVEL.get(relevant(atoms, detected.events), 0.0) + GRADED * confidence


def hearing_scores(data, detections: Sequence) -> torch.Tensor:
    """(queries x clips): every query's candidates and every clip holding all its required sounds judged
    on the detected events; the other clips (NO) by their peak probabilities alone."""
    atoms_of = query_atoms(data.queries)
    labels = sorted({label for d in detections for label in d.peak} |
                    {label for atoms in atoms_of for atom in atoms for label in atom.labels})
    column = {label: j for j, label in enumerate(labels)}
    peaks = np.array([[d.peak.get(label, 0.0) for label in labels] for d in detections])
    with_label: dict[str, set[int]] = {}
    for index, detected in enumerate(detections):
        for event in detected.events:
            with_label.setdefault(event.label, set()).add(index)
    row_of = {clip: i for i, clip in enumerate(data.corpus["clip_id"])}
    scores = np.zeros((len(atoms_of), len(detections)))
    for query, (atoms, candidates) in enumerate(zip(atoms_of, data.queries["candidates"])):
        needed = sorted(required_labels(atoms))
        if needed:
            scores[query] = UNHEARD * GRADED * peaks[:, [column[label] for label in needed]].mean(axis=1)
        pool = set.intersection(*(with_label.get(label, set()) for label in needed)) if needed else range(len(detections))
        for index in set(pool) | {row_of[clip] for clip in candidates}:
            scores[query, index] = judged_score(atoms, detections[index])
    return torch.as_tensor(scores)


def corpus_probabilities(model, data, batch_size: int, progress: bool = False) -> list[tuple[np.ndarray, int]]:
    """Each clip's (steps x labels) probabilities and its length in samples, in corpus order."""
    found = []
    for arrays in data.audio_batches(model.sampling_rate, batch_size, progress):
        found.extend(zip(model.probabilities(arrays), (len(a) for a in arrays)))
    return found


class HeardEvents(System):
    """Detections already made (one per corpus clip), judged per query."""

    def __init__(self, detections: Sequence, name: str = "detector"):
        self.detections, self.name = detections, name

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        return hearing_scores(data, self.detections).to(device)


def detection_quality(model, data, detections) -> dict:
    """DCASE's detection metrics of `detections` against the split's annotations."""
    references = clip_events(data.corpus)
    labels = set(model.config.labels) | {e.label for clip in references for e in clip}
    return detection_scores(references, [d.events for d in detections], labels)


def choose_decoding(model, data, batch_size: int = 32) -> dict:
    """The decoding (threshold, median filter, gap) that gives the best group accuracy on `data` (the
    validation split), set on `model`; returns it with that accuracy and the detection metrics it gives."""
    probabilities = corpus_probabilities(model, data, batch_size)
    best = None
    for threshold, median, gap in product(THRESHOLDS, MEDIAN_STEPS, GAP_STEPS):
        decoding = {"threshold": threshold, "median_steps": median, "gap_steps": gap}
        detections = [model.detect(p, samples, **decoding) for p, samples in probabilities]
        accuracy = group_accuracy(HeardEvents(detections), data)
        if best is None or accuracy > best[0]:
            best = (accuracy, decoding, detections)
    accuracy, decoding, detections = best
    for key, value in decoding.items():
        setattr(model.config, key, value)
    return {"accuracy": accuracy, "decoding": decoding, "detection": detection_quality(model, data, detections)}
