"""A cheap encoder for `bench/cost_curve.py` (`--model python:cost_models:clip_statistics`): it reads every
clip's samples, as any audio model must, and costs next to nothing beyond that, so the stage measures the
evaluation machinery (decoding, batching, scoring, reports) rather than a network."""
import numpy as np


class ClipStatistics:
    sampling_rate = 16000

    def encode_text(self, texts):
        return np.array([[len(text), text.count(","), text.count(" ") + 1] for text in texts], np.float32)

    def encode_audio(self, clips):
        return np.array([[np.abs(clip).mean(), clip.std(), np.abs(clip).max()] for clip in clips], np.float32)


def clip_statistics() -> ClipStatistics:
    return ClipStatistics()
