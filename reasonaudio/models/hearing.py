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

import math
from itertools import product
from typing import Mapping, Optional, Sequence

import numpy as np
import torch

from reasonaudio.core import relations
from reasonaudio.core.relations import AMBIGUOUS, YES, required_labels, relevant

from .detector import GAP_STEPS, MEDIAN_STEPS, THRESHOLDS
from .events import detection_scores
from .scoring import System, clip_events, group_accuracy, query_atoms

LEVEL = {YES: 2.0, AMBIGUOUS: 1.0}      # NO: 0
GRADED = 0.999                          # the graded part stays below the next verdict


def _logistic(margin: float, scale: float) -> float:
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, margin / scale))))


def atom_confidence(atom, events: dict, peak: dict[str, float], heard: Optional[Mapping] = None) -> float:
    """How sure the detector is that `atom` holds, in [0, 1] (see the module's docstring).

    Args:
        atom: one atom of the query.
        events: label -> a detected event of that class.
        peak: label -> the class's peak probability.
        heard: label -> every detected event of that class (`relations.occurrences`), which a count needs;
            None: `events`' one each.
    """
    labels = atom.labels
    if atom.relation == "present":
        return peak.get(labels[0], 0.0)
    if atom.relation == "absent":
        return 1 - peak.get(labels[0], 0.0)
    if any(label not in events for label in labels):
        return 0.25 * min(peak.get(label, 0.0) for label in labels)
    if atom.relation in relations.COUNTED:     # yes: the counts (midway between fewest and most) say so by one
        heard = {label: [events[label]] for label in labels} if heard is None else heard
        x, *y = [sum(relations.count_range(heard[label])) / 2 for label in labels]
        margin = {"times": lambda: 0.5 - abs(x - int(atom.args[1])), "more_often": lambda: x - y[0] - 0.5,
                  "as_often": lambda: 0.5 - abs(x - y[0]),
                  "differs_often": lambda: abs(x - y[0]) - 0.5}[atom.relation]()
        return _logistic(margin, 0.25)
    x = events[labels[0]]
    y = events[labels[1]] if len(labels) > 1 else None
    if atom.relation == "before":    # yes: x ends 0.5 s before y starts
        return _logistic(y.onset - x.offset - relations.ORDER_GAP / 2, relations.ORDER_GAP / 2)
    if atom.relation in ("overlap", "apart"):   # overlap yes: shared >= half the shorter and >= 0.5 s
        shared = min(x.offset, y.offset) - max(x.onset, y.onset)
        needed = max(relations.OVERLAP_FRACTION * min(x.seconds, y.seconds), relations.OVERLAP_SECONDS)
        together = _logistic(shared - needed / 2, relations.OVERLAP_SECONDS / 2)
        return together if atom.relation == "overlap" else 1 - together
    if atom.relation == "longer":    # yes: twice as long; no: not longer
        ratio = math.log(max(x.seconds, 1e-3) / max(y.seconds, 1e-3))
        return _logistic(ratio - math.log(relations.LONGER_RATIO) / 2, math.log(relations.LONGER_RATIO) / 4)
    if atom.relation in ("long", "short"):
        middle = (relations.LONG_SECONDS + relations.SHORT_SECONDS) / 2
        sign = 1 if atom.relation == "long" else -1
        return _logistic(sign * (x.seconds - middle), (relations.LONG_SECONDS - relations.SHORT_SECONDS) / 4)
    if atom.relation == "lasts":
        target = float(atom.args[1])
        yes = max(relations.LASTS_YES[0], relations.LASTS_YES[1] * target)
        no = max(relations.LASTS_NO[0], relations.LASTS_NO[1] * target)
        return _logistic((yes + no) / 2 - abs(x.seconds - target), (no - yes) / 4)
    raise ValueError(f"no confidence rule for the relation {atom.relation!r}")


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
            scores[query] = 0.25 * GRADED * peaks[:, [column[label] for label in needed]].mean(axis=1)
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
