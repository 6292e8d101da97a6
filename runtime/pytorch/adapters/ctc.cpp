// Adapters for PyTorch's CTC loss (ops.yaml, "PyTorch adapters"): _ctc_loss and
// _ctc_loss_backward, which F.ctc_loss and nn.CTCLoss reach through PyTorch's ctc_loss (that
// moves targets to the device, turns length tensors into lists and applies the reduction).
// See Note [CTC loss on the device].
#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/gather.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/log.h"
#include "lazygen/generated/ops/logical_and.h"
#include "lazygen/generated/ops/maximum.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/permute.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/select.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/generated/torch_adapters.h"
#include "lazygen/operators.h"
#include "pytorch/call.h"
#include "pytorch/fallback.h"

namespace lazygen::pytorch::adapters {
namespace {

// Note [CTC loss on the device]
// The loss is Graves' forward recursion written in lazygen ops, so it traces into the graph like
// any composite: the extended labels l' (a blank before, between and after the targets) index
// the log-probabilities once (gather), and each time step t computes
//   alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2) where allowed)
//                + log_probs[t, n, l'_s]
// for every sample at once; each sample's likelihood is read from its alphas at its own last
// step (See Note [Unreachable states] for log 0). Lengths are
// lists (host values), so every mask is built on the host and nothing syncs; the trace has one
// step per time step of the longest input. The backward recomputes the forward over a fresh leaf
// and differentiates it with lazygen's autograd. PyTorch's kernel returns, in place of d nll /
// d log_probs = -gamma (the occupation posteriors), exp(log_probs) - gamma: the gradient for the
// logits when log_probs is a log_softmax (whose backward then returns it unchanged, as the
// column sums of gamma are 1); the adapter adds exp(log_probs) the same way, for time steps
// within each input, so that both devices give equal gradients for any input. An impossible
// alignment (nll inf) gives PyTorch's NaN gradients, or zeros with zero_infinity.

constexpr double kInf = std::numeric_limits<double>::infinity();

struct CtcLayout {
  int64_t time = 0;              // T
  int64_t batch = 0;             // N
  int64_t states = 0;            // 2 * max target length + 1
  int64_t longest = 0;           // the longest input
  std::vector<int64_t> inputs;   // input lengths
  std::vector<int64_t> targets;  // target lengths
};

// Whether the device serves these arguments: PyTorch's CPU kernel's checks (3-d float or double
// log_probs, integral 1-d or 2-d targets holding every target, blank a label, one length per
// sample, input lengths at most T, target lengths not negative). Otherwise the CPU kernel runs
// and raises its error. Target values cannot be checked without a sync: an index outside
// [0, C) is gather's error when the graph runs.
bool ctc_served(const at::Tensor& log_probs, const at::Tensor& targets,
                c10::IntArrayRef input_lengths, c10::IntArrayRef target_lengths, int64_t blank) {
  if (log_probs.dim() != 3) return false;
  const auto t = log_probs.scalar_type();
  if (t != at::kFloat && t != at::kDouble) return false;
  if (targets.scalar_type() != at::kLong && targets.scalar_type() != at::kInt) return false;
  const int64_t n = log_probs.size(1);
  if (blank < 0 || blank >= log_probs.size(2)) return false;
  if (static_cast<int64_t>(input_lengths.size()) != n) return false;
  if (static_cast<int64_t>(target_lengths.size()) != n) return false;
  for (int64_t l : input_lengths) {
    if (l < 0 || l > log_probs.size(0)) return false;
  }
  int64_t total = 0, longest = 0;
  for (int64_t l : target_lengths) {
    if (l < 0) return false;
    total += l;
    longest = std::max(longest, l);
  }
  if (targets.dim() == 1) return targets.size(0) == total;
  return targets.dim() == 2 && targets.size(0) == n && targets.size(1) >= longest;
}

CtcLayout ctc_layout(const Tensor& log_probs, std::vector<int64_t> inputs,
                     std::vector<int64_t> targets) {
  CtcLayout l;
  l.time = log_probs.size(0);
  l.batch = log_probs.size(1);
  const int64_t max_target =
      targets.empty() ? 0 : *std::max_element(targets.begin(), targets.end());
  l.states = 2 * max_target + 1;
  l.longest = inputs.empty() ? 0 : *std::max_element(inputs.begin(), inputs.end());
  l.inputs = std::move(inputs);
  l.targets = std::move(targets);
  return l;
}

// A host-built bool mask of `sizes` on the device: pred(i, j) for row i, column j of its
// [rows, cols] view.
template <class Pred>
Tensor host_mask(const IntList& sizes, int64_t rows, int64_t cols, Device device, Pred pred) {
  std::vector<bool> m(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) m[static_cast<size_t>(i * cols + j)] = pred(i, j);
  }
  return lazygen::tensor(m, sizes, DType::Bool, device);
}

// The extended labels l' [N, S]: blank at even states, the n-th target's k-th label at 2k + 1;
// states past a sample's own 2 * length + 1 hold labels that its masks leave out.
Tensor extended_labels(const Tensor& targets, const CtcLayout& l, int64_t blank) {
  const Device dev = targets.device();
  const int64_t n = l.batch, max_target = (l.states - 1) / 2;
  Tensor blanks = full({n, 1}, blank, DType::Int64, dev);
  if (max_target == 0) return blanks;
  Tensor tg = targets.to(DType::Int64);
  Tensor labels;
  if (tg.dim() == 2) {
    labels = narrow(tg, 1, 0, max_target);
  } else {  // concatenated: sample i's targets start after the earlier samples'
    std::vector<int64_t> index(static_cast<size_t>(n * max_target), 0);
    int64_t offset = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = 0; k < l.targets[static_cast<size_t>(i)]; ++k) {
        index[static_cast<size_t>(i * max_target + k)] = offset + k;
      }
      offset += l.targets[static_cast<size_t>(i)];
    }
    labels = reshape(index_select(tg, 0, lazygen::tensor(index, std::nullopt, DType::Int64, dev)),
                     {n, max_target});
  }
  Tensor pairs = cat({full({n, max_target, 1}, blank, DType::Int64, dev), unsqueeze(labels, 2)}, 2);
  return cat({reshape(pairs, {n, 2 * max_target}), blanks}, 1);
}

