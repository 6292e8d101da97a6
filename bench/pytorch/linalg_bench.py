"""The PyTorch device's linear algebra against PyTorch's CPU (LAPACK), measured in one run: for each
op and matrix size n (a batch of 8 float64 matrices), the median of warm calls on the device
(trace, cached compile, run, read back) with its LAPACK ops and with the unrolled forms (Note
[LAPACK or unrolled]), against PyTorch's CPU call. eigh, svd, lstsq and matrix_exp have one form
(both columns measure it: LAPACK's for the first three, scaling and squaring for matrix_exp).

    build/lazygen-python bench/pytorch/linalg_bench.py [--sizes 4 16 64] [--reps 20]
"""
import argparse
import statistics
import time

import torch

import lazygen_torch


def spd(a):
    return a @ a.mT + a.shape[-1] * torch.eye(a.shape[-1], dtype=a.dtype, device=a.device)


OPS = {
    "solve": lambda a, b: torch.linalg.solve(spd(a), b),
    "cholesky": lambda a, b: torch.linalg.cholesky(spd(a)),
    "qr": lambda a, b: torch.linalg.qr(a)[1],
    "inv": lambda a, b: torch.linalg.inv(spd(a)),
    "eigh": lambda a, b: torch.linalg.eigh(spd(a))[0],
    "svd": lambda a, b: torch.linalg.svd(a)[1],
    "lstsq": lambda a, b: torch.linalg.lstsq(a, b).solution,
    "matrix_exp": lambda a, b: torch.linalg.matrix_exp(a),
}


def timed(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3


def measure(op, n, reps, lapack):
    lazygen_torch.set_lapack_enabled(lapack)
    g = torch.Generator().manual_seed(n)
    a, b = torch.randn(8, n, n, generator=g, dtype=torch.float64), torch.randn(8, n, 2, generator=g, dtype=torch.float64)
    dev = lazygen_torch.device()
    da, db = a.to(dev), b.to(dev)
    lazygen_torch.mark_step()

    def on_device():
        out = OPS[op](da, db)
        lazygen_torch.mark_step()
        return out.cpu()

    on_device()  # the first call traces and compiles
    warm = statistics.median(timed(on_device) for _ in range(reps))
    cpu = statistics.median(timed(lambda: OPS[op](a, b)) for _ in range(reps))
    assert torch.allclose(on_device(), OPS[op](a, b), rtol=1e-8, atol=1e-10), (op, n)
    assert not lazygen_torch.metrics.fallback_counters(), lazygen_torch.metrics.fallback_counters()
    return warm, cpu


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 16, 64])
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(2)
    print(f"{'op':10s} {'n':>4s} {'lapack ms':>10s} {'unrolled ms':>12s} {'cpu ms':>8s} "
          f"{'lapack/cpu':>11s} {'unrolled/cpu':>13s}")
    for op in OPS:
        for n in args.sizes:
            lapack, cpu = measure(op, n, args.reps, True)
            unrolled, cpu_again = measure(op, n, args.reps, False)
            cpu = statistics.median([cpu, cpu_again])
            print(f"{op:10s} {n:4d} {lapack:10.3f} {unrolled:12.3f} {cpu:8.3f} "
                  f"{lapack / cpu:11.2f} {unrolled / cpu:13.2f}")
    lazygen_torch.set_lapack_enabled(True)


if __name__ == "__main__":
    main()
