#!/usr/bin/python3
"""The lazy-tensor tutorial's training program, run on lazygen's PyTorch device.

This is PyTorch's Lazy Tensor Core tutorial (torch/csrc/lazy/tutorial.md) with its device line
changed: its control-flow example (`add_two_maybe`), then its CNN trained with Adadelta (lr 1.0,
StepLR gamma 0.7, batch 64), `mark_step()` after each `optimizer.step()`, the loss logged every
`--log-interval` steps and the test accuracy after each epoch. The data is the real Fashion-MNIST
of Debian's dataset-fashion-mnist. `--device` picks where it runs, so the three can be compared:

    build/lazygen-python examples/train_tutorial.py                     # lazygen's device
    build/lazygen-python examples/train_tutorial.py --device cpu        # PyTorch eager
    build/lazygen-python examples/train_tutorial.py --device ltc        # LTC, TorchScript backend

Ops the device lacks would run on the CPU and be counted (`aten::<op>` in the closing summary).

`--distributed` trains data-parallel over the processes torchrun starts (lazygen_torch.distributed,
docs/distributed.md): each rank takes its share of every global batch of `--batch-size` through
PyTorch's DistributedSampler, the gradients are averaged inside the step's graph, and rank 0
prints::

    torchrun --redirects 1 --tee 1 --nproc_per_node 2 examples/train_tutorial.py --distributed

(`--redirects 1 --tee 1`: Debian's torchrun of PyTorch 1.13 cannot parse its default on Python
3.11.)
"""
import argparse
import gzip
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR

try:
    from tqdm import tqdm
except ImportError:  # the progress bar is optional (Debian: python3-tqdm)
    tqdm = None

DATA_DIR = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530  # Fashion-MNIST's training set


class Net(nn.Module):
    """The tutorial's model."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def add_two_maybe(t: torch.Tensor, maybe: torch.Tensor):
    """The tutorial's control-flow example: a branch on a tensor's value."""
    if maybe:
        return t + 2
    return t


class Device:
    """Where the program runs: the torch device, its mark_step and its metrics."""

    def __init__(self, name):
        self.name = name
        if name == "lazygen":
            import lazygen_torch
            self.lazy = lazygen_torch
            self.device = lazygen_torch.device()
        elif name == "ltc":
            import torch._lazy
            import torch._lazy.metrics
            import torch._lazy.ts_backend
            torch._lazy.ts_backend.init()
            self.lazy = torch._lazy
            self.device = torch.device("lazy")
        else:
            self.lazy = None
            self.device = torch.device("cpu")

    def mark_step(self):
        if self.lazy is not None:
            self.lazy.mark_step()

    def wait(self):
        if self.lazy is not None:
            self.lazy.wait_device_ops()

    def counters(self):
        """{name: value} of the device's counters, or {} for eager."""
        if self.lazy is None:
            return {}
        m = self.lazy.metrics
        return {n: m.counter_value(n) for n in m.counter_names()}


def read_idx(name):
    """An IDX file of unsigned bytes (the MNIST format) as a uint8 tensor."""
    with gzip.open(os.path.join(DATA_DIR, name), "rb") as f:
        raw = f.read()
    if raw[:3] != b"\x00\x00\x08":
        raise SystemExit(f"{name}: not an IDX file of unsigned bytes")
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    data = torch.frombuffer(bytearray(raw[4 + 4 * ndim:]), dtype=torch.uint8)
    return data.reshape(dims)


def fashion_mnist(train):
    """Fashion-MNIST as a TensorDataset of normalized 1x28x28 float images and int64 labels."""
    prefix = "train" if train else "t10k"
    if not os.path.isdir(DATA_DIR):
        raise SystemExit(f"{DATA_DIR} is missing: apt-get install dataset-fashion-mnist")
    images = read_idx(f"{prefix}-images-idx3-ubyte.gz").float().div_(255)
    images = images.sub_(MEAN).div_(STD).unsqueeze(1)
    labels = read_idx(f"{prefix}-labels-idx1-ubyte.gz").long()
    return torch.utils.data.TensorDataset(images, labels)


def progress(iterable, total, desc, enabled):
    if tqdm is None or not enabled:
        return iterable
    return tqdm(iterable, total=total, desc=desc, unit="step", leave=False, dynamic_ncols=True)


