"""Data-parallel scaling of the tutorial CNN's training step on this machine, and the all-reduce
it costs, in one run (docs/performance.md quotes the output).

    /usr/bin/python3 bench/distributed/scaling.py [--reps 3] [--steps 150]

Per repetition, interleaved:
  one    train_cnn alone on one core (LAZYGEN_NUM_THREADS=1), global batch 64
  two    mpirun -np 2 train_cnn --distributed: 2 processes of one core each (distributed::init
         shares the cores), each on 32 of the same global batch of 64, gradients all-reduced
         (mean) inside the step's graph
Each run trains --steps steps and reports its steady rate over the last --steps / 3 (the
example's progress line: compile and warm-up excluded); the two-process run also reports the
bytes all-reduced per step and the time in collectives per step (waiting for the other rank
included). Then allreduce_bench (2 processes) gives the engine's latency and bus bandwidth, from
which the script projects the step time for 8 and 64 workers with the same 32 images per worker
(see docs/distributed.md for the model). Prints medians over repetitions and one JSON
line.
"""
import argparse
import json
import os
import re
import statistics
import subprocess

BUILD = os.environ.get("LAZYGEN_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def run(cmd, extra_env):
    env = dict(os.environ, **extra_env)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    rates = [float(m) for m in re.findall(r"loss [0-9.]+\s+([0-9.]+) steps/s", out)]
    result = {"step_ms": 1e3 / rates[-1]}
    m = re.search(r"([0-9.]+) MB all-reduced per step \(parameters ([0-9.]+) MB\); collectives "
                  r"([0-9.]+) ms of ([0-9.]+) ms per step", out)
    if m:
        result.update(mb_per_step=float(m[1]), param_mb=float(m[2]), collective_ms=float(m[3]),
                      mean_step_ms=float(m[4]))
    return result


def allreduce(exe):
    out = subprocess.run(["mpirun", "-np", "2", exe], env=dict(os.environ, **MPI_ENV),
                         capture_output=True, text=True, check=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--steps", type=int, default=150)
    args = ap.parse_args()
    cnn = os.path.join(BUILD, "examples", "train_cnn")
    common = ["--steps", str(args.steps), "--log-every", str(args.steps // 3)]
    one, two = [], []
    for rep in range(args.reps):
        one.append(run([cnn] + common, {"LAZYGEN_NUM_THREADS": "1"}))
        two.append(run(["mpirun", "-np", "2", cnn, "--distributed"] + common, MPI_ENV))
        print(f"rep {rep}: one process {one[-1]['step_ms']:.1f} ms/step, two processes "
              f"{two[-1]['step_ms']:.1f} ms/step (collectives {two[-1]['collective_ms']:.2f} ms)",
              flush=True)
    med = lambda rows, key: statistics.median(r[key] for r in rows)
    t1, t2 = med(one, "step_ms"), med(two, "step_ms")
    coll = med(two, "collective_ms")
    ar = allreduce(os.path.join(BUILD, "bench", "distributed", "allreduce_bench"))
    latency_us = ar[0]["median_us"]
    bus = max(r["bus_gbps"] for r in ar)  # the best large-message bandwidth, GB/s
    grad_bytes = two[0]["param_mb"] * 1e6
    # Weak scaling, 32 images per worker as in the two-process run: compute per step is that
    # run's step less its collectives, the all-reduce a ring's
    # 2 (W - 1) / W * bytes / bandwidth + 2 (W - 1) * latency.
    compute_ms = t2 - coll
    projection = {}
    for w in (8, 64):
        ring_ms = (2 * (w - 1) / w * grad_bytes / (bus * 1e9) + 2 * (w - 1) * latency_us * 1e-6) * 1e3
        projection[w] = {"compute_ms": compute_ms, "allreduce_ms": ring_ms,
                         "step_ms": compute_ms + ring_ms}
    print(f"\none process, one core: {t1:.1f} ms/step; two processes, one core each: {t2:.1f} "
          f"ms/step; speedup {t1 / t2:.2f} (ideal 2)")
    print(f"all-reduced per step {two[0]['mb_per_step']:.2f} MB, parameters {two[0]['param_mb']:.2f} "
          f"MB; collectives {coll:.2f} ms of {t2:.1f} ms per step ({100 * coll / t2:.0f}%)")
    print(f"engine (2 processes, loopback): latency {latency_us:.1f} us (4 KiB), bus bandwidth "
          f"{bus:.2f} GB/s")
    for w, p in projection.items():
        print(f"projection, {w} workers at 32 images each: compute {p['compute_ms']:.1f} ms + "
              f"ring all-reduce {p['allreduce_ms']:.1f} ms = {p['step_ms']:.1f} ms/step")
    print(json.dumps({"one_ms": t1, "two_ms": t2, "speedup": t1 / t2, "collective_ms": coll,
                      "mb_per_step": two[0]["mb_per_step"], "param_mb": two[0]["param_mb"],
                      "latency_us": latency_us, "bus_gbps": bus, "projection": projection}))


if __name__ == "__main__":
    main()
