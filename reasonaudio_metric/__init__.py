"""ReasonAudio metric: `functional.score` is the core; `reasonaudio_metric.py` is the evaluate module."""
from .functional import CORPUS_METRICS, GROUP_METRICS, score

__all__ = ["score", "GROUP_METRICS", "CORPUS_METRICS"]
