// einsum of one or two operands and scaled dot-product attention (lazygen/composite.h), from
// permute, reshape, sum, bmm, softmax and where.
//
// Note [einsum as one bmm]
// Each label of a two-operand equation is one of: batch (in both operands and the output),
// contracted (in both, not in the output), or free (in one operand). A label in one operand only
// and not in the output is summed out of that operand first. Then both operands are permuted to
// [batch..., free..., contracted...] (right: [batch..., contracted..., free...]), flattened to
// 3-D, multiplied with one bmm and the result unflattened and permuted to the output's order, so
// autograd and the lazy device see only view, reshape, sum and bmm.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/bmm.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/permute.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/transpose.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/nn/functional.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

struct Equation {
  std::vector<std::string> inputs;
  std::string output;
};

bool is_label(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

Equation parse(std::string_view equation, size_t operands) {
  std::string text;
  for (char c : equation) {
    if (c != ' ') text.push_back(c);
  }
  Equation eq;
  const size_t arrow = text.find("->");
  const std::string lhs = text.substr(0, arrow);
  size_t start = 0;
  for (size_t comma; (comma = lhs.find(',', start)) != std::string::npos; start = comma + 1) {
    eq.inputs.push_back(lhs.substr(start, comma - start));
  }
  eq.inputs.push_back(lhs.substr(start));
  for (const std::string& term : eq.inputs) {
    for (char c : term) {
      if (!is_label(c)) {
        throw ShapeError(
            "einsum",
            "only letters and an explicit or implicit output are supported (no '...'), got '" +
                std::string(equation) + "'");
      }
    }
  }
  if (eq.inputs.size() != operands) {
    throw ShapeError("einsum", "the equation '" + std::string(equation) + "' has " +
                                   std::to_string(eq.inputs.size()) + " operand(s), " +
                                   std::to_string(operands) + " given");
  }
  if (arrow != std::string::npos) {
    eq.output = text.substr(arrow + 2);
  } else {  // implicit: the labels seen once, in alphabetical order
    std::map<char, int> count;
    for (const std::string& term : eq.inputs) {
      for (char c : term) ++count[c];
    }
    for (const auto& [c, n] : count) {
      if (n == 1) eq.output.push_back(c);
    }
  }
  return eq;
}

// The size of each label in `term` for operand t, checking repeated labels agree across operands.
void record_sizes(const std::string& term, const Tensor& t, std::map<char, int64_t>& sizes) {
  if (static_cast<int64_t>(term.size()) != t.dim()) {
    throw ShapeError("einsum", "the subscript '" + term + "' has " + std::to_string(term.size()) +
                                   " labels for an operand of shape " + sizes_str(t.sizes()));
  }
  for (size_t i = 0; i < term.size(); ++i) {
    const int64_t n = t.size(static_cast<int64_t>(i));
    const auto [it, inserted] = sizes.emplace(term[i], n);
    if (!inserted && it->second != n) {
      throw ShapeError("einsum", std::string("label '") + term[i] + "' has sizes " +
                                     std::to_string(it->second) + " and " + std::to_string(n));
    }
  }
}

// Sums out of t (labelled `term`) every label not in `keep`; returns the remaining labels.
std::string sum_out(Tensor& t, const std::string& term, const std::string& keep) {
  std::vector<int64_t> dims;
  std::string rest;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.find(term[i]) != i) {
      throw ShapeError(
          "einsum",
          "a label repeated within one operand (a diagonal) is not supported: '" + term + "'");
    }
    if (keep.find(term[i]) == std::string::npos) {
      dims.push_back(static_cast<int64_t>(i));
    } else {
      rest.push_back(term[i]);
    }
  }
  if (!dims.empty()) t = sum(t, dims);
  return rest;
}

Tensor permuted(const Tensor& t, const std::string& term, const std::string& order) {
  std::vector<int64_t> dims;
  for (char c : order) dims.push_back(static_cast<int64_t>(term.find(c)));
  return permute(t, dims);
}

