// Composite ops: hand-written compositions of the ops of ops.yaml, named and behaving like
// PyTorch's CompositeImplicitAutograd functions. They have no IR op, kernel or backward function
// of their own: autograd differentiates, and the lazy device traces, the ops they are made of.
// (Sources: runtime/ops/composite/.)
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "lazygen/scalar.h"
#include "lazygen/tensor.h"
#include "lazygen/types.h"

namespace lazygen {

// torch.matmul. By the operands' ranks:
//   1-D @ 1-D  the dot product (a 0-dim tensor);
//   2-D @ 2-D  mm; a 1-D operand is promoted to a matrix ([1, k] on the left, [k, 1] on the
//              right) and that dim removed from the result;
//   N-D @ 1-D or 2-D (N >= 3)  self's batch dims folded into its rows: one mm;
//   otherwise  a batched product: batch dims (all but the last two; none for a 1-D operand)
//              broadcast, both operands expanded and flattened to 3-D, one bmm.
// Operands share one dtype and are at least 1-D; a ShapeError names matmul and both shapes.
// Also a method: x.matmul(y).
Tensor matmul(const Tensor& self, const Tensor& other);
// PyTorch's _trilinear (F.bilinear's product): i1, i2 and i3 each with size-1 dims inserted at
// expand1, expand2 and expand3 (to one rank), multiplied with broadcasting and summed over
// sumdim. (runtime/ops/composite/matmul.cpp)
Tensor trilinear(const Tensor& i1, const Tensor& i2, const Tensor& i3,
                 const std::vector<int64_t>& expand1, const std::vector<int64_t>& expand2,
                 const std::vector<int64_t>& expand3, const std::vector<int64_t>& sumdim);
// torch.addbmm: beta * self + alpha * (the sum over the batch of batch1[b] @ batch2[b]), self
// broadcast to the product's [n, p] (ignored when beta is 0, NaN included, as in PyTorch).
// batch1 [B, n, m] and batch2 [B, m, p]. (runtime/ops/composite/matmul.cpp)
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
              const Scalar& beta = 1, const Scalar& alpha = 1);

// torch.split / chunk / unbind along `dim`: views (narrow, select) of self. split's pieces have
// split_size elements along dim (the last may be smaller); chunk makes at most `chunks` pieces of
// ceil(size / chunks); unbind removes dim. A non-positive split_size or chunks is a ShapeError.
// (runtime/ops/composite/pieces.cpp)
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
// Pieces of the given sizes along dim (narrow views), which must sum to its size.
std::vector<Tensor> split_with_sizes(const Tensor& self, const std::vector<int64_t>& split_sizes,
                                     int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0);

// torch.var / torch.std over `dims` (nullopt: all) with Bessel's `correction` (1: unbiased), as
// PyTorch's .correction overloads; floating inputs. (runtime/ops/composite/pieces.cpp)
Tensor var(const Tensor& self, const std::optional<std::vector<int64_t>>& dims = std::nullopt,
           int64_t correction = 1, bool keepdim = false);
Tensor std(const Tensor& self, const std::optional<std::vector<int64_t>>& dims = std::nullopt,
           int64_t correction = 1, bool keepdim = false);

// torch.nn.functional.gelu: x * Phi(x) with `approximate` "none" (Phi by erf: _gelu_erf) or
// "tanh" (_gelu_tanh); gelu_backward is its gradient given grad_output (_gelu_*_backward). Any
// other `approximate` is a ShapeError naming gelu, as PyTorch refuses it. float32 and float64.
Tensor gelu(const Tensor& self, std::string_view approximate = "none");
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self, std::string_view approximate = "none");

// torch.nn.functional.layer_norm over the last normalized_shape.size() dims (which must equal
// normalized_shape; else a ShapeError naming the shapes), with optional elementwise weight and
// bias. native_layer_norm also returns the mean and 1/sqrt(var + eps) (biased variance), shaped
// like input with the normalized dims of size 1; native_layer_norm_backward returns the
// gradients of input, weight and bias from those (undefined where output_mask is false or the
// weight/bias is absent). Sources: runtime/ops/composite/layer_norm.cpp.
Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                  const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5);
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps);
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::vector<int64_t>& normalized_shape, const Tensor& mean,
    const Tensor& rstd, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    std::array<bool, 3> output_mask);

// elu's gradient from its input (is_result false) or, for the in-place elu_, its result (then
// alpha must not be negative, as PyTorch requires), as PyTorch's elu_backward. (gelu.cpp)
Tensor elu_backward(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                    bool is_result, const Tensor& self_or_result);

// Batch normalization over the channels (dim 1) of input [N, C, ...] (PyTorch's native_batch_norm):
// training normalizes by the batch's per-channel mean and biased variance and, for running
// statistics that are given, updates them in place: running = (1 - momentum) running + momentum
// batch (the variance unbiased); evaluation normalizes by the running statistics (which must be
// given). Returns (out, save_mean, save_invstd): the batch mean and 1/sqrt(var + eps) [C] in
// training, empty [0] tensors in evaluation, as PyTorch's CPU kernel. native_batch_norm_backward
// returns the gradients of input, weight and bias (undefined where output_mask is false or
// weight is absent). Sources: runtime/ops/composite/batch_norm.cpp.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var, bool training,
                                                     double momentum, double eps);
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask);

// The gradient of an embedding lookup (weight rows at `indices`) for a weight of num_weights
// rows: grad_output's rows summed into the rows they were read from; the padding_idx row (if
// >= 0) gets none, as PyTorch's embedding_dense_backward. (runtime/ops/composite/losses.cpp)
Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx);

