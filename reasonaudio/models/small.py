"""`small`: a compact audio-text model the project defines, trainable on 2 CPU cores in minutes.

Audio: log-mel frames (64 bands, 20 ms hop at 16 kHz) -> two 1-D conv blocks over time (bands as
channels), each halving time -> three residual dilated conv blocks over the 80 ms steps (each step sees
about 2.6 s of audio) -> a timeline: the steps of each fifth of the clip averaged and projected, the five
parts concatenated in order, so the embedding keeps *when* each sound plays (a text vector that weighs
the early parts for one sound and the late parts for another prefers "A then B"). An event head reads
the same steps: which sound classes play in each 80 ms (trained on the train split's event annotations,
it teaches recognition and timing; never used to score).
Text: words of the query (a vocabulary built from the train split's texts) -> a two-layer transformer
with learned positions, so "A then B" and "B then A" differ -> mean pooling -> a projection onto the
timeline's space.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .files import SavedModel

WORD = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")
SPECIAL = ("<pad>", "<unk>")


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


@dataclass
class SmallConfig:
    vocabulary: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)      # sound classes of the event head (none: no head)
    sampling_rate: int = 16000
    n_fft: int = 512
    hop: int = 320
    n_mels: int = 64
    width: int = 128
    heads: int = 4
    layers: int = 2
    max_words: int = 48
    segments: int = 5         # the audio embedding: one part per 1/segments of the clip, in order
    segment_width: int = 64
    dropout: float = 0.1      # the text transformer's (`--model small:?dropout=0`: none, every step deterministic)


class LogMel(nn.Module):
    """Log-mel frames (batch x mels x frames) from waveforms, with transformers' slaney mel filters."""

    def __init__(self, config: SmallConfig):
        super().__init__()
        from transformers.audio_utils import mel_filter_bank   # the `models` extra: imported on use

        filters = mel_filter_bank(num_frequency_bins=config.n_fft // 2 + 1, num_mel_filters=config.n_mels,
                                  min_frequency=20.0, max_frequency=config.sampling_rate / 2,
                                  sampling_rate=config.sampling_rate, norm="slaney", mel_scale="slaney")
        self.register_buffer("filters", torch.tensor(filters.T, dtype=torch.float32), persistent=False)
        self.register_buffer("window", torch.hann_window(config.n_fft), persistent=False)
        self.n_fft, self.hop = config.n_fft, config.hop

    def forward(self, waves: torch.Tensor) -> torch.Tensor:
        spectrum = torch.stft(waves, self.n_fft, self.hop, window=self.window, return_complex=True).abs() ** 2
        return torch.log(self.filters @ spectrum + 1e-6)


def _transformer(width: int, heads: int, layers: int, dropout: float) -> nn.TransformerEncoder:
    layer = nn.TransformerEncoderLayer(width, heads, dim_feedforward=2 * width, dropout=dropout, batch_first=True,
                                       norm_first=True)
    return nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


class SmallAudioText(SavedModel, nn.Module):
    kind = "small"
    config_class = SmallConfig

    def __init__(self, config: SmallConfig):
        super().__init__()
        self.config, self.sampling_rate = config, config.sampling_rate
        self.index = {word: i for i, word in enumerate(config.vocabulary)}
        width = config.width
        self.mel = LogMel(config)
        self.convolutions = nn.Sequential(      # over time, mel bands as channels: cheap, and time is kept
            nn.Conv1d(config.n_mels, width, 5, padding=2), nn.BatchNorm1d(width), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(width, width, 5, padding=2), nn.BatchNorm1d(width), nn.ReLU(), nn.MaxPool1d(2))
        self.audio_context = nn.ModuleList(   # dilated convs: each 80 ms step sees ~2.6 s, cheaply on CPU
            nn.Sequential(nn.Conv1d(width, width, 3, padding=d, dilation=d), nn.BatchNorm1d(width), nn.ReLU())
            for d in (2, 4, 8))
        self.segment_norm = nn.LayerNorm(width)
        self.audio_projection = nn.Linear(width, config.segment_width)
        self.event_head = nn.Linear(width, len(config.labels)) if config.labels else None
        self.embedding = nn.Embedding(len(config.vocabulary), width, padding_idx=0)
        self.text_positions = nn.Parameter(torch.randn(config.max_words, width) * 0.02)
        self.text_context = _transformer(width, config.heads, config.layers, config.dropout)
        self.text_projection = nn.Linear(width, config.segments * config.segment_width)

    @classmethod
    def create(cls, texts: list[str], labels: list[str] = (), sampling_rate: int = 16000,
               **options) -> "SmallAudioText":
        """A new model whose vocabulary holds every word of `texts` (the train split's queries), with an
        event head over `labels` (the train split's sound classes) when given; `options` set other
        `SmallConfig` fields."""
        vocabulary = list(SPECIAL) + sorted({word for text in texts for word in words(text)})
        return cls(SmallConfig(vocabulary=vocabulary, labels=sorted(labels), sampling_rate=sampling_rate, **options))

    @property
    def device(self) -> torch.device:
        return self.text_projection.weight.device

    def audio_steps(self, arrays) -> torch.Tensor:
        """(batch x steps x width): the audio in context, one vector per 80 ms."""
        waves = torch.stack([torch.as_tensor(np.asarray(a), dtype=torch.float32) for a in arrays]).to(self.device)
        mel = self.mel(waves)
        mel = (mel - mel.mean(dim=(1, 2), keepdim=True)) / (mel.std(dim=(1, 2), keepdim=True) + 1e-5)
        steps = self.convolutions(mel)                                   # batch x width x frames/4 (80 ms)
        for block in self.audio_context:
            steps = steps + block(steps)
        return steps.transpose(1, 2)

    def embed_steps(self, steps: torch.Tensor) -> torch.Tensor:
        """The clip's timeline: the steps of each of `segments` equal stretches averaged and projected, in order."""
        segments = F.adaptive_avg_pool1d(steps.transpose(1, 2), self.config.segments).transpose(1, 2)
        return self.audio_projection(self.segment_norm(segments)).flatten(1)

    def encode_audio(self, arrays) -> torch.Tensor:
        return self.embed_steps(self.audio_steps(arrays))

    def encode_text(self, texts) -> torch.Tensor:
        ids = [[self.index.get(w, 1) for w in words(t)][:self.config.max_words] or [1] for t in texts]
        tokens = torch.zeros(len(ids), max(map(len, ids)), dtype=torch.long)
        for row, sequence in enumerate(ids):
            tokens[row, :len(sequence)] = torch.tensor(sequence)
        tokens, padding = tokens.to(self.device), (tokens == 0).to(self.device)
        steps = self.text_context(self.embedding(tokens) + self.text_positions[:tokens.shape[1]],
                                  src_key_padding_mask=padding)
        kept = (~padding).unsqueeze(-1).float()
        return self.text_projection((steps * kept).sum(1) / kept.sum(1))
