"""Benchmarks of lazygen's PyTorch device against PyTorch eager and LTC, measured in one run.

    build/lazygen-python bench/pytorch/device_bench.py [--reps 3] [--rss-steps 1000] [--json FILE]

Peers run as ../shared/peers/torch_peer.py (Debian's python3 with python3-torch), interleaved
with our own measurement in each repetition so that both see the same load; our side runs the
peer's own protocol (its model, data, optimizer and timing), imported from the same file:
  step     the tutorial CNN's training step (torch_peer.py cnn: Fashion-MNIST batches of 64,
           Adadelta lr 1, 40 steps with 5 untimed, 2 threads): ours, PyTorch eager with the
           default allocator and with MALLOC_MMAP_THRESHOLD_/MALLOC_TRIM_THRESHOLD_ set, and LTC
           (torch._lazy.ts_backend). Medians of the per-step times; ratios ours / peer.
  trace    per-op overhead through the dispatcher on tiny tensors (torch_peer.py trace: a
           1000-op pointwise chain on 16 floats, trace + mark_step): ours / PyTorch eager.
  rss      resident memory over --rss-steps tutorial steps: growth from step 3 to the end.
Prints a table and, with --json, writes every number (docs/performance.md is made from it).
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

import lazygen_torch

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = os.environ.get("LAZYGEN_TORCH_PEER",
                      os.path.join(HERE, "..", "..", "..", "shared", "peers", "torch_peer.py"))
PYTHON = sys.executable  # LAZYGEN_PYTHON: build/lazygen-python runs this script with it
FRIENDLY_MALLOC = {"MALLOC_MMAP_THRESHOLD_": "1000000000", "MALLOC_TRIM_THRESHOLD_": "1000000000"}


def load_peer():
    spec = importlib.util.spec_from_file_location("torch_peer", PEER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_peer(args, env_extra=None):
    env = dict(os.environ, **(env_extra or {}))
    run = subprocess.run([PYTHON, PEER, *args], capture_output=True, text=True, env=env, timeout=1800)
    if run.returncode != 0:
        raise SystemExit(f"torch_peer.py {' '.join(args)} failed:\n{run.stderr[-2000:]}")
    return json.loads(run.stdout)


def lazygen_train(peer, steps, warmup, batch):
    """torch_peer.py's cmd_train on lazygen's device: median ms per step and RSS growth."""
    dev = lazygen_torch.device()
    torch.set_num_threads(2)
    batches = peer.load_batches(steps, batch)
    torch.manual_seed(0)
    model = peer.TutorialCNN().to(dev)
    model.train()
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    step_ms, rss = [], {}
    for i, (data, target) in enumerate(batches):
        t0 = time.perf_counter()
        data, target = data.to(dev), target.to(dev)
        optimizer.zero_grad(set_to_none=True)
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        lazygen_torch.mark_step()
        lazygen_torch.wait_device_ops()
        step_ms.append((time.perf_counter() - t0) * 1e3)
        if i + 1 in (3, 10, 100, 500) or i + 1 == steps:
            rss[i + 1] = peer.rss_mb()
    compiles = lazygen_torch.metrics.counter_value("computation_cache.miss")
    return {"median_ms": statistics.median(step_ms[warmup:]), "rss_mb_by_step": rss,
            "compiles": compiles, "fallbacks": lazygen_torch.metrics.fallback_counters(),
            "loss_last": float(loss.item())}


def lazygen_trace(peer, ops, numel, iters):
    """torch_peer.py's cmd_trace on lazygen's device: median µs per op of trace + mark_step."""
    dev = lazygen_torch.device()
    torch.manual_seed(0)
    x = torch.randn(numel).to(dev)
    lazygen_torch.mark_step()

    def iteration():
        t0 = time.perf_counter()
        y = peer.pointwise_chain(x, ops)
        lazygen_torch.mark_step()
        lazygen_torch.wait_device_ops()
        elapsed = (time.perf_counter() - t0) * 1e6
        del y
        return elapsed

    for _ in range(3):
        iteration()
    return statistics.median(iteration() for _ in range(iters)) / ops


def measure(args, peer):
    rows = []
    for rep in range(args.reps):
        lazygen_torch.metrics.reset()
        ours = lazygen_train(peer, 40, 5, 64)
        eager = run_peer(["cnn", "--mode", "eager", "--threads", "2"])
        eager_friendly = run_peer(["cnn", "--mode", "eager", "--threads", "2"], FRIENDLY_MALLOC)
        ltc = run_peer(["cnn", "--mode", "lazy", "--threads", "2"]) if not args.no_ltc else None
        ours_trace = lazygen_trace(peer, 1000, 16, 30)
        eager_trace = run_peer(["trace", "--mode", "eager", "--threads", "1"])["per_op_us"]
        row = {"rep": rep, "ours_step_ms": ours["median_ms"], "eager_step_ms": eager["median_ms"],
               "eager_friendly_malloc_step_ms": eager_friendly["median_ms"],
               "ltc_step_ms": ltc["median_ms"] if ltc else None,
               "ours_trace_us_per_op": ours_trace, "eager_us_per_op": eager_trace,
               "compiles": ours["compiles"], "fallbacks": ours["fallbacks"]}
        row["x_eager"] = row["ours_step_ms"] / row["eager_step_ms"]
        row["x_eager_friendly_malloc"] = row["ours_step_ms"] / row["eager_friendly_malloc_step_ms"]
        row["x_ltc"] = row["ours_step_ms"] / row["ltc_step_ms"] if ltc else None
        row["x_eager_per_op"] = ours_trace / eager_trace
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


def rss_run(peer, steps):
    """RSS over `steps` tutorial steps: MiB at steps 3, 10, 100, 500 and the last."""
    lazygen_torch.metrics.reset()
    result = lazygen_train(peer, steps, 5, 64)
    rss = result["rss_mb_by_step"]
    return {"steps": steps, "rss_mb_by_step": rss, "growth_after_step_3_mb": rss[steps] - rss[3]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3, help="repetitions, each measuring every peer")
    ap.add_argument("--rss-steps", type=int, default=1000)
    ap.add_argument("--no-ltc", action="store_true", help="skip the LTC peer")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    peer = load_peer()
    rows = measure(args, peer)
    rss = rss_run(peer, args.rss_steps) if args.rss_steps else None
    med = {k: statistics.median(r[k] for r in rows)
           for k in rows[0] if isinstance(rows[0][k], float)}
    result = {"machine": os.uname().nodename, "nproc": os.cpu_count(),
              "date": time.strftime("%Y-%m-%d"), "torch": torch.__version__,
              "reps": rows, "median": med, "rss": rss}
    print(f"tutorial CNN step, medians of {args.reps} repetitions (2 threads):")
    print(f"  lazygen device {med['ours_step_ms']:.1f} ms; PyTorch eager {med['eager_step_ms']:.1f} ms "
          f"({med['x_eager']:.2f}x), with a friendly allocator {med['eager_friendly_malloc_step_ms']:.1f} ms "
          f"({med['x_eager_friendly_malloc']:.2f}x)")
    if "ltc_step_ms" in med:
        print(f"  LTC {med['ltc_step_ms']:.1f} ms ({med['x_ltc']:.2f}x)")
    print(f"per-op trace + mark_step, 1000 tiny ops: lazygen {med['ours_trace_us_per_op']:.2f} us, "
          f"PyTorch eager {med['eager_us_per_op']:.2f} us ({med['x_eager_per_op']:.2f}x)")
    if rss:
        print(f"RSS over {rss['steps']} steps: {rss['rss_mb_by_step']} MiB; growth after step 3: "
              f"{rss['growth_after_step_3_mb']:.2f} MiB")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