// Bags of embeddings (embedding_bag.cpp; Note [Bags by index_add]): PyTorch's _embedding_bag in
// mode 0 (sum, optionally weighted per index) or 1 (mean) over int64 indices [N] and the bags'
// first positions offsets (with include_last_offset, the last one ends the last bag); indices
// equal to padding_idx (when >= 0) count for nothing. Returns (output [bags, D], offset2bag [N],
// bag_size, max_indices) as PyTorch does outside max mode. The backward gives the weight's
// gradient, the per-sample weights' gradient is grad . weight row per index.
std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, int64_t mode = 0,
    const std::optional<Tensor>& per_sample_weights = std::nullopt,
    bool include_last_offset = false, int64_t padding_idx = -1);
Tensor embedding_bag_dense_backward(const Tensor& grad, const Tensor& indices,
                                    const Tensor& offset2bag, const Tensor& bag_size,
                                    int64_t num_weights, bool scale_grad_by_freq, int64_t mode,
                                    const std::optional<Tensor>& per_sample_weights,
                                    int64_t padding_idx);
Tensor embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight,
                                                 const Tensor& indices, const Tensor& offset2bag,
                                                 int64_t padding_idx);

// torch.nn.functional.mse_loss: (self - target)^2, with reduction 0 none, 1 mean, 2 sum (PyTorch's
// Reduction enum; others are a ShapeError), and its gradient.
Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction = 1);
Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction);

// torch.div with rounding_mode "trunc" (towards zero) or "floor" (Python's //, computed from the
// remainder as PyTorch's), in the operands' promoted dtype; nullopt: true division. Integers
// divide in float64 (exact below 2^53), after checking the divisor for zeros (a ShapeError, as
// PyTorch raises; a sync on the lazy device). (runtime/ops/composite/division.cpp)
Tensor div(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode);

// torch.polygamma: the n-th derivative of digamma (digamma itself for n = 0) of self, in floating
// point; a negative n is a ShapeError. (runtime/ops/composite/special.cpp)
Tensor polygamma(int64_t n, const Tensor& self);
// torch.pow with a number for base: base ** exponent in the dtype PyTorch gives them (an integer
// base keeps an integer exponent's dtype, a bool exponent becomes int64; a floating base gives an
// integer or bool exponent float32). torch.round(decimals): self rounded half to even at
// `decimals` digits after the point (before it when negative), computed in self's floating
// dtype as PyTorch's kernel does. (runtime/ops/composite/special.cpp)
Tensor pow(const Scalar& base, const Tensor& exponent);
Tensor round(const Tensor& self, int64_t decimals);

// ---- einsum and attention (runtime/ops/composite/attention.cpp)
// torch.einsum of one or two operands with letter labels and an explicit ("ij,jk->ik") or implicit
// output: labels summed out, transposes, and batched or plain matrix products as one bmm (Note
// [einsum as one bmm]). '...' and a label repeated within one operand are ShapeErrors.
Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands);
// torch.nn.functional.scaled_dot_product_attention in its math form: softmax(q @ k^T * scale +
// mask) @ v over query [..., L, E], key [..., S, E], value [..., S, Ev]; scale defaults to
// 1/sqrt(E); is_causal masks key positions after each query position; a bool attn_mask keeps
// where true, a floating one is added. Differentiable through the ops it is made of.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask = std::nullopt, bool is_causal = false,
                                    std::optional<double> scale = std::nullopt);

// ---- rearranging (runtime/ops/composite/rearrange.cpp)
// torch.stack: the tensors (equal sizes) joined along a new dim. torch.Tensor.repeat: self tiled
// repeats[d] times along each dim (leading repeats add dims). torch.flip: the order of `dims`
// reversed. torch.tril / triu: the elements on and below (above) the `diagonal`-th diagonal of
// the last two dims kept, the rest zero. torch.roll: self rotated by shifts[i] along dims[i]
// (elements leaving one end come back at the other); with no dims, the flattened self rotated by
// the one shift and given self's sizes back.
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor repeat(const Tensor& self, const std::vector<int64_t>& repeats);
Tensor flip(const Tensor& self, const std::vector<int64_t>& dims);
Tensor tril(const Tensor& self, int64_t diagonal = 0);
Tensor triu(const Tensor& self, int64_t diagonal = 0);
Tensor roll(const Tensor& self, const std::vector<int64_t>& shifts,
            const std::vector<int64_t>& dims = {});
// torch.nn.functional.pixel_shuffle: [*, C * r * r, H, W] as [*, C, H * r, W * r] (each group
// of r * r channels spread over an r x r block); pixel_unshuffle is its inverse.
Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor);
// The copying forms of PyTorch's strided views (Note [Strided copies as gathers]): the elements
// a view of self's contiguous layout with these sizes, strides and offset would see; a request
// reaching past self's last element is a ShapeError. The scatters return self with those
// elements replaced by src's.
Tensor as_strided_copy(const Tensor& self, const std::vector<int64_t>& size, const std::vector<int64_t>& stride,
                       std::optional<int64_t> storage_offset = std::nullopt);
Tensor as_strided_scatter(const Tensor& self, const Tensor& src, const std::vector<int64_t>& size,
                          const std::vector<int64_t>& stride, std::optional<int64_t> storage_offset = std::nullopt);
Tensor diagonal_copy(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset = 0, int64_t dim1 = 0,
                        int64_t dim2 = 1);
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index);
// Windows of `size` elements every `step` along `dimension`, as a new last dim.
Tensor unfold_copy(const Tensor& self, int64_t dimension, int64_t size, int64_t step);
// The gradients of unfold_copy (windows that overlap add up), diagonal_copy and select, given the
// input's sizes, as PyTorch's unfold_backward / diagonal_backward / select_backward.
Tensor unfold_backward(const Tensor& grad_in, const std::vector<int64_t>& input_sizes, int64_t dim, int64_t size,
                       int64_t step);
