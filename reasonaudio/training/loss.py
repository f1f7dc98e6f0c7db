"""The contrastive objective of `reasonaudio train`.

InfoNCE with in-batch negatives, in both directions: each text against every positive clip of the
batch (its own is the target), and each positive clip against every text. With hard negatives (the
CompA-style term), each text's row also holds every hard-negative clip of the batch: its own minimal
pair — the clip that differs from its positive only in the tested attribute — and the other queries'
ones as ordinary negatives. Hard negatives enter the text-to-audio softmax with the same weight as any
other clip (weight 1); they never appear as targets, and the audio-to-text direction uses positives
only (a hard negative has no text of its own in the batch).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def info_nce(texts: torch.Tensor, positives: torch.Tensor, negatives: torch.Tensor | None,
             temperature: torch.Tensor) -> torch.Tensor:
    """Mean of the text-to-audio and audio-to-text cross-entropies; inputs are (batch x width) embeddings
    (normalised here), `negatives` the batch's hard negatives or None."""
    texts, positives = F.normalize(texts, dim=-1), F.normalize(positives, dim=-1)
    clips = positives if negatives is None else torch.cat([positives, F.normalize(negatives, dim=-1)])
    targets = torch.arange(len(texts), device=texts.device)
    text_to_audio = F.cross_entropy(texts @ clips.T / temperature, targets)
    audio_to_text = F.cross_entropy(positives @ texts.T / temperature, targets)
    return (text_to_audio + audio_to_text) / 2
