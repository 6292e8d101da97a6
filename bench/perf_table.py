#!/usr/bin/python3
"""Regenerates the table in docs/performance.md from the benchmarks' JSON output.

    /usr/bin/python3 bench/perf_table.py --list                      # rows, commands, which it runs
    /usr/bin/python3 bench/perf_table.py --only mark-step-100        # run one row, rewrite the table
    /usr/bin/python3 bench/perf_table.py --only ID,ID --dry-run      # print the table, write nothing
    /usr/bin/python3 bench/perf_table.py --all                       # every row it can run (long)

Run it with Debian's /usr/bin/python3 (the Python that python3-torch is for), from any directory,
after building (build/ by default, --build DIR otherwise).

Each row of ROWS below is data: the row's id and description, the command that measures it (a
Google Benchmark binary under build/bench/ with a --benchmark_filter, or a Python benchmark that
writes JSON), the values it reads from that command's JSON (a counter of the benchmarks whose
name matches a pattern, or a path into the script's JSON) and the format strings that print them.
A row whose command is a plain string is measured by hand: the script lists it but does not run
it (`manual` says why), and keeps the row's cells as they are in the document.

The table lies between the two marker comments of docs/performance.md. For each row it runs, the
script rewrites the `lazygen` cell (and the `reference and goal` cell where the row's command
measures the peers too), and stamps the row with this machine (/proc/cpuinfo's model name, the
number of usable cores, the widest vector extension) and today's date. Other rows keep their
cells. Commands shared by several rows run once.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN = "<!-- perf-table:begin -->"
END = "<!-- perf-table:end -->"
COLUMNS = ("id", "what", "lazygen", "reference and goal", "command", "measured on", "by")


# ---------------------------------------------------------------- what a row runs and reads

@dataclass(frozen=True)
class GBench:
    """A Google Benchmark binary under build/bench/, run with --benchmark_format=json."""
    binary: str  # relative to build/bench/, e.g. "exec/fusion_bench"
    filter: str
    args: tuple = ()
    env: tuple = ()  # (("LAZYGEN_ASYNC", "0"),)

    def shown(self):
        env = "".join(f"{k}={v} " for k, v in self.env)
        args = "".join(f" {a}" for a in self.args)
        quoted = f"'{self.filter}'" if re.search(r"[|()$^*]", self.filter) else self.filter
        return f"{env}build/bench/{self.binary} --benchmark_filter={quoted}{args}"


@dataclass(frozen=True)
class Script:
    """A Python benchmark: `json` is "file" (it takes --json FILE) or "last-line" (its last
    stdout line starting with '{' is the result)."""
    path: str  # relative to the repository
    args: tuple = ()
    json: str = "file"
    python: str = "lazygen-python"  # build/lazygen-python, or an absolute interpreter
    env: tuple = ()

    def shown(self):
        env = "".join(f"{k}={v} " for k, v in self.env)
        python = "build/lazygen-python" if self.python == "lazygen-python" else self.python
        return f"{env}{python} {self.path}" + "".join(f" {a}" for a in self.args)


@dataclass(frozen=True)
class C:
    """A value from a GBench run: `key` of the benchmarks whose run name matches `bench` (a
    regular expression). key: a counter, or real_time_ms / cpu_time_ms / ns_per_item (1e9 /
    items_per_second). stat: median (the median aggregate when repetitions ran, else the median
    over runs), range (lowest to highest repetition), first."""
    bench: str
    key: str
    stat: str = "median"


@dataclass(frozen=True)
class J:
    """A value from a Script's JSON: a dotted path, `*` over a list ("reps.*.ours_step_ms")."""
    path: str
    stat: str = "median"


@dataclass
class Row:
    id: str
    what: str
    command: object  # GBench, Script, or str: a command this script does not run
    result: str = ""  # format string over `values`: the lazygen cell
    reference: str = ""  # format string for the reference cell, "" to keep the document's
    values: dict = field(default_factory=dict)
    manual: str = ""  # why the script does not run this row

    def shown_command(self):
        return self.command if isinstance(self.command, str) else self.command.shown()


GB = "generator/schema_parse_bench"
TRACE = "runtime/lazy/lazy_trace_bench"
FUSION = "exec/fusion_bench"
TRAIN = "training/training_bench"
CUDA_SPEC = "runtime/cuda_specialize_bench"
WINOGRAD = (("LAZYGEN_WINOGRAD", "1"),)
DEVICE_BENCH = Script("bench/pytorch/device_bench.py", ("--reps", "2"))
SCALING = Script("bench/distributed/scaling.py", ("--reps", "3", "--steps", "150"),
                 json="last-line", python="/usr/bin/python3")
TEXT_ONLY = "the script prints text, not JSON"
TIMED_BY_HAND = "a wall-clock time, not a benchmark with JSON output"

