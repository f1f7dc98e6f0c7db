"""Scoring models on a split: systems (models and baselines), the runner, reports, comparisons; what a split,
a system and its encoding (sharded, cached) are is the models layer's (models/scoring.py, models/encoding.py)."""


def __getattr__(name: str):
    """`reasonaudio.evaluation.save_embeddings` / `load_embeddings`, imported on first use (they need torch)."""
    if name in ("save_embeddings", "load_embeddings"):
        from .systems import embeddings_file   # torch: imported on first use

        return getattr(embeddings_file, name)
    raise AttributeError(f"module 'reasonaudio.evaluation' has no attribute {name!r}")


__all__ = ["save_embeddings", "load_embeddings"]
