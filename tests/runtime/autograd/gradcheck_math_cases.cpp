// Gradcheck cases of the pointwise math and activation ops (ops.yaml "pointwise math" and
// "activations and their gradients"). Inputs keep away from the points where an op jumps or
// kinks (integers for floor/remainder, 0 for sign/leaky_relu, thresholds) so that central
// differences see a smooth function.
#include "gradcheck_cases.h"
#include "lazygen/composite.h"
#include "lazygen/generated/ops/addcdiv.h"
#include "lazygen/generated/ops/addcmul.h"
#include "lazygen/generated/ops/all_reduce.h"
#include "lazygen/generated/ops/amin.h"
#include "lazygen/generated/ops/asinh.h"
#include "lazygen/generated/ops/atan.h"
#include "lazygen/generated/ops/atan2.h"
#include "lazygen/generated/ops/ceil.h"
#include "lazygen/generated/ops/clamp_max.h"
#include "lazygen/generated/ops/clamp_min.h"
#include "lazygen/generated/ops/copysign.h"
#include "lazygen/generated/ops/cos.h"
#include "lazygen/generated/ops/cosh.h"
#include "lazygen/generated/ops/cumsum.h"
#include "lazygen/generated/ops/digamma.h"
#include "lazygen/generated/ops/elu.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/erf.h"
#include "lazygen/generated/ops/erfc.h"
#include "lazygen/generated/ops/erfinv.h"
#include "lazygen/generated/ops/exp2.h"
#include "lazygen/generated/ops/expm1.h"
#include "lazygen/generated/ops/floor.h"
#include "lazygen/generated/ops/fmax.h"
#include "lazygen/generated/ops/fmin.h"
#include "lazygen/generated/ops/fmod.h"
#include "lazygen/generated/ops/frac.h"
#include "lazygen/generated/ops/hardshrink.h"
#include "lazygen/generated/ops/hardshrink_backward.h"
#include "lazygen/generated/ops/hardsigmoid.h"
#include "lazygen/generated/ops/hardsigmoid_backward.h"
#include "lazygen/generated/ops/hardswish.h"
#include "lazygen/generated/ops/hardswish_backward.h"
#include "lazygen/generated/ops/hardtanh.h"
#include "lazygen/generated/ops/hardtanh_backward.h"
#include "lazygen/generated/ops/hypot.h"
#include "lazygen/generated/ops/leaky_relu.h"
#include "lazygen/generated/ops/leaky_relu_backward.h"
#include "lazygen/generated/ops/lerp.h"
#include "lazygen/generated/ops/lgamma.h"
#include "lazygen/generated/ops/log10.h"
#include "lazygen/generated/ops/log1p.h"
#include "lazygen/generated/ops/log2.h"
#include "lazygen/generated/ops/log_sigmoid.h"
#include "lazygen/generated/ops/logaddexp.h"
#include "lazygen/generated/ops/logaddexp2.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/generated/ops/mish.h"
#include "lazygen/generated/ops/mul.h"
#include "lazygen/generated/ops/pow.h"
#include "lazygen/generated/ops/remainder.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/round.h"
#include "lazygen/generated/ops/rsub.h"
#include "lazygen/generated/ops/sgn.h"
#include "lazygen/generated/ops/sigmoid_backward.h"
#include "lazygen/generated/ops/sign.h"
#include "lazygen/generated/ops/silu.h"
#include "lazygen/generated/ops/silu_backward.h"
#include "lazygen/generated/ops/sin.h"
#include "lazygen/generated/ops/sinc.h"
#include "lazygen/generated/ops/sinh.h"
#include "lazygen/generated/ops/softplus.h"
#include "lazygen/generated/ops/softplus_backward.h"
#include "lazygen/generated/ops/softshrink.h"
#include "lazygen/generated/ops/softshrink_backward.h"
#include "lazygen/generated/ops/sort.h"
#include "lazygen/generated/ops/special_entr.h"
#include "lazygen/generated/ops/special_xlog1py.h"
#include "lazygen/generated/ops/tan.h"
#include "lazygen/generated/ops/tanh_backward.h"
#include "lazygen/generated/ops/threshold.h"
#include "lazygen/generated/ops/topk.h"
#include "lazygen/generated/ops/transpose.h"
#include "lazygen/generated/ops/trunc.h"
#include "lazygen/generated/ops/xlogy.h"
#include "lazygen/nn/functional.h"
#include "lazygen/operators.h"

