"""Counters and timers of the lazygen device, named like torch._lazy.metrics.

Counters include lazygen's own (``trie_cache.hit``, ``computation_cache.miss``, ``exec.sync``,
``lazy.op.<op>``, ...) and one per op that ran on the CPU fallback, named as LTC names them
(``aten::sin``)."""
import torch

_ops = torch.ops.lazygen


def reset():
    """Zeroes every counter and clears every timed metric."""
    _ops.metrics_reset()


def counter_names():
    """The names of the counters with a non-zero value, sorted."""
    return list(_ops.counter_names())


def counter_value(name):
    """The counter's value, or None when no counter of that name exists."""
    return _ops.counter_value(name)


def fallback_counters():
    """{"aten::lgamma": count, ...}: the ops that ran on the CPU fallback since the last reset."""
    return {n: _ops.counter_value(n) for n in counter_names() if n.startswith("aten::")}


def metrics_report():
    """A readable table of every non-zero counter and every timed metric."""
    return _ops.metrics_report()


def timed_metrics():
    """{name: (count, total_ms)} for every timed metric with samples since the last reset."""
    out = {}
    for line in _ops.timed_metrics():
        name, count, total = line.split("\t")
        out[name] = (int(count), float(total))
    return out


def step_profile():
    """Where executions' time went while step profiling was on (lazygen_torch.set_step_profiling):
    a list of (what ran, count, total_ms), the most time first, e.g.
    ("conv2d float32[32, 64, 8, 8]", 40, 61.2) or ("group [32, 64, 64] sub.Tensor mul.Tensor", ...)."""
    rows = [(name[len("step."):], count, total)
            for name, (count, total) in timed_metrics().items() if name.startswith("step.")]
    return sorted(rows, key=lambda row: -row[2])
