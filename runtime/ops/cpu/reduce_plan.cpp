// Reduction planning (reduce_plan.h).
#include "ops/cpu/reduce_plan.h"

#include <optional>

#include "core/tensor/tensor_impl.h"

namespace lazygen::cpu::detail {
namespace {

struct Dims {
  std::vector<int64_t> sizes, strides;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
};

// The kept (mask false) or reduced (mask true) dims of t.
Dims select_dims(const Tensor& t, const std::vector<bool>& mask, bool reduced) {
  Dims out;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (mask[static_cast<size_t>(d)] != reduced) continue;
    out.sizes.push_back(t.size(d));
    out.strides.push_back(t.stride(d));
  }
  return out;
}

// The number of innermost dims that form one contiguous run with innermost stride 1 (size-1
// dims count, whatever their stride).
size_t contiguous_suffix(const Dims& dims) {
  int64_t expected = 1;
  size_t count = 0;
  for (size_t i = dims.sizes.size(); i-- > 0; ++count) {
    if (dims.sizes[i] == 1) continue;
    if (dims.strides[i] != expected) break;
    expected *= dims.sizes[i];
  }
  return count;
}

// True when the dims (size-1 dims ignored) form one run with innermost stride 1.
bool is_contiguous_run(const Dims& dims) {
  return contiguous_suffix(dims) == dims.sizes.size();
}

// The innermost kept dim with more than one element, if it is contiguous; -1 otherwise.
int64_t contiguous_inner_kept(const Dims& kept) {
  for (size_t i = kept.sizes.size(); i-- > 0;) {
    if (kept.sizes[i] == 1) continue;
    return kept.strides[i] == 1 ? static_cast<int64_t>(i) : -1;
  }
  return -1;
}

ReducePlan inner_plan(const Tensor& input, const Dims& kept, const Dims& reduced) {
  ReducePlan plan;
  plan.input = input;
  plan.num_outputs = kept.numel();
  plan.run = reduced.numel();
  plan.outer_offsets = enumerate_offsets(kept.sizes, kept.strides);
  return plan;
}

// The Runs layout when the reduced dims end in a contiguous run of at least kMinRun elements,
// else Gathered, unless that is better copied (See ReducePlan).
std::optional<ReducePlan> runs_plan(const Tensor& self, const Dims& kept, const Dims& reduced) {
  const size_t suffix = contiguous_suffix(reduced), rest = reduced.sizes.size() - suffix;
  const Dims run{{reduced.sizes.begin() + rest, reduced.sizes.end()}, {}};
  const int64_t runs = reduced.numel() / std::max<int64_t>(1, run.numel());
  const bool long_runs = suffix > 0 && run.numel() >= ReducePlan::kMinRun;
  const bool one_big = kept.numel() == 1 && reduced.numel() > ReducePlan::kPart;
  if (!long_runs && (one_big || runs > ReducePlan::kMaxGathered)) return std::nullopt;
  ReducePlan plan = inner_plan(self, kept, run);
  plan.kind = long_runs ? ReducePlan::Kind::Runs : ReducePlan::Kind::Gathered;
  plan.reduce_offsets =
      enumerate_offsets({reduced.sizes.begin(), reduced.sizes.begin() + rest},
                        {reduced.strides.begin(), reduced.strides.begin() + rest});
  return plan;
}

// Copies self into (kept..., reduced...) order, where the reduced dims are one contiguous run.
ReducePlan reordered_plan(const Tensor& self, const Dims& kept, const Dims& reduced) {
  std::vector<int64_t> sizes = kept.sizes, strides = kept.strides;
  sizes.insert(sizes.end(), reduced.sizes.begin(), reduced.sizes.end());
  strides.insert(strides.end(), reduced.strides.begin(), reduced.strides.end());
  const Tensor copy = make_view(self, sizes, strides, self.storage_offset()).contiguous();
  const auto copy_strides = contiguous_strides(sizes);
  const size_t k = kept.sizes.size();
  const Dims new_kept{kept.sizes, {copy_strides.begin(), copy_strides.begin() + k}};
  const Dims new_reduced{reduced.sizes, {copy_strides.begin() + k, copy_strides.end()}};
  return inner_plan(copy, new_kept, new_reduced);
}

}  // namespace

std::vector<int64_t> enumerate_offsets(const std::vector<int64_t>& sizes,
                                       const std::vector<int64_t>& strides) {
  std::vector<int64_t> offsets{0};
  for (size_t d = 0; d < sizes.size(); ++d) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * static_cast<size_t>(sizes[d]));
    for (int64_t base : offsets) {
      for (int64_t i = 0; i < sizes[d]; ++i) next.push_back(base + i * strides[d]);
    }
    offsets = std::move(next);
  }
  return offsets;
}

ReducePlan make_reduce_plan(const Tensor& self, const std::vector<bool>& mask) {
  const Dims kept = select_dims(self, mask, false);
  const Dims reduced = select_dims(self, mask, true);
  if (reduced.numel() == 0 || is_contiguous_run(reduced)) return inner_plan(self, kept, reduced);
  const int64_t k0 = contiguous_inner_kept(kept);
  if (k0 < 0) {
    if (auto plan = runs_plan(self, kept, reduced)) return *std::move(plan);
    return reordered_plan(self, kept, reduced);
  }
  ReducePlan plan;
  plan.kind = ReducePlan::Kind::Outer;
  plan.input = self;
  plan.num_outputs = kept.numel();
  plan.run = kept.sizes[static_cast<size_t>(k0)];
  Dims outer = kept;
  outer.sizes[static_cast<size_t>(k0)] = 1;
  plan.outer_offsets = enumerate_offsets(outer.sizes, outer.strides);
  plan.reduce_offsets = enumerate_offsets(reduced.sizes, reduced.strides);
  return plan;
}

}  // namespace lazygen::cpu::detail
