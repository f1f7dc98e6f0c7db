"""`least-busy`: the least busy candidate that holds the query's sounds. A clip scores the number of sounds the
query mentions that it contains, less 0.001 per event it holds (`?by=events`, the default) or per sound it holds
that the query does not mention (`?by=unnamed`, the recognition baseline's own tie-break). Where positives are
quieter or busier than their negatives, because recordings that answer a query cleanly are (a natural build),
this finds them: it is held to the named sounds' count tie (the named sounds counted alone, ties by their
expectation), in both directions (`reasonaudio baselines`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from reasonaudio.models.system import System, clip_events, query_atoms

from .annotations import mentioned_labels
from .counting import count_scores
from .metadata import BaselineMetadata

if TYPE_CHECKING:
    import torch

BUSY_WEIGHT = 0.001   # per event or unnamed sound: below any difference in named sounds, only breaks ties
BY = ("events", "unnamed")

METADATA = BaselineMetadata(
    name="least-busy", reads="the named sounds", held_to="the named sounds' count tie",
    flag="how busy a candidate is (events, other sounds) finds the positive among those holding the named sounds",
    shows="the named sounds a clip holds, then the fewest events: whether busyness tells the positive")


class LeastBusy(System):
    def __init__(self, by: str):
        self.by, self.name = by, "least-busy" if by == "events" else f"least-busy:?by={by}"

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        import torch

        mentioned = [mentioned_labels(atoms) for atoms in query_atoms(data.queries)]
        events = clip_events(data.corpus)
        found = count_scores(mentioned, [{event.label for event in clip} for clip in events], device)
        if self.by == "events":
            busy = torch.tensor([float(len(clip)) for clip in events], dtype=torch.float64, device=found.device)[None, :]
        else:
            busy = torch.tensor([float(len({e.label for e in clip})) for clip in events], dtype=torch.float64,
                                device=found.device)[None, :] - found
        return found - BUSY_WEIGHT * busy


def build(location: str = "", device: str = "cpu", by: str = "events") -> LeastBusy:
    """the named sounds a clip holds, then the fewest events (?by=unnamed: the fewest other sounds): busyness."""
    if by not in BY:
        raise ValueError(f"least-busy: by must be one of {', '.join(BY)}, got {by!r}")
    return LeastBusy(by)