Tensor diagonal_backward(const Tensor& grad_output, const std::vector<int64_t>& input_sizes, int64_t offset,
                         int64_t dim1, int64_t dim2);
Tensor select_backward(const Tensor& grad_output, const std::vector<int64_t>& input_sizes,
                       int64_t dim, int64_t index);
// Advanced indexing (runtime/ops/composite/advanced_index.cpp; Note [Advanced indexing as one
// flat dim]): torch's x[indices] (index.Tensor) with `indices` for the leading dims (nullopt: the
// whole dim), int64 tensors broadcast together or bool masks (their nonzero() coordinates: a sync
// on the lazy device), the indexed dims' result in their place when they are adjacent, else
// first. index_put: self with those elements replaced by `values` (broadcast to x[indices]'s
// shape, same dtype), or increased by them when `accumulate`; where indices name a position more
// than once, the last value written wins. An index outside its dim raises, on the lazy device
// when the graph runs.
Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices);
Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                 const Tensor& values, bool accumulate = false);
// torch.scatter (src's values at index along dim), index_fill (a 0-dim value at the index
// positions along dim) and masked_select (the elements where mask, broadcast, is true: a 1-D
// tensor whose size depends on mask's values, so the lazy device computes mask first, a sync).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// torch.Tensor.index_copy: self with its slices along dim at `index` (1-d or 0-d int64) replaced
// by source's slices in order (source: self's sizes but index.numel() along dim). torch.take: the
// elements of the flattened self at `index` (int64, any shape; negative counts from the end),
// shaped like index. An index outside raises when the graph runs on the lazy device.
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor take(const Tensor& self, const Tensor& index);
// torch.Tensor.put_, as a new tensor: self with the elements of the flattened self at `index`
// (int64, negative from the end) replaced by source's elements in order (as scatter: the last
// write of a repeated position stays), or increased by them with `accumulate`. source has one
// element per index.
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
Tensor masked_select(const Tensor& self, const Tensor& mask);
// torch.masked_scatter: self with its elements where mask (broadcast to self) is true replaced,
// in row-major order, by source's first elements (a running count of the mask). A source with
// fewer elements than mask has is checked against mask's true count (a sync on the lazy device)
// and a ShapeError when it is short, as PyTorch raises.
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
// torch.nn.functional.pad with a constant: pad[2i], pad[2i + 1] elements of `value` before and after
// the i-th dim from the end; negative amounts remove elements.
Tensor constant_pad_nd(const Tensor& self, const std::vector<int64_t>& pad, const Scalar& value = 0);
// The sum of a matrix's diagonal; a matrix times a vector.
Tensor trace(const Tensor& self);
Tensor mv(const Tensor& self, const Tensor& vec);

// torch.Tensor.view(dtype) as a copy: self's bytes read as `dtype`; when the item sizes differ the
// last dim scales by their ratio (its bytes must divide). Viewing non-bool bytes as bool is a
// ShapeError (lazygen's bool holds 0 or 1). The bytes are a host value: on the lazy device self
// is computed first, a sync. Not differentiable: a floating result of an input that requires
// grad raises "the derivative for 'view_copy.dtype' is not implemented".
// (runtime/ops/composite/view_dtype.cpp)
Tensor view_copy(const Tensor& self, DType dtype);

// ---- sampling (runtime/ops/composite/grid_sample.cpp, pool3d.cpp)
// torch.nn.functional.grid_sample's kernel: input [N, C, H, W] sampled at grid [N, Ho, Wo, 2]
// ((x, y) in [-1, 1]) with interpolation_mode 0 bilinear or 1 nearest (bicubic, 2, is a
// ShapeError) and padding_mode 0 zeros, 1 border, 2 reflection (Note [Grid sampling by gather]).
// Differentiable in input and grid.
Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                       bool align_corners);
// 3-d max pooling of [N, C, D, H, W] or [C, D, H, W] (floating) with PyTorch's arguments: values
// and int64 flat indices within each D*H*W plane (Note [Pooling by gather]); its backward adds
// grad_output at the indices.
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, const std::vector<int64_t>& kernel_size,
                                                   const std::vector<int64_t>& stride = {},
                                                   const std::vector<int64_t>& padding = {0},
                                                   const std::vector<int64_t>& dilation = {1}, bool ceil_mode = false);
Tensor max_pool3d_with_indices_backward(const Tensor& grad_output, const Tensor& self,
                                        const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
                                        const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                                        bool ceil_mode, const Tensor& indices);
// 3-d average pooling with PyTorch's arguments: each window's sum (padding adds nothing) over
// divisor_override, else the window's size within the padded input (count_include_pad) or the
// input; its backward spreads each output's share of grad_output over the window.
Tensor avg_pool3d(const Tensor& self, const std::vector<int64_t>& kernel_size,
                  const std::vector<int64_t>& stride = {},
                  const std::vector<int64_t>& padding = {0}, bool ceil_mode = false,
                  bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool3d_backward(const Tensor& grad_output, const Tensor& self,
                           const std::vector<int64_t>& kernel_size,
                           const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                           bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override);
// Adaptive 2-d max pooling of [N, C, H, W] or [C, H, W] (floating, non-empty planes) to
// output_size: output o of a dim of size `in` covers [floor(o * in / out), ceil((o + 1) * in /
// out)); values and int64 flat indices within each H*W plane, by gather as above; its backward
// adds grad_output at the indices.
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self,
                                               const std::vector<int64_t>& output_size);
Tensor adaptive_max_pool2d_backward(const Tensor& grad_output, const Tensor& self,
                                    const Tensor& indices);

