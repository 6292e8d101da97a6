// Finding row bands in a fusion plan (row_bands.h; See Note [Row bands]).
#include "fusion/row_bands.h"

#include <algorithm>
#include <optional>

#include "core/env_flag.h"
#include "fusion/reduction_parts.h"
#include "lazygen/lazy.h"

namespace lazygen::fusion {
namespace {

EnvSwitch& bands_flag() {
  static EnvSwitch enabled("LAZYGEN_ROW_BANDS", EnvSwitch::kOnByDefault);
  return enabled;
}

// The shortest prefix of `sizes` whose product is `rows`, as its length; nullopt if none.
std::optional<size_t> row_dims(const std::vector<int64_t>& sizes, int64_t rows) {
  int64_t product = 1;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (product == rows) return k;
    product *= sizes[k];
  }
  if (product == rows) return sizes.size();
  return std::nullopt;
}

class BandFinder {
 public:
  BandFinder(const exec::Graph& graph, const FusionPlan& plan) : g_(graph), plan_(plan) {
    step_of_group_.assign(plan.groups.size(), kNone);
    for (uint32_t s = 0; s < plan.schedule.size(); ++s) {
      if (plan.schedule[s].kind == Step::Kind::Group) step_of_group_[plan.schedule[s].index] = s;
    }
  }

  std::vector<Band> run() {
    std::vector<Band> bands;
    for (uint32_t s = 0; s < plan_.schedule.size();) {
      const std::optional<Band> band = band_from(s);
      if (!band) {
        ++s;
        continue;
      }
      bands.push_back(*band);
      s = band->last + 1;
    }
    return bands;
  }

 private:
  const Group* group_at(uint32_t s) const {
    if (s >= plan_.schedule.size() || plan_.schedule[s].kind != Step::Kind::Group) return nullptr;
    return &plan_.groups[plan_.schedule[s].index];
  }

  bool leading(const Group& g) const {
    return g.reduction != kNone && g.reduce_layout == ReduceLayout::Leading;
  }

  // The row counts (>= 2) group `g` splits into: products of size prefixes that a Trailing
  // reduction keeps whole; for a Leading reduction, the product of all its reduced dims (each
  // row then adds to every output, and the band deals out the fold's own row parts).
  std::vector<int64_t> row_counts(const Group& g) const {
    std::vector<int64_t> counts;
    const int64_t numel = checked_numel("row band", g.sizes);
    if (numel == 0) return counts;
    const std::vector<bool>* reduced =
        g.reduction != kNone ? &plan_.traits[g.reduction].reduced : nullptr;
    int64_t product = 1;
    for (size_t d = 0; d < g.sizes.size(); ++d) {
      if (reduced != nullptr && g.sizes[d] != 1 && (*reduced)[d] != leading(g)) break;
      product *= g.sizes[d];
      if (product >= 2 && (counts.empty() || counts.back() != product)) counts.push_back(product);
    }
    if (!leading(g)) return counts;
    if (product == numel || product < 2) return {};  // a full reduction: one output
    return {product};
  }

  // The row parts a Leading member of a band of `rows` rows brings (< 2: it cannot join, the
  // band would run on one thread), or 0 for other members.
  int64_t parts_of(const Group& g, int64_t rows) const {
    if (!leading(g)) return 0;
    const int64_t numel = checked_numel("row band", g.sizes);
    return leading_parts(numel, rows, numel / rows);
  }

  // Whether group g splits into `rows` rows, and with its Leading parts (if any) agreeing with
  // the band's so far (`parts`, 0 for none yet), which it then sets.
  bool splits(const Group& g, int64_t rows, int64_t& parts) const {
    const std::vector<int64_t> counts = row_counts(g);
    if (std::find(counts.begin(), counts.end(), rows) == counts.end()) return false;
    const int64_t mine = parts_of(g, rows);
    if (mine == 0) return true;
    if (mine < 2 || (parts != 0 && parts != mine)) return false;
    parts = mine;
    return true;
  }

