// all_reduce, all_gather and broadcast (custom_kernels.h): the installed communicator's
// primitives over a contiguous copy of self, each checked against the other ranks first
// (See Note [Collective fingerprints] in lazygen/distributed/communicator.h).
#include <cstring>
#include <type_traits>

#include "core/tensor/tensor_impl.h"
#include "lazygen/distributed/communicator.h"
#include "lazygen/generated/shapes/all_gather.h"
#include "lazygen/generated/shapes/all_reduce.h"
#include "lazygen/generated/shapes/broadcast.h"
#include "ops/cpu/custom_kernels.h"

namespace lazygen::cpu {
namespace {

using distributed::CollectiveCall;
using distributed::CollectiveKind;
using distributed::Communicator;

// A contiguous copy of self that the collective may overwrite.
Tensor fresh_copy(const Tensor& self) {
  Tensor out = make_cpu_tensor(self.sizes(), self.dtype());
  if (out.numel() > 0) {
    const Tensor in = self.contiguous();
    std::memcpy(out.raw_data(), in.raw_data(),
                static_cast<size_t>(in.numel()) * itemsize(in.dtype()));
  }
  return out;
}

void divide_in_place(Tensor& t, int world) {
  dispatch_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      T* p = t.data_ptr<T>();
      const T w = static_cast<T>(world);
      for (int64_t i = 0; i < t.numel(); ++i) p[i] /= w;
    }
  });
}

}  // namespace

Tensor all_reduce(const Tensor& self, std::string_view reduce_op) {
  compute_shape_all_reduce(self.shape(), reduce_op);
  Tensor out = fresh_copy(self);
  const bool mean = reduce_op == "mean";
  const CollectiveCall call{mean ? CollectiveKind::AllReduceMean : CollectiveKind::AllReduceSum,
                            self.dtype(), self.numel(), 0};
  int world = 1;
  distributed::run_collective("all_reduce", call, [&](Communicator& c) {
    world = c.world_size();
    c.all_reduce_sum(out.raw_data(), out.numel(), out.dtype());
  });
  if (mean && world > 1) divide_in_place(out, world);
  return out;
}

Tensor all_gather(const Tensor& self) {
  const Shape shape = compute_shape_all_gather(self.shape())[0];
  const Tensor in = self.contiguous();
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  const int64_t bytes = in.numel() * static_cast<int64_t>(itemsize(in.dtype()));
  const CollectiveCall call{CollectiveKind::AllGather, self.dtype(), self.numel(), 0};
  distributed::run_collective("all_gather", call, [&](Communicator& c) {
    c.all_gather(in.raw_data(), out.raw_data(), bytes);
  });
  return out;
}

Tensor broadcast(const Tensor& self, int64_t src) {
  compute_shape_broadcast(self.shape(), src);
  Tensor out = fresh_copy(self);
  const int64_t bytes = out.numel() * static_cast<int64_t>(itemsize(out.dtype()));
  const CollectiveCall call{CollectiveKind::Broadcast, self.dtype(), self.numel(), src};
  distributed::run_collective("broadcast", call, [&](Communicator& c) {
    c.broadcast(out.raw_data(), bytes, static_cast<int>(src));
  });
  return out;
}

}  // namespace lazygen::cpu
