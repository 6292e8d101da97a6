// The lazy device: tensors on `lazygen::kLazy` record ops as IR instead of running them, and run
// them, compiled and cached, when their values are needed.
//
//   Tensor w = randn({64, 64}, DType::Float32, kLazy);
//   for (int step = 0; step < n; ++step) {
//     Tensor loss = ...;      // traced, nothing runs yet
//     w.sub_(grad * lr);      // in-place: w's pending value is replaced, nothing grows
//     mark_step();            // one graph runs; from the second step on it is a cache hit
//   }
//   float v = loss.item<float>();  // item(), cpu() and printing sync what they need
//
// A step's graph is compiled once per distinct structure and input shapes; scalars passed to
// ops are runtime parameters (a new learning rate does not recompile). See metrics_report()
// (lazygen/metrics.h) for trace, cache and execution counters.
// Thread safety: each thread traces its own graphs (its own trie cache and its own set of live
// tensors); mark_step syncs and ends the calling thread's trace only, so threads may trace and
// step concurrently. Compiled graphs, the allocator and metrics are shared and safe. A tensor
// handed to another thread must not be used by two threads at once (Tensor's rule).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "lazygen/metrics.h"
#include "lazygen/tensor.h"

namespace lazygen {

// Executes everything pending on every live lazy tensor of the calling thread as one graph and
// ends the thread's trace: the next ops are matched against the previous steps' IR (the trie
// cache), so call it once per iteration of a loop. Execution is asynchronous: the graph is
// compiled (a compile error raises here) and handed to a worker thread, and tracing the next
// step goes on meanwhile; reading a result (item(), cpu(), printing) waits for it, and an error
// during execution raises there, when the failed result is read.
void mark_step();
// Executes the pending values of `tensors` (non-lazy or already materialized ones are skipped)
// without ending the trace.
void sync(const std::vector<Tensor>& tensors);
// Blocks until every launched execution has finished.
void wait_device_ops();
// Asynchronous execution (above) is on unless the environment sets LAZYGEN_ASYNC=0 or this
// turns it off; off, mark_step and sync execute before they return and raise execution errors.
void set_async_execution(bool enabled);
bool async_execution_enabled();

// The pending IR behind `tensors` as text or Graphviz dot (See core/ir/dump.h for the format).
// Materialized tensors contribute their DeviceData node if they were used in the current trace
// and nothing otherwise. Dumping neither syncs nor changes the trace.
std::string ir_dump_text(const std::vector<Tensor>& tensors);
std::string ir_dump_dot(const std::vector<Tensor>& tensors);

// Bounds the compiled graphs kept: `capacity` of them, retaining `bytes` between executions at
// most (outputs kept for reuse; the latest graph stays whatever it retains). Least recently used
// go first. LAZYGEN_COMPUTATION_CACHE_SIZE and LAZYGEN_COMPUTATION_CACHE_BYTES set them at start.
void set_computation_cache_capacity(size_t capacity, size_t bytes = size_t{2} << 30);
// Bounds the number of IR nodes each thread's trie cache keeps between traces (least recently
// traced branches go first; LAZYGEN_TRIE_CACHE_SIZE sets it at start). See Note [Bounded trie].
void set_trie_cache_capacity(size_t nodes);
// Dynamic shapes: a graph that differs from a compiled one only in sizes specializes that
// computation instead of compiling (See Note [Dynamic shapes] in backend/graph.h), and its trace
// takes the trie positions of the same ops at earlier sizes (Note [Trie reuse across sizes]),
// unless the environment sets LAZYGEN_DYNAMIC=0 or this turns it off (every new size compiles
// and traces a branch of its own: for A/B checks).
void set_dynamic_shapes(bool enabled);
bool dynamic_shapes();
// Forgets the calling thread's trie cache and every compiled graph: the next traces build their
// nodes and compile again. Pending and running graphs are unaffected.
void reset_trace_caches();

// Fusion: the lazy device runs graphs on the fused cpu backend (fusion groups in the blocked
// vector interpreter) unless the environment sets LAZYGEN_FUSION=0 or this turns it off; off,
// every op runs alone through its eager kernel (the reference for A/B checks). Switching
// empties the computation cache. Call it between steps, not while another thread traces.
void set_fusion_enabled(bool enabled);
bool fusion_enabled();
// Register chains: the interpreter evaluates runs of a group's ops in vector registers, strip by
// strip, instead of one pass over the tile per op (See Note [Register chains] in
// backend/cpu/fusion/chain_kernels.h), unless the environment sets LAZYGEN_CHAINS=0 or this turns
// them off. Results are the same either way (the off path is the reference for A/B checks).
// Takes effect at once, also for graphs already compiled.
void set_register_chains_enabled(bool enabled);
bool register_chains_enabled();
// Row bands: groups over the same rows that pass row-local values along run together a block of
// rows at a time, so those values stay in cache (See Note [Row bands] in
// fusion/row_bands.h), unless the environment sets LAZYGEN_ROW_BANDS=0 or this turns
// them off (then the groups run one after the other: the reference for A/B checks). Results are
// the same either way. Takes effect at once, also for graphs already compiled.
void set_row_bands_enabled(bool enabled);
bool row_bands_enabled();
// Step profiling: the fused cpu backend times each step of every execution (a fusion group, a row
// band, a library op) into the timed metric named after it ("step.conv2d float32[32, 64, 8, 8]",
// "step.group [32, 64, 64] sub.Tensor mul.Tensor"), so that the metrics report says where a
// training step's time goes (See Note [Step profiling] in backend/cpu/fusion/step_profile.h),
// when the environment sets LAZYGEN_PROFILE_STEPS=1 or this turns it on. Off by default. Takes
// effect at the next execution.
void set_step_profiling(bool enabled);
bool step_profiling();
// The backend graphs run on: "cpu" (the default; fused or not, as above) or "cuda" (fusion groups
// as NVRTC-compiled kernels and library ops as eager CUDA kernels on device 0; results are cuda
// tensors behind the lazy ones, and cpu()/item() copy them back). The environment picks the
// initial one with LAZYGEN_LAZY_BACKEND=cuda. Without a usable CUDA device (or in a build without
// CUDA) asking for "cuda" throws std::runtime_error "no CUDA device: ..."; another name throws
// std::invalid_argument. Switching empties the computation cache; do it between steps, before
// tracing, since tensors materialized by one backend are not moved to the other's device.
// Other names are backends a linked library registered (exec/backend_registry.h).
void set_lazy_backend(const std::string& name);
// "cpu" for either cpu backend (fused or not, which set_fusion_enabled switches), else the
// backend's name ("cuda", "cpu-kernels").
std::string lazy_backend();

// How the pending IR behind `tensors` would be fused: groups in execution order with their
// members, inputs and why each ended, and the nodes run alone (neither syncs nor changes the
// trace).
std::string fusion_plan_dump(const std::vector<Tensor>& tensors);

}  // namespace lazygen
