"""lazygen as a PyTorch device: run ordinary PyTorch programs on lazygen's lazy device.

Named like ``torch._lazy`` so that a program written for LTC changes only its imports and its
device line::

    import lazygen_torch
    device = lazygen_torch.device()          # torch.device("privateuseone:0")
    model = Net().to(device)
    for data, target in loader:
        data, target = data.to(device), target.to(device)
        ...
        optimizer.step()
        lazygen_torch.mark_step()            # the step's graph runs (compiled once, then cached)
    print(lazygen_torch.metrics.metrics_report())

Ops lazygen lacks run on the CPU and are counted as ``aten::<op>`` (metrics.counter_names()).
Importing the package loads the device (liblazygen_torch.so beside this file) into PyTorch.
"""
import os

import torch

_LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "liblazygen_torch.so")
if not os.path.exists(_LIBRARY):
    raise ImportError(f"lazygen_torch: {_LIBRARY} is missing; build lazygen with PyTorch found "
                      "(cmake -DLAZYGEN_TORCH=ON) and import the package from the build's "
                      "python/ directory or an install")
torch.ops.load_library(_LIBRARY)
_ops = torch.ops.lazygen

from . import metrics  # noqa: E402  (needs the library loaded)


def _device_aware_new(new):
    """PyTorch 1.13's legacy Tensor.new(...) refuses tensors of PrivateUse1 (it lists the devices
    it knows), yet optimizers call it (Rprop's state, Adamax's foreach path): for a device tensor
    it builds the result from a CPU tensor of the same dtype, then moves it to the device (or to
    the `device=` given)."""
    def device_new(self, *args, **kwargs):
        if self.device.type != "privateuseone":
            return new(self, *args, **kwargs)
        target = kwargs.pop("device", self.device)
        return new(torch.empty(0, dtype=self.dtype), *args, **kwargs).to(target)
    device_new.__doc__ = new.__doc__
    return device_new


torch.Tensor.new = _device_aware_new(torch.Tensor.new)

__all__ = ["device", "mark_step", "wait_device_ops", "metrics", "ir_dump_text", "ir_dump_dot",
           "fusion_plan_dump", "set_fusion_enabled", "fusion_enabled", "set_async_execution",
           "async_execution_enabled", "set_register_chains_enabled", "register_chains_enabled",
           "registration_report", "reset_trace_caches", "set_dynamic_shapes", "dynamic_shapes",
           "set_step_profiling", "step_profiling", "set_lapack_enabled", "lapack_enabled"]


def device():
    """The lazygen device: torch.device("privateuseone:0")."""
    return torch.device("privateuseone", 0)


def mark_step():
    """Runs everything pending on the device as one graph and ends the step's trace.

    Call it once per training step (after optimizer.step()). The graph is compiled on first
    sight and replayed from the cache afterwards; execution is asynchronous (reading a value
    waits for it)."""
    _ops.mark_step()


def wait_device_ops():
    """Blocks until every launched execution has finished."""
    _ops.wait_device_ops()


def ir_dump_text(tensors):
    """The pending IR behind `tensors` (a list) as text; neither syncs nor changes the trace."""
    return _ops.ir_dump_text(list(tensors))


def ir_dump_dot(tensors):
    """The pending IR behind `tensors` as Graphviz dot."""
    return _ops.ir_dump_dot(list(tensors))


def fusion_plan_dump(tensors):
    """How the pending IR behind `tensors` would be fused: groups, members, why each ended."""
    return _ops.fusion_plan_dump(list(tensors))


def set_fusion_enabled(enabled):
    """Fused CPU backend on (default) or off (every op alone: the reference for A/B checks)."""
    _ops.set_fusion_enabled(bool(enabled))


def fusion_enabled():
    return _ops.fusion_enabled()


def set_dynamic_shapes(enabled):
    """Dynamic shapes on (default: a new batch size or sequence length specializes the graph's
    compiled computation, and its trace reuses the trie positions of earlier sizes) or off (every
    new size compiles and traces a branch of its own; LAZYGEN_DYNAMIC=0 at start)."""
    _ops.set_dynamic_shapes(bool(enabled))


def dynamic_shapes():
    return _ops.dynamic_shapes()


def set_lapack_enabled(enabled):
    """The device's LU, Cholesky and triangular solves as LAPACK ops (on by default;
    LAZYGEN_LAPACK=0 at start) or unrolled into graphs of ordinary ops (Note [LAPACK or unrolled]);
    eigh, svd and rectangular LU have the LAPACK form only."""
    _ops.set_lapack_enabled(bool(enabled))


def lapack_enabled():
    return _ops.lapack_enabled()


def set_async_execution(enabled):
    """Asynchronous execution on (default) or off (mark_step executes before it returns)."""
    _ops.set_async_execution(bool(enabled))


def async_execution_enabled():
    return _ops.async_execution_enabled()


def set_register_chains_enabled(enabled):
    """Register chains in the fused interpreter on (default) or off (A/B checks)."""
    _ops.set_register_chains_enabled(bool(enabled))


def register_chains_enabled():
    return _ops.register_chains_enabled()


def set_step_profiling(enabled):
    """Times each fusion group, row band and library op of every execution into a timed metric
    named after it (see metrics.step_profile()); off by default, also set by
    LAZYGEN_PROFILE_STEPS=1."""
    _ops.set_step_profiling(bool(enabled))


def step_profiling():
    return _ops.step_profiling()


def registration_report():
    """Which aten ops the device serves itself: a list of (name, origin, registered, reason)."""
    rows = []
    for line in _ops.registration_report():
        name, origin, status, reason = line.split("\t", 3)
        rows.append((name, origin, status == "registered", reason))
    return rows


def reset_trace_caches():
    """Forgets the device's recorded traces (trie cache) and every compiled graph.

    The next steps trace and compile again; what is pending or running is unaffected. The trie
    cache is also bounded by itself (LAZYGEN_TRIE_CACHE_SIZE nodes, least recently traced
    branches evicted first)."""
    _ops.reset_trace_caches()
