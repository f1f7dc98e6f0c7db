"""A small deterministic text-audio encoder for tests: `python:tests.toy_encoder:build` (from the repository root).

Texts: a sum of word vectors seeded by each word's CRC32. Audio: log energy in 8 frequency bands of
each of 10 time frames, projected by a fixed random matrix. Continuous values, so no two clips tie."""
import zlib

import numpy as np

WIDTH = 32
PROJECTION = np.random.default_rng(7).normal(size=(80, WIDTH))


class ToyEncoder:
    def __init__(self, sampling_rate=16000, keyed=True):
        self.sampling_rate = sampling_rate
        if keyed:
            self.cache_key = f"toy-{sampling_rate}"     # what the embedding cache keys this model on
        self.calls = {"text": 0, "audio": 0}

    def encode_text(self, texts):
        self.calls["text"] += len(texts)
        return np.array([sum(np.random.default_rng(zlib.crc32(word.encode())).normal(size=WIDTH)
                             for word in text.lower().split()) for text in texts])

    def encode_audio(self, arrays):
        self.calls["audio"] += len(arrays)
        features = []
        for array in arrays:
            frames = np.array_split(np.asarray(array, np.float64), 10)
            bands = [np.array_split(np.abs(np.fft.rfft(frame)) ** 2, 8) for frame in frames]
            features.append(np.log([[band.sum() + 1e-9 for band in frame] for frame in bands]).ravel())
        return np.array(features) @ PROJECTION


def build(sampling_rate="16000", keyed="yes"):
    return ToyEncoder(int(sampling_rate), keyed == "yes")
