// The lazy device's wiring: the process-wide executor, the device hooks through which the
// tensor core moves data to and from the lazy device (core/tensor/device_hooks.h), and the public
// API of lazygen/lazy.h.
//
// The hooks are registered by the initializer of lazygen_lazy_device_linked, which every program
// linking a runtime references (runtime/linked_registrations.cpp), as it does the cpu backends'
// registrations: else the linker could leave this library, or this object file, out.
#include <atomic>
#include <cstdlib>
#include <string>

#include "core/env_flag.h"
#include "core/exit_wait.h"
#include "core/ir/dump.h"
#include "core/ir/trie_cache.h"
#include "core/lazy/lazy_tensor.h"
#include "core/tensor/device_hooks.h"
#include "core/tensor/tensor_impl.h"
#include "exec/backend_registry.h"
#include "exec/graph_executor.h"
#include "exec/lazy_device.h"
#include "lazygen/lazy.h"

namespace lazygen {
namespace exec {
namespace {

// A count from the environment variable `name`, or `fallback` when unset or not a number.
size_t size_from_env(const char* name, size_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  unsigned long long n = std::strtoull(text, &end, 10);
  return *end == '\0' ? static_cast<size_t>(n) : fallback;
}

// The lazy tensor's data, executing its pending value first. A copy: lazy data is shared by
// DeviceData nodes and other lazy tensors and must never be written, while the caller (cpu(),
// item()) hands the result out as an ordinary cpu tensor. Data a device backend produced (cuda)
// is copied to the host.
Tensor lazy_to_cpu_hook(const Tensor& t) {
  lazy::LazyState& s = lazy::lazy_state(t);
  if (s.pending()) GraphExecutor::global().sync({t.impl()->lazy_state()});
  const Tensor& data = s.materialized();
  return data.device().is_cpu() ? data.clone() : data.cpu();
}

std::atomic<LazyCast> g_lazy_cast{nullptr};  // See Note [Traced casts] in lazy_device.h

// Tensor::to(DType): traced when the op layer installed its cast, else through the cpu.
Tensor lazy_to_dtype_hook(const Tensor& t, DType dtype) {
  if (LazyCast cast = g_lazy_cast.load(std::memory_order_acquire)) return cast(t, dtype);
  return lazy::make_lazy_tensor_from_data(lazy_to_cpu_hook(t).to(dtype), t.device());
}

// A copy for the same reason: the caller may keep writing the cpu tensor.
Tensor cpu_to_lazy_hook(const Tensor& cpu, Device target) {
  return lazy::make_lazy_tensor_from_data(cpu.clone(), target);
}

// A clone shares the pending value or the (never written) data: no work until it is used.
Tensor lazy_clone_hook(const Tensor& t) {
  lazy::LazyState& s = lazy::lazy_state(t);
  s.take_launch_if_done();
  if (s.in_flight()) return lazy::make_lazy_tensor_in_flight(s.launch, s.launch_index, t.device());
  if (!s.pending()) return lazy::make_lazy_tensor_from_data(s.materialized(), t.device());
  return lazy::make_lazy_tensor(s.value.node, s.value.index, t.device());
}

bool register_lazy_device() {
  DeviceHooks hooks;
  hooks.to_cpu = &lazy_to_cpu_hook;
  hooks.from_cpu = &cpu_to_lazy_hook;
  hooks.clone = &lazy_clone_hook;
  hooks.to_dtype = &lazy_to_dtype_hook;
  hooks.wait = &wait_device_ops;
  set_device_hooks(DeviceType::Lazy, hooks);
  return true;
}

// The fused cpu backend ("cpu-fused", registered by the fusion library) unless LAZYGEN_FUSION=0
// asks for the unfused reference ("cpu-lowering", backend/cpu/lowering_backend.h; A/B checks).
std::shared_ptr<Backend> make_backend(bool fused) {
  return make_registered_backend(fused ? "cpu-fused" : "cpu-lowering");
}

bool fusion_from_env() {
  return env_flag_on("LAZYGEN_FUSION");
}

// LAZYGEN_LAZY_BACKEND names the backend (set_lazy_backend); unset or "cpu": the cpu backend.
std::shared_ptr<Backend> backend_from_env() {
  const char* text = std::getenv("LAZYGEN_LAZY_BACKEND");
  if (text == nullptr || *text == '\0' || std::string(text) == "cpu") {
    return make_backend(fusion_from_env());
  }
  return make_registered_backend(text);
}

// See Note [Asynchronous execution]; LAZYGEN_ASYNC=0 executes at each sync instead.
bool async_from_env() {
  return env_flag_on("LAZYGEN_ASYNC");
}

}  // namespace

}  // namespace exec
}  // namespace lazygen