  // Whether iteration row r of a group of `sizes` reads only row r of `in`'s base.
  bool row_local(const GroupInput& in, const std::vector<int64_t>& sizes, int64_t rows) const {
    const int64_t base_numel =
        checked_numel("row band", g_.node(in.base.node).shape(in.base.output).sizes);
    if (base_numel % rows != 0) return false;
    const int64_t row = base_numel / rows;
    const size_t k = *row_dims(sizes, rows);
    const std::vector<int64_t> strides = broadcast_strides(in.layout, sizes);
    int64_t step = row;
    for (size_t d = k; d-- > 0;) {
      if (sizes[d] != 1 && strides[d] != step) return false;
      step *= sizes[d];
    }
    int64_t last = in.layout.offset;
    if (last < 0) return false;
    for (size_t d = k; d < sizes.size(); ++d) {
      if (strides[d] < 0) return false;
      last += strides[d] * (sizes[d] - 1);
    }
    return last < row;
  }

  // Whether the group at step s can join a band of `rows` rows that starts at step `first` and
  // so far deals out `parts` parts (See splits).
  bool joins(uint32_t first, uint32_t s, int64_t rows, int64_t& parts) const {
    const Group* g = group_at(s);
    if (g == nullptr || !splits(*g, rows, parts)) return false;
    return std::all_of(g->inputs.begin(), g->inputs.end(), [&](const GroupInput& in) {
      const uint32_t producer = plan_.group_of[in.base.node];
      const bool in_band =
          producer != kNone && step_of_group_[producer] >= first && step_of_group_[producer] < s;
      return !in_band || row_local(in, g->sizes, rows);
    });
  }

  int64_t bytes(const Group& g) const {
    return checked_numel("row band", g.sizes) * static_cast<int64_t>(itemsize(g.dtype));
  }

  std::optional<Band> band_from(uint32_t first) const {
    const Group* head = group_at(first);
    if (head == nullptr) return std::nullopt;
    std::vector<int64_t> counts = row_counts(*head);
    std::sort(counts.rbegin(), counts.rend());
    Band best;
    for (int64_t rows : counts) {
      int64_t parts = 0;
      if (!splits(*head, rows, parts)) continue;
      uint32_t last = first;
      while (last + 1 - first < kMaxBandMembers && joins(first, last + 1, rows, parts)) ++last;
      if (last > best.last || best.rows == 0) best = Band{first, last, rows, 0, parts};
    }
    if (best.rows == 0 || best.last == first) return std::nullopt;
    int64_t widest = 0;
    for (uint32_t s = first; s <= best.last; ++s) widest = std::max(widest, bytes(*group_at(s)));
    if (widest < kBandMinBytes) return std::nullopt;
    const int64_t row_bytes = std::max<int64_t>(1, widest / best.rows);
    best.rows_per_block = std::clamp<int64_t>(kBandBlockBytes / row_bytes, 1, best.rows);
    return best;
  }

  const exec::Graph& g_;
  const FusionPlan& plan_;
  std::vector<uint32_t> step_of_group_;
};

}  // namespace

std::vector<Band> find_bands(const exec::Graph& graph, const FusionPlan& plan) {
  return BandFinder(graph, plan).run();
}

bool row_bands_on() {
  return bands_flag().on();
}

std::vector<StepSpan> band_spans(const FusionPlan& plan) {
  std::vector<StepSpan> spans(plan.schedule.size());
  for (uint32_t s = 0; s < spans.size(); ++s) spans[s] = {s, s};
  for (const Band& b : plan.bands) {
    for (uint32_t s = b.first; s <= b.last; ++s) spans[s] = {b.first, b.last};
  }
  return spans;
}

}  // namespace lazygen::fusion

namespace lazygen {

void set_row_bands_enabled(bool enabled) {
  fusion::bands_flag().set(enabled);
}

bool row_bands_enabled() {
  return fusion::row_bands_on();
}

}  // namespace lazygen
