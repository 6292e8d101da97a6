// Numerical gradient checks of every op with `derivatives:` in ops.yaml, on the cpu (eager) and
// lazy devices: one table of cases (broadcasting variants for binary ops, inputs kept away from
// points where an op is not differentiable), each run through gradcheck() on both devices, plus
// a test that the table covers every differentiable op of ops.yaml.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gradcheck.h"
#include "gradcheck_cases.h"
#include "lazygen/autograd.h"
#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_log_softmax.h"
#include "lazygen/generated/ops/_softmax.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/addmm.h"
#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/bmm.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/clamp.h"
#include "lazygen/generated/ops/conv2d.h"
#include "lazygen/generated/ops/div.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/flatten.h"
#include "lazygen/generated/ops/gather.h"
#include "lazygen/generated/ops/index_add.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/log.h"
#include "lazygen/generated/ops/masked_fill.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/generated/ops/max_pool2d.h"
#include "lazygen/generated/ops/max_pool2d_with_indices.h"
#include "lazygen/generated/ops/maximum.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/minimum.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/mul.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/neg.h"
#include "lazygen/generated/ops/nll_loss.h"
#include "lazygen/generated/ops/permute.h"
#include "lazygen/generated/ops/pow.h"
#include "lazygen/generated/ops/reciprocal.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/rsqrt.h"
#include "lazygen/generated/ops/scatter_add.h"
#include "lazygen/generated/ops/scatter_reduce.h"
#include "lazygen/generated/ops/select.h"
#include "lazygen/generated/ops/sigmoid.h"
#include "lazygen/generated/ops/slice.h"
#include "lazygen/generated/ops/slice_backward.h"
#include "lazygen/generated/ops/slice_scatter.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/squeeze.h"
#include "lazygen/generated/ops/sub.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/generated/ops/tanh.h"
#include "lazygen/generated/ops/transpose.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"
#include "runtime/distributed/local_world.h"  // the collectives run as a world of one