// Note [Unreachable states]
// Inside the recursion log 0 is kUnreachable, not -inf: a logsumexp over three -inf would shift
// by -inf and give NaN (and where() guards cost ops at every step). exp(kUnreachable - m) is 0
// for any reachable m, so reachable states and their gradients are exact; an unreachable state
// stays near kUnreachable (log 3 and log_probs vanish beside it), and the results turn it back
// into -inf and an nll of inf.
constexpr double kUnreachable = -1e30;
constexpr double kImpossible = 1e29;  // an nll at least this large is log 0's

// log(exp(a) + exp(b) + exp(c)), each part at least kUnreachable.
Tensor logsumexp3(const Tensor& a, const Tensor& b, const Tensor& c) {
  Tensor m = maximum(maximum(a, b), c).detach();
  return m + log(exp(a - m) + exp(b - m) + exp(c - m));
}

struct CtcForward {
  Tensor nll;        // [N]
  Tensor log_alpha;  // [N, T, S], -inf past each sample's input length and states
};

// The forward recursion of Note [CTC loss on the device]; log_alpha only when `with_log_alpha`
// (the backward needs the nll alone).
CtcForward ctc_forward(const Tensor& log_probs, const Tensor& targets, const CtcLayout& l,
                       int64_t blank, bool with_log_alpha) {
  const Device dev = log_probs.device();
  const DType dt = log_probs.dtype();
  const int64_t n = l.batch, s = l.states;
  auto inputs = [&](int64_t i) { return l.inputs[static_cast<size_t>(i)]; };
  auto targets_of = [&](int64_t i) { return l.targets[static_cast<size_t>(i)]; };
  // With no input left, the likelihood is 1 for an empty target and 0 otherwise.
  std::vector<double> empty_nll(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) empty_nll[static_cast<size_t>(i)] = targets_of(i) == 0 ? 0 : kInf;
  Tensor empty = lazygen::tensor(empty_nll, std::nullopt, dt, dev);
  if (l.longest == 0) return {empty, full({n, l.time, s}, -kInf, dt, dev)};

  const Tensor unreachable = full({}, kUnreachable, dt, dev);
  const Tensor zero = full({}, 0.0, dt, dev);
  Tensor ext = extended_labels(targets, l, blank);
  Tensor emit =
      maximum(gather(log_probs, 2, expand(unsqueeze(ext, 0), {l.time, n, s})), unreachable);
  // 0 where state s may follow s - 2 (a label other than s - 2's), kUnreachable elsewhere.
  Tensor skip = host_mask({n, s}, n, s, dev, [](int64_t, int64_t j) { return j >= 2; });
  if (s > 2) {
    Tensor prev = cat({full({n, 2}, blank, DType::Int64, dev), narrow(ext, 1, 0, s - 2)}, 1);
    skip = logical_and(skip, logical_and(ne(ext, blank), ne(ext, prev)));
  }
  Tensor skip_add = where(skip, zero, unreachable);
  Tensor start = host_mask({n, s}, n, s, dev, [&](int64_t i, int64_t j) {
    return j <= std::min<int64_t>(1, 2 * targets_of(i));
  });
  const Tensor pad = full({n, 2}, kUnreachable, dt, dev);

  Tensor alpha = where(start, select(emit, 0, 0), unreachable);
  std::vector<Tensor> alphas{alpha};
  for (int64_t t = 1; t < l.longest; ++t) {
    Tensor padded = cat({pad, alpha}, 1);  // [N, S + 2]: states s - 1 and s - 2 as views
    alpha = logsumexp3(alpha, narrow(padded, 1, 1, s), narrow(padded, 1, 0, s) + skip_add) +
            select(emit, 0, t);
    alphas.push_back(alpha);
  }
  Tensor stacked = stack(alphas, 0);  // [longest, N, S]
  // Each sample's alphas at its last step, then at its last blank and last label.
  std::vector<int64_t> rows(static_cast<size_t>(n)), last(static_cast<size_t>(2 * n));
  for (int64_t i = 0; i < n; ++i) {
    rows[static_cast<size_t>(i)] = std::max<int64_t>(inputs(i) - 1, 0) * n + i;
    last[static_cast<size_t>(2 * i)] = 2 * targets_of(i);
    last[static_cast<size_t>(2 * i + 1)] = std::max<int64_t>(2 * targets_of(i) - 1, 0);
  }
  Tensor final_alpha = index_select(reshape(stacked, {l.longest * n, s}), 0,
                                    lazygen::tensor(rows, std::nullopt, DType::Int64, dev));
  Tensor ends = gather(final_alpha, 1, lazygen::tensor(last, IntList{n, 2}, DType::Int64, dev));
  Tensor has_label = host_mask({n, 2}, n, 2, dev,
                               [&](int64_t i, int64_t j) { return j == 0 || targets_of(i) > 0; });
  ends = where(has_label, ends, unreachable);
  Tensor nll = -logsumexp3(select(ends, 1, 0), select(ends, 1, 1), expand(unreachable, {n}));
  nll = where(gt(nll, kImpossible), full({}, kInf, dt, dev), nll);
  Tensor had_input = host_mask({n}, 1, n, dev, [&](int64_t, int64_t i) { return inputs(i) > 0; });
  nll = where(had_input, nll, empty);
  if (!with_log_alpha) return {nll, Tensor()};

  Tensor within = host_mask({l.longest, n, s}, l.longest * n, s, dev, [&](int64_t row, int64_t j) {
    return row / n < inputs(row % n) && j <= 2 * targets_of(row % n);
  });
  Tensor log_alpha =
      where(logical_and(within, gt(stacked, kImpossible * -1)), stacked, full({}, -kInf, dt, dev));
  if (l.longest < l.time) {
    log_alpha = cat({log_alpha, full({l.time - l.longest, n, s}, -kInf, dt, dev)}, 0);
  }
  return {nll, permute(log_alpha, {1, 0, 2})};
}

}  // namespace