int64_t product(const std::map<char, int64_t>& sizes, const std::string& labels) {
  int64_t n = 1;
  for (char c : labels) n *= sizes.at(c);
  return n;
}

}  // namespace

Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands) {
  if (operands.empty() || operands.size() > 2) {
    throw ShapeError("einsum",
                     "one or two operands are supported, got " + std::to_string(operands.size()));
  }
  const Equation eq = parse(equation, operands.size());
  std::map<char, int64_t> sizes;
  for (size_t i = 0; i < operands.size(); ++i) record_sizes(eq.inputs[i], operands[i], sizes);
  for (char c : eq.output) {
    if (!sizes.count(c))
      throw ShapeError("einsum", std::string("output label '") + c + "' is in no operand");
  }
  if (operands.size() == 1) {
    Tensor t = operands[0];
    const std::string rest = sum_out(t, eq.inputs[0], eq.output);
    return permuted(t, rest, eq.output);
  }
  const std::string& l_term = eq.inputs[0];
  const std::string& r_term = eq.inputs[1];
  Tensor l = operands[0], r = operands[1];
  // Keep a label where the output or the other operand needs it.
  const std::string l_rest = sum_out(l, l_term, eq.output + r_term);
  const std::string r_rest = sum_out(r, r_term, eq.output + l_term);
  std::string batch, contracted, l_free, r_free;
  for (char c : l_rest) {
    const bool in_r = r_rest.find(c) != std::string::npos,
               in_out = eq.output.find(c) != std::string::npos;
    (in_r ? (in_out ? batch : contracted) : l_free).push_back(c);
  }
  for (char c : r_rest) {
    if (l_rest.find(c) == std::string::npos) r_free.push_back(c);
  }
  const int64_t b = product(sizes, batch), k = product(sizes, contracted);
  const int64_t m = product(sizes, l_free), n = product(sizes, r_free);
  const Tensor l3 = reshape(permuted(l, l_rest, batch + l_free + contracted), {b, m, k});
  const Tensor r3 = reshape(permuted(r, r_rest, batch + contracted + r_free), {b, k, n});
  const std::string produced = batch + l_free + r_free;
  std::vector<int64_t> produced_sizes;
  for (char c : produced) produced_sizes.push_back(sizes.at(c));
  return permuted(reshape(bmm(l3, r3), produced_sizes), produced, eq.output);
}

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, bool is_causal,
                                    std::optional<double> scale) {
  if (query.dim() < 2 || key.dim() != query.dim() || value.dim() != query.dim() ||
      key.size(-1) != query.size(-1) || value.size(-2) != key.size(-2)) {
    throw ShapeError("scaled_dot_product_attention",
                     "expected query [..., L, E], key [..., S, E] and value [..., S, Ev], got " +
                         sizes_str(query.sizes()) + ", " + sizes_str(key.sizes()) + " and " +
                         sizes_str(value.sizes()));
  }
  if (is_causal && attn_mask) {
    throw ShapeError("scaled_dot_product_attention",
                     "pass either attn_mask or is_causal, not both");
  }
  const double factor = scale.value_or(1.0 / std::sqrt(static_cast<double>(query.size(-1))));
  Tensor scores = query.matmul(transpose(key, -2, -1)) * factor;  // [..., L, S]
  const Tensor minus_inf = full({}, -INFINITY, scores.dtype(), scores.device());
  if (is_causal) {
    const int64_t rows = query.size(-2), cols = key.size(-2);
    const Tensor above = gt(arange(cols, DType::Int64, scores.device()),
                            reshape(arange(rows, DType::Int64, scores.device()), {rows, 1}));
    scores = where(above, minus_inf, scores);
  } else if (attn_mask) {
    scores = attn_mask->dtype() == DType::Bool ? where(*attn_mask, scores, minus_inf)
                                               : scores + *attn_mask;
  }
  return nn::functional::softmax(scores, -1).matmul(value);
}

}  // namespace lazygen
