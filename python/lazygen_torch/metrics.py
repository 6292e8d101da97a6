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