ROWS = [
    # ---- the generator
    Row("schema-parse", "parse every schema of PyTorch's `native_functions.yaml`",
        GBench(GB, "BM_ParseAll$"),
        "{ms:.1f} ms ({n:.0f} schemas)",
        values={"ms": C("^BM_ParseAll$", "real_time_ms"), "n": C("^BM_ParseAll$", "schemas")}),
    Row("generate", "generate `generated/` from `ops.yaml`",
        "time build/generator/lazygen -o /tmp/gen --no-format ops.yaml; time build/generator/lazygen ops.yaml",
        manual=TIMED_BY_HAND),
    Row("edit-op-rebuild", "edit one op's `pointwise:` (silu's) → regenerate → the whole tree "
        "rebuilt (tests, benchmarks, examples), in a scratch clone",
        "bench/rebuild_cost.sh /tmp/rebuild 2", manual="the script prints its own JSON line; "
        "a first run rebuilds the scratch clone for 20 minutes"),
    Row("add-op-rebuild", "add one pointwise op with its derivative (softsign) → regenerate → the "
        "whole tree rebuilt, in a scratch clone",
        "bench/rebuild_cost.sh /tmp/rebuild 2", manual="the script prints its own JSON line; "
        "a first run rebuilds the scratch clone for 20 minutes"),
    Row("chain-dispatch-options", "the register chains with the dispatcher compiled without GCC's "
        "RTL global CSE and variable tracking against the default options, alternating builds",
        "LD_LIBRARY_PATH=<dir with one build's liblazygen_cpu.so> build/bench/exec/fusion_bench "
        "--benchmark_filter='chain_16m/interp'",
        manual="an A/B of two builds of one library, alternated by hand"),
    Row("link-torch-module", "link the PyTorch module with LLD",
        "ninja -t commands python/lazygen_torch/liblazygen_torch.so, run with each -fuse-ld",
        manual=TIMED_BY_HAND),
    Row("full-build", "the whole tree from nothing",
        "ninja -C build -t clean && time CCACHE_DISABLE=1 ninja -C build -j2", manual=TIMED_BY_HAND),
    Row("test-from-nothing", "the README's test command on a fresh machine, ccache empty",
        "time scripts/test (and each phase's own time: scripts/build, the downstream_project "
        "test's per-mode lines, scripts/sanitize)", manual=TIMED_BY_HAND),
    Row("hook-check", "LibTooling check of every hook in `runtime/ops`",
        "time ctest --test-dir build -R hooks_match_ops_yaml", manual=TIMED_BY_HAND),
    Row("aot-manifest-rebuild", "add one group to a manifest → `lazygen --kernels` → rebuild "
        "(`train_cnn`, 11 kernels)", "time scripts/build", manual=TIMED_BY_HAND),
    # ---- tracing and the executor
    Row("trace-add-warm", "trace one op on the lazy device, warm trie",
        GBench(TRACE, "generated_add_warm$"),
        "{ns:.0f} ns/op CPU time",
        values={"ns": C("^generated_add_warm$", "ns_per_item")}),
    Row("trace-view-warm", "trace a view op, warm trie (the node plus the view's chain)",
        GBench(TRACE, "generated_view_warm$"),
        "{ns:.0f} ns/op CPU time",
        values={"ns": C("^generated_view_warm$", "ns_per_item")}),
    Row("trace-add-new-size", "trace one op whose input size is new, i.e. a trie miss; and at "
        "one of 3 or 24 sizes traced before, in shuffled order",
        GBench(TRACE, "generated_add", ("--benchmark_repetitions=5",)),
        "new size {new:.0f} ns/op, 3 sizes {three:.0f}, 24 sizes {many:.0f}, vs {warm:.0f} ns/op "
        "warm in the same run (medians of 5)",
        values={"new": C("^generated_add_new_size$", "ns_per_item"),
                "three": C("^generated_add_three_sizes$", "ns_per_item"),
                "many": C("^generated_add_many_sizes$", "ns_per_item"),
                "warm": C("^generated_add_warm$", "ns_per_item")}),
    Row("chain-1000x16", "1000-op pointwise chain on 16 elements, trace + cached execute",
        GBench(FUSION, "chain_1000x16"),
        "{us:.2f} µs/op: trace {trace:.2f}, mark_step {mark:.3f}; our eager {eager:.2f} µs/op",
        values={"us": C("^chain_1000x16", "us_per_op"), "trace": C("^chain_1000x16", "trace_us_per_op"),
                "mark": C("^chain_1000x16", "mark_step_us_per_op"),
                "eager": C("^chain_1000x16", "eager_us_per_op")}),
    Row("chain-1000x16-sync", "the same with synchronous execution",
        GBench(FUSION, "chain_1000x16", env=(("LAZYGEN_ASYNC", "0"),)),
        "{us:.2f} µs/op: trace {trace:.2f}, mark_step {mark:.3f}",
        values={"us": C("^chain_1000x16", "us_per_op"), "trace": C("^chain_1000x16", "trace_us_per_op"),
                "mark": C("^chain_1000x16", "mark_step_us_per_op")}),
    Row("mark-step-100", "cached `mark_step` of a 100-node graph",
        GBench(FUSION, "mark_step_100"),
        "{us:.1f} µs per step (fused execute {ex:.1f} µs)",
        values={"us": C("^mark_step_100", "us_per_step"), "ex": C("^mark_step_100", "execute_us")}),
    Row("mark-step-100-sync", "the same with synchronous execution",
        GBench(FUSION, "mark_step_100", env=(("LAZYGEN_ASYNC", "0"),)),
        "{us:.1f} µs per step (fused execute {ex:.1f} µs)",
        values={"us": C("^mark_step_100", "us_per_step"), "ex": C("^mark_step_100", "execute_us")}),
    # ---- the fused cpu backend
    Row("chain-16m-interp", "8 pointwise ops on 16M float32, warm, interpreter (register chains)",
        GBench(FUSION, "chain_16m/interp", ("--benchmark_repetitions=3",)),
        "{ms:.1f} ms, {frac:.2f}× copy (`interp_frac_of_copy_med`); register chains off "
        "{per_op:.2f}× copy (`per_op_frac_of_copy_med`)",
        values={"ms": C("^chain_16m/interp", "interp_ms", "range"),
                "frac": C("^chain_16m/interp", "interp_frac_of_copy_med", "range"),
                "per_op": C("^chain_16m/interp", "per_op_frac_of_copy_med", "range")}),
    Row("chain-16m-aot", "the same chain with its AOT kernel vs the interpreter, same run",
        GBench(FUSION, "chain_16m/min", ("--benchmark_repetitions=3",)),
        "AOT {aot:.2f}× copy, interpreter {interp:.2f}× copy (`aot_speedup_vs_interp` {sp:.2f}); "
        "{eager:.1f}× our eager",
        values={"aot": C("^chain_16m/min", "aot_frac_of_copy_med", "range"),
                "interp": C("^chain_16m/min", "interp_frac_of_copy_med", "range"),
                "sp": C("^chain_16m/min", "aot_speedup_vs_interp", "range"),
                "eager": C("^chain_16m/min", "speedup_vs_eager", "range")}),
    Row("colsum", "`relu(x * w + b) - 0.25` on [4096, 1024] float32 ending in `sum(0)`, warm",
        GBench(FUSION, "colsum", ("--benchmark_repetitions=3",)),
        "fused {fused:.1f} ms (the sum folded into the chain's group), {su:.1f}× fusion off "
        "({unf:.1f} ms), {se:.1f}× our eager ({eager:.1f} ms); the chain alone storing its "
        "result {chain:.1f} ms (medians of 3)",
        values={"fused": C("^colsum", "fused_ms"), "su": C("^colsum", "speedup_vs_unfused"),
                "unf": C("^colsum", "unfused_ms"), "se": C("^colsum", "speedup_vs_eager"),
                "eager": C("^colsum", "eager_ms"), "chain": C("^colsum", "chain_only_ms")}),
    Row("rows", "layer_norm (weight, bias) and softmax over the last dim of [4096, 1024] float32",
        GBench(FUSION, "rows"),
        "layer_norm {ln:.1f} ms ({lnf:.2f} of copy; one row band, {bs:.2f}× its groups run one "
        "after the other, {unb:.1f} ms); softmax {sm:.1f} ms ({smf:.2f} of copy)",
        "copy {copy:.1f} ms, same run; goal ≥ 0.7 of copy for both",
        values={"ln": C("^rows", "layer_norm_ms"), "lnf": C("^rows", "layer_norm_frac_of_copy_med"),
                "bs": C("^rows", "band_speedup_med"), "unb": C("^rows", "layer_norm_unbanded_ms"),
                "sm": C("^rows", "softmax_ms"), "smf": C("^rows", "softmax_frac_of_copy_med"),
                "copy": C("^rows", "copy_ms")}),
    # ---- eager kernels, allocator, convolutions
    Row("eager-add-16m", "eager contiguous add, 16M float32, 2 threads",
        GBench("runtime/eager_bench", "BM_AddContiguous/2/"),
        "{r:.2f}× copy bandwidth",
        values={"r": C("^BM_AddContiguous/2/", "ratio")}),
    Row("sum-bias-gradient", "eager sum of a [1024, 512] float32 matrix over dim 0 (a linear layer's "
        "bias gradient), 1 and 2 threads",
        GBench("runtime/eager_bench", "BM_SumBiasGradient"),
        "2 threads {two:.3f} ms ({r:.2f}× copy bandwidth), its columns split over both; one thread "
        "{one:.3f} ms",
        values={"two": C("^BM_SumBiasGradient/2/", "real_time_ms"), "r": C("^BM_SumBiasGradient/2/", "ratio"),
                "one": C("^BM_SumBiasGradient/1/", "real_time_ms")}),
    Row("allocator-64mib", "fresh vs reused 64 MiB allocation",
        GBench("runtime/allocator_bench", "BM_FreshVsReused64MiB"),
        "reuse {s:.1f}× faster",
        values={"s": C("^BM_FreshVsReused64MiB", "speedup")}),
    Row("conv2-winograd", "the CNN's conv2 (64×32×26×26 → 64, 3×3), Winograd F(4×4,3×3) vs "
        "im2col + gemm, same run",
        GBench("runtime/conv_bench", "conv2/", ("--benchmark_repetitions=3",)),
        "Winograd: forward {f:.1f} ms ({fs:.1f}× im2col, {fg:.0f} GFLOP/s), input gradient "
        "{i:.1f} ms ({is_:.1f}×), weight gradient {w:.1f} ms ({ws:.1f}×), medians of 3",
        values={"f": C("^conv2/op:0/", "real_time_ms"), "fs": C("^conv2/op:0/", "speedup"),
                "fg": C("^conv2/op:0/", "winograd_gflops"),
                "i": C("^conv2/op:1/", "real_time_ms"), "is_": C("^conv2/op:1/", "speedup"),
                "w": C("^conv2/op:2/", "real_time_ms"), "ws": C("^conv2/op:2/", "speedup")}),
    Row("conv-accuracy", "float32 3×3 convolution error against a float64 reference, max abs "
        "(share outside rtol 1e-5), [1,16,20,20]→16 pad 1 / [8,32,26,26]→64 / [4,64,32,32]→64 pad 1",
        "build/lazygen-python bench/pytorch/conv_accuracy.py; LAZYGEN_WINOGRAD=1 build/lazygen-python "
        "bench/pytorch/conv_accuracy.py",
        manual=TEXT_ONLY),
    Row("conv-accuracy-onednn", "the same cases with oneDNN's convolutions (the default for "
        "float32 planes of at least 4×4 outputs, 8×8 for the weight gradient) against im2col",
        "OPENBLAS_CORETYPE=SkylakeX build/lazygen-python bench/pytorch/conv_accuracy.py; "
        "LAZYGEN_ONEDNN=0 OPENBLAS_CORETYPE=SkylakeX build/lazygen-python "
        "bench/pytorch/conv_accuracy.py",
        manual=TEXT_ONLY),
    # ---- training steps in C++
    Row("cnn-step", "tutorial CNN training step on the lazy device, 2 threads (`cnn/vs_torch` "
        "runs `torch_peer.py cnn` eager and lazy in the same run)",
        GBench(TRAIN, "cnn/(vs_torch|lazy/)", ("--benchmark_repetitions=3",)),
        "{ms:.1f} ms (median of 3), ours / PyTorch eager {xe:.2f}, ours / LTC {xl:.2f}",
        "PyTorch eager {te:.0f} ms, LTC {tl:.0f} ms, same runs; goal ≤ 0.5× PyTorch eager",
        values={"ms": C("^cnn/vs_torch/", "median_ms"), "xe": C("^cnn/vs_torch/", "x_torch_eager"),
                "xl": C("^cnn/vs_torch/", "x_torch_lazy"),
                "te": C("^cnn/vs_torch/", "torch_eager_ms", "range"),
                "tl": C("^cnn/vs_torch/", "torch_lazy_ms", "range")}),
    Row("cnn-step-winograd", "the same with Winograd convolutions (opt-in)",
        GBench(TRAIN, "cnn/(vs_torch|lazy/)", ("--benchmark_repetitions=3",), WINOGRAD),
        "{ms:.1f} ms (median of 3), ours / PyTorch eager {xe:.2f}, ours / LTC {xl:.2f}",
        "PyTorch eager {te:.0f} ms, LTC {tl:.0f} ms, same runs; goal ≤ 0.5× PyTorch eager",
        values={"ms": C("^cnn/vs_torch/", "median_ms"), "xe": C("^cnn/vs_torch/", "x_torch_eager"),
                "xl": C("^cnn/vs_torch/", "x_torch_lazy"),
                "te": C("^cnn/vs_torch/", "torch_eager_ms", "range"),
                "tl": C("^cnn/vs_torch/", "torch_lazy_ms", "range")}),
    Row("mlp-step", "MLP 784→128→10 training step",
        GBench(TRAIN, "mlp/"),
        "lazy {lazy:.2f} ms, eager {eager:.2f} ms; ours / PyTorch eager {x:.2f} (`mlp/vs_torch`); "
        "gemms split over our pool vs OpenBLAS's threads {pool:.2f}× (`mlp/one_pool`)",
        "PyTorch eager {te:.2f} ms, LTC {tl:.2f} ms, same run",
        values={"lazy": C("^mlp/lazy/", "median_ms"), "eager": C("^mlp/eager/", "median_ms"),
                "x": C("^mlp/vs_torch/", "x_torch_eager"), "pool": C("^mlp/one_pool/", "one_pool_speedup"),
                "te": C("^mlp/vs_torch/", "torch_eager_ms"), "tl": C("^mlp/vs_torch/", "torch_lazy_ms")}),
    Row("variable-batch", "tutorial CNN step at a batch size never traced before (33..96) vs at "
        "the fixed batch 64, per sample, alternating in one run (`/1` dynamic shapes, `/0` off); "
        "`again_over_fixed`: each size's second step",
        GBench(TRAIN, "variable_batch"),
        "dynamic: {v1:.2f}× fixed per sample ({c1:.0f} compiles, {s1:.0f} specializations); "
        "specializing the step's graph {sms:.2f} ms, compiling it {cms:.2f} ms; a size's second "
        "step {a1:.2f}×",
        "dynamic shapes off: {v0:.2f}× ({c0:.0f} compiles); goal ≤ 1.1×",
        values={"v1": C("variable_batch/1/", "variable_over_fixed"), "c1": C("variable_batch/1/", "compiles"),
                "s1": C("variable_batch/1/", "specializations"),
                "a1": C("variable_batch/1/", "again_over_fixed"),
                "sms": C("variable_batch/1/", "specialize_ms"), "cms": C("variable_batch/1/", "compile_ms"),
                "v0": C("variable_batch/0/", "variable_over_fixed"), "c0": C("variable_batch/0/", "compiles")}),
    Row("decode-lengths", "a small GPT's forward pass (2 layers, width 64, batch 2) and its last "
        "logits to the cpu at a length one longer each step (16..127, as autoregressive decoding) "
        "vs at the fixed length 64, alternating in one run (`/1` dynamic shapes, `/0` off)",
        GBench(TRAIN, "decode_lengths"),
        "dynamic: {g1:.2f}× fixed ({gm:.2f} ms vs {fm:.2f} ms; {c1:.0f} compiles); a growing step "
        "traces in {t1:.3f} ms and specializes in {s1:.2f} ms",
        "dynamic shapes off: {g0:.2f}× ({c0:.0f} compiles of {cms:.2f} ms; its trace {t0:.3f} ms "
        "drops no nodes within the run); no goal",
        values={"g1": C("decode_lengths/1/", "growing_over_fixed"), "gm": C("decode_lengths/1/", "growing_ms"),
                "fm": C("decode_lengths/1/", "fixed_ms"), "c1": C("decode_lengths/1/", "compiles"),
                "t1": C("decode_lengths/1/", "trace_ms"), "s1": C("decode_lengths/1/", "specialize_ms"),
                "g0": C("decode_lengths/0/", "growing_over_fixed"), "c0": C("decode_lengths/0/", "compiles"),
                "cms": C("decode_lengths/0/", "compile_ms"), "t0": C("decode_lengths/0/", "trace_ms")}),
    Row("cuda-specialize", "the tutorial CNN step's graph at a new batch size (37) on the CUDA backend, "
        "for sm_90 without a GPU: specialized from the graph compiled at batch 64 vs compiled",
        GBench(CUDA_SPEC, "cuda_cnn_step", ("--benchmark_repetitions=5",)),
        "specialize {s:.2f} ms ({r:.0f} of {g:.0f} groups keep their compiled kernel: no NVRTC, "
        "no module load)",
        "compile {w:.2f} ms with NVRTC's cache warm, {c:.0f} ms cold; no goal",
        values={"s": C("cuda_cnn_step/specialize", "real_time_ms"), "r": C("cuda_cnn_step/specialize", "reused"),
                "g": C("cuda_cnn_step/specialize", "groups"),
                "w": C("cuda_cnn_step/compile", "real_time_ms"), "c": C("cuda_cnn_step/compile", "cold_ms")}),
    Row("memory-25-steps", "resident memory growth over 25 training steps on the lazy device (CNN, MLP)",
        GBench(TRAIN, "(cnn|mlp)/lazy/"),
        "{g:.2f} MB",
        values={"g": C("^(cnn|mlp)/lazy/", "rss_growth_mb", "range")}),
    Row("train-cnn-epochs", "3 epochs of the C++ tutorial (`train_cnn`) on Fashion-MNIST, with "
        "Winograd convolutions", "LAZYGEN_WINOGRAD=1 build/examples/train_cnn --epochs 3",
        manual="the example prints text"),
    Row("examples-loss", "loss over 100 steps of `train_resnet` and `train_gpt` on the lazy device",
        "build/examples/train_resnet --steps 100; build/examples/train_gpt --steps 100",
        manual="the examples print text"),
    Row("examples-resnet", "training step of the C++ examples' ResNet-18 (3×3 stem, 32×32, batch "
        "32, SGD momentum, batch norm training) on the lazy device, vs the same model in PyTorch",
        "OPENBLAS_CORETYPE=SkylakeX build/lazygen-python bench/pytorch/examples_bench.py --reps 2 "
        "--steps 8 --warmup 3",
        manual=TEXT_ONLY),
    Row("examples-gpt", "training step of the C++ examples' GPT-style decoder (4 pre-norm layers, "
        "width 128, 4 heads; 8 × 128 tokens, Adam) on the lazy device, vs PyTorch",
        "OPENBLAS_CORETYPE=SkylakeX build/lazygen-python bench/pytorch/examples_bench.py --reps 2 "
        "--steps 8 --warmup 3",
        manual=TEXT_ONLY),
    # ---- the PyTorch device
    Row("device-step", "the tutorial's training step through the PyTorch device, 2 threads "
        "(torch_peer.py's protocol for all three, interleaved per repetition)",
        DEVICE_BENCH,
        "{ms:.1f} ms median ({span:.0f} ms), {xe:.2f}× PyTorch eager, {xl:.2f}× LTC; "
        "{compiles:.0f} compiles, {fallbacks:.0f} ops on the fallback",
        "PyTorch eager {e:.0f} ms, LTC {l:.0f} ms; goals ≤ 0.6× eager, ≤ 0.3× LTC",
        values={"ms": J("median.ours_step_ms"), "span": J("reps.*.ours_step_ms", "range"),
                "xe": J("median.x_eager"), "xl": J("median.x_ltc"),
                "compiles": J("reps.*.compiles"), "fallbacks": J("reps.*.fallbacks"),
                "e": J("reps.*.eager_step_ms", "range"), "l": J("reps.*.ltc_step_ms", "range")}),
    Row("device-step-winograd", "the same with Winograd convolutions (opt-in)",
        Script(DEVICE_BENCH.path, DEVICE_BENCH.args, env=WINOGRAD),
        "{ms:.1f} ms median, {xe:.2f}× PyTorch eager, {xl:.2f}× LTC",
        "PyTorch eager {e:.0f} ms, LTC {l:.0f} ms; goals ≤ 0.6× eager, ≤ 0.3× LTC",
        values={"ms": J("median.ours_step_ms"), "xe": J("median.x_eager"), "xl": J("median.x_ltc"),
                "e": J("reps.*.eager_step_ms", "range"), "l": J("reps.*.ltc_step_ms", "range")}),
    Row("device-trace", "per-op trace + `mark_step` through PyTorch's dispatcher, 1000-op "
        "pointwise chain on 16 floats",
        DEVICE_BENCH,
        "{us:.2f} µs/op",
        "PyTorch eager {e:.2f} µs/op (ours {x:.2f}×); goal ≤ 1.5×",
        values={"us": J("median.ours_trace_us_per_op"), "e": J("median.eager_us_per_op"),
                "x": J("median.x_eager_per_op")}),
    Row("device-rss", "resident memory over 1000 tutorial steps on the PyTorch device",
        DEVICE_BENCH,
        "{g:+.2f} MiB from step 3 to step 1000",
        values={"g": J("rss.growth_after_step_3_mb", "first")}),
    Row("tutorial-epochs", "3 epochs of the Python tutorial on the PyTorch device",
        "scripts/main (build/lazygen-python examples/train_tutorial.py)",
        manual="the example prints text"),
    Row("models-resnet18", "training step of torchvision's ResNet-18 (32×32, batch 32, SGD "
        "momentum, batch norm training) on the PyTorch device, interleaved with eager",
        "OPENBLAS_CORETYPE=SkylakeX build/lazygen-python bench/pytorch/models_bench.py --reps 3 "
        "--steps 24 --warmup 12",
        manual=TEXT_ONLY),
    Row("models-gpt", "training step of a GPT-style decoder (2 pre-norm layers, d 128, causal "
        "mask, tied projection; 8 × 128 tokens, AdamW) on the PyTorch device",
        "OPENBLAS_CORETYPE=SkylakeX build/lazygen-python bench/pytorch/models_bench.py --reps 3 "
        "--steps 24 --warmup 12",
        manual=TEXT_ONLY),
    Row("device-linalg", "the PyTorch device's linear algebra on batches of 8 float64 n×n "
        "matrices: a warm call (trace, cached compile, run, read back) with the LAPACK ops and "
        "with the unrolled forms (Note [LAPACK or unrolled])",
        "build/lazygen-python bench/pytorch/linalg_bench.py --reps 10",
        manual=TEXT_ONLY),
    # ---- data-parallel training
    Row("distributed-scaling", "tutorial CNN step, data-parallel: 1 process on 1 core vs 2 "
        "processes on 1 core each, global batch 64",
        SCALING,
        "2 processes {two:.1f} ms (speedup {sp:.2f}); collectives {coll:.1f} ms per step; "
        "{mb:.2f} MB all-reduced per step",
        "1 process {one:.1f} ms",
        values={"two": J("two_ms", "first"), "sp": J("speedup", "first"),
                "coll": J("collective_ms", "first"), "mb": J("mb_per_step", "first"),
                "one": J("one_ms", "first")}),
    Row("allreduce-engine", "MPI all-reduce through lazygen's op, 2 processes over shared memory "
        "(`allreduce_bench`)",
        SCALING,
        "latency {lat:.0f} µs (4 KiB), bus bandwidth {bw:.1f} GB/s",
        values={"lat": J("latency_us", "first"), "bw": J("bus_gbps", "first")}),
    # ---- tests and fuzzing
    Row("consistency-suite", "the consistency suite (one test per op and dtype)",
        "time ctest --test-dir build -L consistency -j2", manual=TIMED_BY_HAND),
    Row("fuzz-smoke", "fuzz smoke tests (checked-in corpus, then deterministic mutations)",
        "ctest --test-dir build -L fuzz", manual=TIMED_BY_HAND),
    Row("fuzz-schema", "libFuzzer campaign on the schema parser (1 process, `-max_len=1024`)",
        "build-fuzz/tests/generator/fuzz/schema_fuzzer -dict=tests/generator/fuzz/schema.dict -max_len=1024 "
        "-runs=10000000 grown tests/generator/fuzz/corpus/schema",
        manual="libFuzzer's own statistics, read by hand"),
    Row("fuzz-ops-yaml", "libFuzzer campaign on the ops.yaml loader (2 processes)",
        "build-fuzz/tests/generator/fuzz/ops_yaml_fuzzer -dict=tests/generator/fuzz/ops_yaml.dict -max_len=4096 "
        "-timeout=5 -rss_limit_mb=2048 grown tests/generator/fuzz/corpus/ops_yaml",
        manual="libFuzzer's own statistics, read by hand"),
]


