"""What an acoustic condition is (`Condition`: a name and its checked spec, plain data), the error a broken one
raises, and the bounds that both its check (spec.py) and its application (chain.py, rooms.py) hold it to."""
from __future__ import annotations

from dataclasses import dataclass

MAX_RT60 = 0.4      # seconds: a reverberation tail shorter than the 0.5 s order and overlap margins
# dB: the gain each sound is mixed into a clip at, drawn by the planner (tasks/group.py); a condition must leave
# every sound audible at the quietest of them
MIX_GAIN_DB = (-6.0, 0.0)
COMPOSITIONS = ("Compose", "OneOf", "SomeOf", "AtSampleRate")
LATEST_VERSION = 2  # of how a spec's transforms compute (chain.transform_class); 1 where a spec names none


class ConditionError(ValueError):
    """A spec that breaks a rule; the message names the file, the place in it and the reason."""


@dataclass(frozen=True)
class Condition:
    """A named acoustic condition: its spec (what the fingerprint and the record hold) is plain data."""
    name: str
    spec: dict

    @property
    def clean(self) -> bool:
        return not self.spec["transforms"]

    @property
    def version(self) -> int:
        """Which computation of its transforms makes its audio: a changed waveform is a new version."""
        return self.spec.get("version", 1)

    @property
    def description(self) -> str:
        return self.spec.get("description", "")
