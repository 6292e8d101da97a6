"""Data-parallel training on the lazygen device, launched with torchrun.

The gradients are averaged across processes by lazygen's all_reduce op, traced into each step's
graph like every other op, over PyTorch's Gloo (runtime/pytorch/distributed.cpp, Note [Gloo for
the PyTorch device]); every collective is checked against the other ranks before it moves data
(docs/distributed.md)::

    import lazygen_torch
    import lazygen_torch.distributed as ldist

    ldist.init()                                       # torchrun's RANK, WORLD_SIZE, MASTER_*
    model = ldist.DistributedDataParallel(Net().to(lazygen_torch.device()))
    sampler = torch.utils.data.distributed.DistributedSampler(
        dataset, num_replicas=ldist.world_size(), rank=ldist.rank())
    for data, target in loader:
        ...
        loss.backward()
        model.all_reduce_gradients()                   # part of the step's graph
        optimizer.step()
        lazygen_torch.mark_step()
    ldist.finalize()

torch.nn.parallel.DistributedDataParallel itself cannot wrap device tensors (torch.distributed's
Gloo group takes CPU tensors only); DistributedDataParallel here is the lazygen equivalent, with
an explicit all_reduce_gradients() call in place of autograd hooks.
"""
import torch

from . import _ops

__all__ = ["init", "finalize", "is_initialized", "rank", "world_size", "all_reduce",
           "all_gather", "broadcast", "DistributedDataParallel"]


def init(timeout=300.0):
    """Joins the job torchrun started (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT).

    A collective that some rank does not join within `timeout` seconds raises."""
    _ops.distributed_init(float(timeout))


def finalize():
    """Waits for the other ranks and leaves the job (a no-op when not initialized)."""
    _ops.distributed_finalize()


def is_initialized():
    return _ops.distributed_is_initialized()


def rank():
    return _ops.distributed_rank()


def world_size():
    return _ops.distributed_world_size()


def all_reduce(tensor, op="sum"):
    """The sum ("sum") or mean ("mean") of `tensor` over the ranks, as a new tensor.

    On the lazygen device it is traced (it runs when the step's graph does); on the CPU it runs
    now. Not differentiable here: call it under torch.no_grad()."""
    return _ops.all_reduce(tensor, op)


def all_gather(tensor):
    """Every rank's `tensor` (all of one shape) concatenated along dim 0, in rank order."""
    return _ops.all_gather(tensor)


def broadcast(tensor, src=0):
    """Rank `src`'s `tensor`, on every rank."""
    return _ops.broadcast(tensor, src)


class DistributedDataParallel(torch.nn.Module):
    """Wraps a module on the lazygen device for data-parallel training.

    Construction copies rank 0's parameters and buffers to every rank. Call
    all_reduce_gradients() after backward and before the optimizer's step, on every rank: it
    replaces each gradient by its mean over the ranks, in buckets of `bucket_cap_mb` (one
    all-reduce each, Note [Gradient buckets])."""

    def __init__(self, module, bucket_cap_mb=25):
        super().__init__()
        self.module = module
        self.bucket_bytes = int(bucket_cap_mb * 2**20)
        tensors = [p for p in module.parameters()] + [b for b in module.buffers()]
        _ops.broadcast_parameters([t.detach() for t in tensors])

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def all_reduce_gradients(self):
        grads = []
        for name, p in self.module.named_parameters():
            if not p.requires_grad:
                continue
            if p.grad is None:
                raise RuntimeError(
                    f"DistributedDataParallel: parameter '{name}' has no gradient on rank "
                    f"{rank()}; every parameter that requires grad must take part in the loss "
                    "on every rank (or be frozen with requires_grad_(False))")
            grads.append(p.grad)
        _ops.all_reduce_gradients(grads, self.bucket_bytes)