# ---------------------------------------------------------------- values

class Range:
    """Lowest to highest of several measurements; formats as "lo–hi" (or one number)."""

    def __init__(self, values):
        self.lo, self.hi = min(values), max(values)

    def __format__(self, spec):
        lo, hi = format(self.lo, spec), format(self.hi, spec)
        return lo if lo == hi else f"{lo}–{hi}"


def reduce_values(values, stat, what):
    if not values:
        raise LookupError(f"no value for {what}")
    if stat == "range":
        return Range(values)
    if stat == "first":
        return values[0]
    return statistics.median(values)


def entry_value(entry, key):
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[entry.get("time_unit", "ns")]
    if key == "real_time_ms":
        return entry["real_time"] * scale
    if key == "cpu_time_ms":
        return entry["cpu_time"] * scale
    if key == "ns_per_item":
        return 1e9 / entry["items_per_second"]
    if key not in entry:
        raise LookupError(f"{entry['name']} has no counter {key}")
    return entry[key]


def gbench_value(data, c):
    entries = [e for e in data["benchmarks"] if re.search(c.bench, e.get("run_name", e["name"]))]
    for e in entries:
        if e.get("error_occurred"):
            raise RuntimeError(f"{e['name']}: {e.get('error_message', 'failed')}")
    names = {e.get("run_name", e["name"]) for e in entries}
    if len(names) > 1 and c.stat != "range":
        raise LookupError(f"{c.bench} matches several benchmarks: {sorted(names)}")
    medians = [e for e in entries if e.get("aggregate_name") == "median"]
    if c.stat != "range" and medians:
        return entry_value(medians[0], c.key)
    runs = [e for e in entries if e.get("run_type", "iteration") == "iteration"]
    return reduce_values([entry_value(e, c.key) for e in runs], c.stat, f"{c.bench} {c.key}")


