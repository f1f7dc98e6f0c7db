"""ReasonAudio metric: `functional.score` is the core; `reasonaudio_metric.py` is the evaluate module."""
from .functional import score

__all__ = ["score"]
