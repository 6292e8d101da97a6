"""One rank of test_distributed.py's torchrun job: the tutorial's CNN (dropout off) trained
data-parallel on the lazygen device, then checked.

    python3 -m torch.distributed.run --nproc_per_node N tests/pytorch/ddp_worker.py [--steps S]

Each rank seeds its own initialization differently, so equal results also show that
DistributedDataParallel broadcast rank 0's parameters. Each step takes a global batch of 32
(random, equal on every rank), gives each rank its rows, all-reduces the gradients inside the
step's graph and takes an SGD step (momentum 0.9). At the end the ranks' parameters must be
bitwise equal (all_gather), and rank 0 trains the same model alone on the global batches, which
they must equal within float32 tolerance for reordered sums; nothing may run on the CPU
fallback. Prints "OK ..." on rank 0 and exits 0, or raises.
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

import lazygen_torch
import lazygen_torch.distributed as ldist

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
from train_tutorial import Net  # noqa: E402

BATCH = 32


def batch(step):
    g = torch.Generator().manual_seed(1000 + step)
    return torch.randn(BATCH, 1, 28, 28, generator=g), torch.randint(0, 10, (BATCH,), generator=g)


def train(model, steps, share):
    dev = lazygen_torch.device()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for step in range(steps):
        x, y = batch(step)
        x, y = share(x), share(y)
        opt.zero_grad(set_to_none=True)
        F.nll_loss(model(x.to(dev)), y.to(dev)).backward()
        if isinstance(model, ldist.DistributedDataParallel):
            model.all_reduce_gradients()
        opt.step()
        lazygen_torch.mark_step()
    return torch.cat([p.detach().cpu().reshape(-1) for p in model.parameters()])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=10)
    args = ap.parse_args()
    ldist.init(timeout=120)
    rank, world = ldist.rank(), ldist.world_size()
    part = BATCH // world
    torch.manual_seed(1 + rank)  # rank 0's initialization must win
    model = ldist.DistributedDataParallel(Net().to(lazygen_torch.device()).eval())
    lazygen_torch.metrics.reset()
    mine = train(model, args.steps, lambda t: t[rank * part:(rank + 1) * part])
    gathered = ldist.all_gather(mine).reshape(world, -1)
    fallback = lazygen_torch.metrics.fallback_counters()
    assert not fallback, f"rank {rank}: ops ran on the CPU fallback: {fallback}"
    if rank == 0:
        for r in range(1, world):
            assert torch.equal(gathered[r], gathered[0]), f"rank {r}'s parameters differ from rank 0's"
        torch.manual_seed(1)
        alone = train(Net().to(lazygen_torch.device()).eval(), args.steps, lambda t: t)
        err = ((mine - alone).abs() / (1e-3 + alone.abs())).max().item()
        # float32 sums in another order (shards against the whole batch), grown over the steps:
        # about 1e-6 with im2col's convolutions; 1.6e-3 (Intel Xeon, 10 steps) with oneDNN's, whose
        # weight gradients round like PyTorch's (docs/performance.md, conv-accuracy).
        assert err <= 5e-3, f"data parallel vs one process: max relative difference {err:.3g}"
        print(f"OK {world} ranks, {args.steps} steps: parameters equal on every rank; vs one "
              f"process max |diff| / (1e-3 + |p|) = {err:.3g}; no fallback", flush=True)
    ldist.finalize()


if __name__ == "__main__":
    main()
