// The CPU fallback of Note [CPU fallback] (pytorch/fallback.h), registered for every op on
// PrivateUse1.
#include "pytorch/fallback.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/lazy/lazy_state.h"
#include "core/lazy/lazy_tensor.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/copy_.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "pytorch/autograd_views.h"
#include "pytorch/call.h"

namespace lazygen::pytorch {
namespace {

// Device tensors that are copies of a view op's CPU result, by the state of their root, with
// the op's name. Entries whose state died are dropped when met.
struct CopiedViews {
  std::mutex mutex;
  std::unordered_map<const lazy::LazyState*, std::pair<std::weak_ptr<lazy::LazyState>, std::string>>
      roots;
};
CopiedViews& copied_views() {
  static CopiedViews* v = new CopiedViews;
  return *v;
}

const lazy::LazyState* root_of(const Tensor& t) {
  const lazy::LazyState& s = lazy::lazy_state(t);
  return s.view != nullptr ? s.view_root().get() : &s;
}

void remember_copied_view(const Tensor& t, const std::string& op) {
  CopiedViews& v = copied_views();
  std::lock_guard<std::mutex> lock(v.mutex);
  if (v.roots.size() >= 64) std::erase_if(v.roots, [](const auto& e) { return e.second.first.expired(); });
  std::shared_ptr<lazy::LazyState> state = t.impl()->lazy_state();
  v.roots[state.get()] = {state, op};
}

// A device tensor the kernel writes (an argument, or an element of a tensor list argument).
struct Slot {
  at::Tensor original;  // the device tensor
  at::Tensor cpu;       // the private CPU copy the kernel writes
};

bool writes(const c10::Argument& a) {
  return a.alias_info() != nullptr && a.alias_info()->isWrite();
}

// The CPU tensor the kernel gets for the device tensor `t`: its data shared, or a copy the kernel
// may write. REQUIRES: t is synced.
at::Tensor cpu_input(const at::Tensor& t, bool written) {
  if (c10::optional<c10::ScalarType> dtype = device_impl(t).placeholder_dtype()) {
    return at::empty(t.sizes(), at::TensorOptions().dtype(*dtype));  // nothing to share
  }
  const Tensor& data = lazy::lazy_state(device_impl(t).tensor()).materialized();
  at::Tensor shared = cpu_view(data.device().is_cpu() ? data : data.cpu());
  return written ? shared.clone() : shared;
}

// Syncs every device tensor among the arguments at once: one graph.
void sync_arguments(const std::vector<c10::IValue>& args) {
  std::vector<Tensor> pending;
  auto add = [&](const at::Tensor& t) {
    if (is_device_tensor(t)) pending.push_back(device_impl(t).tensor());
  };
  for (const c10::IValue& v : args) {
    if (v.isTensor()) add(v.toTensor());
    if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) add(t);
    }
    if (v.isOptionalTensorList()) {
      for (const c10::optional<at::Tensor>& t : v.toOptionalTensorList()) {
        if (t) add(*t);
      }
    }
  }
  sync(pending);
}

at::Tensor to_device_result(const c10::OperatorHandle& op, const at::Tensor& cpu) {
  if (!cpu.defined()) return cpu;
  TORCH_CHECK_TYPE(has_dtype(cpu.scalar_type()), c10::toString(op.operator_name()),
                   " (run on the CPU fallback) returned a tensor of dtype ", python_name(cpu.scalar_type()),
                   ", which the lazygen device cannot hold");
  return wrap(lazy::make_lazy_tensor_from_data(lazygen_cpu_view(cpu), kLazy));
}

// The CPU tensor for device tensor `t`, remembered in `slots` when the kernel writes it.
at::Tensor to_cpu_slot(const at::Tensor& t, bool written, std::vector<Slot>& slots) {
  at::Tensor cpu = cpu_input(t, written);
  if (written) slots.push_back(Slot{t, cpu});
  return cpu;
}

// Moves the device tensors of the arguments to the CPU in place on the stack, elements of tensor
// lists too; returns the ones the kernel writes, for write_back.
std::vector<Slot> arguments_to_cpu(const c10::FunctionSchema& schema, torch::jit::Stack& stack,
                                   size_t begin) {
  std::vector<Slot> slots;
  for (size_t i = 0; i < schema.arguments().size(); ++i) {
    c10::IValue& v = stack[begin + i];
    const bool written = writes(schema.arguments()[i]);
    if (v.isTensor() && is_device_tensor(v.toTensor())) {
      v = to_cpu_slot(v.toTensor(), written, slots);
    } else if (v.isTensorList()) {
      std::vector<at::Tensor> list = v.toTensorVector();
      for (at::Tensor& t : list) {
        if (is_device_tensor(t)) t = to_cpu_slot(t, written, slots);
      }
      v = c10::List<at::Tensor>(list);
    } else if (v.isOptionalTensorList()) {
      c10::List<c10::optional<at::Tensor>> list = v.toOptionalTensorList();
      for (size_t k = 0; k < list.size(); ++k) {
        c10::optional<at::Tensor> t = list.get(k);
        if (t && is_device_tensor(*t)) list.set(k, to_cpu_slot(*t, written, slots));
      }
      v = list;
    } else if (v.isDevice() && v.toDevice().type() == c10::DeviceType::PrivateUse1) {
      v = c10::Device(c10::kCPU);
    }
  }
  return slots;
}

