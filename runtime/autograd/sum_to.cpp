// sum_to (autograd/sum_to.h): the dims to reduce, then one sum and one view.
#include "autograd/sum_to.h"

#include <stdexcept>
#include <string>

#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/view.h"
#include "lazygen/shape.h"

namespace lazygen::autograd {
namespace {

// The dims of a gradient of sizes `from` that summing to `to` reduces. Throws when `to` does not
// broadcast to `from`.
std::vector<int64_t> reduced_dims(const std::vector<int64_t>& from,
                                  const std::vector<int64_t>& to) {
  const auto lead = static_cast<int64_t>(from.size()) - static_cast<int64_t>(to.size());
  bool ok = lead >= 0;
  std::vector<int64_t> dims;
  for (int64_t d = 0; ok && d < static_cast<int64_t>(from.size()); ++d) {
    if (d < lead) {
      dims.push_back(d);
      continue;
    }
    const int64_t target = to[static_cast<size_t>(d - lead)];
    const int64_t have = from[static_cast<size_t>(d)];
    if (target == 1 && have != 1) {
      dims.push_back(d);
    } else if (target != have) {
      ok = false;
    }
  }
  if (!ok) {
    throw std::invalid_argument("sum_to: a gradient of sizes " + sizes_str(from) +
                                " cannot be summed to sizes " + sizes_str(to) +
                                " (they do not broadcast to it)");
  }
  return dims;
}

}  // namespace

Tensor sum_to(const Tensor& grad, const std::vector<int64_t>& sizes) {
  if (grad.sizes() == sizes) return grad;
  // Sizes that differ but broadcast always leave at least one dim to reduce (an empty list
  // would mean "every dim" to sum).
  Tensor reduced = sum(grad, reduced_dims(grad.sizes(), sizes), /*keepdim=*/true);
  return reduced.sizes() == sizes ? reduced : view(reduced, sizes);
}

}  // namespace lazygen::autograd
