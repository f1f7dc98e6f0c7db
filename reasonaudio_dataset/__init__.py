"""What makes a generated ReasonAudio folder a Hugging Face dataset: schema, card, loading helpers.

`ContrastiveTriplets` (needs torch) lives in `reasonaudio_dataset.training`."""
from .loading import ReasonAudioSplit, decode_audio, load_reasonaudio

__all__ = ["load_reasonaudio", "decode_audio", "ReasonAudioSplit"]
