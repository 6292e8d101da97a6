"""The PyTorch device's CTC loss (Note [CTC loss on the device] in runtime/pytorch/adapters/ctc.cpp)
against PyTorch's CPU kernel, measured in one run: a loss-and-backward step through log_softmax
(mean reduction), the median of warm steps on the device (trace, cached compile, run, read the
gradient back), split into trace and run, against the same step on the CPU.

    build/lazygen-python bench/pytorch/ctc_bench.py [--reps 20]
"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F

import lazygen_torch

# (T, N, C, longest target): a short utterance batch and a longer one.
CASES = [(50, 16, 20, 30), (200, 8, 30, 60)]


def step(logits, targets, inputs, lengths):
    x = logits.detach().requires_grad_()
    F.ctc_loss(x.log_softmax(2), targets, inputs, lengths).backward()
    return x.grad


def measure(t, n, c, s, reps):
    g = torch.Generator().manual_seed(t)
    logits = torch.randn(t, n, c, generator=g)
    targets = torch.randint(1, c, (n, s), generator=g)
    inputs = [t - i for i in range(n)]
    lengths = torch.randint(s // 3, s + 1, (n,), generator=g).tolist()
    dev = lazygen_torch.device()
    dl, dt = logits.to(dev), targets.to(dev)
    lazygen_torch.mark_step()
    traces, totals = [], []
    for _ in range(reps + 1):  # the first step traces and compiles
        start = time.perf_counter()
        grad = step(dl, dt, inputs, lengths)
        traced = time.perf_counter()
        lazygen_torch.mark_step()
        got = grad.cpu()
        traces.append((traced - start) * 1e3)
        totals.append((time.perf_counter() - start) * 1e3)
    cpu = []
    for _ in range(reps):
        start = time.perf_counter()
        want = step(logits, targets, inputs, lengths)
        cpu.append((time.perf_counter() - start) * 1e3)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    assert not lazygen_torch.metrics.fallback_counters(), lazygen_torch.metrics.fallback_counters()
    return statistics.median(totals[1:]), statistics.median(traces[1:]), statistics.median(cpu)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    print(f"{'T, N, C, S':>18} {'device ms':>10} {'trace ms':>9} {'cpu ms':>8} {'device/cpu':>11}")
    for case in CASES:
        total, trace, cpu = measure(*case, args.reps)
        print(f"{str(case):>18} {total:10.2f} {trace:9.2f} {cpu:8.2f} {total / cpu:10.1f}x")


if __name__ == "__main__":
    main()
