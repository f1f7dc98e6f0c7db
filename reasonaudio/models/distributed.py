"""Devices and process groups, for training and evaluation alike: a device torch can use here (`check_device`),
the process group a launcher (torchrun, accelerate launch) describes (`init_distributed`, `distributed`,
`close_distributed`), and what data-parallel training (`torchrun ... -m reasonaudio train`) needs beyond
DistributedDataParallel, so that N processes sharing a global batch take the steps one process takes on it
(training/loop.py):

* `gathered`: every rank's embeddings, with the gradient flowing back to each rank's own (InfoNCE compares
  each text with the whole global batch's clips, not only its rank's);
* `global_batch_norm`: batch normalisation over the global batch. PyTorch's SyncBatchNorm runs on GPUs only;
  this one sums each rank's statistics with one all-reduce that carries gradients, on any backend (gloo too).
"""
from __future__ import annotations

import os

import torch
from torch import nn


def check_device(device: str) -> None:
    """A device torch can use here: a missing GPU is one line before any model loads, not a crash mid-run."""
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"unknown device {device!r}; use cpu, cuda, cuda:1, mps, ...") from None
    if parsed.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r}: CUDA is not available (torch.cuda.is_available() is False); use cpu")
    if parsed.type == "cuda" and (parsed.index or 0) >= torch.cuda.device_count():
        raise ValueError(f"device {device!r}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    if parsed.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"device {device!r}: MPS is not available; use cpu")


def init_distributed(device: str) -> str:
    """Join the process group a launcher (torchrun, accelerate launch) describes in the environment: gloo
    on CPU, nccl on CUDA, each rank on its own GPU (LOCAL_RANK). Returns the device this rank uses."""
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1 or torch.distributed.is_initialized():
        return device
    cuda = torch.device(device).type == "cuda"
    if cuda:   # one GPU per rank; a launcher that gives each process one visible GPU makes that cuda:0
        device = f"cuda:{int(os.environ.get('LOCAL_RANK', '0')) % torch.cuda.device_count()}"
        torch.cuda.set_device(device)
    torch.distributed.init_process_group("nccl" if cuda else "gloo")
    return device


def distributed() -> tuple[int, int]:
    """(rank, world size) of torch.distributed's process group, else (0, 1)."""
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        return torch.distributed.get_rank(), torch.distributed.get_world_size()
    return 0, 1


def close_distributed() -> None:
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()


def gathered(tensor: torch.Tensor, world: int) -> torch.Tensor:
    """Every rank's `tensor`, concatenated in rank order, with the gradient flowing back to each rank's own."""
    if world == 1:
        return tensor
    import torch.distributed.nn.functional as distributed_nn   # on use: a torch built without distributed lacks it

    return torch.cat(distributed_nn.all_gather(tensor))


class GlobalBatchNorm1d(nn.BatchNorm1d):
    """BatchNorm1d whose training statistics are those of the global batch (every rank's share of it)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or not torch.distributed.is_initialized() or torch.distributed.get_world_size() == 1:
            return super().forward(x)
        import torch.distributed.nn.functional as distributed_nn   # on use: a torch built without distributed lacks it

        dims = [0] + list(range(2, x.dim()))
        count = torch.tensor([x.numel() / x.shape[1]], dtype=x.dtype, device=x.device)
        totals = distributed_nn.all_reduce(torch.cat([x.sum(dims), (x * x).sum(dims), count]))
        channels, number = x.shape[1], totals[-1]
        mean = totals[:channels] / number
        variance = totals[channels:2 * channels] / number - mean * mean
        if self.track_running_stats:
            with torch.no_grad():
                self.num_batches_tracked.add_(1)
                self.running_mean.lerp_(mean.detach(), self.momentum)
                self.running_var.lerp_(variance.detach() * number / (number - 1), self.momentum)
        shape = [1, channels] + [1] * (x.dim() - 2)
        normalised = (x - mean.view(shape)) / torch.sqrt(variance.view(shape) + self.eps)
        return normalised * self.weight.view(shape) + self.bias.view(shape) if self.affine else normalised


def global_batch_norm(module: nn.Module) -> nn.Module:
    """`module` with every BatchNorm1d made a GlobalBatchNorm1d (the same parameters and running statistics)."""
    for name, child in module.named_children():
        if type(child) is nn.BatchNorm1d:
            replacement = GlobalBatchNorm1d(child.num_features, child.eps, child.momentum, child.affine,
                                            child.track_running_stats)
            replacement.load_state_dict(child.state_dict())
            setattr(module, name, replacement.to(next(child.buffers()).device))
        else:
            global_batch_norm(child)
    return module
