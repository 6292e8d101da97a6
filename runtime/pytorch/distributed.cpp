// Data-parallel training on the PyTorch device (python/lazygen_torch/distributed.py): PyTorch's
// Gloo process group as lazygen's communication engine, and the package's ops in the `lazygen`
// namespace (torch.ops.lazygen.distributed_init, all_reduce, ...).
//
// Note [Gloo for the PyTorch device]
// torch.distributed's collectives take CPU or CUDA tensors, and a Python ProcessGroup object
// cannot be passed to a custom op in PyTorch 1.13 (it is no TorchScript object). So lazygen makes
// its own c10d::ProcessGroupGloo from the environment torchrun sets (RANK, WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT), rendezvousing in the same TCP store as torch.distributed's own group
// under the prefix "lazygen/" (the store is shared in-process, as PyTorch shares it, or is the
// torchrun agent's), and wraps it as a distributed::Communicator over the cpu memory the
// collective kernels hand it. The collectives then are lazygen ops, traced into the step's graph
// on the device like everything else; torch.distributed's own group is not needed.
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/library.h>

#include <ATen/Functions.h>
#include <ATen/core/grad_mode.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "lazygen/distributed/buckets.h"
#include "lazygen/distributed/communicator.h"
#include "lazygen/generated/ops/all_gather.h"
#include "lazygen/generated/ops/all_reduce.h"
#include "lazygen/generated/ops/broadcast.h"
#include "lazygen/operators.h"
#include "pytorch/call.h"

namespace lazygen::pytorch {
namespace {

using distributed::CollectiveError;

class GlooCommunicator final : public distributed::Communicator {
 public:
  explicit GlooCommunicator(c10::intrusive_ptr<c10d::ProcessGroupGloo> group)
      : group_(std::move(group)) {}

  std::string_view engine() const override { return "gloo"; }
  int rank() const override { return group_->getRank(); }
  int world_size() const override { return group_->getSize(); }

  void all_reduce_sum(void* data, int64_t numel, DType dtype) override {
    if (numel == 0) return;
    std::vector<at::Tensor> t = {at::from_blob(data, {numel}, at::TensorOptions().dtype(to_scalar_type(dtype)))};
    run(group_->allreduce(t), "all_reduce");
  }
  void all_reduce_max(int64_t* data, int64_t numel) override {
    std::vector<at::Tensor> t = {at::from_blob(data, {numel}, at::TensorOptions().dtype(at::kLong))};
    c10d::AllreduceOptions options;
    options.reduceOp = c10d::ReduceOp::MAX;
    run(group_->allreduce(t, options), "the collective check");
  }
  void all_gather(const void* in, void* out, int64_t bytes) override {
    if (bytes == 0) return;
    std::vector<at::Tensor> input = {bytes_at(const_cast<void*>(in), bytes)};
    std::vector<std::vector<at::Tensor>> outputs(1);
    for (int r = 0; r < world_size(); ++r) {
      outputs[0].push_back(bytes_at(static_cast<char*>(out) + r * bytes, bytes));
    }
    run(group_->allgather(outputs, input), "all_gather");
  }
  void broadcast(void* data, int64_t bytes, int root) override {
    if (bytes == 0) return;
    std::vector<at::Tensor> t = {bytes_at(data, bytes)};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    run(group_->broadcast(t, options), "broadcast");
  }
  void barrier() override { run(group_->barrier(), "barrier"); }

 private:
  static at::Tensor bytes_at(void* p, int64_t bytes) {
    return at::from_blob(p, {bytes}, at::TensorOptions().dtype(at::kByte));
  }
  // Gloo's errors (a peer gone, its timeout) as CollectiveError.
  static void run(const c10::intrusive_ptr<c10d::Work>& work, const char* what) {
    try {
      work->wait();
    } catch (const std::exception& e) {
      throw CollectiveError(std::string(what) + ": gloo: " + e.what());
    }
  }

  c10::intrusive_ptr<c10d::ProcessGroupGloo> group_;
};

std::string required_env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    throw std::runtime_error(std::string("lazygen_torch.distributed.init: ") + name +
                             " is not set; launch the program with torchrun (or set RANK, "
                             "WORLD_SIZE, MASTER_ADDR and MASTER_PORT)");
  }
  return v;
}

