// Out tensors of the op API: what the generated op API calls for an op with an out= argument.
// It lives with the op API, which knows lazy views (core/lazy), rather than with the dispatch
// helpers of core below it.
//
// Note [Out tensors]
// An out= op writes a tensor of its result's shape. Given an empty out tensor (PyTorch's idiom:
// `add(a, b, out=torch.empty(0))`), the op API first makes it a new contiguous tensor of that
// shape (its dtype and device kept; every handle to it sees the new one): resize_empty_out. A
// non-empty out tensor of another shape is refused by the op's shape check (PyTorch 1.13 resizes
// it with a deprecation warning and means to refuse it; the PyTorch device resizes it, warning as
// PyTorch does). A lazy view is never resized.
#pragma once

#include <cstdint>
#include <vector>

#include "lazygen/tensor.h"

namespace lazygen::detail {

void resize_empty_out(const Tensor& out, const std::vector<int64_t>& sizes);

}  // namespace lazygen::detail