// ---- linear algebra (runtime/ops/composite/linalg.cpp; Note [Unrolled LU])
// LU factorization with partial pivoting of floating A [..., n, n] (rectangular [..., m, n] too
// where the LAPACK ops run, Note [LAPACK or unrolled]): (LU, pivots) in LAPACK's
// layout (L below the diagonal with an implied unit diagonal, U on and above; int32 pivots,
// 1-based), as torch.linalg.lu_factor. slogdet: (sign, log|det|) (sign 0 and log|det| -inf for a
// singular matrix), and lu_slogdet the same of the matrix a factorization came from; logdet:
// log(det), NaN for a negative determinant. lu_solve solves A X = B
// (adjoint: A^T X = B) for B [..., n, k] from A's factorization. Differentiable through their ops.
std::tuple<Tensor, Tensor> lu_factor(const Tensor& A);
std::tuple<Tensor, Tensor> slogdet(const Tensor& A);
std::tuple<Tensor, Tensor> lu_slogdet(const Tensor& LU, const Tensor& pivots);
Tensor logdet(const Tensor& A);
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool adjoint = false);
// torch.linalg.inv_ex: (A^-1 by lu_solve of the identity, info) with LAPACK's int32 info: 0, or
// the 1-based index of the first zero pivot of a singular matrix (whose inverse then holds
// infinities or NaNs), pivoting A^T as PyTorch's CPU kernel does.
std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A);
// torch.linalg.lu_factor_ex: lu_factor's (LU, pivots) and LAPACK's int32 info per matrix (0, or
// the 1-based index of the first zero pivot).
std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& A);
// torch.lu_unpack of a factorization of A [..., m, n], k = min(m, n): (P [..., m, m], L [..., m,
// k], U [..., k, n]) with A = P L U, L unit lower triangular (unit lower trapezoidal); P
// (unpack_pivots) or L and U (unpack_data) empty [0] when not asked for.
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots,
                                             bool unpack_data = true, bool unpack_pivots = true);
// torch.linalg.solve_ex without check_errors: (X with A X = B, or X A = B when !left; A^T's LU,
// pivots and info, as PyTorch's kernel returns them). B [..., n, k] or a vector [n] (or [..., n]
// for A [..., n, n]); batch dims broadcast. A singular A gives infinities or NaNs, with info set.
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B,
                                                           bool left = true);
// torch.linalg.solve_triangular: X with A X = B (left) or X A = B, reading only A's upper (or
// lower) triangle, its diagonal taken as ones when unitriangular; batch dims broadcast.
// (runtime/ops/composite/cholesky.cpp, as the three below)
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                               bool unitriangular = false);
// torch.linalg.cholesky_ex: (L, info), L lower with A = L L^T read from A's lower triangle (upper:
// U with A = U^T U, from A's upper triangle), info LAPACK's (0, or the order of the first leading
// minor that is not positive-definite; L is then meaningless from that column on). Note
// [Unrolled Cholesky].
std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper = false);
// torch.cholesky_solve: X with A X = B for A = L L^T (upper: U^T U) given its factor; batch dims
// broadcast. torch.cholesky_inverse: A^-1 from the factor.
Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper = false);
Tensor cholesky_inverse(const Tensor& L, bool upper = false);
// torch.linalg.qr of floating A [..., m, n]: (Q, R) by Householder reflections with LAPACK's
// signs; mode "reduced" (Q [..., m, k], R [..., k, n], k = min(m, n)), "complete" (Q [..., m, m],
// R [..., m, n]) or "r" (R as reduced, Q empty). Note [Unrolled Householder QR] in
// runtime/ops/composite/qr.cpp.
std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode = "reduced");
// torch.linalg.eigh of symmetric floating A [..., n, n], read from its lower (upper) triangle:
// (eigenvalues in ascending order [..., n], the orthonormal eigenvectors as the columns of
// [..., n, n] (an empty [0] without compute_v), LAPACK's int32 info [...]). torch.linalg.svd of
// floating A [..., m, n], k = min(m, n): (U [..., m, m] (full_matrices) or [..., m, k], the
// singular values in descending order S [..., k], Vh [..., n, n] or [..., k, n], info), U and Vh
// empty [0] without compute_uv. Both are LAPACK's (syevd, gesdd: its signs) on backends that run
// on the cpu; they have no unrolled form and no derivatives (runtime/ops/composite/spectral.cpp).
std::tuple<Tensor, Tensor, Tensor> linalg_eigh_ex(const Tensor& A, bool upper = false,
                                                  bool compute_v = true);
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_svd_ex(const Tensor& A, bool full_matrices = true,
                                                         bool compute_uv = true);
// torch.linalg.lstsq of floating A [..., m, n] and B [..., m, k] (or a batch of vectors [..., m]
// when B has one dim fewer than A), batch dims broadcast: (the solution [..., n, k] ([..., n]),
// the squared residuals [..., k] (when m > n, the driver is not gelsy and, for gelsd and gelss,
// every matrix has full rank: one sync reads the ranks; else an empty [0]), int64 ranks [...] of
// A's batch ([0] for gels), the singular values [..., min(m, n)] of A's batch (gelsd, gelss; else
// [0]), LAPACK's int32 info [...]: > 0 where gels met a rank-deficient matrix or the SVD did not
// converge). driver: gels, gelsy (the default), gelsd or gelss, LAPACK's (runtime/ops/composite/
// lstsq.cpp); rcond: singular values below rcond times the largest count as zero (default: the
// dtype's epsilon times max(m, n)). No unrolled form and no derivatives.
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> linalg_lstsq_ex(
    const Tensor& A, const Tensor& B, std::optional<double> rcond = std::nullopt,
    std::optional<std::string_view> driver = std::nullopt);