// See Note [Gloo for the PyTorch device].
c10::intrusive_ptr<c10d::ProcessGroupGloo> make_group(double timeout_s) {
  const int rank = std::stoi(required_env("RANK"));
  const int world = std::stoi(required_env("WORLD_SIZE"));
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  const char* agent = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
  c10d::TCPStoreOptions store_options;
  store_options.port = static_cast<uint16_t>(std::stoi(required_env("MASTER_PORT")));
  store_options.isServer = rank == 0 && !(agent != nullptr && std::string(agent) == "True");
  store_options.numWorkers = world;
  store_options.waitWorkers = false;
  store_options.multiTenant = true;
  store_options.timeout = timeout;
  auto tcp = c10::make_intrusive<c10d::TCPStore>(required_env("MASTER_ADDR"), store_options);
  auto store = c10::make_intrusive<c10d::PrefixStore>("lazygen", tcp);
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  const char* iface = std::getenv("GLOO_SOCKET_IFNAME");
  options->devices.push_back(iface != nullptr
                                 ? c10d::ProcessGroupGloo::createDeviceForInterface(iface)
                                 : c10d::ProcessGroupGloo::createDefaultDevice());
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world, options);
}

void init_op(double timeout_s) {
  if (distributed::has_communicator()) {
    throw std::runtime_error("lazygen_torch.distributed.init: already initialized");
  }
  distributed::set_communicator(std::make_shared<GlooCommunicator>(make_group(timeout_s)));
  const char* local = std::getenv("LOCAL_WORLD_SIZE");  // torchrun's processes on this node
  distributed::share_cores(local != nullptr ? std::atoi(local) : 1);
}

void finalize_op() {
  if (!distributed::has_communicator()) return;
  DeviceScope scope;
  distributed::barrier();
  distributed::set_communicator(nullptr);
}

// The lazygen tensor behind a device tensor, or a view of a CPU tensor's memory. Collectives
// are not differentiable here: a tensor that requires grad is refused rather than cut off.
Tensor operand(const at::Tensor& t, const char* op) {
  if (t.requires_grad() && at::GradMode::is_enabled()) {
    throw std::runtime_error(std::string("lazygen_torch.distributed.") + op +
                             ": not differentiable on the PyTorch device; call it under "
                             "torch.no_grad() (or on a detached tensor)");
  }
  if (is_device_tensor(t)) return device_impl(t).tensor();
  return lazygen_cpu_view(t.contiguous());
}

at::Tensor result(const at::Tensor& like, Tensor out) {
  return is_device_tensor(like) ? wrap(std::move(out)) : cpu_view(out);
}

at::Tensor all_reduce_op(const at::Tensor& self, c10::string_view reduce_op) {
  DeviceScope scope;
  return result(self, all_reduce(operand(self, "all_reduce"), std::string_view(reduce_op.data(), reduce_op.size())));
}

at::Tensor all_gather_op(const at::Tensor& self) {
  DeviceScope scope;
  return result(self, all_gather(operand(self, "all_gather")));
}

at::Tensor broadcast_op(const at::Tensor& self, int64_t src) {
  DeviceScope scope;
  return result(self, broadcast(operand(self, "broadcast"), src));
}

std::vector<Tensor> operands(const std::vector<at::Tensor>& tensors, const char* op) {
  std::vector<Tensor> out;
  for (const at::Tensor& t : tensors) {
    if (!is_device_tensor(t)) {
      throw std::runtime_error(std::string("lazygen_torch.distributed.") + op +
                               ": expected tensors on the lazygen device, got one on " +
                               t.device().str());
    }
    out.push_back(device_impl(t).tensor());
  }
  return out;
}

void all_reduce_gradients_op(const std::vector<at::Tensor>& grads, int64_t bucket_bytes) {
  DeviceScope scope;
  const std::vector<Tensor> tensors = operands(grads, "all_reduce_gradients");
  distributed::all_reduce_mean(tensors, distributed::plan_buckets(tensors, bucket_bytes));
}

void broadcast_parameters_op(const std::vector<at::Tensor>& tensors) {
  DeviceScope scope;
  distributed::broadcast_from_rank0(operands(tensors, "broadcast_parameters"));
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(lazygen, m) {
  m.def("distributed_init(float timeout_s) -> ()", &init_op);
  m.def("distributed_finalize() -> ()", &finalize_op);
  m.def("distributed_is_initialized() -> bool", [] { return distributed::has_communicator(); });
  m.def("distributed_rank() -> int", [] { return int64_t{distributed::rank()}; });
  m.def("distributed_world_size() -> int", [] { return int64_t{distributed::world_size()}; });
  m.def("all_reduce(Tensor self, str reduce_op='sum') -> Tensor", &all_reduce_op);
  m.def("all_gather(Tensor self) -> Tensor", &all_gather_op);
  m.def("broadcast(Tensor self, int src=0) -> Tensor", &broadcast_op);
  m.def("all_reduce_gradients(Tensor[] grads, int bucket_bytes) -> ()", &all_reduce_gradients_op);
  m.def("broadcast_parameters(Tensor[] tensors) -> ()", &broadcast_parameters_op);
}

}  // namespace lazygen::pytorch