def json_value(data, j):
    values = [data]
    for part in j.path.split("."):
        values = [x for v in values for x in (v if part == "*" else [v[part]])]
    return reduce_values([v for v in values if v is not None], j.stat, j.path)


# ---------------------------------------------------------------- running

def run_command(command, build):
    """Runs a GBench or Script; returns its JSON."""
    env = dict(os.environ, **dict(command.env))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        if isinstance(command, GBench):
            argv = [os.path.join(build, "bench", command.binary),
                    f"--benchmark_filter={command.filter}", "--benchmark_format=json",
                    f"--benchmark_out={out}", "--benchmark_out_format=json", *command.args]
        else:
            python = os.path.join(build, "lazygen-python") if command.python == "lazygen-python" \
                else command.python
            argv = [python, os.path.join(ROOT, command.path), *command.args]
            if command.json == "file":
                argv += ["--json", out]
        print("running:", " ".join(f"{k}={v}" for k, v in command.env), " ".join(argv),
              file=sys.stderr, flush=True)
        run = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited with {run.returncode}:\n"
                               f"{run.stdout[-2000:]}{run.stderr[-2000:]}")
        if isinstance(command, Script) and command.json == "last-line":
            lines = [l for l in run.stdout.splitlines() if l.startswith("{")]
            if not lines:
                raise RuntimeError(f"{' '.join(argv)} printed no JSON line")
            return json.loads(lines[-1])
        with open(out) as f:
            return json.load(f)