// torch.linalg.matrix_exp of floating A [..., n, n]: e^A by scaling and squaring, one host read
// of the squarings the batch needs (a sync on the lazy device), differentiable through its ops
// (Note [Matrix exponential by scaling and squaring] in runtime/ops/composite/matrix_exp.cpp).
Tensor linalg_matrix_exp(const Tensor& A);
// Whether the factorizations and triangular solves above run as LAPACK ops where the backend
// runs on the cpu and nothing needs a gradient (true unless the environment sets
// LAZYGEN_LAPACK=0), or unrolled everywhere (false). Note [LAPACK or unrolled] in
// runtime/ops/composite/linalg_parts.h. Takes effect at the next call; thread-safe.
void set_lapack_enabled(bool enabled);
bool lapack_enabled();

// ---- reductions (runtime/ops/composite/reductions.cpp)
// The largest (smallest) element of a non-empty tensor, NaN if any; torch.all / any (over every
// dim, or one): bool, true for an empty reduction in all, false in any. torch.norm: the p-norm
// over `dim` (empty: all) of a floating tensor, p = 2 by default, also 0 (count), 1, +-inf; its
// gradient at a zero norm is zero, as PyTorch's.
Tensor max(const Tensor& self);
Tensor min(const Tensor& self);
Tensor all(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor any(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor norm(const Tensor& self, const std::optional<Scalar>& p = std::nullopt, const std::vector<int64_t>& dim = {},
            bool keepdim = false);
// log(sum(exp(self))) over `dim`, computed around the maximum (an infinite maximum is taken as 0)
// so it neither overflows nor underflows; argmin: the index of the first smallest value (NaN
// counts as smallest), as argmax.
Tensor logsumexp(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim = false);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
// torch.equal: whether a and b have the same sizes and equal elements (NaN equals nothing),
// compared in their promoted dtype; on the lazy device a sync.
bool equal(const Tensor& a, const Tensor& b);
// The coordinates [count, self.dim()] of self's non-zero elements in row-major order. Its size
// depends on self's values: on the lazy device self is computed first (a sync, like item()).
Tensor nonzero(const Tensor& self);

// ---- counting distinct values (runtime/ops/composite/counting.cpp; Note [Counting by sorting]).
// The result's size depends on the values, so on the lazy device each is a sync.
// torch.bincount: how often each value 0..max(self) occurs in self (1-d, integers >= 0), at least
// minlength bins; int64 counts, or sums of `weights` (1-d, one per element of self): float32 for
// float32 weights, else float64, as PyTorch's CPU kernel. An empty self gives minlength zeros.
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights = std::nullopt,
                int64_t minlength = 0);
// The distinct values of self, ascending (sorted = false allows any order, as PyTorch says; this
// one sorts either way), or without `dim` and along it its distinct slices, in lexicographic order;
// with the inverse (for each element, or each slice along dim, the position of its value in the
// result) and the counts of each value, each an empty int64 tensor when not asked for (PyTorch's
// _unique2; its unique_dim always returns both). NaN never equals NaN: each is its own value.
// unique_consecutive: the same for runs of equal neighbours, in order, without sorting.
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool sorted = true,
                                          bool return_inverse = false, bool return_counts = false,
                                          std::optional<int64_t> dim = std::nullopt);
// torch.isin: for each element of `elements`, whether it equals one of `test_elements` (in
// their promoted dtype; NaN equals nothing), or whether it does not with `invert`. By one sort
// of both together, with no sync (See Note [Membership by sorting]).
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool invert = false);
// torch.repeat_interleave(repeats): each index i of the 1-d integer `repeats` (each >= 0)
// repeated repeats[i] times, as int64; output_size, when given, must be their sum. repeats is read
// on the host (on the lazy device a sync).
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self,
                                                      bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);

// ---- products, scans and order statistics (runtime/ops/composite/scans.cpp; Note [Scans by
// doubling]). prod and cumprod accumulate in `dtype`, else int64 for integers and bools, else
// self's; prod over every dim without `dim`. cummax / cummin: the running extreme along dim and
// the index it came from (NaN sticks; ties take the later index, as PyTorch). kthvalue: the k-th
// smallest (1-based; NaN counts as largest) and its index; like median, nanmedian and
// searchsorted, not of bools (PyTorch refuses them). median: the lower median and its
// index, NaN (at the first NaN) when a row holds one; nanmedian ignores NaNs. Without a dim,
// median and nanmedian reduce every element (NaN for an empty tensor).
Tensor prod(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
// log(cumsum(exp(self))) along dim, without overflow (a floating self).
Tensor logcumsumexp(const Tensor& self, int64_t dim);
std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim);
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim = -1,
                                    bool keepdim = false);
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor median(const Tensor& self);
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& self);
// torch.mode: the most frequent value along dim (the smallest of equally frequent ones; NaN never
// equals NaN, so each counts once) and the index of its last occurrence, as PyTorch's CPU kernel
// answers; of a non-empty dim (any dtype, bools included). Sorts and scans: no sync.
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim = -1, bool keepdim = false);
// torch.searchsorted: for each value of self, how many elements of its row of sorted_sequence
// (1-d: the one row for every value; else sorted_sequence's dims but the last are self's) lie
// below it (right: at or below), as int64 (int32 with out_int32). torch.bucketize: the same with
// self's values against 1-d boundaries. The comparisons are PyTorch's: a NaN value counts past
// every boundary. Costs an element per (value, boundary) pair, fine for the few boundaries they
// are used with.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32 = false,
                    bool right = false);
Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32 = false,
                 bool right = false);

// ---- 3-d convolution (runtime/ops/composite/conv3d.cpp; Note [3-d convolution as 2-d ones]).
// input [N, C, D, H, W] by weight [O, C / groups, kd, kh, kw] with optional bias [O]; stride,
// padding and dilation of 1 or 3 values. The backward returns the gradients of input, weight and
// bias (undefined where output_mask is false).
Tensor conv3d(const Tensor& input, const Tensor& weight,
              const std::optional<Tensor>& bias = std::nullopt,
              const std::vector<int64_t>& stride = {1}, const std::vector<int64_t>& padding = {0},
              const std::vector<int64_t>& dilation = {1}, int64_t groups = 1);