namespace lazygen::testing {
namespace {


std::vector<GradCase> binary_cases() {
  return {
      {"add_tensor", "add.Tensor", [](const Inputs& in) { return add(in[0], in[1]); },
       [] {
         return Inputs{values({2, 3}, 1), values({2, 3}, 2)};
       }},
      {"add_tensor_alpha_broadcast", "add.Tensor",
       [](const Inputs& in) { return add(in[0], in[1], 2.5); },
       [] {
         return Inputs{values({2, 3}, 3), values({3}, 4)};
       }},
      {"add_tensor_broadcast_both", "add.Tensor", [](const Inputs& in) { return in[0] + in[1]; },
       [] {
         return Inputs{values({2, 1}, 5), values({1, 3}, 6)};
       }},
      {"add_tensor_zero_dim", "add.Tensor", [](const Inputs& in) { return in[0] + in[1]; },
       [] {
         return Inputs{values({2, 3}, 7), values({}, 8)};
       }},
      {"add_scalar", "add.Scalar", [](const Inputs& in) { return add(in[0], 1.5, 2); },
       [] {
         return Inputs{values({2, 3}, 9)};
       }},
      {"sub_tensor_alpha_broadcast", "sub.Tensor",
       [](const Inputs& in) { return sub(in[0], in[1], 0.5); },
       [] {
         return Inputs{values({4, 1}, 10), values({3}, 11)};
       }},
      {"sub_scalar", "sub.Scalar", [](const Inputs& in) { return sub(in[0], 2.0, 3); },
       [] { return Inputs{values({3}, 12)}; }},
      {"mul_tensor", "mul.Tensor", [](const Inputs& in) { return mul(in[0], in[1]); },
       [] {
         return Inputs{values({2, 3}, 13), values({2, 3}, 14)};
       }},
      {"mul_tensor_broadcast", "mul.Tensor", [](const Inputs& in) { return in[0] * in[1]; },
       [] {
         return Inputs{values({3}, 15), values({2, 1}, 16)};
       }},
      {"mul_tensor_integer_operand", "mul.Tensor", [](const Inputs& in) { return in[0] * in[1]; },
       [] {
         return Inputs{arange(6).view({2, 3}), values({2, 3}, 17)};
       }},
      {"mul_scalar", "mul.Scalar", [](const Inputs& in) { return mul(in[0], -1.75); },
       [] {
         return Inputs{values({2, 2}, 18)};
       }},
      {"div_tensor", "div.Tensor", [](const Inputs& in) { return div(in[0], in[1]); },
       [] {
         return Inputs{values({2, 3}, 19), positive({2, 3}, 20)};
       }},
      {"div_tensor_broadcast", "div.Tensor", [](const Inputs& in) { return in[0] / in[1]; },
       [] {
         return Inputs{values({3}, 21), positive({2, 3}, 22)};
       }},
      {"div_scalar", "div.Scalar", [](const Inputs& in) { return div(in[0], 0.4); },
       [] {
         return Inputs{values({2, 3}, 23)};
       }},
      {"pow_int_exponent", "pow.Tensor_Scalar", [](const Inputs& in) { return pow(in[0], 3); },
       [] {
         return Inputs{values({2, 3}, 24)};
       }},
      {"pow_fractional_exponent", "pow.Tensor_Scalar",
       [](const Inputs& in) { return pow(in[0], -1.5); },
       [] {
         return Inputs{positive({2, 3}, 25)};
       }},
  };
}

std::vector<GradCase> unary_and_other_cases() {
  return {
      {"neg", "neg", [](const Inputs& in) { return neg(in[0]); },
       [] {
         return Inputs{values({2, 3}, 30)};
       }},
      {"exp", "exp", [](const Inputs& in) { return exp(in[0]); },
       [] {
         return Inputs{values({2, 3}, 31)};
       }},
      {"log", "log", [](const Inputs& in) { return log(in[0]); },
       [] {
         return Inputs{positive({2, 3}, 32)};
       }},
      {"sqrt", "sqrt", [](const Inputs& in) { return sqrt(in[0]); },
       [] {
         return Inputs{positive({2, 3}, 33)};
       }},
      {"relu", "relu", [](const Inputs& in) { return relu(in[0]); },
       [] {
         return Inputs{away_from_zero({3, 4}, 34)};
       }},
      {"sigmoid", "sigmoid", [](const Inputs& in) { return sigmoid(in[0]); },
       [] {
         return Inputs{values({2, 3}, 35)};
       }},
      {"tanh", "tanh", [](const Inputs& in) { return tanh(in[0]); },
       [] {
         return Inputs{values({2, 3}, 36)};
       }},
      {"where_broadcast_other", "where.self",
       [](const Inputs& in) { return where(in[0], in[1], in[2]); },
       [] {
         return Inputs{condition({2, 3}, 37), values({2, 3}, 38), values({3}, 39)};
       }},
      {"where_broadcast_condition", "where.self",
       [](const Inputs& in) { return where(in[0], in[1], in[2]); },
       [] {
         return Inputs{condition({3}, 40), values({2, 3}, 41), values({2, 1}, 42)};
       }},
      {"sum", "sum", [](const Inputs& in) { return sum(in[0]); },
       [] {
         return Inputs{values({2, 3, 4}, 43)};
       }},
      {"sum_zero_dim", "sum", [](const Inputs& in) { return sum(in[0]); },
       [] { return Inputs{values({}, 44)}; }},
      {"mm", "mm", [](const Inputs& in) { return mm(in[0], in[1]); },
       [] {
         return Inputs{values({2, 3}, 45), values({3, 4}, 46)};
       }},
      {"mm_transposed_operand", "mm", [](const Inputs& in) { return mm(in[0].t(), in[1]); },
       [] {
         return Inputs{values({3, 2}, 47), values({3, 4}, 48)};
       }},
  };
}

std::vector<GradCase> matmul_and_view_cases() {
  return {
      {"log_softmax_last_dim", "_log_softmax",
       [](const Inputs& in) { return _log_softmax(in[0], 1, false); },
       [] {
         return Inputs{values({3, 4}, 60)};
       }},
      {"log_softmax_first_dim", "_log_softmax",
       [](const Inputs& in) { return _log_softmax(in[0], 0, false); },
       [] {
         return Inputs{values({3, 4}, 61)};
       }},
      {"addmm", "addmm", [](const Inputs& in) { return addmm(in[0], in[1], in[2], 0.5, 2.0); },
       [] {
         return Inputs{values({2, 4}, 62), values({2, 3}, 63), values({3, 4}, 64)};
       }},
      {"addmm_broadcast_self", "addmm", [](const Inputs& in) { return addmm(in[0], in[1], in[2]); },
       [] {
         return Inputs{values({4}, 65), values({2, 3}, 66), values({3, 4}, 67)};
       }},
      {"view", "view",
       [](const Inputs& in) {
         return in[0].view({3, 2}) * in[1];
       },
       [] {
         return Inputs{values({2, 3}, 68), values({3, 2}, 69)};
       }},
      {"transpose", "transpose.int", [](const Inputs& in) { return transpose(in[0], 0, 2); },
       [] {
         return Inputs{values({2, 3, 4}, 70)};
       }},
      {"t", "t", [](const Inputs& in) { return t(in[0]); },
       [] {
         return Inputs{values({2, 3}, 71)};
       }},
  };
}

Tensor index(const std::vector<int64_t>& v, std::optional<IntList> sizes = std::nullopt) {
  return tensor<int64_t>(v, sizes);
}

// Views that reshape (including their copying cases), batched products and the indexing ops;
// indices repeat so that gradients accumulate.
std::vector<GradCase> reshape_and_indexing_cases() {
  return {
      {"bmm", "bmm", [](const Inputs& in) { return bmm(in[0], in[1]); },
       [] {
         return Inputs{values({2, 3, 4}, 100), values({2, 4, 2}, 101)};
       }},
      {"expand_leading_and_size_one", "expand",
       [](const Inputs& in) {
         return in[0].expand({2, 3, 4});
       },
       [] {
         return Inputs{values({3, 1}, 102)};
       }},
      {"reshape_view", "reshape",
       [](const Inputs& in) {
         return in[0].reshape({3, -1}) * in[1];
       },
       [] {
         return Inputs{values({2, 3, 2}, 103), values({3, 4}, 104)};
       }},
      {"reshape_copy", "reshape", [](const Inputs& in) { return reshape(in[0].t(), {6}); },
       [] {
         return Inputs{values({2, 3}, 105)};
       }},
      {"flatten", "flatten.using_ints", [](const Inputs& in) { return flatten(in[0], 1); },
       [] {
         return Inputs{values({2, 3, 4}, 106)};
       }},
      {"flatten_copy", "flatten.using_ints",
       [](const Inputs& in) { return in[0].transpose(0, 2).flatten(0, 1); },
       [] {
         return Inputs{values({2, 3, 4}, 107)};
       }},
      {"narrow", "narrow", [](const Inputs& in) { return narrow(in[0], 1, 1, 3); },
       [] {
         return Inputs{values({2, 5}, 108)};
       }},
      {"narrow_negative_start_to_end", "narrow",
       [](const Inputs& in) { return in[0].narrow(0, -2, 2); },
       [] {
         return Inputs{values({4, 3}, 109)};
       }},
      {"slice_backward", "slice_backward",
       [](const Inputs& in) {
         return slice_backward(in[0], {4, 5}, 1, 1, 5, 2);
       },
       [] {
         return Inputs{values({4, 2}, 110)};
       }},
      {"slice_scatter", "slice_scatter",
       [](const Inputs& in) { return slice_scatter(in[0], in[1], 1, 1, 5, 2); },
       [] {
         return Inputs{values({4, 5}, 127), values({4, 2}, 128)};
       }},
      {"index_select", "index_select",
       [](const Inputs& in) { return index_select(in[0], 1, in[1]); },
       [] {
         return Inputs{values({3, 4}, 111), index({3, 0, 3})};
       }},
      {"index_add", "index_add",
       [](const Inputs& in) { return index_add(in[0], 0, in[1], in[2], 1.5); },
       [] {
         return Inputs{values({3, 2}, 112), index({2, 0, 2}), values({3, 2}, 113)};
       }},
      {"gather", "gather", [](const Inputs& in) { return gather(in[0], 1, in[1]); },
       [] {
         return Inputs{values({3, 4}, 114), index({0, 3, 3, 3, 1, 2}, IntList{3, 2})};
       }},
      {"scatter_add", "scatter_add",
       [](const Inputs& in) { return scatter_add(in[0], 0, in[1], in[2]); },
       [] {
         return Inputs{values({3, 4}, 115), index({2, 0, 2, 1, 2, 2, 0, 1}, IntList{2, 4}),
                       values({2, 4}, 116)};
       }},
      {"scatter_reduce_sum", "scatter_reduce.two",
       [](const Inputs& in) { return scatter_reduce(in[0], 0, in[1], in[2], "sum", true); },
       [] {
         return Inputs{values({3, 4}, 1001), index({2, 0, 2, 1, 2, 2, 0, 1}, IntList{2, 4}),
                       values({2, 4}, 1002)};
       }},
      {"scatter_reduce_prod", "scatter_reduce.two",
       [](const Inputs& in) { return scatter_reduce(in[0], 0, in[1], in[2], "prod", true); },
       [] {
         return Inputs{values({3, 4}, 1003), index({2, 0, 2, 1, 2, 2, 0, 1}, IntList{2, 4}),
                       values({2, 4}, 1004)};
       }},
      {"scatter_reduce_prod_excluding_self", "scatter_reduce.two",
       [](const Inputs& in) { return scatter_reduce(in[0], 0, in[1], in[2], "prod", false); },
       [] {
         return Inputs{values({3, 4}, 1005), index({2, 0, 2, 1, 2, 2, 0, 1}, IntList{2, 4}),
                       values({2, 4}, 1006)};
       }},
      {"scatter_reduce_mean_excluding_self", "scatter_reduce.two",
       [](const Inputs& in) { return scatter_reduce(in[0], 0, in[1], in[2], "mean", false); },
       [] {
         return Inputs{values({3, 4}, 1007), index({2, 0, 2, 1, 2, 2, 0, 1}, IntList{2, 4}),
                       values({2, 4}, 1008)};
       }},
      {"scatter_reduce_amax", "scatter_reduce.two",
       [](const Inputs& in) { return scatter_reduce(in[0], 0, in[1], in[2], "amax", true); },
       [] {
         return Inputs{values({3, 4}, 1009), index({2, 0, 2, 1, 2, 2, 0, 1}, IntList{2, 4}),
                       values({2, 4}, 1010)};
       }},
      {"scatter_reduce_amin_excluding_self", "scatter_reduce.two",
       [](const Inputs& in) { return scatter_reduce(in[0], 0, in[1], in[2], "amin", false); },
       [] {
         return Inputs{values({3, 4}, 1011), index({2, 0, 2, 1, 2, 2, 0, 1}, IntList{2, 4}),
                       values({2, 4}, 1012)};
       }},
      {"masked_fill_broadcast_mask", "masked_fill.Scalar",
       [](const Inputs& in) { return masked_fill(in[0], in[1], 0.5); },
       [] {
         return Inputs{values({2, 3}, 117), condition({3}, 118)};
       }},
      {"masked_fill_broadcast_self", "masked_fill.Scalar",
       [](const Inputs& in) { return in[0].masked_fill(in[1], -2); },
       [] {
         return Inputs{values({3}, 119), condition({2, 3}, 120)};
       }},
      {"clamp", "clamp", [](const Inputs& in) { return clamp(in[0], -0.5, 0.5); },
       [] {
         return Inputs{values({3, 4}, 121)};
       }},
      {"clamp_min_only", "clamp", [](const Inputs& in) { return in[0].clamp(0.1); },
       [] {
         return Inputs{values({3, 4}, 122)};
       }},
  };
}

// Class weights for nll_loss on `like`'s device: a constant, not an input (its formula gives no
// weight gradient).
Tensor class_weights(const Tensor& like) {
  return tensor<double>({0.5, 2.0, 1.0}).to(like.device());
}

std::vector<GradCase> training_cases() {
  return {
      {"conv2d_padded_with_bias", "conv2d",
       [](const Inputs& in) {
         return conv2d(in[0], in[1], in[2], {1, 1}, {1, 1});
       },
       [] {
         return Inputs{values({2, 2, 5, 5}, 80), values({3, 2, 3, 3}, 81), values({3}, 82)};
       }},
      {"conv2d_strided_dilated_grouped", "conv2d",
       [](const Inputs& in) {
         return conv2d(in[0], in[1], std::nullopt, {2, 1}, {1, 0}, {2, 1}, 2);
       },
       [] {
         return Inputs{values({1, 4, 6, 5}, 83), values({4, 2, 2, 3}, 84)};
       }},
      {"max_pool2d", "max_pool2d",
       [](const Inputs& in) {
         return max_pool2d(in[0], {2, 2});
       },
       [] {
         return Inputs{values({2, 2, 4, 4}, 85)};
       }},
      {"max_pool2d_overlapping_padded", "max_pool2d",
       [](const Inputs& in) {
         return max_pool2d(in[0], {3, 3}, {1, 1}, {1, 1});
       },
       [] {
         return Inputs{values({1, 2, 4, 5}, 86)};
       }},
      {"nll_loss_mean", "nll_loss", [](const Inputs& in) { return nll_loss(in[0], in[1]); },
       [] {
         return Inputs{values({4, 3}, 87), tensor<int64_t>({2, 0, 1, 2})};
       }},
      {"nll_loss_sum_weighted", "nll_loss",
       [](const Inputs& in) { return nll_loss(in[0], in[1], class_weights(in[0]), 2); },
       [] {
         return Inputs{values({4, 3}, 88), tensor<int64_t>({2, 0, 1, 2})};
       }},
      {"nll_loss_none_ignore_index", "nll_loss",
       [](const Inputs& in) { return nll_loss(in[0], in[1], std::nullopt, 0, 1); },
       [] {
         return Inputs{values({4, 3}, 89), tensor<int64_t>({2, 1, 0, 1})};
       }},
      {"nll_loss_mean_weighted_ignore_index", "nll_loss",
       [](const Inputs& in) { return nll_loss(in[0], in[1], class_weights(in[0]), 1, 0); },
       [] {
         return Inputs{values({4, 3}, 90), tensor<int64_t>({2, 0, 1, 2})};
       }},
  };
}

// Compositions: shared inputs (diamonds), chains, broadcasting into a matmul.
std::vector<GradCase> composite_cases() {
  return {
      {"mlp_layer", "", [](const Inputs& in) { return tanh(mm(in[0], in[1]) + in[2]); },
       [] {
         return Inputs{values({4, 3}, 50), values({3, 2}, 51), values({2}, 52)};
       }},
      {"diamond", "", [](const Inputs& in) { return in[0] * in[0] + exp(in[0]) / in[0]; },
       [] { return Inputs{positive({5}, 53)}; }},
      {"softplus_like", "", [](const Inputs& in) { return log(exp(in[0]) + 1) * sigmoid(in[0]); },
       [] {
         return Inputs{values({2, 3}, 54)};
       }},
      {"cross_entropy", "",
       [](const Inputs& in) { return nll_loss(_log_softmax(in[0], 1, false), in[1]); },
       [] {
         return Inputs{values({4, 3}, 55), tensor<int64_t>({2, 0, 1, 2})};
       }},
      {"matmul_vector_vector", "", [](const Inputs& in) { return matmul(in[0], in[1]); },
       [] {
         return Inputs{values({4}, 130), values({4}, 131)};
       }},
      {"matmul_matrix_vector", "", [](const Inputs& in) { return matmul(in[0], in[1]); },
       [] {
         return Inputs{values({3, 4}, 132), values({4}, 133)};
       }},
      {"matmul_vector_batched", "", [](const Inputs& in) { return matmul(in[0], in[1]); },
       [] {
         return Inputs{values({4}, 134), values({2, 4, 3}, 135)};
       }},
      {"matmul_folded", "", [](const Inputs& in) { return in[0].matmul(in[1]); },
       [] {
         return Inputs{values({2, 3, 4}, 136), values({4, 2}, 137)};
       }},
      {"matmul_broadcast_batches", "", [](const Inputs& in) { return matmul(in[0], in[1]); },
       [] {
         return Inputs{values({2, 1, 3, 4}, 138), values({3, 4, 2}, 139)};
       }},
      {"conv_net", "",
       [](const Inputs& in) {
         Tensor h = max_pool2d(relu(conv2d(in[0], in[1], in[2], {1, 1}, {1, 1})), {2, 2});
         return mm(h.view({2, 8}), in[3]);
       },
       [] {
         return Inputs{values({2, 1, 4, 4}, 56), values({2, 1, 3, 3}, 57), values({2}, 58),
                       values({8, 3}, 59)};
       }},
  };
}

// The ops whose derivatives were added so that no op loses a gradient silently (Note [No silent
// gradient loss]): extremes, reductions, views, cat and softmax. Inputs keep away from ties and
// kinks (distinct random values, |x| >= 0.2).
std::vector<GradCase> reduction_and_view_cases() {
  return {
      {"maximum", "maximum", [](const Inputs& in) { return maximum(in[0], in[1]); },
       [] { return Inputs{values({3, 4}, 201), values({3, 4}, 202)}; }},
      {"maximum_broadcast", "maximum", [](const Inputs& in) { return maximum(in[0], in[1]); },
       [] { return Inputs{values({3, 4}, 203), values({4}, 204)}; }},
      {"minimum", "minimum", [](const Inputs& in) { return minimum(in[0], in[1]); },
       [] { return Inputs{values({3, 4}, 205), values({3, 1}, 206)}; }},
      {"rsqrt", "rsqrt", [](const Inputs& in) { return rsqrt(in[0]); },
       [] { return Inputs{positive({3, 4}, 207)}; }},
      {"abs", "abs", [](const Inputs& in) { return abs(in[0]); },
       [] { return Inputs{away_from_zero({3, 4}, 208)}; }},
      {"reciprocal", "reciprocal", [](const Inputs& in) { return reciprocal(in[0]); },
       [] { return Inputs{away_from_zero({3, 4}, 209)}; }},
      {"sum_dims", "sum.dim_IntList",
       [](const Inputs& in) { return sum(in[0], std::optional<IntList>(IntList{0, 2})); },
       [] { return Inputs{values({2, 3, 4}, 210)}; }},
      {"sum_dims_keepdim", "sum.dim_IntList",
       [](const Inputs& in) { return sum(in[0], std::optional<IntList>(IntList{-1}), true); },
       [] { return Inputs{values({2, 3, 4}, 211)}; }},
      {"mean_dim", "mean.dim",
       [](const Inputs& in) { return mean(in[0], std::optional<IntList>(IntList{1})); },
       [] { return Inputs{values({2, 3, 4}, 212)}; }},
      {"amax", "amax", [](const Inputs& in) { return amax(in[0], {1}); },
       [] { return Inputs{values({3, 5}, 213)}; }},
      {"amax_keepdim_all", "amax", [](const Inputs& in) { return amax(in[0], {}, true); },
       [] { return Inputs{values({3, 5}, 214)}; }},
      {"max_dim", "max.dim", [](const Inputs& in) { return std::get<0>(max(in[0], 1)); },
       [] { return Inputs{values({3, 5}, 215)}; }},
      {"max_dim_keepdim", "max.dim", [](const Inputs& in) { return std::get<0>(max(in[0], 0, true)); },
       [] { return Inputs{values({3, 5}, 216)}; }},
      {"softmax", "_softmax", [](const Inputs& in) { return _softmax(in[0], 1, false); },
       [] { return Inputs{values({3, 5}, 217)}; }},
      {"permute", "permute", [](const Inputs& in) { return permute(in[0], {2, 0, 1}); },
       [] { return Inputs{values({2, 3, 4}, 218)}; }},
      {"slice_step", "slice.Tensor", [](const Inputs& in) { return slice(in[0], 1, 1, 4, 2); },
       [] { return Inputs{values({3, 5}, 219)}; }},
      {"slice_open_end", "slice.Tensor",
       [](const Inputs& in) { return slice(in[0], 0, -2, std::nullopt); },
       [] { return Inputs{values({4, 2}, 220)}; }},
      {"select_negative_index", "select.int", [](const Inputs& in) { return select(in[0], 0, -1); },
       [] { return Inputs{values({3, 4}, 221)}; }},
      {"squeeze_size_one", "squeeze.dim", [](const Inputs& in) { return squeeze(in[0], 1); },
       [] { return Inputs{values({3, 1, 4}, 222)}; }},
      {"squeeze_not_one", "squeeze.dim", [](const Inputs& in) { return squeeze(in[0], 0); },
       [] { return Inputs{values({3, 4}, 223)}; }},
      {"unsqueeze", "unsqueeze", [](const Inputs& in) { return unsqueeze(in[0], -1); },
       [] { return Inputs{values({3, 4}, 224)}; }},
      {"cat", "cat", [](const Inputs& in) { return cat({in[0], in[1] * 2}, 0); },
       [] { return Inputs{values({2, 3}, 225), values({4, 3}, 226)}; }},
      {"cat_last_dim", "cat", [](const Inputs& in) { return cat({in[0], in[1], in[0]}, -1); },
       [] { return Inputs{values({2, 3}, 227), values({2, 1}, 228)}; }},
      {"max_pool2d_with_indices", "max_pool2d_with_indices",
       [](const Inputs& in) { return std::get<0>(max_pool2d_with_indices(in[0], {2, 2})); },
       [] { return Inputs{values({2, 2, 4, 4}, 229)}; }},
  };
}

std::vector<GradCase> all_cases() {
  std::vector<GradCase> cases = binary_cases();
  for (auto& c : reduction_and_view_cases()) cases.push_back(std::move(c));
  for (auto& c : unary_and_other_cases()) cases.push_back(std::move(c));
  for (auto& c : matmul_and_view_cases()) cases.push_back(std::move(c));
  for (auto& c : reshape_and_indexing_cases()) cases.push_back(std::move(c));
  for (auto& c : training_cases()) cases.push_back(std::move(c));
  for (auto& c : composite_cases()) cases.push_back(std::move(c));
  for (auto& c : pointwise_math_cases()) cases.push_back(std::move(c));
  for (auto& c : activation_cases()) cases.push_back(std::move(c));
  return cases;
}


class Gradcheck : public ::testing::TestWithParam<std::tuple<GradCase, Device>> {};

TEST_P(Gradcheck, MatchesFiniteDifferences) {
  const auto& [c, device] = GetParam();
  EXPECT_TRUE(gradcheck(c.fn, c.inputs(), {.device = device})) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Ops, Gradcheck,
                         ::testing::Combine(::testing::ValuesIn(all_cases()),
                                            ::testing::Values(kCPU, kLazy)),
                         [](const ::testing::TestParamInfo<std::tuple<GradCase, Device>>& info) {
                           return std::get<0>(info.param).name +
                                  (std::get<1>(info.param).is_lazy() ? "_lazy" : "_cpu");
                         });

// The schema names of ops.yaml entries with a derivative formula (a line scan: entries start with
// "- func: <name>(", keys are indented two spaces, formulas four); `non_differentiable` entries
// are no formula.
std::set<std::string> differentiable_ops_in_ops_yaml() {
  std::ifstream in("ops.yaml");
  std::set<std::string> ops;
  std::string line, current;
  bool in_derivatives = false;
  while (std::getline(in, line)) {
    const std::string func = "- func: ";
    if (line.rfind(func, 0) == 0) {
      current = line.substr(func.size(), line.find('(') - func.size());
    } else if (line.rfind("  derivatives:", 0) == 0) {
      in_derivatives = true;
      continue;
    }
    if (line.rfind("    ", 0) != 0) in_derivatives = false;
    if (in_derivatives && line.find("non_differentiable") == std::string::npos) ops.insert(current);
  }
  return ops;
}

TEST(Gradcheck, CoversEveryOpWithDerivativesInOpsYaml) {
  std::set<std::string> differentiable = differentiable_ops_in_ops_yaml();
  ASSERT_FALSE(differentiable.empty()) << "ops.yaml not found from "
                                       << "the working directory";
  std::set<std::string> covered;
  for (const GradCase& c : all_cases()) covered.insert(c.op);
  for (const std::string& op : differentiable) {
    EXPECT_TRUE(covered.count(op)) << op << " has derivatives but no gradcheck case";
  }
}

}  // namespace
}  // namespace lazygen::testing
