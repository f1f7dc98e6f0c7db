"""What makes a generated ReasonAudio folder a Hugging Face dataset: schema, card, loading helpers.

`ContrastiveTriplets` and `StreamingTriplets` (need torch) live in `reasonaudio_dataset.training`."""
from .loading import ReasonAudioSplit, decode_audio, load_reasonaudio
from .streaming import StreamedSplit, collate_reasonaudio, stream_reasonaudio

__all__ = ["load_reasonaudio", "decode_audio", "ReasonAudioSplit", "stream_reasonaudio", "collate_reasonaudio",
           "StreamedSplit"]
