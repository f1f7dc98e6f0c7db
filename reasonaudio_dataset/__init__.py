"""What makes a generated ReasonAudio folder a Hugging Face dataset: schema, card, loading helpers.

`ContrastiveTriplets` and `StreamingTriplets` (need torch) live in `training.triplets`. The
names below are imported on first use, so that light submodules (`splits`, `identity`) and the CLI's
parser do not pay for `datasets`."""
from importlib import import_module

_WHERE = {"load_reasonaudio": "loading", "decode_audio": "loading", "ReasonAudioSplit": "loading",
          "stream_reasonaudio": "streaming", "collate_reasonaudio": "streaming", "StreamedSplit": "streaming"}
__all__ = list(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'reasonaudio_dataset' has no attribute {name!r}")
    return getattr(import_module(f".{_WHERE[name]}", __name__), name)
