"""What the learned adversaries share: a train split of disjoint recordings to learn from, one gradient-boosted
classifier of "is this candidate its query's positive", and the groups' rows and columns.

Each adversary sees less than a model should need (no query, or the query's sounds but not what it says of
them). Trained on the train split pooled over all tasks, it must not beat its tie on any task or shape of
the test split; where it does, the construction leaks the answer. Early stopping on held-out train rows:
with nothing to learn it stops at near-constant scores (ties: exactly its tie) instead of fitting noise.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from reasonaudio.models.system import System

if TYPE_CHECKING:
    import torch

    from reasonaudio.models.scoring import EvalData


def train_split(data: EvalData, train: str | None, who: str) -> EvalData:
    """The train split (of `train`, else of the test data's folder) under the test data's acoustic condition."""
    from reasonaudio.models.scoring import EvalData

    try:
        return EvalData.load(train or data.source, split="train", acoustics=data.acoustics)
    except (ValueError, FileNotFoundError) as error:
        raise ValueError(f"{who} needs a train split of disjoint recordings (reasonaudio generate --split train, "
                         f"or {who}:?train=DIR): {error}") from None


def fit_classifier(features: np.ndarray, labels: np.ndarray, seed: int):
    from sklearn.ensemble import HistGradientBoostingClassifier

    classifier = HistGradientBoostingClassifier(random_state=seed, early_stopping=True)
    return classifier.fit(features, labels)


def group_columns(data: EvalData) -> list[list[int]]:
    """Each query's candidates as corpus rows, in the group's order."""
    row = {clip: i for i, clip in enumerate(data.corpus["clip_id"])}
    return [[row[clip] for clip in group] for group in data.queries["candidates"]]


def group_labels(data: EvalData) -> np.ndarray:
    """1 for each query's positive, 0 for its other candidates, in `group_columns` order, flattened."""
    return np.array([clip == positive for group, positive in zip(data.queries["candidates"], data.queries["positive"])
                     for clip in group], dtype=int)


def group_similarity(data: EvalData, scores: np.ndarray, device: str) -> torch.Tensor:
    """(queries x clips) with each query's candidates scored by `scores` (flattened in group order) and
    every other clip below them all: these adversaries rank a query's own group only."""
    import torch

    similarity = torch.full((len(data.queries), len(data.corpus)), -1.0, dtype=torch.float64)
    for query, (columns, values) in enumerate(zip(group_columns(data), np.split(scores, len(data.queries)))):
        similarity[query, columns] = torch.as_tensor(values, dtype=torch.float64)
    return similarity.to(device)


class GroupAdversary(System):
    """An adversary that scores each query's own candidates from `group_features` (one row per candidate, in
    group order), learned on the train split."""

    name = ""

    def __init__(self, train: str | None, seed: int):
        self.train, self.seed = train, seed

    def group_features(self, data: EvalData) -> np.ndarray:
        raise NotImplementedError

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        train = train_split(data, self.train, self.name)
        classifier = fit_classifier(self.group_features(train), group_labels(train), self.seed)
        return group_similarity(data, classifier.predict_proba(self.group_features(data))[:, 1], device)