// conv3d's input gradient (for an input of input_sizes) and weight gradient (for a weight of
// weight_sizes). The input gradient of x is the transposed 3-d convolution of x.
Tensor conv3d_backward_input(const Tensor& grad_output, const std::vector<int64_t>& input_sizes,
                             const Tensor& weight, const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding,
                             const std::vector<int64_t>& dilation, int64_t groups);
Tensor conv3d_backward_weight(const Tensor& grad_output, const Tensor& input,
                              const std::vector<int64_t>& weight_sizes,
                              const std::vector<int64_t>& stride,
                              const std::vector<int64_t>& padding,
                              const std::vector<int64_t>& dilation, int64_t groups);
std::tuple<Tensor, Tensor, Tensor> conv3d_backward(const Tensor& grad_output, const Tensor& input,
                                                   const Tensor& weight,
                                                   const std::vector<int64_t>& stride,
                                                   const std::vector<int64_t>& padding,
                                                   const std::vector<int64_t>& dilation,
                                                   int64_t groups, std::array<bool, 3> output_mask);

// ---- sliding blocks (runtime/ops/composite/im2col.cpp; Note [Patches by strided slices]).
// PyTorch's im2col (torch.nn.functional.unfold): the kernel_size blocks of self [N, C, H, W] (or
// [C, H, W]) with dilation, zero padding and stride, as [N, C * kh * kw, L] (L blocks); col2im
// (fold): its adjoint, blocks [N, C * kh * kw, L] summed into [N, C, output_size] (overlapping
// blocks add up). Floating tensors, as PyTorch's.
Tensor im2col(const Tensor& self, const std::vector<int64_t>& kernel_size,
              const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding,
              const std::vector<int64_t>& stride);
Tensor col2im(const Tensor& self, const std::vector<int64_t>& output_size,
              const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
              const std::vector<int64_t>& padding, const std::vector<int64_t>& stride);

// ---- matrices (runtime/ops/composite/matrices.cpp). torch.diag_embed: self's last dim on the
// offset-th diagonal (in dims dim1, dim2 of the result) of new zero matrices. torch.diag: a vector
// on the diagonal-th diagonal of a new square matrix, or a matrix's diagonal-th diagonal as a
// vector.
Tensor diag_embed(const Tensor& self, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor diag(const Tensor& self, int64_t diagonal = 0);
// torch.linalg.cross: the cross product along dim (size 3 in both) of inputs of one rank and one
// dtype that broadcast.
Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim = -1);
// torch.cdist: the p-norm distances [..., r1, r2] between the rows of x1 [..., r1, m] and x2
// [..., r2, m] (batch dims broadcast; floating, one dtype; p >= 0), through a matrix product for
// p = 2 where PyTorch takes one (compute_mode 1, or 0 with more than 25 rows on a side), else by
// differences; its gradient with respect to x1 given dist (PyTorch's _cdist_backward; swap x1
// and x2 and transpose grad and dist for x2's), 0 at zero distances.
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2,
             std::optional<int64_t> compute_mode = std::nullopt);
Tensor cdist_backward(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p,
                      const Tensor& dist);
// torch.pdist: the p-norm distances between the rows i < j of self [n, m] (floating; p >= 0),
// in the order (0, 1), (0, 2), ..., (n - 2, n - 1), by differences; its gradient given dist
// (PyTorch's _pdist_backward), each pair's cdist_backward term added to row i, taken from row j.
Tensor pdist(const Tensor& self, double p = 2);
Tensor pdist_backward(const Tensor& grad, const Tensor& self, double p, const Tensor& dist);

// ---- activations, dropout, sampling, histograms and normalization (glu.cpp, prelu.cpp,
// dropout.cpp, multinomial.cpp, histc.cpp, weight_norm.cpp, group_norm.cpp)
// torch.nn.functional.glu: a * sigmoid(b) for self's halves a, b along dim (of even size), its
// gradient, and its forward-mode derivative given glu's result and x's tangent dx.
Tensor glu(const Tensor& self, int64_t dim = -1);
Tensor glu_backward(const Tensor& grad_output, const Tensor& self, int64_t dim);
Tensor glu_jvp(const Tensor& glu_result, const Tensor& x, const Tensor& dx, int64_t dim);
// torch.nn.functional.prelu (prelu.cpp): self where positive, else times its channel's weight
// (dim 1; one weight serves every element), and its gradients (self's, weight's).
Tensor prelu(const Tensor& self, const Tensor& weight);
std::tuple<Tensor, Tensor> prelu_backward(const Tensor& grad_output, const Tensor& self,
                                          const Tensor& weight);