def train(args, model, dev, train_loader, optimizer, epoch, stats):
    model.train()
    sync_gradients = getattr(model, "all_reduce_gradients", None)  # data parallel
    steps = len(train_loader) if args.steps is None else min(args.steps, len(train_loader))
    bar = progress(train_loader, steps, f"epoch {epoch}", args.progress)
    start = time.perf_counter()
    for batch_idx, (data, target) in enumerate(bar):
        if batch_idx == steps:
            break
        data, target = data.to(dev.device), target.to(dev.device)
        optimizer.zero_grad(set_to_none=True)
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        if sync_gradients is not None:
            sync_gradients()
        optimizer.step()
        dev.mark_step()
        if batch_idx % args.log_interval == 0 and args.prints:
            value = loss.item()
            message = "Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}".format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), value)
            if bar is train_loader:
                print(message)
            else:
                bar.set_postfix(loss=f"{value:.4f}")
    dev.wait()
    stats["train_s"] += time.perf_counter() - start
    stats["train_steps"] += steps


def test(args, model, dev, test_loader):
    model.eval()
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(dev.device), target.to(dev.device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
            dev.mark_step()
    n = len(test_loader.dataset)
    if args.prints:
        print("Test set: Average loss: {:.4f}, Accuracy: {}/{} ({:.2f}%)".format(
            test_loss / n, correct, n, 100. * correct / n))
    return correct / n


def control_flow_example(dev):
    """The tutorial's add_two_maybe on both branches, checked against eager."""
    t = torch.ones(1)
    for maybe in (torch.BoolTensor([0]), torch.BoolTensor([1])):
        result = add_two_maybe(t.to(dev.device), maybe.to(dev.device))
        assert torch.equal(result.cpu(), add_two_maybe(t, maybe)), "add_two_maybe differs"
    print("add_two_maybe: both branches give the eager answers")


def summary(dev, stats, accuracy, show_report):
    steps = max(stats["train_steps"], 1)
    print(f"\n== summary ({dev.name}): {stats['train_steps']} training steps, "
          f"{1000 * stats['train_s'] / steps:.1f} ms per step, final accuracy {100 * accuracy:.2f}%")
    counters = dev.counters()
    if not counters:
        return
    fallbacks = {n: v for n, v in counters.items() if n.startswith("aten::")}
    compiles = counters.get("computation_cache.miss", counters.get("UncachedCompile"))
    print(f"graphs compiled: {compiles}; ops run on the CPU fallback: {fallbacks or 'none'}")
    if dev.name == "lazygen" and show_report:
        print(dev.lazy.metrics.metrics_report())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=("lazygen", "cpu", "ltc"), default="lazygen")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=None, help="training steps per epoch (default: all)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--test-batch-size", type=int, default=1000)
    ap.add_argument("--lr", type=float, default=1.0)
    ap.add_argument("--gamma", type=float, default=0.7)
    ap.add_argument("--log-interval", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (eager)")
    ap.add_argument("--no-progress", dest="progress", action="store_false",
                    help="log lines instead of a progress bar")
    ap.add_argument("--metrics", action="store_true", help="print lazygen's metrics report at the end")
    ap.add_argument("--distributed", action="store_true",
                    help="data parallel over torchrun's processes (lazygen device only)")
    args = ap.parse_args()
    if args.distributed and args.device != "lazygen":
        ap.error("--distributed needs --device lazygen")
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    dev = Device(args.device)
    ldist = None
    if args.distributed:
        import lazygen_torch.distributed as ldist
        ldist.init()
    args.prints = ldist is None or ldist.rank() == 0
    if args.prints:
        control_flow_example(dev)

    train_set = fashion_mnist(True)
    sampler = None
    if ldist is not None:  # each rank its share of every global batch
        sampler = torch.utils.data.distributed.DistributedSampler(
            train_set, num_replicas=ldist.world_size(), rank=ldist.rank(), seed=args.seed,
            drop_last=True)
    train_loader = torch.utils.data.DataLoader(
        train_set, batch_size=args.batch_size // (ldist.world_size() if ldist else 1),
        shuffle=sampler is None, sampler=sampler, drop_last=ldist is not None)
    test_loader = torch.utils.data.DataLoader(fashion_mnist(False), batch_size=args.test_batch_size)
    model = Net().to(dev.device)
    if ldist is not None:
        model = ldist.DistributedDataParallel(model)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    stats = {"train_s": 0.0, "train_steps": 0}
    accuracy = 0.0
    for epoch in range(1, args.epochs + 1):
        if sampler is not None:
            sampler.set_epoch(epoch)
        train(args, model, dev, train_loader, optimizer, epoch, stats)
        accuracy = test(args, model, dev, test_loader)
        scheduler.step()
    if args.prints:
        summary(dev, stats, accuracy, args.metrics)
    if ldist is not None:
        ldist.finalize()


if __name__ == "__main__":
    main()