namespace lazygen::testing {
namespace {

// The identity matrix broadcast over t's batch [..., n, n].
Tensor eye_like(const Tensor& t) {
  const int64_t n = t.size(-1);
  return eq(reshape(arange(n, DType::Int64, t.device()), {n, 1}), arange(n, DType::Int64, t.device())).to(t.dtype());
}

}  // namespace

std::vector<GradCase> pointwise_math_cases() {
  auto one = [](const char* name, const char* op, Tensor (*f)(const Tensor&), auto make) {
    return GradCase{name, op, [f](const Inputs& in) { return f(in[0]); }, make};
  };
  auto vals = [] { return Inputs{values({3, 4}, 300)}; };
  auto pos = [] { return Inputs{positive({3, 4}, 301)}; };
  auto off_zero = [] { return Inputs{away_from_zero({3, 4}, 302)}; };
  return {
      {"rsub_tensor_alpha", "rsub.Tensor", [](const Inputs& in) { return rsub(in[0], in[1], 2.5); },
       [] {
         return Inputs{values({3, 4}, 303), values({4}, 304)};
       }},
      {"rsub_scalar", "rsub.Scalar", [](const Inputs& in) { return rsub(in[0], 2.0, 3); }, vals},
      {"addcmul_broadcast", "addcmul",
       [](const Inputs& in) { return addcmul(in[0], in[1], in[2], 0.5); },
       [] {
         return Inputs{values({3, 4}, 305), values({3, 1}, 306), values({4}, 307)};
       }},
      {"addcdiv", "addcdiv", [](const Inputs& in) { return addcdiv(in[0], in[1], in[2], -2); },
       [] {
         return Inputs{values({3, 4}, 308), values({3, 4}, 309), away_from_zero({3, 4}, 310)};
       }},
      {"lerp_scalar_small_weight", "lerp.Scalar",
       [](const Inputs& in) { return lerp(in[0], in[1], 0.3); },
       [] {
         return Inputs{values({3, 4}, 311), values({4}, 312)};
       }},
      {"lerp_scalar_large_weight", "lerp.Scalar",
       [](const Inputs& in) { return lerp(in[0], in[1], 0.7); },
       [] {
         return Inputs{values({3, 4}, 313), values({3, 4}, 314)};
       }},
      {"lerp_tensor", "lerp.Tensor", [](const Inputs& in) { return lerp(in[0], in[1], in[2]); },
       [] {
         return Inputs{values({3, 4}, 315), values({3, 4}, 316), values({3, 1}, 317)};
       }},
      {"pow_tensor_tensor", "pow.Tensor_Tensor", [](const Inputs& in) { return pow(in[0], in[1]); },
       [] {
         return Inputs{positive({3, 4}, 318), values({4}, 319)};
       }},
      {"atan2", "atan2", [](const Inputs& in) { return atan2(in[0], in[1]); },
       [] {
         return Inputs{values({3, 4}, 320), away_from_zero({3, 4}, 321)};
       }},
      {"xlogy_tensor", "xlogy.Tensor", [](const Inputs& in) { return xlogy(in[0], in[1]); },
       [] {
         return Inputs{values({3, 4}, 949), positive({4}, 950)};
       }},
      {"special_xlog1py", "special_xlog1py",
       [](const Inputs& in) { return special_xlog1py(in[0], in[1]); },
       [] {
         return Inputs{values({3, 4}, 1060), positive({4}, 1061)};
       }},
      {"special_entr", "special_entr", [](const Inputs& in) { return special_entr(in[0]); },
       [] {
         return Inputs{positive({3, 4}, 1062)};
       }},
      {"hypot", "hypot", [](const Inputs& in) { return hypot(in[0], in[1]); },
       [] {
         return Inputs{away_from_zero({3, 4}, 959), values({4}, 960)};
       }},
      {"copysign_tensor", "copysign.Tensor",
       [](const Inputs& in) { return copysign(in[0], in[1]); },
       [] {
         return Inputs{away_from_zero({3, 4}, 961), away_from_zero({3, 4}, 962)};
       }},
      // self - other stays at least 0.2 from 0, away from fmax's and fmin's switch.
      {"fmax", "fmax", [](const Inputs& in) { return fmax(in[0], in[1]); },
       [] {
         return Inputs{away_from_zero({3, 4}, 963), zeros({3, 4}, DType::Float64)};
       }},
      {"fmin", "fmin", [](const Inputs& in) { return fmin(in[0], in[1]); },
       [] {
         return Inputs{away_from_zero({3, 4}, 964), zeros({4}, DType::Float64)};
       }},
      {"logaddexp", "logaddexp", [](const Inputs& in) { return logaddexp(in[0], in[1]); },
       [] {
         return Inputs{values({3, 4}, 965), values({3, 1}, 966)};
       }},
      {"logaddexp2", "logaddexp2", [](const Inputs& in) { return logaddexp2(in[0], in[1]); },
       [] {
         return Inputs{values({3, 4}, 965), values({3, 1}, 966)};
       }},
      {"erfinv", "erfinv", [](const Inputs& in) { return erfinv(in[0]); },
       [] {
         return Inputs{uniform({3, 4}, -0.9, 0.9, 967)};
       }},
      {"lgamma", "lgamma", [](const Inputs& in) { return lgamma(in[0]); },
       [] {
         return Inputs{positive({3, 4}, 968)};
       }},
      {"digamma", "digamma", [](const Inputs& in) { return digamma(in[0]); },
       [] {
         return Inputs{uniform({3, 4}, 0.6, 3.0, 1024)};
       }},
      {"polygamma_1", "_polygamma", [](const Inputs& in) { return polygamma(1, in[0]); },
       [] {
         return Inputs{uniform({3, 4}, 0.6, 3.0, 1025)};
       }},
      {"polygamma_3", "_polygamma", [](const Inputs& in) { return polygamma(3, in[0]); },
       [] {
         return Inputs{uniform({3, 4}, 0.6, 3.0, 1026)};
       }},
      {"sinc", "sinc", [](const Inputs& in) { return sinc(in[0]); },
       [] {
         return Inputs{values({3, 4}, 969)};
       }},
      // self / other in [2.09, 2.8]: floor and trunc stay 2.
      {"remainder_tensor", "remainder.Tensor",
       [](const Inputs& in) { return remainder(in[0], in[1]); },
       [] {
         return Inputs{uniform({3, 4}, 2.2, 2.8, 322), uniform({3, 4}, 1.0, 1.05, 323)};
       }},
      {"remainder_scalar", "remainder.Scalar",
       [](const Inputs& in) { return remainder(in[0], 1.5); },
       [] {
         return Inputs{uniform({3, 4}, 0.1, 1.4, 324)};
       }},
      {"fmod_tensor", "fmod.Tensor", [](const Inputs& in) { return fmod(in[0], in[1]); },
       [] {
         return Inputs{uniform({3, 4}, 2.2, 2.8, 325), uniform({3, 4}, 1.0, 1.05, 326)};
       }},
      {"fmod_scalar", "fmod.Scalar", [](const Inputs& in) { return fmod(in[0], 1.5); },
       [] {
         return Inputs{uniform({3, 4}, 0.1, 1.4, 327)};
       }},
      {"clamp_min", "clamp_min", [](const Inputs& in) { return clamp_min(in[0], 0.0); }, off_zero},
      {"clamp_max", "clamp_max", [](const Inputs& in) { return clamp_max(in[0], 0.0); }, off_zero},
      one("sin", "sin", sin, vals),
      one("cos", "cos", cos, vals),
      one("tan", "tan", tan, vals),
      one("atan", "atan", atan, vals),
      one("sinh", "sinh", sinh, vals),
      one("cosh", "cosh", cosh, vals),
      one("asinh", "asinh", asinh, vals),
      one("erf", "erf", erf, vals),
      one("erfc", "erfc", erfc, vals),
      one("log1p", "log1p", log1p, pos),
      one("expm1", "expm1", expm1, vals),
      one("log2", "log2", log2, pos),
      one("log10", "log10", log10, pos),
      one("exp2", "exp2", exp2, vals),
      one("floor", "floor", floor, off_zero),
      one("ceil", "ceil", ceil, off_zero),
      one("trunc", "trunc", trunc, off_zero),
      one("round", "round", round, off_zero),
      one("frac", "frac", frac, off_zero),
      one("sign", "sign", sign, off_zero),
      one("sgn", "sgn", sgn, off_zero),
  };
}

std::vector<GradCase> activation_cases() {
  auto vals = [] { return Inputs{values({3, 4}, 400)}; };
  auto off_zero = [] { return Inputs{away_from_zero({3, 4}, 401)}; };
  auto grad_and_vals = [] { return Inputs{values({3, 4}, 402), values({3, 4}, 403)}; };
  // Across hardswish's and hardsigmoid's middle piece, away from its ends at -3 and 3.
  auto wide = [] { return Inputs{uniform({3, 4}, -3.0, 3.0, 408)}; };
  auto grad_and_wide = [] { return Inputs{values({3, 4}, 404), uniform({3, 4}, -2.9, 2.9, 405)}; };
  return {
      {"sigmoid_backward", "sigmoid_backward",
       [](const Inputs& in) { return sigmoid_backward(in[0], in[1]); }, grad_and_vals},
      {"tanh_backward", "tanh_backward",
       [](const Inputs& in) { return tanh_backward(in[0], in[1]); }, grad_and_vals},
      {"threshold", "threshold", [](const Inputs& in) { return threshold(in[0], 0.0, 20); },
       off_zero},
      {"leaky_relu", "leaky_relu", [](const Inputs& in) { return leaky_relu(in[0], 0.2); },
       off_zero},
      {"leaky_relu_backward", "leaky_relu_backward",
       [](const Inputs& in) { return leaky_relu_backward(in[0], in[1], 0.2, false); },
       grad_and_vals},
      {"elu", "elu", [](const Inputs& in) { return elu(in[0], 1.5, 1.2, 0.8); }, off_zero},
      {"hardtanh", "hardtanh", [](const Inputs& in) { return hardtanh(in[0], -0.5, 0.5); }, vals},
      {"hardtanh_backward", "hardtanh_backward",
       [](const Inputs& in) { return hardtanh_backward(in[0], in[1], -0.5, 0.5); }, grad_and_vals},
      {"softplus", "softplus", [](const Inputs& in) { return softplus(in[0]); }, vals},
      {"softplus_beta_threshold", "softplus",
       [](const Inputs& in) { return softplus(in[0], 2, 1.5); }, vals},
      {"softplus_backward", "softplus_backward",
       [](const Inputs& in) { return softplus_backward(in[0], in[1], 2, 1.5); }, grad_and_vals},
      {"silu", "silu", [](const Inputs& in) { return silu(in[0]); }, vals},
      {"silu_backward", "silu_backward",
       [](const Inputs& in) { return silu_backward(in[0], in[1]); }, grad_and_vals},
      {"mish", "mish", [](const Inputs& in) { return mish(in[0]); }, vals},
      {"hardshrink", "hardshrink", [](const Inputs& in) { return hardshrink(in[0], 0.1); },
       off_zero},
      {"hardshrink_backward", "hardshrink_backward",
       [](const Inputs& in) { return hardshrink_backward(in[0], in[1], 0.1); },
       [] {
         return Inputs{values({3, 4}, 947), away_from_zero({3, 4}, 948)};
       }},
      {"softshrink", "softshrink", [](const Inputs& in) { return softshrink(in[0], 0.1); },
       off_zero},
      {"softshrink_backward", "softshrink_backward",
       [](const Inputs& in) { return softshrink_backward(in[0], in[1], 0.1); },
       [] {
         return Inputs{values({3, 4}, 1307), away_from_zero({3, 4}, 1308)};
       }},
      {"hardsigmoid", "hardsigmoid", [](const Inputs& in) { return hardsigmoid(in[0]); },
       [] {
         return Inputs{uniform({3, 4}, -2.9, 2.9, 406)};
       }},
      {"hardsigmoid_backward", "hardsigmoid_backward",
       [](const Inputs& in) { return hardsigmoid_backward(in[0], in[1]); }, grad_and_wide},
      {"hardswish", "hardswish", [](const Inputs& in) { return hardswish(in[0]); },
       [] {
         return Inputs{uniform({3, 4}, -4.0, 4.0, 407)};
       }},
      {"hardswish_backward", "hardswish_backward",
       [](const Inputs& in) { return hardswish_backward(in[0], in[1]); }, grad_and_wide},
      {"layer_norm_composite", "layer_norm",
       [](const Inputs& in) {
         return layer_norm(in[0], {3, 4}, in[1], in[2]);
       },
       [] {
         return Inputs{values({2, 3, 4}, 409), values({3, 4}, 410), values({3, 4}, 411)};
       }},
      {"batch_norm_training_composite", "native_batch_norm",
       [](const Inputs& in) {
         return std::get<0>(native_batch_norm(in[0], in[1], in[2], {}, {}, true, 0.1, 1e-5));
       },
       [] {
         return Inputs{values({4, 3, 2, 2}, 421), values({3}, 422), values({3}, 423)};
       }},
      // Evaluation normalizes by running statistics (not differentiated); without weight and bias
      // the gradient reaches the input alone (See Note [Batch norm's backward function]).
      {"batch_norm_eval_composite", "native_batch_norm",
       [](const Inputs& in) {
         const Tensor mean = zeros({3}, in[0].dtype(), in[0].device()) + 0.25;
         const Tensor var = zeros({3}, in[0].dtype(), in[0].device()) + 1.5;
         return std::get<0>(native_batch_norm(in[0], in[1], in[2], mean, var, false, 0.1, 1e-5));
       },
       [] {
         return Inputs{values({4, 3, 2, 2}, 424), values({3}, 425), values({3}, 426)};
       }},
      {"batch_norm_training_no_affine_composite", "native_batch_norm",
       [](const Inputs& in) {
         return std::get<0>(native_batch_norm(in[0], {}, {}, {}, {}, true, 0.1, 1e-5));
       },
       [] {
         return Inputs{values({4, 3, 3}, 427)};
       }},
      {"mse_loss_composite", "mse_loss", [](const Inputs& in) { return mse_loss(in[0], in[1]); },
       grad_and_vals},
      {"linear_3d_composite", "linear",
       [](const Inputs& in) { return nn::functional::linear(in[0], in[1], in[2]); },
       [] {
         return Inputs{values({2, 3, 4}, 412), values({5, 4}, 413), values({5}, 414)};
       }},
      {"cross_entropy_composite", "cross_entropy",
       [](const Inputs& in) { return nn::functional::cross_entropy(in[0], in[1]); },
       [] {
         return Inputs{values({3, 5}, 415), tensor<int64_t>({4, 0, 2}, IntList{3})};
       }},
      {"softmax_composite", "softmax",
       [](const Inputs& in) { return nn::functional::softmax(in[0], 0); },
       [] {
         return Inputs{values({3, 5}, 416)};
       }},
      {"var_composite", "var", [](const Inputs& in) { return var(in[0], IntList{1}); },
       [] {
         return Inputs{values({3, 5}, 417)};
       }},
      {"std_composite", "std", [](const Inputs& in) { return std(in[0], std::nullopt, 0, true); },
       [] {
         return Inputs{values({3, 5}, 418)};
       }},
      {"chunk_composite", "chunk", [](const Inputs& in) { return mul(chunk(in[0], 3, 1)[2], 2); },
       [] {
         return Inputs{values({2, 7}, 419)};
       }},
      {"unbind_composite", "unbind", [](const Inputs& in) { return unbind(in[0], 1)[1]; },
       [] {
         return Inputs{values({2, 3}, 420)};
       }},
      {"gelu_erf", "_gelu_erf", [](const Inputs& in) { return gelu(in[0]); }, wide},
      {"gelu_tanh", "_gelu_tanh", [](const Inputs& in) { return gelu(in[0], "tanh"); }, wide},
      {"gelu_erf_backward", "_gelu_erf_backward",
       [](const Inputs& in) { return gelu_backward(in[0], in[1]); }, grad_and_wide},
      {"gelu_tanh_backward", "_gelu_tanh_backward",
       [](const Inputs& in) { return gelu_backward(in[0], in[1], "tanh"); }, grad_and_wide},
      {"amin", "amin", [](const Inputs& in) { return amin(in[0], {1}); },
       [] {
         return Inputs{values({3, 5}, 430)};
       }},
      {"amin_keepdim_all", "amin", [](const Inputs& in) { return amin(in[0], {}, true); },
       [] {
         return Inputs{values({3, 5}, 431)};
       }},
      {"sort_descending", "sort",
       [](const Inputs& in) { return std::get<0>(sort(in[0], 0, true)); },
       [] {
         return Inputs{values({4, 3}, 432)};
       }},
      {"topk", "topk", [](const Inputs& in) { return std::get<0>(topk(in[0], 2, 1, false)); },
       [] {
         return Inputs{values({3, 5}, 433)};
       }},
      {"cumsum", "cumsum", [](const Inputs& in) { return cumsum(in[0], 1); },
       [] {
         return Inputs{values({3, 5}, 434)};
       }},
      {"log_sigmoid", "log_sigmoid", [](const Inputs& in) { return log_sigmoid(in[0]); }, wide},
      // A world of one (local_world.h): checks the formula's shape, not the other ranks' share.
      {"all_reduce", "all_reduce", [](const Inputs& in) { return all_reduce(in[0], "mean"); },
       [] {
         return Inputs{values({3, 4}, 497)};
       }},
      {"stack_composite", "stack",
       [](const Inputs& in) {
         return stack({in[0], in[1]}, -1);
       },
       [] {
         return Inputs{values({2, 3}, 435), values({2, 3}, 436)};
       }},
      {"repeat_composite", "repeat",
       [](const Inputs& in) {
         return repeat(in[0], {2, 1, 3});
       },
       [] {
         return Inputs{values({3, 2}, 437)};
       }},
      {"flip_composite", "flip",
       [](const Inputs& in) {
         return flip(in[0], {0, 2});
       },
       [] {
         return Inputs{values({2, 3, 2}, 438)};
       }},
      {"roll_composite", "roll",
       [](const Inputs& in) {
         return roll(in[0], {1, -4}, {0, 2});
       },
       [] {
         return Inputs{values({2, 3, 3}, 941)};
       }},
      {"index_composite", "index",
       [](const Inputs& in) {
         return index(in[0], {std::nullopt, in[1]});
       },
       [] {
         return Inputs{values({2, 3, 2}, 942), tensor<int64_t>({2, 0, -1}, IntList{3})};
       }},
      {"index_put_accumulate_composite", "index_put",
       [](const Inputs& in) { return index_put(in[0], {in[2]}, in[1], true); },
       [] {
         return Inputs{values({2, 3}, 943), values({3, 3}, 944),
                       tensor<int64_t>({1, 0, 1}, IntList{3})};
       }},
      {"index_put_composite", "index_put",
       [](const Inputs& in) { return index_put(in[0], {in[2]}, in[1]); },
       [] {
         return Inputs{values({2, 3}, 945), values({3, 3}, 946),
                       tensor<int64_t>({1, 0, 1}, IntList{3})};
       }},
      // Note [Masked writes without nonzero]: one value row for every masked position.
      {"index_put_mask_composite", "index_put",
       [](const Inputs& in) {
         return index_put(in[0], {std::nullopt, in[2]}, in[1]);
       },
       [] {
         return Inputs{values({2, 3}, 947), values({2, 1}, 948),
                       tensor<bool>({true, false, true}, IntList{3})};
       }},
      {"index_put_mask_accumulate_composite", "index_put",
       [](const Inputs& in) { return index_put(in[0], {in[2]}, in[1], true); },
       [] {
         return Inputs{values({2, 3}, 949), values({3}, 950),
                       tensor<bool>({false, true}, IntList{2})};
       }},
      {"pixel_shuffle_composite", "pixel_shuffle",
       [](const Inputs& in) { return pixel_shuffle(in[0], 2); },
       [] {
         return Inputs{values({1, 8, 2, 3}, 951)};
       }},
      {"pixel_unshuffle_composite", "pixel_unshuffle",
       [](const Inputs& in) { return pixel_unshuffle(in[0], 2); },
       [] {
         return Inputs{values({2, 4, 6}, 952)};
       }},
      {"prelu_composite", "prelu", [](const Inputs& in) { return prelu(in[0], in[1]); },
       [] {
         return Inputs{away_from_zero({2, 3, 4}, 953), values({3}, 954)};
       }},
      {"prelu_one_weight_composite", "prelu", [](const Inputs& in) { return prelu(in[0], in[1]); },
       [] {
         return Inputs{away_from_zero({2, 3}, 955), values({1}, 956)};
       }},
      {"huber_loss_composite", "huber_loss",
       [](const Inputs& in) { return huber_loss(in[0], in[1], 1, 0.5); },
       [] {
         return Inputs{values({3, 4}, 957), values({3, 4}, 958)};
       }},
      {"reflection_pad_composite", "reflection_pad",
       [](const Inputs& in) {
         return reflection_pad(in[0], {2, 1, 1, 0});
       },
       [] {
         return Inputs{values({1, 2, 3, 4}, 970)};
       }},
      {"replication_pad_composite", "replication_pad",
       [](const Inputs& in) {
         return replication_pad(in[0], {1, -1, 2, 2});
       },
       [] {
         return Inputs{values({2, 3, 4}, 971)};
       }},
      {"tril_composite", "tril", [](const Inputs& in) { return tril(in[0], 1); },
       [] {
         return Inputs{values({3, 4}, 439)};
       }},
      {"diagonal_copy_composite", "diagonal_copy",
       [](const Inputs& in) { return diagonal_copy(in[0], -1, 2, 0); },
       [] {
         return Inputs{values({3, 2, 4}, 440)};
       }},
      {"as_strided_scatter_composite", "as_strided_scatter",
       [](const Inputs& in) {
         return as_strided_scatter(in[0], in[1], {2, 2}, {1, 3}, 1);
       },
       [] {
         return Inputs{values({3, 3}, 441), values({2, 2}, 442)};
       }},
      {"unfold_copy_composite", "unfold_copy",
       [](const Inputs& in) { return unfold_copy(in[0], 1, 3, 2); },
       [] {
         return Inputs{values({2, 7}, 443)};
       }},
      {"trace_composite", "trace", [](const Inputs& in) { return trace(in[0]); },
       [] {
         return Inputs{values({3, 4}, 444)};
       }},
      {"mv_composite", "mv", [](const Inputs& in) { return mv(in[0], in[1]); },
       [] {
         return Inputs{values({3, 4}, 445), values({4}, 446)};
       }},
      {"max_full_composite", "max", [](const Inputs& in) { return max(in[0]); },
       [] {
         return Inputs{values({3, 4}, 447)};
       }},
      {"norm_2_composite", "norm", [](const Inputs& in) { return norm(in[0], std::nullopt, {1}); },
       vals},
      {"norm_3_composite", "norm", [](const Inputs& in) { return norm(in[0], 3.0); }, off_zero},
      {"glu_composite", "glu", [](const Inputs& in) { return glu(in[0], 1); }, vals},
      {"binary_cross_entropy_composite", "binary_cross_entropy",
       [](const Inputs& in) { return binary_cross_entropy(in[0], in[1], in[2]); },
       [] {
         return Inputs{uniform({3, 4}, 0.1, 0.9, 448), uniform({3, 4}, 0.0, 1.0, 449),
                       positive({4}, 450)};
       }},
      {"smooth_l1_loss_composite", "smooth_l1_loss",
       [](const Inputs& in) { return smooth_l1_loss(in[0], in[1], 2, 0.5); },
       [] {
         return Inputs{values({3, 4}, 451), values({3, 4}, 452)};
       }},
      {"nll_loss2d_composite", "nll_loss2d_forward",
       [](const Inputs& in) {
         return std::get<0>(nll_loss2d_forward(in[0], in[1], std::nullopt, 1, -100));
       },
       [] {
         return Inputs{values({2, 3, 2, 2}, 453),
                       tensor<int64_t>({0, 2, 1, 1, 2, 0, 0, 1}, IntList{2, 2, 2})};
       }},
      {"group_norm_composite", "native_group_norm",
       [](const Inputs& in) {
         return std::get<0>(native_group_norm(in[0], in[1], in[2], 2, 4, 3, 2, 1e-5));
       },
       [] {
         return Inputs{values({2, 4, 3}, 454), values({4}, 455), values({4}, 456)};
       }},
      {"avg_pool2d_composite", "avg_pool2d",
       [](const Inputs& in) { return avg_pool2d(in[0], {3}, {2}, {1}, true, false); },
       [] {
         return Inputs{values({1, 2, 5, 4}, 457)};
       }},
      {"adaptive_avg_pool2d_composite", "_adaptive_avg_pool2d",
       [](const Inputs& in) {
         return _adaptive_avg_pool2d(in[0], {2, 3});
       },
       [] {
         return Inputs{values({1, 2, 5, 4}, 458)};
       }},
      {"upsample_nearest2d_composite", "upsample_nearest2d",
       [](const Inputs& in) {
         return upsample_nearest2d(in[0], {5, 3});
       },
       [] {
         return Inputs{values({1, 2, 3, 2}, 459)};
       }},
      {"upsample_bilinear2d_composite", "upsample_bilinear2d",
       [](const Inputs& in) {
         return upsample_bilinear2d(in[0], {5, 3}, false);
       },
       [] {
         return Inputs{values({1, 2, 3, 2}, 460)};
       }},
      {"upsample_bicubic2d_composite", "upsample_bicubic2d",
       [](const Inputs& in) {
         return upsample_bicubic2d(in[0], {5, 3}, false);
       },
       [] {
         return Inputs{values({1, 2, 3, 4}, 994)};
       }},
      {"grid_sampler_bilinear_composite", "grid_sampler_2d",
       [](const Inputs& in) { return grid_sampler_2d(in[0], in[1], 0, 0, false); },
       [] {
         return Inputs{values({1, 2, 3, 4}, 466), uniform({1, 2, 3, 2}, -0.9, 0.9, 467)};
       }},
      {"grid_sampler_reflection_composite", "grid_sampler_2d",
       [](const Inputs& in) { return grid_sampler_2d(in[0], in[1], 0, 2, true); },
       [] {
         return Inputs{values({1, 2, 3, 4}, 468), uniform({1, 2, 2, 2}, 1.1, 1.7, 469)};
       }},
      {"embedding_bag_composite", "_embedding_bag",
       [](const Inputs& in) {
         return std::get<0>(embedding_bag(in[0], in[2], in[3], 0, in[1], false, 3));
       },
       [] {
         return Inputs{values({6, 2}, 962), values({7}, 963), tensor<int64_t>({1, 2, 4, 5, 3, 2, 0}, IntList{7}),
                       tensor<int64_t>({0, 2, 2}, IntList{3})};
       }},
      {"weight_norm_composite", "_weight_norm_interface",
       [](const Inputs& in) { return std::get<0>(weight_norm_interface(in[0], in[1], 0)); },
       [] {
         return Inputs{values({4, 3, 2}, 960), values({4, 1, 1}, 961)};
       }},
      {"prod_composite", "prod.dim_int", [](const Inputs& in) { return prod(in[0], 1); },
       [] {
         return Inputs{values({3, 5}, 974)};
       }},
      {"prod_with_a_zero_composite", "prod", [](const Inputs& in) { return prod(in[0]); },
       [] {
         return Inputs{tensor<double>({0.5, 0, -1.5, 2}, IntList{4})};
       }},
      {"cumprod_composite", "cumprod", [](const Inputs& in) { return cumprod(in[0], 1); },
       [] {
         return Inputs{values({2, 7}, 976)};
       }},
      {"logcumsumexp_composite", "logcumsumexp",
       [](const Inputs& in) { return logcumsumexp(in[0], 1); },
       [] {
         return Inputs{values({3, 6}, 985)};
       }},
      {"cummax_composite", "cummax", [](const Inputs& in) { return std::get<0>(cummax(in[0], 1)); },
       [] {
         return Inputs{values({3, 6}, 977)};
       }},
      {"cummin_composite", "cummin", [](const Inputs& in) { return std::get<0>(cummin(in[0], 0)); },
       [] {
         return Inputs{values({5, 2}, 978)};
       }},
      {"kthvalue_composite", "kthvalue",
       [](const Inputs& in) { return std::get<0>(kthvalue(in[0], 2, 1)); },
       [] {
         return Inputs{values({3, 5}, 979)};
       }},
      {"median_composite", "median.dim",
       [](const Inputs& in) { return std::get<0>(median(in[0], 0, true)); },
       [] {
         return Inputs{values({4, 3}, 980)};
       }},
      {"nanmedian_composite", "nanmedian.dim",
       [](const Inputs& in) { return std::get<0>(nanmedian(in[0], 1)); },
       [] {
         return Inputs{values({3, 5}, 981)};
       }},
      {"take_composite", "take",
       [](const Inputs& in) {
         return take(in[0], tensor<int64_t>({5, -1, 0, 5}, IntList{2, 2}).to(in[0].device()));
       },
       [] {
         return Inputs{values({2, 3}, 1033)};
       }},
      {"index_copy_composite", "index_copy",
       [](const Inputs& in) {
         return index_copy(in[0], 1, tensor<int64_t>({2, 0}, IntList{2}).to(in[0].device()), in[1]);
       },
       [] {
         return Inputs{values({3, 4}, 1034), values({3, 2}, 1035)};
       }},
      {"addbmm_composite", "addbmm",
       [](const Inputs& in) { return addbmm(in[0], in[1], in[2], 0.5, 2); },
       [] {
         return Inputs{values({2, 1}, 1036), values({3, 2, 4}, 1037), values({3, 4, 3}, 1038)};
       }},
      {"pow_scalar_base_composite", "pow.Scalar",
       [](const Inputs& in) { return pow(Scalar(2.5), in[0]); },
       [] {
         return Inputs{values({2, 3}, 1039)};
       }},
      {"upsample_linear1d_composite", "upsample_linear1d",
       [](const Inputs& in) { return upsample_linear1d(in[0], {9}, false, 2.5); },
       [] {
         return Inputs{values({2, 2, 4}, 1040)};
       }},
      {"upsample_trilinear3d_composite", "upsample_trilinear3d",
       [](const Inputs& in) {
         return upsample_trilinear3d(in[0], {3, 4, 2}, true);
       },
       [] {
         return Inputs{values({1, 2, 2, 3, 3}, 1041)};
       }},
      {"upsample_nearest3d_composite", "upsample_nearest3d",
       [](const Inputs& in) {
         return upsample_nearest3d(in[0], {4, 3, 2});
       },
       [] {
         return Inputs{values({1, 1, 2, 3, 3}, 1042)};
       }},
      {"adaptive_avg_pool3d_composite", "_adaptive_avg_pool3d",
       [](const Inputs& in) {
         return _adaptive_avg_pool3d(in[0], {2, 2, 3});
       },
       [] {
         return Inputs{values({1, 2, 3, 5, 4}, 1043)};
       }},
      {"mode_composite", "mode", [](const Inputs& in) { return std::get<0>(mode(in[0], 1)); },
       [] {
         return Inputs{values({3, 5}, 1030)};
       }},
      {"bincount_weights_composite", "bincount",
       [](const Inputs& in) {
         return bincount(tensor<int64_t>({0, 2, 2, 4}, IntList{4}).to(in[0].device()), in[0], 6);
       },
       [] { return Inputs{values({4}, 1031)}; }},
      {"unique_composite", "_unique2", [](const Inputs& in) { return std::get<0>(unique(in[0])); },
       [] {
         return Inputs{values({2, 3}, 1032)};
       }},
      {"linalg_cross_composite", "linalg_cross",
       [](const Inputs& in) { return linalg_cross(in[0], in[1], 0); },
       [] {
         return Inputs{values({3, 4}, 982), values({3, 1}, 983)};
       }},
      {"diag_composite", "diag", [](const Inputs& in) { return diag(diag(in[0], -1), 1); },
       [] {
         return Inputs{values({4, 4}, 984)};
       }},
      {"conv3d_composite", "convolution",
       [](const Inputs& in) {
         return conv3d(in[0], in[1], in[2], {1, 2, 1}, {1, 0, 1}, {2, 1, 1}, 2);
       },
       [] {
         return Inputs{values({1, 4, 4, 3, 3}, 995), values({2, 2, 2, 2, 2}, 996),
                       values({2}, 997)};
       }},
      {"im2col_composite", "im2col",
       [](const Inputs& in) {
         return im2col(in[0], {2, 3}, {1, 2}, {1, 0}, {2, 1});
       },
       [] {
         return Inputs{values({1, 2, 5, 6}, 986)};
       }},
      {"col2im_composite", "col2im",
       [](const Inputs& in) {
         return col2im(in[0], {4, 5}, {3, 3}, {1, 1}, {1, 1}, {2, 2});
       },
       [] {
         return Inputs{values({1, 18, 6}, 987)};
       }},
      {"cdist_composite", "_cdist_forward", [](const Inputs& in) { return cdist(in[0], in[1]); },
       [] {
         return Inputs{values({2, 4, 3}, 988), values({1, 5, 3}, 989)};
       }},
      {"cdist_matmul_composite", "_cdist_forward",
       [](const Inputs& in) { return cdist(in[0], in[1], 2, 1); },
       [] {
         return Inputs{values({4, 3}, 990), values({5, 3}, 991)};
       }},
      {"cdist_p1_5_composite", "_cdist_forward",
       [](const Inputs& in) { return cdist(in[0], in[1], 1.5); },
       [] {
         return Inputs{values({4, 3}, 992), values({5, 3}, 993)};
       }},
      {"adaptive_max_pool2d_composite", "adaptive_max_pool2d",
       [](const Inputs& in) {
         return std::get<0>(adaptive_max_pool2d(in[0], {2, 3}));
       },
       [] {
         return Inputs{values({2, 3, 5}, 959)};
       }},
      {"max_pool3d_composite", "max_pool3d_with_indices",
       [](const Inputs& in) { return std::get<0>(max_pool3d_with_indices(in[0], {2}, {2}, {1})); },
       [] {
         return Inputs{values({1, 2, 3, 4, 3}, 470)};
       }},
      {"avg_pool3d_composite", "avg_pool3d",
       [](const Inputs& in) {
         return avg_pool3d(in[0], {3, 2, 2}, {2, 1, 2}, {1, 1, 0}, true, false);
       },
       [] {
         return Inputs{values({1, 2, 4, 3, 5}, 1020)};
       }},
      {"avg_pool3d_divisor_composite", "avg_pool3d",
       [](const Inputs& in) { return avg_pool3d(in[0], {2}, {1}, {1}, false, true, 3); },
       [] {
         return Inputs{values({2, 3, 3, 2}, 1021)};
       }},
      {"logdet_composite", "logdet",
       [](const Inputs& in) { return logdet(in[0] + eye_like(in[0]) * 3.0); },
       [] {
         return Inputs{values({2, 3, 3}, 471)};
       }},
      {"lu_solve_composite", "lu_solve",
       [](const Inputs& in) {
         const auto [lu, pivots] = lu_factor(in[0] + eye_like(in[0]) * 3.0);
         return lu_solve(lu, pivots, in[1], true);
       },
       [] {
         return Inputs{values({3, 3}, 472), values({3, 2}, 473)};
       }},
      {"linalg_inv_ex_composite", "linalg_inv_ex",
       [](const Inputs& in) { return std::get<0>(linalg_inv_ex(in[0] + eye_like(in[0]) * 3.0)); },
       [] {
         return Inputs{values({2, 3, 3}, 998)};
       }},
      {"linalg_solve_ex_composite", "linalg_solve_ex",
       [](const Inputs& in) {
         return std::get<0>(linalg_solve_ex(in[0] + eye_like(in[0]) * 3.0, in[1]));
       },
       [] {
         return Inputs{values({2, 3, 3}, 1040), values({3, 2}, 1041)};
       }},
      {"linalg_solve_triangular_composite", "linalg_solve_triangular",
       [](const Inputs& in) {
         return linalg_solve_triangular(in[0] + eye_like(in[0]) * 3.0, in[1], true, false);
       },
       [] {
         return Inputs{values({3, 3}, 1042), values({2, 3}, 1043)};
       }},
      {"linalg_cholesky_ex_composite", "linalg_cholesky_ex",
       [](const Inputs& in) {
         return std::get<0>(
             linalg_cholesky_ex(matmul(in[0], transpose(in[0], 0, 1)) + eye_like(in[0])));
       },
       [] {
         return Inputs{values({3, 3}, 1044)};
       }},
      {"cholesky_solve_composite", "cholesky_solve",
       [](const Inputs& in) { return cholesky_solve(in[1], tril(in[0]) + eye_like(in[0]) * 3.0); },
       [] {
         return Inputs{values({3, 3}, 1045), values({3, 2}, 1046)};
       }},
      {"cholesky_inverse_composite", "cholesky_inverse",
       [](const Inputs& in) { return cholesky_inverse(triu(in[0]) + eye_like(in[0]) * 3.0, true); },
       [] {
         return Inputs{values({3, 3}, 1047)};
       }},
      {"linalg_qr_composite", "linalg_qr",
       [](const Inputs& in) {
         const auto [q, r] = linalg_qr(in[0]);
         return q + r;
       },
       [] {
         return Inputs{values({2, 3, 3}, 1048)};
       }},
      {"linalg_qr_tall_composite", "linalg_qr",
       [](const Inputs& in) { return std::get<0>(linalg_qr(in[0])); },
       [] {
         return Inputs{values({4, 2}, 1049)};
       }},
      {"linalg_matrix_exp_composite", "linalg_matrix_exp",
       [](const Inputs& in) { return linalg_matrix_exp(in[0] * 2.0); },  // norms past 1: squarings
       [] {
         return Inputs{values({2, 3, 3}, 1063)};
       }},
      {"multi_margin_loss_composite", "multi_margin_loss",
       [](const Inputs& in) {
         const Tensor target = tensor<int64_t>({2, 0, 3}, IntList{3}).to(in[0].device());
         return multi_margin_loss(in[0], target, 2, 1.5, in[1], 0);
       },
       [] {
         return Inputs{values({3, 4}, 1050), positive({4}, 1051)};
       }},
      {"multilabel_margin_loss_composite", "multilabel_margin_loss_forward",
       [](const Inputs& in) {
         const Tensor target =
             tensor<int64_t>({3, 0, -1, 1, 1, 1, 2, -1}, IntList{2, 4}).to(in[0].device());
         return std::get<0>(multilabel_margin_loss_forward(in[0], target, 0));
       },
       [] {
         return Inputs{values({2, 4}, 1052)};
       }},
      {"trilinear_composite", "_trilinear",
       [](const Inputs& in) {
         return trilinear(in[0], in[1], in[2], {1, 3}, {0}, {1, 2}, {2, 3});
       },
       [] {
         return Inputs{values({2, 3}, 1053), values({4, 3, 2}, 1054), values({2, 2}, 1055)};
       }},
      {"max_unpool2d_composite", "max_unpool2d",
       [](const Inputs& in) {
         const Tensor indices =
             tensor<int64_t>({0, 3, 9, 15, 5, 6, 8, 14}, IntList{1, 2, 2, 2}).to(in[0].device());
         return max_unpool2d(in[0], indices, {4, 4});
       },
       [] {
         return Inputs{values({1, 2, 2, 2}, 1056)};
       }},
      {"index_reduce_prod_composite", "index_reduce",
       [](const Inputs& in) {
         const Tensor index = tensor<int64_t>({0, 2, 0}, IntList{3}).to(in[0].device());
         return index_reduce(in[0], 0, index, in[1], "prod");
       },
       [] {
         return Inputs{values({3, 2}, 1057), values({3, 2}, 1058)};
       }},
      {"einsum_batched_composite", "einsum",
       [](const Inputs& in) {
         return einsum("bij,bkj->bki", {in[0], in[1]});
       },
       [] {
         return Inputs{values({2, 3, 4}, 461), values({2, 5, 4}, 462)};
       }},
      {"sdpa_causal_composite", "scaled_dot_product_attention",
       [](const Inputs& in) {
         return scaled_dot_product_attention(in[0], in[1], in[2], std::nullopt, true);
       },
       [] {
         return Inputs{values({2, 3, 4}, 463), values({2, 3, 4}, 464), values({2, 3, 2}, 465)};
       }},
  };
}

}  // namespace lazygen::testing