def measure(row, data):
    values = {}
    for name, v in row.values.items():
        values[name] = gbench_value(data, v) if isinstance(v, C) else json_value(data, v)
    return values


def machine():
    model, flags = "unknown CPU", set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == "model name" and model == "unknown CPU":
                model = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    simd = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return f"{model}, {len(os.sched_getaffinity(0))} cores, {simd}"


# ---------------------------------------------------------------- the table

def split_cells(line):
    cells = re.split(r"(?<!\\)\|", line.strip())
    return [c.strip() for c in cells[1:-1]]


def escape(text):
    return re.sub(r"(?<!\\)\|", r"\\|", text)


def read_table(doc):
    if BEGIN not in doc or END not in doc:
        raise SystemExit(f"the document has no {BEGIN} ... {END} markers")
    body = doc[doc.index(BEGIN) + len(BEGIN):doc.index(END)]
    rows = {}
    for line in body.splitlines():
        cells = split_cells(line) if line.startswith("|") else []
        if len(cells) == len(COLUMNS) and cells[0] not in ("id", "") and not set(cells[0]) <= set("-:"):
            rows[cells[0].strip("`")] = dict(zip(COLUMNS, cells))
    return rows


def render(rows, old, new_cells):
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        kept = old.get(row.id, {})
        cells = {"id": f"`{row.id}`", "what": escape(row.what),
                 "command": "`" + escape(row.shown_command()) + "`",
                 "by": "by hand" if row.manual else "script"}
        for col in ("lazygen", "reference and goal", "measured on"):
            cells[col] = new_cells.get(row.id, {}).get(col) or kept.get(col) or "not measured"
        lines.append("| " + " | ".join(cells[c] for c in COLUMNS) + " |")
    known = {r.id for r in rows}
    for rid, cells in old.items():
        if rid not in known:
            print(f"warning: row {rid} is in the document but not in ROWS; kept", file=sys.stderr)
            lines.append("| " + " | ".join(cells[c] for c in COLUMNS) + " |")
    return "\n".join(lines)


