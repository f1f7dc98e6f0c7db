"""`oracle`: the relevance function applied to the annotations. It must score 100 % on every task: a
check of the benchmark itself, not a model."""
from __future__ import annotations

from typing import TYPE_CHECKING

from reasonaudio.core.relations import AMBIGUOUS, NO, YES, judge_corpus, relevant
from reasonaudio.models.system import System, candidate_index, clip_events, query_atoms

from .metadata import BaselineMetadata

if TYPE_CHECKING:
    import torch


METADATA = BaselineMetadata(name="oracle", reads="the annotations", short=2,
                            shows="the relevance function itself: 100 % on every task, or the benchmark is wrong")

SCORES = {YES: 1.0, AMBIGUOUS: 0.5, NO: 0.0}    # a verdict's score: an ambiguous clip between the true and the false


class Oracle(System):
    name = "oracle"

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        import torch

        query_ids, clip_ids = list(data.queries["query_id"]), list(data.corpus["clip_id"])
        judged = judge_corpus(zip(query_ids, query_atoms(data.queries)), list(zip(clip_ids, clip_events(data.corpus))))
        row, column = {q: i for i, q in enumerate(query_ids)}, {c: j for j, c in enumerate(clip_ids)}
        scores = torch.zeros(len(query_ids), len(clip_ids))
        for (query_id, clip_id), verdict in judged.items():
            scores[row[query_id], column[clip_id]] = SCORES[verdict]
        return scores.to(device)

    def group_similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        """Each query's candidates judged alone (queries x candidates), not the whole corpus."""
        import torch

        events = clip_events(data.corpus)
        return torch.tensor([[SCORES[relevant(atoms, events[j])] for j in row]
                             for atoms, row in zip(query_atoms(data.queries), candidate_index(data))]).to(device)


def build(location: str = "", device: str = "cpu") -> Oracle:
    """the relevance function on the annotations (must score 100 %)."""
    return Oracle()
