// See linalg_parts.h.
#include "ops/composite/linalg_parts.h"

#include <string>

#include "core/env_flag.h"
#include "lazygen/autograd.h"
#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_lapack_trsm.h"
#include "lazygen/generated/ops/argmax.h"
#include "lazygen/generated/ops/bmm.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/lazy.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

EnvSwitch& lapack_flag() {
  static EnvSwitch flag("LAZYGEN_LAPACK", EnvSwitch::kOnByDefault);
  return flag;
}

}  // namespace

void set_lapack_enabled(bool enabled) {
  lapack_flag().set(enabled);
}

bool lapack_enabled() {
  return lapack_flag().on();
}

}  // namespace lazygen

namespace lazygen::linalg_parts {

bool use_lapack(std::initializer_list<const Tensor*> operands) {
  if (!lapack_enabled()) return false;
  bool lazy = false;
  for (const Tensor* t : operands) {
    if (!is_floating(t->dtype())) return false;
    if (t->requires_grad() && grad_mode_enabled()) return false;
    if (t->device().is_lazy()) {
      lazy = true;
    } else if (!t->device().is_cpu()) {
      return false;
    }
  }
  return !lazy || lazy_backend() == "cpu";
}

// PyTorch's messages (squareCheckInputs, checkFloatingOrComplex).
void check_square(const char* op, const Tensor& a) {
  if (a.dim() >= 2 && a.size(-1) != a.size(-2)) {
    throw ShapeError(op, "A must be batches of square matrices, but they are " +
                             std::to_string(a.size(-2)) + " by " + std::to_string(a.size(-1)) +
                             " matrices");
  }
  check_floating_matrix(op, a);
}

void check_floating_matrix(const char* op, const Tensor& a) {
  if (a.dim() < 2) {
    throw ShapeError(op, "The input tensor A must have at least 2 dimensions.");
  }
  if (!is_floating(a.dtype())) {
    throw ShapeError(op, "Expected a floating point or complex tensor as input. Got " +
                             std::string(dtype_name(a.dtype())));
  }
}

void check_matrix(const char* op, const char* name, const Tensor& a, const Tensor& like) {
  if (a.dim() < 2) {
    throw ShapeError(op, std::string("expected ") + name +
                             " to be a batch of matrices [..., m, n], got shape " +
                             sizes_str(a.sizes()));
  }
  if (a.dtype() != like.dtype()) {
    throw ShapeError(op, std::string("expected ") + name + " of dtype " +
                             std::string(dtype_name(like.dtype())) + ", got " +
                             std::string(dtype_name(a.dtype())));
  }
}

void check_equation(const char* op, const Tensor& A, const Tensor& B, bool left) {
  const int64_t n = A.size(-1);
  if ((left ? B.size(-2) : B.size(-1)) == n) return;
  throw ShapeError(op, std::string("Incompatible shapes of A and B for the equation ") +
                           (left ? "AX = B" : "XA = B") + " (" + std::to_string(n) + "x" +
                           std::to_string(n) + " and " + std::to_string(B.size(-2)) + "x" +
                           std::to_string(B.size(-1)) + ")");
}

Tensor identity_like(const Tensor& a) {
  const Tensor rows = arange(a.size(-2), DType::Int64, a.device());
  const Tensor cols = arange(a.size(-1), DType::Int64, a.device());
  return expand(eq(unsqueeze(rows, 1), cols).to(a.dtype()), a.sizes());
}

std::vector<int64_t> batch_dims(const Tensor& t) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end() - 2);
}

int64_t batch_count(const Tensor& t) {
  int64_t b = 1;
  for (int64_t d = 0; d + 2 < t.dim(); ++d) b *= t.size(d);
  return b;
}

std::vector<int64_t> batch_shape(std::vector<int64_t> batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

Batched broadcast_batches(const char* op, const Tensor& A, const Tensor& B) {
  std::vector<int64_t> batch;
  try {
    batch = broadcast_sizes(op, batch_dims(A), batch_dims(B));
  } catch (const ShapeError&) {
    throw ShapeError(op, "the batch dims of A " + sizes_str(A.sizes()) + " and B " +
                             sizes_str(B.sizes()) + " do not broadcast");
  }
  int64_t b = 1;
  for (int64_t s : batch) b *= s;
  const int64_t n = A.size(-1), k = B.size(-1);
  return {reshape(expand(A, batch_shape(batch, n, n)), {b, n, n}),
          reshape(expand(B, batch_shape(batch, B.size(-2), k)), {b, B.size(-2), k}), batch};
}

Tensor substitute(const Tensor& T, const Tensor& c, bool lower, bool unit) {
  if (use_lapack({&T, &c}) && T.dtype() == c.dtype()) return _lapack_trsm(T, c, !lower, unit);
  const int64_t n = T.size(1);
  std::vector<Tensor> x(static_cast<size_t>(n));
  for (int64_t step = 0; step < n; ++step) {
    const int64_t i = lower ? step : n - 1 - step;
    Tensor r = narrow(c, 1, i, 1);  // [b, 1, k]
    if (step > 0) {
      const int64_t from = lower ? 0 : i + 1;
      std::vector<Tensor> known(x.begin() + from, x.begin() + from + step);
      r = r - bmm(narrow(narrow(T, 1, i, 1), 2, from, step), cat(known, 1));
    }
    x[static_cast<size_t>(i)] = unit ? r : r / narrow(narrow(T, 1, i, 1), 2, i, 1);
  }
  return n == 0 ? c : cat(x, 1);
}

Tensor first_failure(const Tensor& failed) {
  const Tensor first = argmax(failed.to(DType::Int32), -1) + 1;
  return where(any(failed, -1), first, zeros({}, DType::Int64, failed.device())).to(DType::Int32);
}

}  // namespace lazygen::linalg_parts
