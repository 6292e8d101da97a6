// sum_to: reduces a gradient computed at a broadcast shape back to the shape of the input that
// was broadcast, the reverse of broadcasting (PyTorch's at::sum_to).
//
// Broadcasting prepends dims and stretches size-1 dims; so the gradient is summed over its
// leading extra dims and, keeping the dim, over every dim where the input has size 1 and the
// gradient does not, then viewed as the input's sizes. Written with the op API (sum, view), so
// it works on every device and traces on the lazy one.
#pragma once

#include <cstdint>
#include <vector>

#include "lazygen/tensor.h"

namespace lazygen::autograd {

// `grad` summed to `sizes`; grad itself when its sizes already are `sizes`. Throws
// std::invalid_argument, naming both shapes, when `sizes` does not broadcast to grad's sizes.
Tensor sum_to(const Tensor& grad, const std::vector<int64_t>& sizes);

}  // namespace lazygen::autograd
