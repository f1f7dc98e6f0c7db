"""Named presets of generate's options (`reasonaudio generate --profile NAME`): one entry each, so more can
follow. A profile sets defaults; an option given on the command line (or to `GenerateConfig.from_profile`)
wins."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Profile:
    description: str
    options: dict = field(default_factory=dict)     # GenerateConfig field -> value


PROFILES = {
    "paper": Profile(
        "the paper's synthetic set: 30 s clips of 2-8 sounds (lasts states N of 2, 5, 10, 15 or 20 s; the "
        "four-sound mix 'A for about N seconds, then B, and then C and D overlap', about 6 in 7 mix queries, as the "
        "paper's Mix task), queries in the paper's "
        "wording ('Find an audio clip that contains A and B, but does not contain C'), 1,000 queries over "
        "10,000 clips",
        {"clip_seconds": 30.0, "events_per_clip": (2, 8), "text_style": "paper", "queries_per_task": 200,
         "candidates": 10, "shape_weights": (("lasts-before-overlap", 30.0),)}),   # the paper's Mix: ~6 in 7
}
