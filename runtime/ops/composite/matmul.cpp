// matmul (lazygen/composite.h) from reshape, expand, mm and bmm, the case split of PyTorch's
// _matmul_impl, and addbmm from bmm and sum. reshape copies only where a view cannot express the
// merge (an expanded batch).
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/bmm.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

[[noreturn]] void fail(const Tensor& a, const Tensor& b, const std::string& why) {
  throw ShapeError("matmul", why + " (self of shape " + sizes_str(a.sizes()) + ", other of shape " +
                                 sizes_str(b.sizes()) + ")");
}

void check_operands(const Tensor& a, const Tensor& b) {
  if (a.dim() == 0 || b.dim() == 0) {
    fail(a, b,
         "both arguments need to be at least 1D, but they are " + std::to_string(a.dim()) +
             "D and " + std::to_string(b.dim()) + "D");
  }
  if (a.dtype() != b.dtype()) {
    fail(a, b,
         std::string("expected both operands to have the same dtype, but got ") +
             std::string(dtype_name(a.dtype())) + " and " + std::string(dtype_name(b.dtype())));
  }
  const int64_t k = b.dim() == 1 ? b.size(0) : b.size(-2);
  if (a.size(-1) != k) {
    fail(a, b,
         "shapes cannot be multiplied (" + std::to_string(a.size(-1)) + " columns and " +
             std::to_string(k) + " rows)");
  }
}

int64_t product(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// N-D @ 1-D or 2-D: [batch..., n, k] -> [batch * n, k], one mm, then the batch dims back.
Tensor folded(const Tensor& a, const Tensor& b) {
  std::vector<int64_t> out(a.sizes().begin(), a.sizes().end() - 1);
  const int64_t k = a.size(-1);
  const Tensor rows = a.reshape({product(out), k});
  if (b.dim() == 1) return mm(rows, b.reshape({k, 1})).reshape(out);
  out.push_back(b.size(1));
  return mm(rows, b).reshape(out);
}

// Broadcast batch dims: both operands expanded to [batch..., rows, cols], flattened to 3-D.
Tensor batched(const Tensor& a, const Tensor& b) {
  const int64_t n = a.dim() > 1 ? a.size(-2) : 1, k = a.size(-1), p = b.size(-1);
  const std::vector<int64_t> batch_a(a.sizes().begin(),
                                     a.sizes().end() - std::min<int64_t>(a.dim(), 2));
  const std::vector<int64_t> batch_b(b.sizes().begin(), b.sizes().end() - 2);
  std::vector<int64_t> batch;
  try {
    batch = broadcast_sizes("matmul", batch_a, batch_b);
  } catch (const ShapeError&) {
    fail(a, b,
         "batch dimensions " + sizes_str(batch_a) + " and " + sizes_str(batch_b) +
             " cannot be broadcast");
  }
  const int64_t count = product(batch);
  std::vector<int64_t> sizes_a = batch, sizes_b = batch, out = batch;
  sizes_a.insert(sizes_a.end(), {n, k});
  sizes_b.insert(sizes_b.end(), {k, p});
  if (a.dim() > 1) out.push_back(n);
  out.push_back(p);
  const Tensor a3 = a.expand(sizes_a).reshape({count, n, k});
  const Tensor b3 = b.expand(sizes_b).reshape({count, k, p});
  return bmm(a3, b3).reshape(out);
}

}  // namespace

Tensor matmul(const Tensor& self, const Tensor& other) {
  check_operands(self, other);
  const int64_t d1 = self.dim(), d2 = other.dim(), k = self.size(-1);
  if (d1 == 1 && d2 == 1) return mm(self.reshape({1, k}), other.reshape({k, 1})).reshape({});
  if (d1 == 2 && d2 == 1) return mm(self, other.reshape({k, 1})).reshape({self.size(0)});
  if (d1 == 1 && d2 == 2) return mm(self.reshape({1, k}), other).reshape({other.size(1)});
  if (d1 == 2 && d2 == 2) return mm(self, other);
  if (d1 >= 3 && d2 <= 2) return folded(self, other);
  return batched(self, other);
}

Tensor Tensor::matmul(const Tensor& other) const {
  return lazygen::matmul(*this, other);
}

Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
              const Scalar& alpha) {
  for (const Tensor* batch : {&batch1, &batch2}) {
    if (batch->dim() != 3) {
      throw ShapeError("addbmm", std::string(batch == &batch1 ? "batch1" : "batch2") +
                                     " must be a 3D tensor, got " + sizes_str(batch->sizes()));
    }
  }
  const Tensor product = sum(bmm(batch1, batch2), std::vector<int64_t>{0});
  const Tensor scaled = alpha.to<double>() == 1 ? product : product * alpha;
  // beta = 0 drops self (NaN included) but keeps its broadcast against the product.
  if (beta.to<double>() == 0) return scaled + zeros_like(expand(self, product.sizes()));
  return (beta.to<double>() == 1 ? self : self * beta) + scaled;
}

Tensor trilinear(const Tensor& i1, const Tensor& i2, const Tensor& i3,
                 const std::vector<int64_t>& expand1, const std::vector<int64_t>& expand2,
                 const std::vector<int64_t>& expand3, const std::vector<int64_t>& sumdim) {
  const int64_t rank = i1.dim() + static_cast<int64_t>(expand1.size());
  auto spread = [&](const Tensor& t, const std::vector<int64_t>& dims, const char* name) {
    if (t.dim() + static_cast<int64_t>(dims.size()) != rank) {
      throw ShapeError("_trilinear", std::string(name) + " of shape " + sizes_str(t.sizes()) +
                                         " with " + std::to_string(dims.size()) +
                                         " dims inserted is not " + std::to_string(rank) + "-d");
    }
    std::vector<bool> inserted(static_cast<size_t>(rank), false);
    for (int64_t d : dims) inserted[static_cast<size_t>(wrap_dim("_trilinear", d, rank))] = true;
    std::vector<int64_t> sizes;
    int64_t next = 0;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(inserted[static_cast<size_t>(d)] ? 1 : t.size(next++));
    return t.reshape(sizes);
  };
  const Tensor product =
      spread(i1, expand1, "i1") * spread(i2, expand2, "i2") * spread(i3, expand3, "i3");
  return sumdim.empty() ? product : sum(product, sumdim);
}

}  // namespace lazygen