// PyTorch's native_dropout: (input * mask / (1 - p), mask) with a bool mask keeping each element
// with probability 1 - p (lazygen's Philox stream from `seed`); when train is false, (a copy of
// input, all true). Its backward: grad_output * mask * scale.
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train, int64_t seed);
Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double scale);
// torch.multinomial (multinomial.cpp; Note [Sampling categories]): num_samples category indices
// (int64) per row of self's non-negative weights (1-d: one row; 2-d: [rows, categories]), in
// proportion to them, with or without replacement, drawn from `generator` (default_generator()
// without one). A floating self of 1 or 2 dims, and without replacement no more samples than
// categories; weights negative, infinite or NaN, or a row of zeros, raise PyTorch's messages
// (they are read on the cpu: on the lazy device a sync).
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement, Generator& generator);
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement = false);
// torch.histc (histc.cpp; Note [Histograms by scatter_add]): counts of self's elements in `bins`
// equal bins over [min, max] (self's own extremes when min == max, read on the cpu: on the lazy
// device a sync; then widened by 1 each way if still empty), in self's floating dtype; elements
// outside the range are not counted, and NaN counts in the first bin, as in PyTorch 1.13.
Tensor histc(const Tensor& self, int64_t bins = 100, double min = 0, double max = 0);
// Weight normalization (weight_norm.cpp; PyTorch's _weight_norm_interface): (v * g / ||v||, ||v||)
// with the norm over every dim of v but `dim`, shaped like g (v.size(dim) values); its backward
// returns the gradients of v and g given the saved norms.
std::tuple<Tensor, Tensor> weight_norm_interface(const Tensor& v, const Tensor& g, int64_t dim = 0);
// torch.renorm: each slice of self along dim whose p-norm exceeds maxnorm scaled by
// maxnorm / (norm + 1e-7), as PyTorch (p > 0, maxnorm >= 0). embedding_renorm: weight [V, D] with
// the rows `indices` name capped the same way at max_norm in the norm_type-norm (what PyTorch's
// embedding_renorm_ does in place for nn.Embedding's max_norm).
Tensor renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm);
Tensor embedding_renorm(const Tensor& weight, const Tensor& indices, double max_norm,
                        double norm_type);
std::tuple<Tensor, Tensor> weight_norm_interface_backward(const Tensor& grad_w, const Tensor& v,
                                                          const Tensor& g, const Tensor& norms,
                                                          int64_t dim);
// Group normalization of input [N, C, *] in `group` groups of C / group channels, with optional
// per-channel weight and bias; also returns mean and 1/sqrt(var + eps) [N, group]. The backward
// returns the gradients of input, weight and bias (undefined where output_mask is false).
std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, int64_t N, int64_t C,
                                                     int64_t HxW, int64_t group, double eps);
std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              const Tensor& mean, const Tensor& rstd,
                                                              const std::optional<Tensor>& weight, int64_t N,
                                                              int64_t C, int64_t HxW, int64_t group,
                                                              std::array<bool, 3> output_mask);

// ---- margin losses (runtime/ops/composite/margin_losses.cpp), reductions as mse_loss's
// torch.nn.functional.multi_margin_loss of self [N, C] (or [C]) for int64 targets [N]: per
// sample, the sum over classes j != y of max(0, margin - x[y] + x[j])^p (p 1 or 2), times
// weight[y], over C; and its gradient.
Tensor multi_margin_loss(const Tensor& self, const Tensor& target, const Scalar& p = 1,
                         const Scalar& margin = 1,
                         const std::optional<Tensor>& weight = std::nullopt, int64_t reduction = 1);
Tensor multi_margin_loss_backward(const Tensor& grad_output, const Tensor& self,
                                  const Tensor& target, const Scalar& p, const Scalar& margin,
                                  const std::optional<Tensor>& weight, int64_t reduction);
// PyTorch's multilabel_margin_loss_forward of self [N, C] (or [C]) for int64 targets of the same
// shape (each row's targets are those before its first -1): per sample, the sum over its targets
// t and the classes k not among them of max(0, 1 - x[t] + x[k]), over C; and is_target, 1 for
// each class among the targets. Its backward ignores is_target (recomputed from target).
std::tuple<Tensor, Tensor> multilabel_margin_loss_forward(const Tensor& self, const Tensor& target,
                                                          int64_t reduction);
Tensor multilabel_margin_loss_backward(const Tensor& grad_output, const Tensor& self,
                                       const Tensor& target, int64_t reduction,
                                       const Tensor& is_target);

// ---- scatters under other names (runtime/ops/composite/scatter_forms.cpp)
// F.max_unpool2d / 3d: self [N, C, *in] (or [C, *in]) written into zero planes of output_size at
// the flat indices (int64, self's shape) max pooling returned; a repeated index keeps the last.
Tensor max_unpool2d(const Tensor& self, const Tensor& indices,
                    const std::vector<int64_t>& output_size);
Tensor max_unpool3d(const Tensor& self, const Tensor& indices,
                    const std::vector<int64_t>& output_size);
// torch.index_reduce: self with source's slices along dim reduced ("prod", "mean", "amax",
// "amin") into the slices index names, self's own slice included unless !include_self.
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    std::string_view reduce, bool include_self = true);

// ---- losses (runtime/ops/composite/losses.cpp), reductions as mse_loss's
// Binary cross entropy of probabilities self against target (each log clamped at -100, as
// PyTorch's); smooth L1 (Huber) with threshold beta (0: L1); the negative log likelihood of
// per-pixel class scores [N, C, H, W] and targets [N, H, W] (with PyTorch's total_weight).
Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight = std::nullopt,
                            int64_t reduction = 1);
Tensor binary_cross_entropy_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                     const std::optional<Tensor>& weight, int64_t reduction);
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction = 1, double beta = 1.0);
Tensor smooth_l1_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                               int64_t reduction, double beta);
// PyTorch's huber_loss: 0.5 * z^2 for z = |self - target| below delta, delta * (z - delta / 2)
// above (delta > 0), and its gradient.
Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction = 1,
                  double delta = 1.0);
Tensor huber_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           int64_t reduction, double delta);
// PyTorch's nll_loss_forward: nll_loss and total_weight, the summed weight of the targets not
// ignored (0 for reduction none), which PyTorch's backward takes (lazygen's recomputes it).
std::tuple<Tensor, Tensor> nll_loss_forward(const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction,
                                            int64_t ignore_index);
std::tuple<Tensor, Tensor> nll_loss2d_forward(const Tensor& self, const Tensor& target,
                                              const std::optional<Tensor>& weight, int64_t reduction,
                                              int64_t ignore_index);
Tensor nll_loss2d_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index);

