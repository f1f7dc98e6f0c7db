"""Scoring models on a split: systems (models and baselines), encoding (sharded, cached), the runner, reports."""


def __getattr__(name: str):
    """`evaluation.save_embeddings` / `load_embeddings`, imported on first use (they need torch)."""
    if name in ("save_embeddings", "load_embeddings"):
        from .systems import embeddings_file

        return getattr(embeddings_file, name)
    raise AttributeError(f"module 'evaluation' has no attribute {name!r}")


__all__ = ["save_embeddings", "load_embeddings"]