def measure_rows(rows, build):
    """{row id: {column: new cell}} for `rows`, running each distinct command once."""
    stamp = f"{machine()}; {datetime.date.today().isoformat()}"
    results, new_cells = {}, {}
    for row in rows:
        if row.command not in results:
            results[row.command] = run_command(row.command, build)
        values = measure(row, results[row.command])
        cells = {"lazygen": escape(row.result.format(**values)), "measured on": stamp}
        if row.reference:
            cells["reference and goal"] = escape(row.reference.format(**values))
        new_cells[row.id] = cells
        print(f"{row.id}: {cells['lazygen']}", file=sys.stderr)
    return new_cells


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    pick = ap.add_mutually_exclusive_group(required=True)
    pick.add_argument("--only", help="comma-separated row ids to measure")
    pick.add_argument("--all", action="store_true", help="measure every row the script can run")
    pick.add_argument("--list", action="store_true", help="list the rows and exit")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build directory")
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "performance.md"))
    ap.add_argument("--dry-run", action="store_true", help="print the table; write nothing")
    args = ap.parse_args()

    by_id = {r.id: r for r in ROWS}
    if args.list:
        for r in ROWS:
            how = f"by hand: {r.manual}" if r.manual else "script"
            print(f"{r.id:22} {how:45} {r.shown_command()}")
        return
    chosen = [r for r in ROWS if not r.manual] if args.all else []
    for rid in (args.only.split(",") if args.only else []):
        if rid not in by_id:
            raise SystemExit(f"no row {rid}; --list shows them")
        if by_id[rid].manual:
            raise SystemExit(f"row {rid} is measured by hand ({by_id[rid].manual})")
        chosen.append(by_id[rid])

    new_cells = measure_rows(chosen, os.path.abspath(args.build))
    with open(args.doc) as f:
        doc = f.read()
    table = render(ROWS, read_table(doc), new_cells)
    if args.dry_run:
        print(table)
        return
    head, rest = doc.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(args.doc, "w") as f:
        f.write(f"{head}{BEGIN}\n{table}\n{END}{tail}")


if __name__ == "__main__":
    main()
