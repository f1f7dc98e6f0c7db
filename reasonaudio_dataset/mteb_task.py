"""An example MTEB task over a ReasonAudio folder or Hub repository (needs `pip install mteb`).

The `queries`, `corpus` and `qrels` configs follow MTEB's retrieval convention (`id`, `text` /
`audio`, `query-id`, `corpus-id`, `score`), so MTEB's own loader reads them unchanged:

    import mteb
    from reasonaudio_dataset.mteb_task import reasonaudio_task
    results = mteb.evaluate(model, tasks=[reasonaudio_task("org/reasonaudio")])

MTEB scores with pytrec_eval, where excluded pairs (score -1) stay in the ranking as non-relevant
and ties are broken by order; `reasonaudio_metric` drops them and counts ties exactly.
"""
from __future__ import annotations

from mteb.abstasks.retrieval import AbsTaskRetrieval
from mteb.abstasks.task_metadata import TaskMetadata

CITATION = r"""
@article{reasonaudio2026,
  title = {ReasonAudio: A Benchmark for Reasoning-Intensive Text-to-Audio Retrieval},
  journal = {arXiv preprint arXiv:2605.03361},
  year = {2026},
}
"""


def reasonaudio_task(path: str, revision: str = "main", split: str = "test") -> AbsTaskRetrieval:
    """A text-to-audio retrieval task over the whole corpus of one split (a local folder works too)."""

    class ReasonAudioT2ARetrieval(AbsTaskRetrieval):
        metadata = TaskMetadata(
            name="ReasonAudioT2ARetrieval",
            description="Reasoning-intensive text-to-audio retrieval: negation, order, overlap, duration and "
                        "their mix, over synthesized clips with exact qrels.",
            reference="https://arxiv.org/abs/2605.03361",
            dataset={"path": path, "revision": revision},
            type="Any2AnyRetrieval",
            category="t2a",
            modalities=["text", "audio"],
            eval_splits=[split],
            eval_langs=["eng-Latn"],
            main_score="ndcg_at_10",
            annotations_creators="derived",
            sample_creation="created",
            bibtex_citation=CITATION,
        )

    return ReasonAudioT2ARetrieval()
