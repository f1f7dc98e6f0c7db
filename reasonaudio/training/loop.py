"""The training loop of `reasonaudio train`: plain PyTorch over `ContrastiveTriplets`.

Each epoch: the train split's triplets in a seeded shuffle (new hard negatives per epoch through
`set_epoch`), InfoNCE (loss.py) with AdamW (learning rate warmed up over the first tenth of the run,
then a cosine down to zero) and a learned temperature (plus, for the small model,
`event_weight` times its event head's loss, models/events.py), then group accuracy on the
validation split through `reasonaudio_metric` (models/scoring.py). Epochs are numbered from 1, in the log and in
`training.json` alike. The best epoch's model is written to `out` (its files, then
`reasonaudio_model.json` last); the full state (model, optimiser, schedule, temperature, history, the data's
build identity) after every epoch goes to `out/.resume/state.pt`, so a killed run started again with the same
command on the same data continues
from its last finished epoch (or from the start, or, killed after its last epoch, writes the
`training.json` it missed) and, on CPU, ends exactly where an uninterrupted run would (every epoch's
randomness is seeded from (seed, epoch); GPU kernels are not all deterministic). Every file is written
whole or not at all (models/files.py), and a step whose loss or gradient is not finite stops the run before
it is taken, so what is on disk is always the last good state.

The `detector` kind trains otherwise on the same loop: every clip of the train split once an epoch,
binary cross-entropy of its frame activity against the clip's `events` (events.py); after each epoch its
decoding is chosen on the validation split (models/hearing.py) and the epoch scores the `detector:` system's group accuracy
there, with DCASE's detection metrics beside it in the history. A model whose audio side is frozen
(`dual`) hears each train clip once for the run (its `training_items`) and trains its parts at their own
rates (its `parameter_groups`).

Under `torchrun --nproc-per-node N` (gloo on CPU, nccl on GPU, one GPU per rank) the loop is data-parallel:
`--batch-size` stays the global batch, each rank takes its share of every global batch through a
`DistributedSampler` (its order, from (seed, epoch) through `set_epoch`, is the one process's order too),
the step runs inside `DistributedDataParallel` (gradients averaged over the ranks), InfoNCE compares each
text with the whole global batch's clips (embeddings gathered with their gradients) and batch normalisation
uses the global batch's statistics (models/distributed.py), so N processes take the steps one process
takes on the same global batch. Every rank validates the same weights; rank 0
alone writes the model, the state and the record, and a killed run resumes from them on any number of
processes.
"""
from __future__ import annotations

import itertools
import math
import shutil
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tqdm.auto import tqdm

from reasonaudio.models.distributed import check_device, distributed, gathered, global_batch_norm, init_distributed
from reasonaudio.models.files import read_torch, write_json, write_torch
from reasonaudio.models.hearing import choose_decoding
from reasonaudio.models.registry import KINDS, MODEL_FILE, create, save
from reasonaudio.models.scoring import EvalData, group_accuracy, system_of
from reasonaudio_dataset.folders import LOCK, check_results_folder
from reasonaudio_dataset.loading import load_table
from reasonaudio_metric.functional import MAX_BATCH, MAX_SEED, check_count

from .config import TrainConfig
from .events import ClipActivity, EventTargets
from .loss import info_nce
from .triplets import ContrastiveTriplets

RESUME = ".resume"


def _check(config: TrainConfig) -> None:
    for name, minimum, maximum in (("epochs", 1, 10_000), ("batch_size", 2, MAX_BATCH), ("seed", 0, MAX_SEED),
                                   ("workers", 0, 256)):
        check_count(f"--{name.replace('_', '-')}", getattr(config, name), minimum, maximum)
    if config.max_steps is not None:
        check_count("--max-steps", config.max_steps, 1)
    if not (isinstance(config.lr, float) and 0 < config.lr < 1):
        raise ValueError(f"--lr must be a number in (0, 1), got {config.lr!r}")
    if not 0 <= config.event_weight < math.inf:
        raise ValueError(f"--event-weight must be a number >= 0, got {config.event_weight!r}")
    if config.event_weight and config.kind != "small":
        raise ValueError("--event-weight: only the small model has an event head; use --event-weight 0")
    if config.model == "detector" and config.augment:
        raise ValueError("--augment: the detector trains on the clean clips (drop --augment)")
    check_device(config.device)
    check_results_folder(config.out, config.data)   # refuses an --out inside the corpus