// Writes what the kernel wrote into the device tensors it came from.
void write_back(const c10::OperatorHandle& op, const std::vector<Slot>& slots) {
  const std::string name = c10::toString(op.operator_name());
  for (const Slot& s : slots) {
    const Tensor& target = device_impl(s.original).tensor();
    Tensor value = lazy::make_lazy_tensor_from_data(lazygen_cpu_view(s.cpu), kLazy);
    if (target.sizes() == value.sizes()) {
      copy_(target, value);
    } else {
      TORCH_CHECK(lazy::lazy_state(target).view == nullptr, name, " resized a view of another "
                  "tensor on the lazygen device (from ", s.original.sizes(), " to ",
                  s.cpu.sizes(), "), which cannot be written back to its base");
      device_impl(s.original).set_tensor(std::move(value));
    }
  }
}

// Replaces the CPU results on the stack by device tensors (or by the written argument).
void results_to_device(const c10::OperatorHandle& op, const std::vector<Slot>& slots,
                       torch::jit::Stack& stack) {
  const auto& returns = op.schema().returns();
  const size_t begin = stack.size() - returns.size();
  for (size_t r = 0; r < returns.size(); ++r) {
    c10::IValue& v = stack[begin + r];
    const c10::AliasInfo* alias = returns[r].alias_info();
    if (alias != nullptr && alias->isWrite() && v.isTensor()) {
      for (const Slot& s : slots) {
        if (s.cpu.is_same(v.toTensor())) v = s.original;
      }
      continue;
    }
    const bool view = alias != nullptr;
    if (v.isTensor() && v.toTensor().defined() && !is_device_tensor(v.toTensor())) {
      v = to_device_result(op, v.toTensor());
      if (view) remember_copied_view(device_impl(v.toTensor()).tensor(), c10::toString(op.operator_name()));
    } else if (v.isTensorList()) {
      std::vector<at::Tensor> list = v.toTensorVector();
      for (at::Tensor& t : list) {
        t = to_device_result(op, t);
        if (view && t.defined()) remember_copied_view(device_impl(t).tensor(), c10::toString(op.operator_name()));
      }
      v = c10::List<at::Tensor>(list);
    }
  }
}

}  // namespace

void run_on_cpu(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  metrics::counter(c10::toString(op.operator_name())).add();
  DeviceScope scope;
  const c10::FunctionSchema& schema = op.schema();
  const size_t begin = stack->size() - schema.arguments().size();
  sync_arguments(std::vector<c10::IValue>(stack->begin() + static_cast<std::ptrdiff_t>(begin),
                                          stack->end()));
  std::vector<at::Tensor> inputs;  // the tensor arguments, which a written one may be made from
  for (size_t i = begin; i < stack->size(); ++i) {
    if ((*stack)[i].isTensor()) inputs.push_back((*stack)[i].toTensor());
  }
  std::vector<const at::Tensor*> sources;
  for (const at::Tensor& t : inputs) sources.push_back(&t);
  std::vector<Slot> slots = arguments_to_cpu(schema, *stack, begin);
  const std::string name = c10::toString(op.operator_name());
  for (const Slot& s : slots) {
    check_writable(name.c_str(), device_impl(s.original).tensor());
    prepare_write_through_view(name.c_str(), s.original, sources);
  }
  op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack);
  write_back(op, slots);
  results_to_device(op, slots, *stack);
}

void check_writable(const char* op, const Tensor& t) {
  CopiedViews& v = copied_views();
  std::lock_guard<std::mutex> lock(v.mutex);
  if (v.roots.empty()) return;
  auto it = v.roots.find(root_of(t));
  if (it == v.roots.end()) return;
  if (it->second.first.expired()) {
    v.roots.erase(it);
    return;
  }
  TORCH_CHECK(false, op, ": cannot write through the result of ", it->second.second,
              ", a view op the lazygen device runs on the CPU fallback: the result is a copy, so "
              "the write could not reach the tensor it views. Write to that tensor directly, or "
              "clone() the view first to make the copy explicit.");
}

void register_cpu_fallbacks(torch::Library& library) {
  c10::Dispatcher& dispatcher = c10::Dispatcher::singleton();
  const std::string prefix = "aten::";
  for (const c10::OperatorName& name : dispatcher.getAllOpNames()) {
    if (name.name.rfind(prefix, 0) != 0) continue;
    const c10::optional<c10::OperatorHandle> op = dispatcher.findOp(name);
    if (!op || op->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1) ||
        !op->hasKernelForDispatchKey(c10::DispatchKey::CompositeExplicitAutogradNonFunctional)) {
      continue;
    }
    std::string qualified = name.name.substr(prefix.size());
    if (!name.overload_name.empty()) qualified += "." + name.overload_name;
    library.impl(qualified.c_str(), torch::CppFunction::makeFromBoxedFunction<&run_on_cpu>());
  }
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&run_on_cpu>());
}

}  // namespace lazygen::pytorch
