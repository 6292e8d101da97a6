// Ops that are scatters under another name (lazygen/composite.h): max_unpool2d and max_unpool3d
// (each value written at its flat index within its plane) and index_reduce (scatter_reduce with
// the index spread over the other dims).
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/scatter_reduce.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

// self [N, C, *in] or [C, *in] with `spatial` dims, written at indices into planes of out_size.
Tensor unpool(const char* op, const Tensor& self, const Tensor& indices,
              const std::vector<int64_t>& out_size, size_t spatial) {
  if (out_size.size() != spatial) {
    throw ShapeError(op, "There should be exactly " + std::to_string(spatial) +
                             " elements (height, width) in output_size, but got " +
                             std::to_string(out_size.size()) + " elements.");
  }
  const int64_t rank = static_cast<int64_t>(spatial);
  if ((self.dim() != rank + 1 && self.dim() != rank + 2) || self.numel() == 0) {
    throw ShapeError(op, "Input to " + std::string(op) + " should be a " +
                             std::to_string(rank + 1) + "d or " + std::to_string(rank + 2) +
                             "d Tensor, but got a tensor with " + std::to_string(self.dim()) +
                             " dimensions.");
  }
  if (indices.sizes() != self.sizes()) {
    throw ShapeError(op, "Expected shape of indices to be same as that of the input tensor (" +
                             sizes_str(self.sizes()) +
                             ") but got indices tensor with shape: " + sizes_str(indices.sizes()));
  }
  if (indices.dtype() != DType::Int64) {
    throw ShapeError(op, "elements in indices should be type int64 but got: " +
                             std::string(dtype_name(indices.dtype())));
  }
  std::vector<int64_t> lead(self.sizes().begin(), self.sizes().end() - rank);
  int64_t plane = 1;
  for (int64_t s : out_size) plane *= s;
  std::vector<int64_t> flat = lead, out = lead;
  flat.push_back(-1);
  out.insert(out.end(), out_size.begin(), out_size.end());
  std::vector<int64_t> planes = lead;
  planes.push_back(plane);
  const int64_t last = static_cast<int64_t>(lead.size());
  return reshape(scatter(zeros(planes, self.dtype(), self.device()), last, reshape(indices, flat),
                         reshape(self, flat)),
                 out);
}

}  // namespace

Tensor max_unpool2d(const Tensor& self, const Tensor& indices,
                    const std::vector<int64_t>& output_size) {
  return unpool("max_unpool2d", self, indices, output_size, 2);
}

Tensor max_unpool3d(const Tensor& self, const Tensor& indices,
                    const std::vector<int64_t>& output_size) {
  return unpool("max_unpool3d", self, indices, output_size, 3);
}

Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    std::string_view reduce, bool include_self) {
  const char* op = "index_reduce()";  // PyTorch's name in its messages
  if (reduce != "prod" && reduce != "mean" && reduce != "amax" && reduce != "amin") {
    throw ShapeError(op, "Expected reduce to be one of prod, mean, amax or amin but got " +
                             std::string(reduce) + ".");
  }
  const int64_t d = wrap_dim(op, dim, std::max<int64_t>(self.dim(), 1));
  if (index.dim() > 1 || (source.dim() > 0 && index.numel() != source.size(d))) {
    throw ShapeError(op, "Index should have dimension 1 or 0 (got " + std::to_string(index.dim()) +
                             ") and as many elements as source has along dim " +
                             std::to_string(dim) + " (source of shape " +
                             sizes_str(source.sizes()) + ")");
  }
  if (source.dim() != self.dim()) {
    throw ShapeError(op, "Source/destination tensor must have same number of dimensions, got " +
                             sizes_str(source.sizes()) + " and " + sizes_str(self.sizes()));
  }
  if (self.dim() == 0) {  // as the 1-element vector it is
    return reshape(index_reduce(reshape(self, {1}), 0, reshape(index, {1}), reshape(source, {1}),
                                reduce, include_self),
                   {});
  }
  std::vector<int64_t> spread(static_cast<size_t>(self.dim()), 1);
  spread[static_cast<size_t>(d)] = index.numel();
  const Tensor full_index = expand(reshape(index, spread), source.sizes());
  return scatter_reduce(self, d, full_index, source, reduce, include_self);
}

}  // namespace lazygen