def data_identity(config: TrainConfig) -> dict[str, str]:
    """The build each split trained on and validated on is (reasonaudio_dataset/identity.py): the --data path
    alone would let a run resume onto data regenerated there."""
    from reasonaudio_dataset.identity import build_identity

    return {split: build_identity(config.data, split)["id"] for split in (config.train_split, config.validation_split)}


def _prepare_out(out: Path, settings: dict, data: dict[str, str]) -> dict | None:
    """The resume state of an earlier run of these settings on this data (`data_identity`) in `out`, None for
    a fresh start (a new or empty folder, or one holding only the `.resume` of a run killed before its first
    save). A folder that holds anything else (another run's model, the user's files, a run on other data) is
    refused: nothing is overwritten."""
    state_path = out / RESUME / "state.pt"
    if state_path.is_file():
        state = read_torch(state_path, f"the run in {out} cannot resume from it: choose another --out (or delete "
                                       f"{out}) to train from the start")
        if not (isinstance(state, dict) and "epochs_done" in state and "model_config" in state):
            raise ValueError(f"--out {out} holds a run of an earlier version of reasonaudio train, which cannot be "
                             "resumed; choose another --out")
        if state["settings"] != settings:
            changed = sorted(k for k in settings if state["settings"].get(k) != settings[k])
            raise ValueError(f"--out {out} holds a run with other settings ({', '.join(changed)}); choose another "
                             "--out, or repeat that run's command to resume it")
        if state.get("data") != data:
            raise ValueError(f"--out {out} holds a run on other data: {settings['data']} is not the build that run "
                             f"trained on (build {state.get('data')}, now {data}; regenerated?); choose another --out "
                             "to train on it (nothing was written)")
        return state
    if out.exists() and any(path.name not in (RESUME, LOCK) for path in out.iterdir()):
        raise ValueError(f"--out {out} is not empty and holds no run to resume; choose a new folder (nothing was "
                         "written)")
    return None


def _write_model(model, out: Path, record: dict) -> None:
    """The best model into `out`, each file replaced whole; the record (its kind, epoch, score) last."""
    staging = out / RESUME / "best"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    save(model, staging, record)
    for path in sorted(staging.iterdir(), key=lambda p: p.name == MODEL_FILE):
        path.replace(out / path.name)


def write_record(out: Path, settings: dict, best: dict, history: list, main: bool = True) -> dict:
    """`training.json`, the run's last file (rank 0's): a run without it was cut off.

    Args:
        out: the run's folder.
        settings: the run's settings.
        best: the best epoch's figures.
        history: every epoch's loss and accuracy.
        main: whether this process writes (rank 0); the others only return the record.

    Returns:
        The record.
    """
    record = {"settings": settings, "best": best, "history": history}
    if main:
        write_json(record, out / "training.json")
    return record


def _divergence(config: TrainConfig, epoch: int, step: int, reason: str, best: dict, out: Path) -> ValueError:
    """The one-line error of a step that cannot be taken: where, the likely cause, and what is kept."""
    causes = "--lr or --event-weight" if config.event_weight else "--lr"
    kept = (f"the best model so far (epoch {best['epoch']}) and the state after epoch {epoch - 1}" if epoch > 1
            else "the state before the first step (no epoch finished, so no model yet)")
    return ValueError(f"training diverged at epoch {epoch}, step {step}: {reason}; {causes} is likely too high "
                      f"(--lr {config.lr}, --event-weight {config.event_weight}). The step was not taken: {out} keeps "
                      f"{kept}; train again with a lower value and another --out")


def _gradient_norm(parameters) -> torch.Tensor:
    return torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad) for p in parameters
                                                 if p.grad is not None]))


def validation_accuracy(model, data, batch_size: int) -> float:
    """Group accuracy (macro over tasks, the benchmark's headline) of `model` on a validation split."""
    return group_accuracy(system_of(model, "validation"), data, str(model.device), batch_size)


def _global_mean(value: torch.Tensor, world: int) -> float:
    """A rank's loss averaged over the ranks: the loss of the global batch (a local term, such as the event
    head's, differs between ranks)."""
    if world > 1:
        value = value.clone()
        torch.distributed.all_reduce(value)
        value /= world
    return value.item()


class TrainingStep(torch.nn.Module):
    """One step's loss as a module (the model and the temperature inside), so that DistributedDataParallel
    can wrap it: the models are called through several methods, not one `forward`."""

    def __init__(self, model, logit_scale, loss):
        super().__init__()
        self.model, self.logit_scale, self.loss = model, logit_scale, loss

    def forward(self, batch):
        return self.loss(batch)