// ---- padding by the edges (runtime/ops/composite/padding.cpp)
// F.pad's "reflect" and "replicate" modes (PyTorch's reflection_pad{1,2,3}d and
// replication_pad{1,2,3}d): `padding` holds (left, right) pairs for the last 1, 2 or 3 dims, the
// last dim first, negative to crop; the new elements mirror self about its edge element, or
// repeat it. The backward forms give self's gradient from the padded result's.
Tensor reflection_pad(const Tensor& self, const std::vector<int64_t>& padding);
Tensor replication_pad(const Tensor& self, const std::vector<int64_t>& padding);
Tensor reflection_pad_backward(const Tensor& grad_output, const Tensor& self,
                               const std::vector<int64_t>& padding);
Tensor replication_pad_backward(const Tensor& grad_output, const Tensor& self,
                                const std::vector<int64_t>& padding);

// ---- pooling and upsampling of [N, C, H, W] (runtime/ops/composite/resample.cpp; Note
// [Separable resampling]), float32 and float64, with PyTorch's arguments and output sizes;
// avg_pool2d and _adaptive_avg_pool2d also take [C, H, W].
Tensor avg_pool2d(const Tensor& self, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride = {},
                  const std::vector<int64_t>& padding = {0}, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, const std::vector<int64_t>& kernel_size,
                           const std::vector<int64_t>& stride, const std::vector<int64_t>& padding, bool ceil_mode,
                           bool count_include_pad, std::optional<int64_t> divisor_override);
Tensor _adaptive_avg_pool2d(const Tensor& self, const std::vector<int64_t>& output_size);
Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self);
Tensor upsample_nearest2d(const Tensor& self, const std::vector<int64_t>& output_size,
                          std::optional<double> scales_h = std::nullopt, std::optional<double> scales_w = std::nullopt);
Tensor upsample_nearest2d_backward(const Tensor& grad_output, const std::vector<int64_t>& output_size,
                                   const std::vector<int64_t>& input_size, std::optional<double> scales_h = std::nullopt,
                                   std::optional<double> scales_w = std::nullopt);
Tensor upsample_bilinear2d(const Tensor& self, const std::vector<int64_t>& output_size, bool align_corners,
                           std::optional<double> scales_h = std::nullopt, std::optional<double> scales_w = std::nullopt);
Tensor upsample_bilinear2d_backward(const Tensor& grad_output, const std::vector<int64_t>& output_size,
                                    const std::vector<int64_t>& input_size, bool align_corners,
                                    std::optional<double> scales_h = std::nullopt,
                                    std::optional<double> scales_w = std::nullopt);
// The same for [N, C, L] and [N, C, D, H, W] (one axis after another, which is exact: each is
// separable): linear and nearest upsampling of [N, C, L]; trilinear and nearest upsampling of
// [N, C, D, H, W]; adaptive average pooling of [C, D, H, W] or [N, C, D, H, W]; their backward ops.
Tensor upsample_linear1d(const Tensor& self, const std::vector<int64_t>& output_size,
                         bool align_corners, std::optional<double> scales = std::nullopt);
Tensor upsample_linear1d_backward(const Tensor& grad_output,
                                  const std::vector<int64_t>& output_size,
                                  const std::vector<int64_t>& input_size, bool align_corners,
                                  std::optional<double> scales = std::nullopt);
Tensor upsample_nearest1d(const Tensor& self, const std::vector<int64_t>& output_size,
                          std::optional<double> scales = std::nullopt);
Tensor upsample_nearest1d_backward(const Tensor& grad_output,
                                   const std::vector<int64_t>& output_size,
                                   const std::vector<int64_t>& input_size,
                                   std::optional<double> scales = std::nullopt);
Tensor upsample_trilinear3d(const Tensor& self, const std::vector<int64_t>& output_size,
                            bool align_corners, std::optional<double> scales_d = std::nullopt,
                            std::optional<double> scales_h = std::nullopt,
                            std::optional<double> scales_w = std::nullopt);
Tensor upsample_trilinear3d_backward(const Tensor& grad_output,
                                     const std::vector<int64_t>& output_size,
                                     const std::vector<int64_t>& input_size, bool align_corners,
                                     std::optional<double> scales_d = std::nullopt,
                                     std::optional<double> scales_h = std::nullopt,
                                     std::optional<double> scales_w = std::nullopt);
Tensor upsample_nearest3d(const Tensor& self, const std::vector<int64_t>& output_size,
                          std::optional<double> scales_d = std::nullopt,
                          std::optional<double> scales_h = std::nullopt,
                          std::optional<double> scales_w = std::nullopt);
Tensor upsample_nearest3d_backward(const Tensor& grad_output,
                                   const std::vector<int64_t>& output_size,
                                   const std::vector<int64_t>& input_size,
                                   std::optional<double> scales_d = std::nullopt,
                                   std::optional<double> scales_h = std::nullopt,
                                   std::optional<double> scales_w = std::nullopt);
Tensor _adaptive_avg_pool3d(const Tensor& self, const std::vector<int64_t>& output_size);
Tensor _adaptive_avg_pool3d_backward(const Tensor& grad_output, const Tensor& self);
// Bicubic upsampling (PyTorch's cubic convolution, A = -0.75, borders repeated) and its gradient.
Tensor upsample_bicubic2d(const Tensor& self, const std::vector<int64_t>& output_size,
                          bool align_corners, std::optional<double> scales_h = std::nullopt,
                          std::optional<double> scales_w = std::nullopt);
Tensor upsample_bicubic2d_backward(const Tensor& grad_output,
                                   const std::vector<int64_t>& output_size,
                                   const std::vector<int64_t>& input_size, bool align_corners,
                                   std::optional<double> scales_h = std::nullopt,
                                   std::optional<double> scales_w = std::nullopt);

}  // namespace lazygen