extern const bool lazygen_lazy_device_linked;
const bool lazygen_lazy_device_linked = lazygen::exec::register_lazy_device();

namespace lazygen {
namespace exec {

void set_lazy_cast(LazyCast cast) {
  g_lazy_cast.store(cast, std::memory_order_release);
}

// Leaked on purpose (tensors in static storage may sync while the program exits); its launches
// are run to the end before exit, while the libraries they call (OpenBLAS, oneDNN) are still up
// (Note [Finishing asynchronous work at exit]).
GraphExecutor& GraphExecutor::global() {
  static GraphExecutor* executor = [] {
    auto* e = new GraphExecutor(backend_from_env(), GraphExecutor::kDefaultCacheCapacity, async_from_env());
    e->set_cache_capacity(size_from_env("LAZYGEN_COMPUTATION_CACHE_SIZE", GraphExecutor::kDefaultCacheCapacity),
                          size_from_env("LAZYGEN_COMPUTATION_CACHE_BYTES", GraphExecutor::kDefaultCacheBytes));
    e->set_dynamic(env_flag_on("LAZYGEN_DYNAMIC"));  // See Note [Dynamic shapes] in backend/graph.h
    // See Note [Finishing asynchronous work at exit] in core/exit_wait.h.
    e->wait_at_launching_thread_exit();
    set_exit_wait([] { global().wait(); });
    return e;
  }();
  return *executor;
}

}  // namespace exec

void mark_step() {
  exec::GraphExecutor::global().mark_step();
}

void sync(const std::vector<Tensor>& tensors) {
  std::vector<std::shared_ptr<lazy::LazyState>> states;
  for (const Tensor& t : tensors) {
    if (!t.defined() || !t.impl()->lazy_state()) continue;
    lazy::lazy_state(t);  // recomputes a stale view (See Note [Lazy views])
    states.push_back(t.impl()->lazy_state());
  }
  exec::GraphExecutor::global().sync(states);
}

void wait_device_ops() {
  exec::GraphExecutor::global().wait();
}

std::string ir_dump_text(const std::vector<Tensor>& tensors) {
  return ir::dump_text(lazy::pending_values(tensors));
}

std::string ir_dump_dot(const std::vector<Tensor>& tensors) {
  return ir::dump_dot(lazy::pending_values(tensors));
}

void set_computation_cache_capacity(size_t capacity, size_t bytes) {
  exec::GraphExecutor::global().set_cache_capacity(capacity, bytes);
}

void set_trie_cache_capacity(size_t nodes) {
  ir::TrieCache::set_capacity(nodes);
}

void reset_trace_caches() {
  ir::TrieCache::current().reset();
  exec::GraphExecutor::global().clear_cache();
}

void set_async_execution(bool enabled) {
  exec::GraphExecutor::global().set_async(enabled);
}

bool async_execution_enabled() {
  return exec::GraphExecutor::global().async();
}

// The executor's reuse of compiled structures and the trie's reuse of nodes across sizes (See
// Note [Trie reuse across sizes] in core/ir/trie_cache.h) switch together.
void set_dynamic_shapes(bool enabled) {
  exec::GraphExecutor::global().set_dynamic(enabled);
  ir::TrieCache::set_reuse_across_sizes(enabled);
}

bool dynamic_shapes() {
  return exec::GraphExecutor::global().dynamic();
}

void set_fusion_enabled(bool enabled) {
  if (enabled != fusion_enabled()) {
    exec::GraphExecutor::global().set_backend(exec::make_backend(enabled));
  }
}

bool fusion_enabled() {
  return exec::GraphExecutor::global().backend()->name() == "cpu-fused";
}

void set_lazy_backend(const std::string& name) {
  exec::GraphExecutor& executor = exec::GraphExecutor::global();
  if (name == lazy_backend()) return;
  executor.set_backend(name == "cpu" ? exec::make_backend(exec::fusion_from_env())
                                     : exec::make_registered_backend(name));
}

std::string lazy_backend() {
  const std::string name = exec::GraphExecutor::global().backend()->name();
  return name == "cpu-fused" || name == "cpu-lowering" ? "cpu" : name;
}

}  // namespace lazygen