def train(config: TrainConfig) -> dict:
    """Train, validate every epoch, keep the best; returns the record written beside the best model."""
    from transformers import get_cosine_schedule_with_warmup   # the `models` extra: imported on use

    _check(config)
    config = replace(config, device=init_distributed(config.device))
    rank, world = distributed()
    if config.batch_size % world:
        raise ValueError(f"--batch-size is the global batch and must be a multiple of the {world} processes, got "
                         f"{config.batch_size}")
    out, settings, data = Path(config.out), config.settings(), data_identity(config)
    state = _prepare_out(out, settings, data)
    if state is not None and state["epochs_done"] >= config.epochs:   # finished: the same command only writes
        return write_record(out, settings, state["best"], state["history"], rank == 0)   # what a kill may have cut
    texts, labels = [], []
    detector = config.model == "detector"
    if state is None:
        texts = load_table(config.data, "queries", config.train_split)["text"]
        if config.event_weight or detector:
            events = load_table(config.data, "corpus", config.train_split).select_columns(["events"])
            labels = sorted({event["label"] for row in events["events"] for event in row})
    torch.manual_seed(config.seed)
    model = create(config.model, texts, labels, config.device) if state is None else _restore_model(config, state)
    if world > 1:
        global_batch_norm(model)       # statistics of the global batch, as one process computes them
    logit_scale = torch.nn.Parameter(torch.tensor(math.log(1 / 0.07), device=model.device))  # 1 / temperature
    if detector:
        items = ClipActivity(config.data, config.train_split, model.sampling_rate, model.config.labels, model.hop)

        def step_loss(batch):
            return model.loss(*batch)
    else:
        items = ContrastiveTriplets(config.data, split=config.train_split, sampling_rate=model.sampling_rate,
                                    seed=config.seed, augment=config.augment, hard_negatives=config.hard_negatives)
        if config.event_weight:
            items = EventTargets(items, model.config.labels, model.config.hop)
        if hasattr(model, "training_items"):     # a frozen audio side: each clip heard once for the run
            items = model.training_items(items)

        def step_loss(batch):
            return _contrastive_loss(model, config, logit_scale, world, *batch)
    groups = (model.parameter_groups(config.lr) if hasattr(model, "parameter_groups") else
              [{"params": [p for p in model.parameters() if p.requires_grad]}])
    groups += [] if detector else [{"params": [logit_scale]}]
    parameters = [p for group in groups for p in group["params"]]
    optimizer = torch.optim.AdamW(groups, lr=config.lr, weight_decay=0.01)
    steps_per_epoch = min(math.ceil(len(items) / config.batch_size), config.max_steps or math.inf)
    total_steps = config.epochs * steps_per_epoch    # warm up over a tenth of the run, then a cosine down to zero
    schedule = get_cosine_schedule_with_warmup(optimizer, max(1, total_steps // 10), total_steps)
    history, best, done = [], {"accuracy": -1.0, "epoch": None}, 0
    if state is not None:
        logit_scale.data.copy_(state["logit_scale"])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        history, best, done = state["history"], state["best"], state["epochs_done"]
    validation = EvalData.load(config.data, config.validation_split)
    step = TrainingStep(model, logit_scale, step_loss)
    if world > 1:
        step = torch.nn.parallel.DistributedDataParallel(step, find_unused_parameters=True)
    sampler = torch.utils.data.DistributedSampler(items, num_replicas=world, rank=rank, shuffle=True, seed=config.seed)
    if rank == 0:
        out.mkdir(parents=True, exist_ok=True)
        (out / RESUME).mkdir(exist_ok=True)

    def save_state(epochs_done: int) -> None:
        if rank:
            return
        write_torch({"settings": settings, "data": data, "epochs_done": epochs_done, "history": history, "best": best,
                     "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                     "schedule": schedule.state_dict(),
                     "logit_scale": logit_scale.detach().clone(), "kind": model.kind,
                     "model_config": asdict(model.config) if hasattr(model, "from_state") else None},
                    out / RESUME / "state.pt")

    if state is None:   # before any step: a run killed in its first epoch resumes from here
        save_state(0)
    for epoch in range(done + 1, config.epochs + 1):
        draws = config.seed * 100_003 + epoch - 1    # the epoch's randomness, from (seed, epoch)
        torch.manual_seed(draws)
        np.random.seed(draws)   # CLAP's feature extractor crops long clips with it
        items.set_epoch(epoch - 1)
        sampler.set_epoch(epoch - 1)
        loader = torch.utils.data.DataLoader(items, batch_size=config.batch_size // world, sampler=sampler,
                                             num_workers=config.workers)
        model.train()
        losses = []
        steps = tqdm(itertools.islice(loader, steps_per_epoch), desc=f"epoch {epoch}/{config.epochs}",
                     unit="batch", disable=not config.progress or rank > 0, total=steps_per_epoch)
        for number, batch in enumerate(steps, 1):
            loss = step(batch)
            if not torch.isfinite(loss):
                raise _divergence(config, epoch, number, f"the loss is {loss.item()}", best, out)
            optimizer.zero_grad()
            loss.backward()
            if not torch.isfinite(_gradient_norm(parameters)):
                raise _divergence(config, epoch, number, f"the loss ({loss.item():.4g}) has a non-finite gradient",
                                  best, out)
            optimizer.step()
            schedule.step()
            losses.append(_global_mean(loss.detach(), world))
            steps.set_postfix(loss=f"{sum(losses) / len(losses):.3f}", best_val=f"{max(best['accuracy'], 0):.3f}")
        measured = validate_epoch(model, validation, config.batch_size)
        accuracy = measured.pop("accuracy")
        history.append({"epoch": epoch, "loss": sum(losses) / len(losses), "validation_accuracy": accuracy,
                        **measured})
        if config.progress and rank == 0:
            detection = (f", event F1 {100 * measured['detection']['event_f1']:.1f} %, segment F1 "
                         f"{100 * measured['detection']['segment_f1']:.1f} %" if detector else "")
            print(f"epoch {epoch}/{config.epochs}: loss {history[-1]['loss']:.4f}, validation group accuracy "
                  f"{100 * accuracy:.1f} %{detection}")
        if _rank(accuracy, measured) > _rank(best["accuracy"], best):
            best = {"accuracy": accuracy, "epoch": epoch, **measured}
            if rank == 0:
                _write_model(model, out, {"settings": settings, "best": best, "history": history})
        save_state(epoch)
    return write_record(out, settings, best, history, rank == 0)


def _contrastive_loss(model, config: TrainConfig, logit_scale, world: int, query_texts, *batch) -> torch.Tensor:
    """InfoNCE of a batch of (text, positive[, hard negative][, event targets...]) items, plus the event head's
    loss when it has one; under torchrun, of every rank's share of the global batch (`world` ranks)."""
    per_item = 2 if config.hard_negatives else 1       # clips per item
    clips = torch.cat(batch[:per_item])                # the positives, then the hard negatives if any
    if config.event_weight:
        audio_steps = model.audio_steps(list(clips.numpy()))
        audio = model.embed_steps(audio_steps)
        targets = torch.cat(batch[per_item:]).to(audio.device)
        events = F.binary_cross_entropy_with_logits(model.event_head(audio_steps), targets,
                                                    reduction="none").sum(-1).mean()   # per step: every class
    elif hasattr(model, "embed_heard"):       # the clips are already heard (models/dual.py)
        audio, events = model.embed_heard(clips), 0.0
    else:
        audio, events = model.encode_audio(list(clips.numpy())), 0.0
    positives = len(query_texts)
    return info_nce(gathered(model.encode_text(list(query_texts)), world), gathered(audio[:positives], world),
                    gathered(audio[positives:], world) if config.hard_negatives else None,
                    1 / logit_scale.exp().clamp(max=100)) + config.event_weight * events


def _rank(accuracy: float, measured: dict) -> tuple[float, float]:
    """How an epoch ranks: by validation group accuracy; a detector's ties (100 queries tie often) by its
    event-based F1."""
    return accuracy, measured.get("detection", {}).get("event_f1", 0.0)


def validate_epoch(model, validation, batch_size: int) -> dict:
    """The epoch's validation, which picks the best epoch: group accuracy; for a detector, with the decoding
    chosen on the validation split (set on the model) and the detection metrics it gives.

    Args:
        model: the model being trained.
        validation: the validation split (`EvalData`).
        batch_size: clips and texts encoded at once.

    Returns:
        {"accuracy": ...}, and a detector's detection metrics.
    """
    if model.kind == "detector":
        return choose_decoding(model, validation, batch_size)
    return {"accuracy": validation_accuracy(model, validation, batch_size)}


def _restore_model(config: TrainConfig, state: dict):
    """The model as the resumed run left it after its last finished epoch."""
    if state["model_config"] is not None:
        return KINDS[state["kind"]].from_state(state["model_config"], state["model"], config.device)
    model = create(config.model, [], device="cpu")
    model.load_state_dict(state["model"])
    return model.to(config.device)