::std::tuple<at::Tensor, at::Tensor> _ctc_loss(const at::Tensor& log_probs,
                                               const at::Tensor& targets,
                                               c10::IntArrayRef input_lengths,
                                               c10::IntArrayRef target_lengths, int64_t blank,
                                               bool zero_infinity) {
  if (!ctc_served(log_probs, targets, input_lengths, target_lengths, blank)) {
    static const c10::OperatorHandle op = aten_op("aten::_ctc_loss");
    return call_on_cpu<::std::tuple<at::Tensor, at::Tensor>>(op, log_probs, targets, input_lengths,
                                                             target_lengths, blank, zero_infinity);
  }
  Call c("_ctc_loss", {&log_probs, &targets});
  const Tensor& lp = c.arg(log_probs);
  CtcForward f = ctc_forward(
      lp, c.arg(targets), ctc_layout(lp, c.arg(input_lengths), c.arg(target_lengths)), blank, true);
  return {c.result(f.nll), c.result(f.log_alpha)};
}

at::Tensor _ctc_loss_backward(const at::Tensor& grad, const at::Tensor& log_probs,
                              const at::Tensor& targets, c10::IntArrayRef input_lengths,
                              c10::IntArrayRef target_lengths, const at::Tensor& neg_log_likelihood,
                              const at::Tensor& log_alpha, int64_t blank, bool zero_infinity) {
  if (!ctc_served(log_probs, targets, input_lengths, target_lengths, blank)) {
    static const c10::OperatorHandle op = aten_op("aten::_ctc_loss_backward");
    return call_on_cpu<at::Tensor>(op, grad, log_probs, targets, input_lengths, target_lengths,
                                   neg_log_likelihood, log_alpha, blank, zero_infinity);
  }
  Call c("_ctc_loss_backward", {&grad, &log_probs, &targets, &neg_log_likelihood, &log_alpha});
  Tensor lp = c.arg(log_probs).detach();
  lp.requires_grad_(true);
  const CtcLayout l = ctc_layout(lp, c.arg(input_lengths), c.arg(target_lengths));
  const Tensor g = c.arg(grad).to(lp.dtype());
  CtcForward f = ctc_forward(lp, c.arg(targets), l, blank, false);
  // d nll / d log_probs; zeros when no step reached log_probs (every input empty).
  f.nll.backward(g);
  Tensor d = lp.grad().defined() ? lp.grad() : zeros_like(lp);
  const Device dev = lp.device();
  Tensor within = host_mask({l.time, l.batch, 1}, l.time, l.batch, dev, [&](int64_t t, int64_t i) {
    return t < l.inputs[static_cast<size_t>(i)];
  });
  Tensor zero = full({}, 0.0, lp.dtype(), dev);
  Tensor per_sample = reshape(g, {1, l.batch, 1});
  d = where(within, d + exp(lp.detach()) * per_sample, zero);
  Tensor impossible = reshape(eq(f.nll, kInf), {1, l.batch, 1});
  if (zero_infinity) {
    d = where(impossible, zero, d);
  } else {
    d = where(logical_and(impossible, within),
              full({}, std::numeric_limits<double>::quiet_NaN(), lp.dtype(), dev), d);
  }
  return c.result(d);
}

}  // namespace lazygen::pytorch::adapters
