"""`timeline-rule`: ranks every candidate by one query-blind timeline statistic (default: span, first
onset to last offset). A rule this simple must score at chance on every task: where "pick the longest
span" finds the positive, the groups leave a shortcut open."""
from __future__ import annotations

from typing import TYPE_CHECKING

from reasonaudio.models.system import System, clip_events

from .annotations import TIMELINE_FEATURES, timeline_features
from .metadata import BaselineMetadata

if TYPE_CHECKING:
    import torch

METADATA = BaselineMetadata(
    name="timeline-rule", reads="nothing",
    shows="no query, the candidate with the longest span: whether one timeline statistic finds the positive")


class TimelineRule(System):
    def __init__(self, feature: str, sign: float):
        self.feature, self.sign = feature, sign
        self.name = f"timeline-rule:?feature={feature}" + ("&order=smallest" if sign < 0 else "")

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        import torch

        index = TIMELINE_FEATURES.index(self.feature)
        scores = [self.sign * timeline_features(events, seconds)[index]
                  for events, seconds in zip(clip_events(data.corpus), data.corpus["duration"])]
        return torch.tensor(scores, dtype=torch.float64)[None, :].expand(len(data.queries), -1).to(device)


def build(location: str = "", feature: str = "span", order: str = "largest", device: str = "cpu") -> TimelineRule:
    """the candidate with the largest (or ?order=smallest) timeline statistic: ?feature=span|silence|..."""
    if feature not in TIMELINE_FEATURES:
        raise ValueError(f"unknown timeline feature {feature!r}; choose from {', '.join(TIMELINE_FEATURES)}")
    if order not in ("largest", "smallest"):
        raise ValueError(f"order must be largest or smallest, got {order!r}")
    return TimelineRule(feature, 1.0 if order == "largest" else -1.0)
