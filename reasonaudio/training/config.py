"""What `train` is asked to do: its settings (light to import, so that the CLI's parser gives their defaults
without loading torch)."""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class TrainConfig:
    data: str
    out: str
    model: str = "small"
    hard_negatives: bool = True
    epochs: int = 5
    batch_size: int = 32
    lr: float = 1e-3
    device: str = "cpu"
    seed: int = 0
    augment: str | None = None
    event_weight: float | None = None  # the event head's loss weight (None: 1 for small, 0 for clap)
    workers: int = 0
    train_split: str = "train"
    validation_split: str = "validation"
    max_steps: int | None = None      # stop each epoch after this many steps (quick runs, tests)
    progress: bool = True

    def __post_init__(self):
        if self.event_weight is None:
            self.event_weight = 1.0 if self.kind == "small" else 0.0

    @property
    def kind(self) -> str:
        """The model kind `model` names (`small:?dropout=0` is a small model)."""
        return self.model.partition(":")[0].partition("?")[0]

    def settings(self) -> dict:
        """What decides the trained model (a resumed run must share it); not where or how visibly it runs."""
        return {k: v for k, v in asdict(self).items() if k not in ("out", "device", "workers", "progress")}
