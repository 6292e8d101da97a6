"""The op set of PyTorch's Lazy Tensor Core (its TorchScript backend's list, a copy of which is
ltc_ts_backend_ops.txt here): each op is served by lazygen on the device, not the CPU fallback,
and answers as PyTorch's CPU does, gradients included (PyTorch's autograd over lazygen's backward
ops against PyTorch's own). Ops lazygen does not serve yet are listed in NOT_SERVED with why."""
import os
import re

import pytest
import torch
import torch.nn.functional as F

import lazygen_torch
from conftest import assert_same, fallbacks

LIST = os.path.join(os.path.dirname(__file__), "ltc_ts_backend_ops.txt")

# LTC name -> what serves it on the lazygen device instead (PyTorch eager calls that op).
MAPPED = {
    "_copy_from": "copy_",          # lazygen's copy_ and _copy_from_and_resize
    "random": "random_", "random.from": "random_.from", "random.to": "random_.to",
}

# LTC name -> why lazygen does not serve it yet (it runs on the CPU fallback, counted).
NOT_SERVED = {}


def ltc_names():
    with open(LIST) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def served():
    return {name for name, _, registered, _ in lazygen_torch.registration_report() if registered}


# LTC name -> the case below that runs it: PyTorch implements it for every backend by composing
# other ops (CompositeImplicitAutograd or CompositeExplicitAutograd), which the device serves.
DECOMPOSED = {"embedding": "embedding", "constant_pad_nd": "constant_pad_nd", "clone": "clone", "mean": "mean",
              "std": "std.dim", "std.dim": "std.dim",
              "bernoulli.p": "test_dropout_and_random_ops_draw_on_the_device", "max_pool3d": "max_pool3d",
              "logdet": "logdet"}


def serving_op(name, registered):
    """The registered op that serves LTC's `name` (or, for a decomposed op, its case), or None."""
    if name in DECOMPOSED:
        return DECOMPOSED[name]
    for candidate in (MAPPED.get(name, name), name.replace("_copy", "", 1)):
        if candidate in registered:
            return candidate
    return None


def test_decomposed_ops_have_cases():
    assert set(DECOMPOSED.values()) <= set(CASES) | set(globals())


def test_every_ltc_op_is_served_or_listed_as_not_served():
    registered = served()
    missing = [n for n in ltc_names() if n not in NOT_SERVED and serving_op(MAPPED.get(n, n), registered) is None]
    assert not missing, "LTC ops neither served nor listed in NOT_SERVED: " + ", ".join(missing)
    stale = [n for n in NOT_SERVED if serving_op(MAPPED.get(n, n), registered) is not None]
    assert not stale, "listed as not served but served: " + ", ".join(stale)


def t(*sizes, low=-2.0, high=2.0, seed=0):
    g = torch.Generator().manual_seed(seed + sum(sizes))
    return torch.rand(*sizes, generator=g, dtype=torch.float64) * (high - low) + low


def repeats(dtype):
    """[3, 5] values in 0..4 of `dtype`, with ties within rows and columns."""
    g = torch.Generator().manual_seed(7)
    return torch.randint(0, 5, (3, 5), generator=g).to(dtype)


def probabilities(*sizes):
    return t(*sizes, low=0.05, high=0.95)


def put(a, indices, values, accumulate):
    return (a * 1).index_put_(indices, values, accumulate=accumulate)


def bags(w, mode, psw=None, padding_idx=None, include_last_offset=False):
    indices = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 0], device=w.device)
    offsets = torch.tensor([0, 2, 2, 5] + ([10] if include_last_offset else []), device=w.device)
    return F.embedding_bag(indices, w, offsets, mode=mode, per_sample_weights=psw,
                           padding_idx=padding_idx, include_last_offset=include_last_offset)


def masked_assign(a):
    b = a * 1
    b[b > 0] = 0.5
    return b


def scatter_reduced(reduce, include_self=True, in_place=False):
    """a.scatter_reduce(1, index, s, reduce) with repeated positions (0 and 3 thrice) and one
    position no index names (1 in the first row)."""
    def fn(a, s):
        index = torch.tensor([[0, 2, 0, 3, 2], [3, 3, 0, 3, 1]], device=a.device)
        if in_place:
            return a.clone().scatter_reduce_(1, index, s, reduce, include_self=include_self)
        return a.scatter_reduce(1, index, s, reduce, include_self=include_self)
    return fn


def shifted(dtype):
    """Integers of both signs to shift, [2, 4]."""
    return torch.tensor([[1, -8, 5, 3], [-1, 0, 1 << 20, -(1 << 20)]], dtype=dtype)


def counts(dtype):
    """Shift counts PyTorch 1.13 defines (below the width), [2, 4]."""
    return torch.tensor([[0, 1, 2, 7], [3, 30, 4, 31]], dtype=dtype)


def in_place_shift(method, n):
    """`a` shifted in place by `n` (Python's <<= or >>=) on a copy."""
    def fn(a):
        x = a.clone()
        getattr(x, method)(n)
        return x
    return fn


def with_values(*rows):
    return lambda: tuple(torch.tensor(r, dtype=torch.float64) for r in rows)


def well_conditioned(a, by=3.0):
    """a + by * I: a batch of square matrices kept away from singular."""
    return a + by * torch.eye(a.shape[-1], dtype=a.dtype, device=a.device)


def definite(a):
    """a a^T + I: symmetric positive-definite."""
    return a @ a.mT + torch.eye(a.shape[-1], dtype=a.dtype, device=a.device)


def unpooled(pool, unpool, size):
    """unpool of pool's values at its indices (F.max_unpoolNd after F.max_poolNd)."""
    def fn(a):
        values, indices = pool(a, 2, return_indices=True)
        return unpool(values, indices, 2, output_size=size)
    return fn


def index_reduced(reduce, include_self=True, in_place=False):
    """a.index_reduce(0, [0, 2, 0], s, reduce): a repeated slice and one untouched."""
    def fn(a, s):
        index = torch.tensor([0, 2, 0], device=a.device)
        if in_place:
            return a.clone().index_reduce_(0, index, s, reduce, include_self=include_self)
        return a.index_reduce(0, index, s, reduce, include_self=include_self)
    return fn


# name -> (function, inputs): floating inputs are differentiated when the output is floating.
CASES = {
    "stack": (lambda a, b: torch.stack([a, b], 1), lambda: (t(3, 4), t(3, 4, seed=1))),
    "repeat": (lambda a: a.repeat(2, 1, 3), lambda: (t(3, 2),)),
    "flip": (lambda a: a.flip(0, -1), lambda: (t(3, 4, 2),)),
    "tril": (lambda a: a.tril(-1), lambda: (t(2, 4, 5),)),
    "triu": (lambda a: a.triu(1), lambda: (t(4, 3),)),
    "trace": (torch.trace, lambda: (t(4, 5),)),
    "mv": (torch.mv, lambda: (t(3, 4), t(4, seed=2))),
    "min": (torch.min, lambda: (t(3, 4),)),
    "max": (torch.max, lambda: (t(3, 4),)),
    "amin": (lambda a: a.amin(1, keepdim=True), lambda: (t(3, 4),)),
    "all": (lambda a: (a > -1.5).all(), lambda: (t(3, 4),)),
    "any.dim": (lambda a: (a > 1.5).any(1), lambda: (t(3, 4),)),
    "norm.2": (lambda a: a.norm(dim=1), lambda: (t(3, 4),)),
    "norm.3": (lambda a: torch.norm(a, p=3), lambda: (t(3, 4),)),
    "norm.inf": (lambda a: torch.norm(a, p=float("inf"), dim=0), lambda: (t(3, 4),)),
    "norm.zero_row": (lambda a: (a * torch.tensor([[0.0], [1.0]], dtype=a.dtype, device=a.device)).norm(dim=1),
                      lambda: (t(2, 3),)),
    "std.correction": (lambda a: a.std(dim=1), lambda: (t(3, 5),)),
    "var.correction": (lambda a: torch.var(a, unbiased=False), lambda: (t(3, 5),)),
    "cumsum": (lambda a: a.cumsum(1), lambda: (t(3, 5),)),
    "sort": (lambda a: a.sort(1, descending=True), lambda: (t(3, 5),)),
    "topk": (lambda a: a.topk(2, 0), lambda: (t(4, 3),)),
    "nonzero": (lambda a: (a > 0).nonzero(), lambda: (t(3, 4),)),
    "diagonal_copy": (lambda a: torch.ops.aten.diagonal_copy(a, 1, 0, 2), lambda: (t(3, 2, 4),)),
    "as_strided_copy": (lambda a: torch.ops.aten.as_strided_copy(a, (2, 3), (1, 2), 1), lambda: (t(3, 4),)),
    "unfold_copy": (lambda a: torch.ops.aten.unfold_copy(a, 1, 3, 2), lambda: (t(2, 7),)),
    "select_scatter": (lambda a, b: torch.select_scatter(a, b, 1, -1), lambda: (t(3, 4), t(3, seed=3))),
    "diagonal_scatter": (lambda a, b: torch.diagonal_scatter(a, b, -1), lambda: (t(4, 3), t(3, seed=3))),
    "as_strided_scatter": (lambda a, b: torch.as_strided_scatter(a, b, (2, 2), (4, 1), 1),
                           lambda: (t(3, 4), t(2, 2, seed=4))),
    "glu": (lambda a: F.glu(a, 1), lambda: (t(3, 4),)),
    "log_sigmoid": (F.logsigmoid, lambda: (t(3, 4, low=-30, high=30),)),
    "binary_cross_entropy": (lambda p, y, w: F.binary_cross_entropy(p, y, w),
                             lambda: (probabilities(3, 4), probabilities(3, 4).round(), t(4, low=0.5, high=1.5))),
    "smooth_l1_loss": (lambda a, b: F.smooth_l1_loss(a, b, beta=0.5), lambda: (t(3, 4), t(3, 4, seed=5))),
    "smooth_l1_loss.sum": (lambda a, b: F.smooth_l1_loss(a, b, reduction="sum"), lambda: (t(3, 4), t(3, 4, seed=5))),
    "nll_loss2d": (lambda a, y: F.nll_loss(F.log_softmax(a, 1), y, ignore_index=1),
                   lambda: (t(2, 3, 4, 5), torch.randint(0, 3, (2, 4, 5), generator=torch.Generator().manual_seed(0)))),
    "nll_loss2d_forward.none": (lambda a, y, w: torch.ops.aten.nll_loss2d_forward(a, y, w, 0, -100),
                                lambda: (t(2, 3, 2, 2), torch.randint(0, 3, (2, 2, 2), generator=torch.Generator().manual_seed(1)),
                                         t(3, low=0.5, high=1.5))),
    "nll_loss2d_forward.ignore": (lambda a, y, w: torch.ops.aten.nll_loss2d_forward(a, y, w, 1, 1),
                                  lambda: (t(2, 3, 2, 2), torch.randint(0, 3, (2, 2, 2), generator=torch.Generator().manual_seed(1)),
                                           t(3, low=0.5, high=1.5))),
    "group_norm": (lambda a, w, b: F.group_norm(a, 2, w, b), lambda: (t(2, 4, 3, 3), t(4, seed=6), t(4, seed=7))),
    "avg_pool2d": (lambda a: F.avg_pool2d(a, 3, 2, 1), lambda: (t(2, 3, 7, 6),)),
    "avg_pool2d.ceil_no_pad_count": (lambda a: F.avg_pool2d(a, 2, 2, 1, ceil_mode=True, count_include_pad=False),
                                     lambda: (t(1, 2, 5, 5),)),
    "avg_pool2d.divisor": (lambda a: F.avg_pool2d(a, (2, 3), divisor_override=4), lambda: (t(1, 2, 4, 6),)),
    "adaptive_avg_pool2d": (lambda a: F.adaptive_avg_pool2d(a, (3, 2)), lambda: (t(2, 3, 7, 5),)),
    "upsample_nearest2d": (lambda a: F.interpolate(a, size=(5, 7), mode="nearest"), lambda: (t(1, 2, 3, 4),)),
    "upsample_nearest2d.scale": (lambda a: F.interpolate(a, scale_factor=2, mode="nearest"), lambda: (t(1, 2, 3, 4),)),
    "upsample_bilinear2d": (lambda a: F.interpolate(a, size=(5, 7), mode="bilinear", align_corners=False),
                            lambda: (t(1, 2, 3, 4),)),
    "upsample_bilinear2d.corners": (lambda a: F.interpolate(a, size=(6, 3), mode="bilinear", align_corners=True),
                                    lambda: (t(1, 2, 4, 5),)),
    "zero": (lambda a: torch.ops.aten.zero(a), lambda: (t(2, 3),)),
    "grid_sample.bilinear_zeros": (lambda a, g: F.grid_sample(a, g, "bilinear", "zeros", align_corners=False),
                                   lambda: (t(2, 3, 4, 5), t(2, 3, 2, 2, low=-1.3, high=1.3, seed=11))),
    "grid_sample.bilinear_border": (lambda a, g: F.grid_sample(a, g, "bilinear", "border", align_corners=True),
                                    lambda: (t(1, 2, 4, 5), t(1, 3, 3, 2, low=-1.3, high=1.3, seed=12))),
    "grid_sample.bilinear_reflection": (lambda a, g: F.grid_sample(a, g, "bilinear", "reflection", align_corners=False),
                                        lambda: (t(1, 2, 4, 5), t(1, 3, 3, 2, low=-2.5, high=2.5, seed=13))),
    "grid_sample.nearest": (lambda a, g: F.grid_sample(a, g, "nearest", "zeros", align_corners=False),
                            lambda: (t(1, 2, 4, 5), t(1, 3, 3, 2, low=-1.1, high=1.1, seed=14))),
    "max_pool3d": (lambda a: F.max_pool3d(a, 2, 2, 1), lambda: (t(2, 2, 3, 4, 5),)),
    "max_pool3d.indices": (lambda a: F.max_pool3d(a, (2, 3, 2), (1, 2, 2), (1, 1, 0), ceil_mode=True,
                                                  return_indices=True), lambda: (t(1, 2, 4, 5, 4),)),
    "view_copy.dtype": (lambda a: torch.ops.aten.view_copy.dtype(a, torch.int32), lambda: (t(2, 4),)),
    "logdet": (torch.logdet, lambda: (t(2, 4, 4) + 3 * torch.eye(4, dtype=torch.float64),)),
    "slogdet": (lambda a: torch.linalg.slogdet(a)[1], lambda: (t(3, 3, seed=15),)),
    "det": (torch.det, lambda: (t(2, 3, 3, seed=16),)),
    "div.trunc": (lambda a, b: torch.div(a, b, rounding_mode="trunc"), lambda: (t(3, 4, low=-9, high=9), t(4, seed=8))),
    "div.floor": (lambda a, b: torch.div(a, b, rounding_mode="floor"), lambda: (t(3, 4, low=-9, high=9), t(4, seed=8))),
    "div.floor_exact": (lambda a, b: torch.div(a, b, rounding_mode="floor"),
                        lambda: (torch.tensor([1.0, -1.0, 0.0, -0.0, 7.0]), torch.tensor([0.1, 0.1, 3.0, 3.0, -2.0]))),
    "div.floor_int": (lambda a, b: torch.div(a, b, rounding_mode="floor"),
                      lambda: (torch.tensor([7, -7, 7, -7, 0]), torch.tensor([2, 2, -2, -2, 5]))),
    "div.trunc_int": (lambda a, b: torch.div(a, b, rounding_mode="trunc"),
                      lambda: (torch.tensor([7, -7, 7, -7]), torch.tensor([2, 2, -2, -2], dtype=torch.int32))),
    "masked_fill.Tensor": (lambda a, v: a.masked_fill(a > 0, v), lambda: (t(3, 4), torch.tensor(2.5, dtype=torch.float64))),
    "masked_select": (lambda a: a.masked_select(a > 0), lambda: (t(3, 4),)),
    "masked_scatter": (lambda a, b: a.masked_scatter(a > 0, b), lambda: (t(3, 4), t(12, seed=10))),
    "scatter": (lambda a, b: a.scatter(1, torch.tensor([[2, 0], [1, 3]], device=a.device), b),
                lambda: (t(2, 4), t(2, 2, seed=9))),
    "index_fill": (lambda a: a.index_fill(1, torch.tensor([0, 2], device=a.device), -1.0), lambda: (t(2, 4),)),
    "embedding": (lambda w, i: F.embedding(i, w), lambda: (t(5, 3), torch.tensor([[0, 4], [2, 2]]))),
    "constant_pad_nd": (lambda a: F.pad(a, (1, 2, -1, 1), value=0.5), lambda: (t(2, 3, 4),)),
    "clone": (lambda a: a.clone() * 2, lambda: (t(2, 3),)),
    "mean": (torch.mean, lambda: (t(2, 3),)),
    "std.dim": (lambda a: a.std(0, unbiased=True), lambda: (t(4, 3),)),
    "roll": (lambda a: a.roll((1, -5), (0, 2)), lambda: (t(3, 4, 2),)),
    "roll.flat": (lambda a: a.roll(3), lambda: (t(3, 4),)),
    "select_backward": (lambda a: a[:, 1] * 2, lambda: (t(3, 4),)),
    "index.Tensor": (lambda a: a[:, torch.tensor([[2, 0], [-1, 2]], device=a.device)], lambda: (t(3, 4),)),
    "index.two": (lambda a: a[torch.tensor([1, 0], device=a.device), :, torch.tensor([0, 1], device=a.device)],
                  lambda: (t(2, 3, 2),)),
    "index.mask": (lambda a: a[a > 0], lambda: (t(3, 4),)),
    "index.cpu_index": (lambda a: a[torch.tensor([1, 0, 1])], lambda: (t(3, 4),)),
    "index_put_": (lambda a, v: put(a, (torch.tensor([0, 2], device=a.device),), v, False), lambda: (t(3, 4), t(2, 4, seed=5))),
    "index_put_.accumulate": (lambda a, v: put(a, (torch.tensor([0, 2, 0], device=a.device),), v, True),
                              lambda: (t(3, 4), t(3, 4, seed=6))),
    "index_put_.mask": (lambda a: masked_assign(a), lambda: (t(3, 4),)),
    "conv1d": (lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2),
               lambda: (t(2, 4, 11), t(6, 4, 3, seed=3), t(6, seed=4))),
    "conv_transpose2d": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
                         lambda: (t(2, 4, 5, 5), t(4, 3, 3, 3, seed=5), t(6, seed=6))),
    "conv_transpose2d.dilated": (lambda x, w: F.conv_transpose2d(x, w, stride=(1, 2), dilation=(2, 1), padding=(2, 0)),
                                 lambda: (t(1, 3, 4, 6), t(3, 2, 3, 2, seed=7))),
    "conv_transpose1d": (lambda x, w, b: F.conv_transpose1d(x, w, b, stride=3, output_padding=2),
                         lambda: (t(2, 3, 5), t(3, 4, 4, seed=8), t(4, seed=9))),
    "pixel_shuffle": (lambda a: F.pixel_unshuffle(F.pixel_shuffle(a, 2) * 2, 2), lambda: (t(2, 8, 2, 3),)),
    "prelu": (F.prelu, lambda: (t(2, 3, 4), t(3, seed=10))),
    "prelu.one_weight": (F.prelu, lambda: (t(2, 3), t(1, seed=11))),
    "huber_loss": (lambda a, b: F.huber_loss(a, b, delta=0.5), lambda: (t(3, 4), t(3, 4, seed=12))),
    "huber_loss.none": (lambda a, b: F.huber_loss(a, b, reduction="none", delta=2.0), lambda: (t(3, 4), t(3, 4, seed=13))),
    "clamp_": (lambda a: (a * 1).clamp_(-0.5, 0.75), lambda: (t(3, 4),)),
    "aminmax": (lambda a: torch.aminmax(a, dim=1, keepdim=True), lambda: (t(3, 4),)),
    "aminmax.all": (lambda a: torch.aminmax(a), lambda: (t(3, 4),)),
    "count_nonzero": (lambda a: torch.count_nonzero(a.round(), dim=(0, 1)), lambda: (t(3, 4),)),
    "nansum": (lambda a: torch.nansum(torch.cat([a.log(), a], 0), dim=1), lambda: (t(3, 4),)),
    "nansum.int": (lambda a: torch.nansum(a), lambda: (torch.tensor([[1, -2], [3, 4]]),)),
    "addmv": (lambda s, m, v: torch.addmv(s, m, v, beta=0.5, alpha=2.0), lambda: (t(3), t(3, 4, seed=26), t(4, seed=27))),
    "addmv.beta0": (lambda s, m, v: torch.addmv(s.log(), m, v, beta=0.0), lambda: (t(3), t(3, 4, seed=26), t(4, seed=27))),
    "heaviside": (lambda a, v: torch.heaviside(torch.cat([a.round(), a.log()], 0), v), lambda: (t(3, 4), t(4, seed=28))),
    "logit": (lambda a: torch.logit(a), lambda: (t(3, 4, low=0.05, high=0.95),)),
    "logit.outside": (lambda a: torch.logit(a), lambda: (t(3, 4, low=-0.5, high=1.5),)),
    "logit.negative_eps": (lambda a: torch.logit(a, eps=-0.1), lambda: (t(3, 4, low=-0.5, high=1.5),)),
    "addmv.float32_matrix": (lambda s, m, v: torch.addmv(s, m.float(), v.float(), beta=0.5), lambda: (t(1), t(3, 4, seed=26), t(4, seed=27))),
    "logit.eps": (lambda a: torch.logit(a, eps=0.2), lambda: (t(3, 4, low=0.05, high=0.95),)),
    "embedding_bag.sum": (lambda w: bags(w, "sum"), lambda: (t(10, 3),)),
    "embedding_bag.mean": (lambda w: bags(w, "mean", padding_idx=4), lambda: (t(10, 3),)),
    "embedding_bag.weighted": (lambda w, p: bags(w, "sum", psw=p, padding_idx=2), lambda: (t(10, 3), t(10, seed=25))),
    "embedding_bag.last_offset": (lambda w: bags(w, "mean", include_last_offset=True), lambda: (t(10, 3),)),
    "embedding_bag.2d": (lambda w: F.embedding_bag(torch.tensor([[1, 2, 4], [5, 4, 3]], device=w.device), w), lambda: (t(10, 3),)),
    "weight_norm": (lambda v, g: torch._weight_norm(v, g, 0), lambda: (t(4, 3, 2), t(4, 1, 1, seed=23))),
    "weight_norm.last_dim": (lambda v, g: torch._weight_norm(v, g, 1), lambda: (t(3, 5), t(1, 5, seed=24))),
    "adaptive_max_pool2d": (lambda a: F.adaptive_max_pool2d(a, (2, 3), return_indices=True), lambda: (t(2, 3, 5, 4),)),
    "adaptive_max_pool1d": (lambda a: F.adaptive_max_pool1d(a, 3), lambda: (t(2, 4, 7),)),
    "clamp.Tensor": (lambda a, lo, hi: a.clamp(min=lo, max=hi), lambda: (t(3, 4), t(3, 4, seed=17) - 1, t(4, seed=18) + 1)),
    "clamp_.Tensor": (lambda a, hi: (a * 1).clamp_(max=hi), lambda: (t(3, 4), t(3, 1, seed=19))),
    "clamp_min.Tensor": (torch.clamp_min, lambda: (t(3, 4), t(4, seed=20))),
    "clamp_max.Tensor": (torch.clamp_max, lambda: (t(3, 4), t(3, 4, seed=21))),
    "clamp.Tensor.int": (lambda a, lo: a.clamp(min=lo), lambda: (torch.tensor([1, 5, -3]), t(3, seed=22))),
    "nan_to_num": (lambda a: torch.nan_to_num(torch.cat([a.log(), a / 0], 0), nan=0.5, neginf=-9.0), lambda: (t(3, 4),)),
    "nan_to_num_": (lambda a: torch.cat([a.log(), a / 0], 0).nan_to_num_(posinf=3.0), lambda: (t(3, 4),)),
    "linalg_vector_norm": (lambda a: torch.linalg.vector_norm(a, ord=3, dim=1), lambda: (t(3, 4),)),
    "linalg_vector_norm.inf": (lambda a: torch.linalg.vector_norm(a, ord=float("inf"), dim=(0, 1), keepdim=True), lambda: (t(3, 4),)),
    "linalg_vector_norm.dtype": (lambda a: torch.linalg.vector_norm(a, dtype=torch.float64), lambda: (t(3, 4).float(),)),
    "kl_div": (lambda a, b: F.kl_div(F.log_softmax(a, 1), F.softmax(b, 1), reduction="batchmean"), lambda: (t(3, 4), t(3, 4, seed=14))),
    "hardshrink": (lambda a: F.hardshrink(a, 0.7), lambda: (t(3, 4),)),
    "softshrink": (lambda a: F.softshrink(a, 0.7), lambda: (t(3, 4),)),
    "softshrink.zero": (lambda a: F.softshrink(a, 0), lambda: (t(3, 4),)),
    "logsumexp": (lambda a: a.logsumexp(1), lambda: (t(3, 4),)),
    "std_mean": (lambda a: torch.std_mean(a, 1), lambda: (t(3, 4),)),
    "var_mean": (lambda a: torch.var_mean(a, (0, 1), unbiased=False, keepdim=True), lambda: (t(3, 4),)),
    "argmin": (lambda a: a.argmin(1), lambda: (t(3, 4),)),
    "floor_divide": (torch.floor_divide, lambda: (torch.tensor([7, -7, 7, -7]), torch.tensor([2, 2, -2, -3]))),
    "split_with_sizes": (lambda a: torch.cat([p * (k + 1) for k, p in enumerate(a.split([1, 3], 1))], 1),
                         lambda: (t(3, 4),)),
    "erfinv": (torch.erfinv, lambda: (t(3, 4, low=-0.9, high=0.9),)),
    "lgamma": (torch.lgamma, lambda: (t(3, 4, low=0.1, high=3.0),)),
    "digamma": (torch.digamma, lambda: (t(3, 4, low=-2.9, high=3.0, seed=57),)),
    "polygamma": (lambda a: torch.stack([torch.polygamma(n, a) for n in range(5)]),
                  lambda: (t(3, 4, low=0.05, high=12.0, seed=58),)),
    "polygamma.negative": (lambda a: torch.stack([torch.polygamma(n, a) for n in (1, 2, 3)]),
                           lambda: (t(3, 4, low=-2.9, high=-0.1, seed=59),)),
    "polygamma_": (lambda a: a.clone().polygamma_(3), lambda: (t(3, 4, low=0.1, high=3.0, seed=60),)),
    "logaddexp": (torch.logaddexp, lambda: (t(3, 4), t(4, seed=15))),
    "hypot": (torch.hypot, lambda: (t(3, 4), t(3, 4, seed=16))),
    "fmax": (torch.fmax, lambda: (t(3, 4), t(3, 4, seed=17))),
    "sinc": (torch.sinc, lambda: (t(3, 4),)),
    "pad.reflect1d": (lambda a: F.pad(a, (2, 3), mode="reflect"), lambda: (t(2, 3, 5),)),
    "pad.reflect2d": (lambda a: F.pad(a, (1, 0, -1, 2), mode="reflect"), lambda: (t(1, 2, 4, 5),)),
    "pad.reflect3d": (lambda a: F.pad(a, (1, 1, 0, 2, 1, 0), mode="reflect"), lambda: (t(1, 1, 3, 4, 5),)),
    "pad.replicate1d": (lambda a: F.pad(a, (3, 1), mode="replicate"), lambda: (t(3, 4),)),
    "pad.replicate2d": (lambda a: F.pad(a, (2, 2, 1, 1), mode="replicate"), lambda: (t(2, 3, 4, 4),)),
    "pad.replicate3d": (lambda a: F.pad(a, (0, 1, 2, 0, 1, 1), mode="replicate"), lambda: (t(1, 2, 2, 3, 3),)),
    "prod": (lambda a: a.prod(), lambda: (t(3, 4),)),
    "prod.dim_int": (lambda a: a.prod(1, keepdim=True), lambda: (t(3, 5),)),
    "prod.zeros": (lambda a: (a * (a > 0)).prod(0), lambda: (t(3, 4),)),
    "prod.int": (lambda a: a.prod(1), lambda: (torch.tensor([[1, -2, 3], [4, 0, 2]]),)),
    "prod.dtype": (lambda a: a.float().prod(0, dtype=torch.float64), lambda: (t(7, 2),)),
    "cumprod": (lambda a: a.cumprod(1), lambda: (t(3, 7),)),
    "cumprod.zeros": (lambda a: (a * (a > -1)).cumprod(1), lambda: (t(3, 7),)),
    "cumprod.int": (lambda a: a.cumprod(0), lambda: (torch.tensor([[1, -2, 3], [4, 0, 2]], dtype=torch.int32),)),
    "logcumsumexp": (lambda a: torch.logcumsumexp(a * 30, 1), lambda: (t(3, 7),)),
    "logcumsumexp.infinities": (lambda a: torch.logcumsumexp(torch.cat([a.log(), -a.log(), a], 1), 1), lambda: (t(2, 3),)),
    "cummax": (lambda a: a.cummax(1), lambda: (t(3, 6),)),
    "cummax.nan_and_ties": (lambda a: torch.cat([a.log(), a.round()], 1).cummax(1), lambda: (t(3, 5),)),
    "cummin": (lambda a: a.cummin(0), lambda: (t(5, 3),)),
    "cummin.int": (lambda a: a.cummin(1), lambda: (torch.tensor([[3, 1, 2, 1, 0], [2, 2, 5, -1, 4]]),)),
    "kthvalue": (lambda a: a.kthvalue(2, 1), lambda: (t(3, 5),)),
    "kthvalue.keepdim": (lambda a: a.kthvalue(3, 0, keepdim=True), lambda: (t(4, 3),)),
    "median": (lambda a: a.median(), lambda: (t(3, 4),)),
    "median.dim": (lambda a: a.median(1), lambda: (t(3, 4),)),
    "median.nan": (lambda a: torch.cat([a.log(), a], 0).median(1), lambda: (t(3, 4),)),
    "median.int": (lambda a: a.median(0, keepdim=True), lambda: (torch.tensor([[3, 1, 2], [2, 2, 5], [0, 7, 1]]),)),
    "nanmedian": (lambda a: a.log().nanmedian(), lambda: (t(3, 4),)),
    "nanmedian.dim": (lambda a: torch.cat([a.log(), a], 1).nanmedian(1), lambda: (t(3, 4),)),
    "searchsorted": (lambda s, v: torch.searchsorted(s.sort(1)[0], v), lambda: (t(3, 5), t(3, 4, seed=29))),
    "searchsorted.right_1d": (lambda s, v: torch.searchsorted(s.sort()[0], v, right=True, out_int32=True),
                              lambda: (t(6), t(3, 4, seed=30).round())),
    "searchsorted.sorter": (lambda s, v: torch.searchsorted(s, v, side="right", sorter=s.argsort(1)),
                            lambda: (t(3, 5), t(3, 4, seed=31))),
    "bucketize": (lambda a, b: torch.bucketize(torch.cat([a.log(), a], 0), b.sort()[0]), lambda: (t(3, 4), t(5, seed=32))),
    "diag_embed": (lambda a: torch.diag_embed(a, -1, 0, 2), lambda: (t(2, 3),)),
    "diag": (lambda a: torch.diag(a, 1), lambda: (t(4),)),
    "diag.matrix": (lambda a: torch.diag(a, -1), lambda: (t(3, 4),)),
    "linalg_cross": (lambda a, b: torch.linalg.cross(a, b), lambda: (t(4, 3), t(4, 3, seed=33))),
    "linalg_cross.broadcast": (lambda a, b: torch.cross(a, b, dim=0), lambda: (t(3, 4), t(3, 1, seed=34))),
    "linspace": (lambda a: a * torch.linspace(-1, 2, 5, dtype=a.dtype, device=a.device), lambda: (t(3, 5),)),
    "linspace.int": (lambda a: a * torch.linspace(-3, 30, 5, dtype=torch.int64, device=a.device), lambda: (t(3, 5),)),
    "logspace": (lambda a: a * torch.logspace(-1, 2, 4, base=3, device=a.device), lambda: (t(4).float(),)),
    "diagonal": (lambda a: a.diagonal(1, 0, 2) * 2, lambda: (t(3, 2, 4),)),
    "unfold": (lambda a: a.unfold(1, 3, 2) ** 2, lambda: (t(2, 7),)),
    "unfold.overlapping": (lambda a: a.unfold(0, 2, 1).unfold(1, 2, 1).sum((-1, -2)), lambda: (t(4, 5),)),
    "im2col": (lambda a: F.unfold(a, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), lambda: (t(2, 3, 5, 6),)),
    "im2col.unbatched": (lambda a: F.unfold(a, 2), lambda: (t(3, 4, 4),)),
    "col2im": (lambda a: F.fold(a, (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), lambda: (t(2, 18, 12),)),
    "col2im.overlapping": (lambda a: F.fold(a, (4, 5), 3), lambda: (t(1, 18, 6),)),
    "cdist": (lambda a, b: torch.cdist(a, b), lambda: (t(2, 4, 3), t(2, 5, 3, seed=35))),
    "cdist.matmul": (lambda a, b: torch.cdist(a, b), lambda: (t(30, 3), t(27, 3, seed=36))),
    "cdist.matmul_mode": (lambda a, b: torch.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
                          lambda: (t(1, 4, 3), t(3, 5, 3, seed=37))),
    "cdist.p1": (lambda a, b: torch.cdist(a, b, p=1), lambda: (t(4, 3), t(5, 3, seed=38))),
    "cdist.p0_5": (lambda a, b: torch.cdist(a, b, p=0.5), lambda: (t(4, 3), t(5, 3, seed=39))),
    "cdist.p1_5": (lambda a, b: torch.cdist(a, b, p=1.5), lambda: (t(4, 3), t(5, 3, seed=40))),
    "cdist.p3": (lambda a, b: torch.cdist(a, b, p=3), lambda: (t(4, 3), t(5, 3, seed=41))),
    "cdist.inf": (lambda a, b: torch.cdist(a, b, p=float("inf")), lambda: (t(4, 3), t(5, 3, seed=42))),
    "cdist.p0": (lambda a, b: torch.cdist(a.round(), b.round(), p=0), lambda: (t(4, 3), t(5, 3, seed=43))),
    "cdist.zero_distance": (lambda a: torch.cdist(a, a[:2]), lambda: (t(3, 4),)),
    "pdist": (lambda a: F.pdist(a), lambda: (t(5, 3),)),
    "pdist.p1": (lambda a: F.pdist(a, p=1), lambda: (t(5, 3),)),
    "pdist.p0_5": (lambda a: F.pdist(a, p=0.5), lambda: (t(5, 3),)),
    "pdist.p1_5": (lambda a: F.pdist(a, p=1.5), lambda: (t(5, 3),)),
    "pdist.p3": (lambda a: F.pdist(a, p=3), lambda: (t(5, 3),)),
    "pdist.inf": (lambda a: F.pdist(a, p=float("inf")), lambda: (t(5, 3),)),
    "pdist.p0": (lambda a: F.pdist(a.round(), p=0), lambda: (t(5, 3),)),
    "pdist.zero_distance": (lambda a: F.pdist(torch.cat([a, a[:1]])), lambda: (t(3, 4),)),
    "pdist.one_row": (lambda a: F.pdist(a), lambda: (t(1, 4),)),
    "upsample_bicubic2d": (lambda a: F.interpolate(a, size=(7, 5), mode="bicubic"), lambda: (t(2, 3, 4, 6),)),
    "upsample_bicubic2d.align_corners": (lambda a: F.interpolate(a, scale_factor=2, mode="bicubic", align_corners=True),
                                         lambda: (t(1, 2, 3, 4),)),
    "upsample_bicubic2d.down": (lambda a: F.interpolate(a, scale_factor=0.6, mode="bicubic"),
                                lambda: (t(1, 2, 7, 9),)),
    "conv3d": (lambda x, w, b: F.conv3d(x, w, b, stride=(2, 1, 1), padding=(1, 0, 1)),
               lambda: (t(2, 3, 5, 4, 4), t(4, 3, 3, 2, 3, seed=44), t(4, seed=45))),
    "conv3d.dilated_grouped": (lambda x, w: F.conv3d(x, w, dilation=(2, 1, 2), groups=2, padding=1),
                               lambda: (t(1, 4, 6, 5, 6), t(6, 2, 2, 3, 2, seed=46))),
    "conv3d.unbatched": (lambda x, w: F.conv3d(x, w), lambda: (t(2, 3, 3, 3), t(3, 2, 1, 2, 2, seed=47))),
    "conv_transpose3d": (lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 1, 2), padding=(1, 0, 1),
                                                            output_padding=(1, 0, 1), dilation=(1, 2, 1)),
                         lambda: (t(2, 4, 3, 2, 3), t(4, 3, 3, 2, 2, seed=53), t(3, seed=54))),
    "conv_transpose3d.grouped": (lambda x, w: F.conv_transpose3d(x, w, stride=2, groups=2),
                                 lambda: (t(1, 4, 2, 3, 2), t(4, 2, 2, 1, 2, seed=55))),
    "conv_transpose3d.unbatched": (lambda x, w: F.conv_transpose3d(x, w, padding=1),
                                   lambda: (t(2, 3, 2, 3), t(2, 3, 2, 3, 2, seed=56))),
    "linalg_inv_ex": (lambda a: torch.linalg.inv_ex(a + 3 * torch.eye(3, dtype=a.dtype, device=a.device)),
                      lambda: (t(2, 3, 3),)),
    "inverse": (lambda a: torch.inverse(a + 3 * torch.eye(4, dtype=a.dtype, device=a.device)), lambda: (t(4, 4),)),
    "linalg_inv_ex.singular": (lambda a: torch.linalg.inv_ex(a * torch.tensor([1.0, 0.0, 1.0], dtype=a.dtype,
                                                                               device=a.device))[1],
                               lambda: (t(3, 3),)),
    "eye": (lambda a: a * torch.eye(3, 4, dtype=a.dtype, device=a.device), lambda: (t(3, 4),)),
    "narrow_copy": (lambda a: a.narrow_copy(1, 1, 2) * 2, lambda: (t(3, 4),)),
    "tril_indices": (lambda a: a[tuple(torch.tril_indices(3, 4, 1, device=a.device))], lambda: (t(3, 4),)),
    "triu_indices": (lambda a: a[tuple(torch.triu_indices(3, 4, -1, device=a.device))], lambda: (t(3, 4),)),
    "avg_pool3d": (lambda a: F.avg_pool3d(a, (3, 2, 2), stride=(2, 1, 2), padding=(1, 1, 0), ceil_mode=True),
                   lambda: (t(2, 3, 4, 3, 5),)),
    "avg_pool3d.excluding_padding": (lambda a: F.avg_pool3d(a, 2, stride=1, padding=1, count_include_pad=False),
                                     lambda: (t(1, 2, 3, 3, 4),)),
    "avg_pool3d.divisor_unbatched": (lambda a: F.avg_pool3d(a, (2, 1, 2), divisor_override=3), lambda: (t(2, 4, 3, 5),)),
    "scatter_reduce.sum": (scatter_reduced("sum"), lambda: (t(2, 4), t(2, 5, seed=48))),
    "scatter_reduce.sum_excluding_self": (scatter_reduced("sum", False), lambda: (t(2, 4), t(2, 5, seed=49))),
    "scatter_reduce.mean": (scatter_reduced("mean"), lambda: (t(2, 4), t(2, 5, seed=50))),
    "scatter_reduce.mean_excluding_self": (scatter_reduced("mean", False), lambda: (t(2, 4), t(2, 5, seed=51))),
    # Zeros: one among a position's factors (self's or src's), and two at one position.
    "scatter_reduce.prod": (scatter_reduced("prod"),
                            with_values([[0.5, 0.0, -1.5, 2.0], [1.5, -0.5, 2.0, 0.25]],
                                        [[0.0, 1.5, 2.0, -0.5, 3.0], [0.0, -2.0, 1.5, 0.0, 0.5]])),
    "scatter_reduce.prod_excluding_self": (scatter_reduced("prod", False),
                                           with_values([[0.5, 0.0, -1.5, 2.0], [1.5, -0.5, 2.0, 0.25]],
                                                       [[0.0, 1.5, 2.0, -0.5, 3.0], [1.0, -2.0, 1.5, 0.0, 0.5]])),
    # Ties share the gradient: self with src, and src with src.
    "scatter_reduce.amax": (scatter_reduced("amax"),
                            with_values([[1.0, 0.0, 2.0, -1.0], [0.5, 1.5, 2.0, 3.0]],
                                        [[1.0, 0.5, 1.0, -1.0, 2.0], [3.0, 1.0, -2.0, 3.0, 1.5]])),
    "scatter_reduce.amin_excluding_self": (scatter_reduced("amin", False),
                                           with_values([[1.0, 0.0, 2.0, -1.0], [0.5, 1.5, 2.0, 3.0]],
                                                       [[1.0, 0.5, 1.0, -1.0, 2.0], [3.0, 1.0, -2.0, 3.0, 1.5]])),
    "scatter_reduce.amax_nan": (scatter_reduced("amax"),
                                with_values([[1.0, float("nan"), 2.0, -1.0], [0.5, 1.5, 2.0, 3.0]],
                                            [[1.0, 0.5, 1.0, float("nan"), 2.0], [3.0, 1.0, -2.0, 3.0, 1.5]])),
    "scatter_reduce.int_mean": (scatter_reduced("mean"),
                                lambda: (torch.tensor([[7, -7, 3, 0], [1, 2, -5, 4]]),
                                         torch.tensor([[1, 2, -3, 4, 5], [-6, 7, 8, 9, 10]]))),
    "scatter_reduce_.amin": (scatter_reduced("amin", in_place=True), lambda: (t(2, 4), t(2, 5, seed=52))),
    "histc": (lambda a: torch.histc(a, 5), lambda: (t(3, 4),)),
    "histc.range": (lambda a: torch.histc(a, 4, -1, 1), lambda: (t(20),)),
    "histc.edges_float32": (lambda a: torch.histc(a.float(), 10, 0, 1),
                            lambda: (torch.tensor([0.1, 0.2, 0.3, 0.7, 0.9, 1.0, float("nan"), 2.0]),)),
    "histc.one_value": (lambda a: torch.histc(a, 3), lambda: (torch.tensor([2.0, 2.0], dtype=torch.float64),)),
    "__lshift__.Scalar": (lambda a: a << 3, lambda: (shifted(torch.int32),)),
    "__lshift__.Tensor": (lambda a, n: a << n, lambda: (shifted(torch.int64), counts(torch.int64))),
    "__lshift__.bool": (lambda a: (a > 0) << 2, lambda: (shifted(torch.int32),)),  # to int64
    "__rshift__.Scalar": (lambda a: a >> 2, lambda: (shifted(torch.int64),)),
    "__rshift__.Tensor": (lambda a, n: a >> n, lambda: (shifted(torch.int32), counts(torch.int32))),
    "__rshift__.broadcast": (lambda a, n: a >> n[0], lambda: (shifted(torch.int32), counts(torch.int64))),
    "__ilshift__.Scalar": (in_place_shift("__ilshift__", 5), lambda: (shifted(torch.int32),)),
    "__ilshift__.Tensor": (lambda a, n: in_place_shift("__ilshift__", n)(a),
                           lambda: (shifted(torch.int32), counts(torch.int64))),
    "__irshift__.Scalar": (in_place_shift("__irshift__", 1), lambda: (shifted(torch.int64),)),
    "__irshift__.Tensor": (lambda a, n: in_place_shift("__irshift__", n)(a),
                           lambda: (shifted(torch.int64), counts(torch.int64))),
    "bitwise_left_shift.Scalar_Tensor": (lambda n: torch.bitwise_left_shift(3, n), lambda: (counts(torch.int64),)),
    "bitwise_right_shift_.Tensor_Scalar": (lambda a: a.clone().bitwise_right_shift_(4), lambda: (shifted(torch.int32),)),
    "mode": (lambda a: torch.mode(a, 1), lambda: (repeats(torch.float64),)),
    "mode.keepdim": (lambda a: torch.mode(a, 0, keepdim=True), lambda: (repeats(torch.float64),)),
    "mode.int": (lambda a: torch.mode(a), lambda: (repeats(torch.int64),)),
    "bincount": (lambda a: torch.bincount(a), lambda: (repeats(torch.int64).flatten(),)),
    "bincount.weights": (lambda a, w: torch.bincount(a, w, minlength=9),
                         lambda: (repeats(torch.int32).flatten(), t(15))),
    "bincount.float32_weights": (lambda a, w: torch.bincount(a, w.float()), lambda: (repeats(torch.int64).flatten(), t(15))),
    "bincount.empty": (lambda a: torch.bincount(a, minlength=4), lambda: (torch.zeros(0, dtype=torch.int64),)),
    "_unique2": (lambda a: torch.unique(a, return_inverse=True, return_counts=True), lambda: (repeats(torch.float64),)),
    "_unique2.values_only": (lambda a: torch.unique(a), lambda: (repeats(torch.int32),)),
    "_unique2.bool": (lambda a: torch.unique(a > 2, return_counts=True), lambda: (repeats(torch.int64),)),
    "_unique": (lambda a: torch._unique(a, True, True), lambda: (repeats(torch.int64),)),
    "unique_dim": (lambda a: torch.unique(a, dim=0, return_inverse=True, return_counts=True),
                   lambda: (torch.tensor([[1, 2, 0], [0, 5, 1], [1, 2, 0], [0, 5, 0]]),)),
    "unique_dim.columns": (lambda a: torch.unique(a, dim=1), lambda: (torch.tensor([[1.0, 2, 1], [3, 0, 3]]),)),
    "unique_consecutive": (lambda a: torch.unique_consecutive(a, return_inverse=True, return_counts=True),
                           lambda: (torch.tensor([1, 1, 2, 2, 3, 1, 1]),)),
    "pow.Scalar": (lambda a: 2.5 ** a, lambda: (t(3, 4),)),
    "pow.Scalar_int": (lambda a: 3 ** a, lambda: (repeats(torch.int64),)),
    "round.decimals": (lambda a: torch.round(a * 10, decimals=2), lambda: (t(3, 4),)),
    "round.decimals_negative": (lambda a: torch.round(a * 1000, decimals=-2), lambda: (t(3, 4),)),
    "round.decimals_float32": (lambda a: torch.round(a.float(), decimals=1), lambda: (t(3, 4),)),
    "logaddexp2": (torch.logaddexp2, lambda: (t(3, 4), t(4, seed=3))),
    "special_xlog1py": (torch.special.xlog1py, with_values([0.0, 2.0, -1.5, 0.0, 3.0], [-1.0, 0.5, 2.0, float("nan"), -1.0])),
    "special_xlog1py.scalar": (lambda a: torch.special.xlog1py(a, 2.0), lambda: (t(3, 4),)),
    "special_entr": (torch.special.entr, with_values([0.0, 0.5, 2.0, -1.0, float("nan"), float("inf")])),
    "special_entr.int": (torch.special.entr, lambda: (torch.tensor([0, 1, 3, -2]),)),
    "nextafter": (torch.nextafter, with_values([1.0, 0.0, -2.5, 3.0], [2.0, -1.0, -2.5, float("inf")])),
    "nextafter.float32": (lambda a, b: torch.nextafter(a.float(), b.float()), lambda: (t(3, 4), t(4, seed=5))),
    "nextafter_": (lambda a, b: a.clone().nextafter_(b), lambda: (t(3, 4), t(3, 4, seed=6))),
    "gcd": (torch.gcd, lambda: (torch.tensor([12, -18, 0, 7, 0, -4]), torch.tensor([8, 27, 5, 0, 0, -6]))),
    "gcd.int32_broadcast": (torch.gcd, lambda: (torch.tensor([[12], [-9]], dtype=torch.int32),
                                                torch.tensor([6, 4, 0], dtype=torch.int32))),
    "lcm": (torch.lcm, lambda: (torch.tensor([4, -6, 0, 7, 0]), torch.tensor([6, 4, 3, 0, 0]))),
    "gcd_": (lambda a, b: a.clone().gcd_(b), lambda: (torch.tensor([12, 18]), torch.tensor([8, 27]))),
    "take": (lambda a: torch.take(a, torch.tensor([[11, -1], [0, 5]]).to(a.device)), lambda: (t(3, 4),)),
    "index_copy": (lambda a, s: a.index_copy(1, torch.tensor([3, 0]).to(a.device), s), lambda: (t(3, 4), t(3, 2))),
    "index_copy_": (lambda a, s: a.clone().index_copy_(0, torch.tensor([2]).to(a.device), s),
                    lambda: (t(3, 4), t(1, 4))),
    "isin": (lambda a, b: torch.isin(a, b), lambda: (repeats(torch.int64), torch.tensor([0, 3, 7]))),
    "isin.invert": (lambda a: torch.isin(a, a[0], invert=True), lambda: (repeats(torch.float64),)),
    "isin.Tensor_Scalar": (lambda a: torch.isin(a, 2), lambda: (repeats(torch.int32),)),
    "isin.Scalar_Tensor": (lambda a: torch.isin(2, a), lambda: (repeats(torch.int64),)),
    "addbmm": (lambda s, a, b: torch.addbmm(s, a, b, beta=0.5, alpha=2), lambda: (t(2, 3), t(4, 2, 5), t(4, 5, 3))),
    "repeat_interleave.Tensor": (lambda r: torch.repeat_interleave(r), lambda: (torch.tensor([2, 0, 3]),)),
    "repeat_interleave.self_int": (lambda a: a.repeat_interleave(2, dim=1), lambda: (t(3, 4),)),
    "repeat_interleave.self_Tensor": (lambda a: a.repeat_interleave(torch.tensor([1, 0, 2]).to(a.device), dim=0),
                                      lambda: (t(3, 4),)),
    "upsample_linear1d": (lambda a: F.interpolate(a, scale_factor=2.5, mode="linear"), lambda: (t(2, 3, 7),)),
    "upsample_linear1d.align_corners": (lambda a: F.interpolate(a, size=11, mode="linear", align_corners=True),
                                        lambda: (t(2, 3, 7),)),
    "upsample_linear1d.down": (lambda a: F.interpolate(a, size=3, mode="linear"), lambda: (t(2, 3, 7),)),
    "upsample_nearest1d": (lambda a: F.interpolate(a, scale_factor=1.7), lambda: (t(2, 3, 7),)),
    "upsample_trilinear3d": (lambda a: F.interpolate(a, scale_factor=(2, 1.5, 0.6), mode="trilinear"),
                             lambda: (t(2, 2, 3, 4, 5),)),
    "upsample_trilinear3d.align_corners": (
        lambda a: F.interpolate(a, size=(4, 6, 3), mode="trilinear", align_corners=True), lambda: (t(1, 2, 3, 4, 5),)),
    "upsample_nearest3d": (lambda a: F.interpolate(a, scale_factor=2), lambda: (t(1, 2, 3, 4, 5),)),
    "upsample_nearest3d.size": (lambda a: F.interpolate(a, size=(5, 3, 7)), lambda: (t(2, 1, 3, 4, 5),)),
    "_adaptive_avg_pool3d": (lambda a: F.adaptive_avg_pool3d(a, (2, 3, 2)), lambda: (t(2, 2, 3, 4, 5),)),
    "_adaptive_avg_pool3d.unbatched": (lambda a: F.adaptive_avg_pool3d(a, (1, 5, 3)), lambda: (t(2, 3, 4, 5),)),
    "renorm": (lambda a: torch.renorm(a, 2, 0, 1.0), lambda: (t(3, 4),)),
    "renorm.p1_dim1": (lambda a: torch.renorm(a * 3, 1, 1, 2.0), lambda: (t(3, 4),)),
    "renorm_": (lambda a: a.clone().renorm_(3, -1, 0.5), lambda: (t(3, 4),)),
    "scatter.repeated_index": (lambda a, s: a.scatter(1, torch.tensor([[0, 0, 2]]).to(a.device), s),
                               lambda: (t(2, 3), t(1, 3))),
    "index_copy.repeated_index": (lambda a, s: a.index_copy(0, torch.tensor([1, 1]).to(a.device), s),
                                  lambda: (t(3, 2), t(2, 2))),
    "channel_shuffle": (lambda a: F.channel_shuffle(a, 3), lambda: (t(2, 6, 2, 3),)),
    "channel_shuffle.1d": (lambda a: F.channel_shuffle(a, 2), lambda: (t(2, 4, 5),)),
    "addmm_": (lambda s, a, b: s.clone().addmm_(a, b, beta=0.5, alpha=2), lambda: (t(3, 4), t(3, 5), t(5, 4))),
    "unique_consecutive.dim": (lambda a: torch.unique_consecutive(a, dim=0),
                               lambda: (torch.tensor([[1.0, 2], [1, 2], [0, 5], [1, 2]]),)),
    "_linalg_solve_ex": (lambda a, b: torch.linalg.solve(well_conditioned(a), b), lambda: (t(2, 3, 3), t(3, 2, seed=60))),
    "_linalg_eigh": (lambda a: torch.linalg.eigh(a + a.mT), lambda: (t(2, 4, 4),)),
    "_linalg_eigh.upper": (lambda a: torch.linalg.eigh(a + a.mT, UPLO="U"), lambda: (t(3, 3, seed=66),)),
    "_linalg_eigh.eigvalsh": (lambda a: torch.linalg.eigvalsh(a + a.mT), lambda: (t(2, 3, 3, seed=67),)),
    "_linalg_eigh.pinv_hermitian": (lambda a: torch.linalg.pinv(a + a.mT, hermitian=True), lambda: (t(3, 3, seed=68),)),
    "_linalg_svd": (lambda a: torch.linalg.svd(a, full_matrices=False), lambda: (t(2, 3, 4),)),
    "_linalg_svd.tall": (lambda a: torch.linalg.svd(a, full_matrices=False), lambda: (t(5, 3, seed=69),)),
    "_linalg_svd.full": (lambda a: torch.linalg.svd(a), lambda: (t(4, 3, seed=70),)),
    "_linalg_svd.svdvals": (lambda a: torch.linalg.svdvals(a), lambda: (t(2, 3, 5, seed=71),)),
    "_linalg_svd.pinv": (lambda a: torch.linalg.pinv(a), lambda: (t(2, 4, 3, seed=72),)),
    "_linalg_svd.matrix_rank": (lambda a: torch.linalg.matrix_rank(a @ a[..., :2, :]), lambda: (t(3, 2, seed=73),)),
    "_linalg_svd.matrix_norm_2": (lambda a: torch.linalg.matrix_norm(a, ord=2), lambda: (t(2, 3, 3, seed=74),)),
    "_linalg_svd.cond": (lambda a: torch.linalg.cond(a), lambda: (t(3, 3, seed=75),)),
    "linalg_matrix_exp": (torch.linalg.matrix_exp, lambda: (t(2, 4, 4, seed=92),)),
    "linalg_matrix_exp.squarings": (lambda a: torch.matrix_exp(a * 8), lambda: (t(3, 3, seed=93),)),
    "linalg_lstsq": (torch.linalg.lstsq, lambda: (t(2, 5, 3, seed=76), t(2, 5, 2, seed=77))),
    "linalg_lstsq.gels": (lambda a, b: torch.linalg.lstsq(a, b, driver="gels"), lambda: (t(5, 3, seed=78), t(5, 2, seed=79))),
    "linalg_lstsq.gels_wide": (lambda a, b: torch.linalg.lstsq(a, b, driver="gels"), lambda: (t(3, 5, seed=80), t(3, 2, seed=81))),
    "linalg_lstsq.gelsd_wide": (lambda a, b: torch.linalg.lstsq(a, b, driver="gelsd"), lambda: (t(2, 3, 5, seed=82), t(2, 3, 2, seed=83))),
    "linalg_lstsq.gelss_vector": (lambda a, b: torch.linalg.lstsq(a, b, driver="gelss"), lambda: (t(5, 3, seed=84), t(5, seed=85))),
    "linalg_lstsq.broadcast": (lambda a, b: torch.linalg.lstsq(a, b, driver="gelsd"), lambda: (t(1, 5, 3, seed=86), t(3, 5, 2, seed=87))),
    "linalg_lstsq.rank_deficient": (lambda a, b: torch.linalg.lstsq(a @ a.new_ones(2, 3), b, rcond=1e-10, driver="gelsd"),
                                    lambda: (t(5, 2, seed=88), t(5, 2, seed=89))),
    "linalg_lstsq.gelsy_rank_deficient": (lambda a, b: torch.linalg.lstsq(a @ a.new_ones(2, 3), b),
                                          lambda: (t(5, 2, seed=90), t(5, 1, seed=91))),
    "_linalg_solve_ex.vector": (lambda a, b: torch.linalg.solve(well_conditioned(a), b), lambda: (t(2, 3, 3), t(3, seed=61))),
    "_linalg_solve_ex.right": (lambda a, b: torch.linalg.solve_ex(well_conditioned(a), b, left=False),
                               lambda: (t(3, 3), t(2, 4, 3, seed=62))),
    "linalg_lu_factor_ex": (lambda a: torch.linalg.lu_factor(a), lambda: (t(2, 4, 4),)),
    "linalg_lu": (lambda a: torch.linalg.lu(a), lambda: (t(2, 3, 3),)),
    "lu_unpack": (lambda a: torch.lu_unpack(*torch.linalg.lu_factor(a)), lambda: (t(4, 4),)),
    "lu_unpack.wide": (lambda a: torch.lu_unpack(*torch.linalg.lu_factor(a)), lambda: (t(2, 3, 5, seed=76),)),
    "linalg_lu_factor_ex.tall": (lambda a: torch.linalg.lu_factor_ex(a), lambda: (t(5, 3, seed=77),)),
    "linalg_lu.wide": (lambda a: torch.linalg.lu(a), lambda: (t(2, 3, 4, seed=78),)),
    "linalg_lu.tall": (lambda a: torch.linalg.lu(a), lambda: (t(4, 2, seed=79),)),
    "linalg_solve_triangular": (lambda a, b: torch.linalg.solve_triangular(well_conditioned(a), b, upper=True),
                                lambda: (t(3, 3), t(2, 3, 2, seed=63))),
    "linalg_solve_triangular.right_unit": (
        lambda a, b: torch.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
        lambda: (t(3, 3), t(2, 3, seed=64))),
    "triangular_solve": (lambda b, a: torch.triangular_solve(b, well_conditioned(a), upper=False, transpose=True),
                         lambda: (t(3, 2, seed=65), t(2, 3, 3))),
    "linalg_cholesky_ex": (lambda a: torch.linalg.cholesky(definite(a)), lambda: (t(2, 3, 3),)),
    "linalg_cholesky_ex.upper": (lambda a: torch.linalg.cholesky_ex(definite(a), upper=True), lambda: (t(4, 4),)),
    "linalg_cholesky_ex.not_definite": (lambda a: torch.linalg.cholesky_ex(definite(a) - 4 * torch.eye(
        3, dtype=a.dtype, device=a.device))[1], lambda: (t(3, 3),)),
    "cholesky": (lambda a: torch.cholesky(definite(a)), lambda: (t(3, 3),)),
    "_cholesky_solve_helper": (lambda a, b: torch.cholesky_solve(b, torch.linalg.cholesky(definite(a))),
                               lambda: (t(2, 3, 3), t(3, 2, seed=66))),
    "cholesky_inverse": (lambda a: torch.cholesky_inverse(torch.linalg.cholesky(definite(a)), upper=False),
                         lambda: (t(3, 3),)),
    "linalg_qr": (lambda a: torch.linalg.qr(a), lambda: (t(2, 4, 3),)),
    "linalg_qr.wide": (lambda a: torch.linalg.qr(a), lambda: (t(3, 5),)),
    "linalg_qr.complete": (lambda a: torch.linalg.qr(a, mode="complete"), lambda: (t(3, 3),)),
    "linalg_qr.r": (lambda a: torch.linalg.qr(a, mode="r")[1], lambda: (t(4, 3),)),
    "_trilinear": (lambda a, b, w, bias: F.bilinear(a, b, w, bias),
                   lambda: (t(2, 3, 4), t(2, 3, 5, seed=67), t(6, 4, 5, seed=68), t(6, seed=69))),
    "multi_margin_loss": (lambda a: F.multi_margin_loss(a, torch.tensor([1, 0, 4], device=a.device)),
                          lambda: (t(3, 5),)),
    "multi_margin_loss.p2_weight_none": (
        lambda a, w: F.multi_margin_loss(a, torch.tensor([1, 0, 4], device=a.device), p=2, margin=0.7,
                                         weight=w, reduction="none"),
        lambda: (t(3, 5), t(5, low=0.5, high=2.0, seed=70))),
    "multi_margin_loss.vector_sum": (
        lambda a: F.multi_margin_loss(a, torch.tensor([2], device=a.device), reduction="sum"), lambda: (t(4),)),
    "multilabel_margin_loss_forward": (
        lambda a: F.multilabel_margin_loss(a, torch.tensor([[3, 0, -1, 1], [1, 1, 2, -1], [0, 1, 2, 3]],
                                                           device=a.device)),
        lambda: (t(3, 4),)),
    "multilabel_margin_loss_forward.none": (
        lambda a: F.multilabel_margin_loss(a, torch.tensor([[2, -1, 0], [0, 1, -1]], device=a.device),
                                           reduction="none"),
        lambda: (t(2, 3),)),
    "max_unpool2d": (unpooled(F.max_pool2d, F.max_unpool2d, None), lambda: (t(2, 3, 4, 6),)),
    "max_unpool2d.output_size": (unpooled(F.max_pool2d, F.max_unpool2d, (5, 7)), lambda: (t(1, 2, 5, 7),)),
    "max_unpool1d": (unpooled(F.max_pool1d, F.max_unpool1d, None), lambda: (t(2, 3, 6),)),
    "max_unpool3d": (unpooled(F.max_pool3d, F.max_unpool3d, None), lambda: (t(1, 2, 4, 2, 4),)),
    "index_reduce.prod": (index_reduced("prod"), lambda: (t(4, 2), t(3, 2, seed=71))),
    "index_reduce.mean_excluding_self": (index_reduced("mean", False), lambda: (t(4, 2), t(3, 2, seed=72))),
    "index_reduce.amax": (index_reduced("amax"), lambda: (t(4, 2), t(3, 2, seed=73))),
    "index_reduce_.amin": (index_reduced("amin", in_place=True), lambda: (t(4, 2), t(3, 2, seed=74))),
}


# Cases whose gradient is not checked, and why.
NO_GRADIENT = {
    "zero": "not differentiable",
    "histc": "PyTorch 1.13 has no derivative for histc",
    "histc.range": "as histc", "histc.edges_float32": "as histc", "histc.one_value": "as histc",
    "bincount": "integer counts", "bincount.empty": "integer counts",
    "bincount.weights": "PyTorch 1.13 has no derivative for bincount", "bincount.float32_weights": "as bincount",
    "_unique2": "PyTorch 1.13 has no derivative for _unique2", "unique_dim.columns": "nor for unique_dim",
    "unique_consecutive.dim": "nor for unique_consecutive",
    "linalg_lstsq.gelss_vector": "PyTorch 1.13's lstsq backward fails for a vector B (on its CPU too)",
    "pow.Scalar_int": "integers", "gcd": "integers", "gcd.int32_broadcast": "integers", "lcm": "integers",
    "gcd_": "integers", "nextafter": "PyTorch 1.13 has no derivative for nextafter", "nextafter.float32": "as nextafter",
    "nextafter_": "as nextafter", "special_entr.int": "integers", "isin": "bools", "isin.invert": "bools", "isin.Tensor_Scalar": "bools",
    "isin.Scalar_Tensor": "bools", "repeat_interleave.Tensor": "integers",
    "channel_shuffle": "PyTorch 1.13 has no derivative for channel_shuffle", "channel_shuffle.1d": "as channel_shuffle",
    "linalg_cholesky_ex.not_definite": "integer info",
    "_linalg_svd.matrix_rank": "an integer rank",
    "linalg_qr.r": "PyTorch refuses to differentiate mode='r' (no Q)",
    "aminmax": "PyTorch 1.13 has no derivative for aminmax",
    "aminmax.all": "as aminmax",
    "heaviside": "PyTorch 1.13 has no derivative for heaviside",
    "narrow_copy": "PyTorch 1.13 has no derivative for narrow_copy",
    "view_copy.dtype": "not differentiable",
    "grid_sample.nearest": "the grid's gradient is zero almost everywhere; PyTorch's is exactly zero, ours too, "
                           "but input's is checked by the bilinear cases",
    "as_strided_copy": "PyTorch's as_strided backward writes through as_strided views of a storage, which "
                       "lazy tensors do not have (it runs on the fallback); lazygen's own gradient is gradchecked",
    "as_strided_scatter": "as as_strided_copy",
}
# Cases whose inputs after the first `n` are not differentiated (PyTorch refuses a gradient there).
DIFFERENTIATED = {"binary_cross_entropy": 2, "multi_margin_loss.p2_weight_none": 1, "nll_loss2d_forward.none": 1,
                  "nll_loss2d_forward.ignore": 1}


def run(fn, inputs, device, grad, differentiated=None):
    xs = [x.detach().to(device) for x in inputs]
    for x in xs[:differentiated]:
        if grad and x.dtype.is_floating_point:
            x.requires_grad_()
    out = fn(*xs)
    outs = out if isinstance(out, tuple) else (out,)
    grads = []
    floating = [o for o in outs if o.dtype.is_floating_point and o.requires_grad]
    if grad and floating:
        weight = [torch.linspace(-1, 1, o.numel(), dtype=o.dtype).reshape(o.shape).to(device) for o in floating]
        sum((o * w).sum() for o, w in zip(floating, weight)).backward()
        grads = [x.grad for x in xs if x.requires_grad]
    return outs, grads


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_device_answers_as_pytorch_does(dev, name):
    fn, make = CASES[name]
    grad = name not in NO_GRADIENT
    expected, expected_grads = run(fn, make(), "cpu", grad, DIFFERENTIATED.get(name))
    got, got_grads = run(fn, make(), dev, grad, DIFFERENTIATED.get(name))
    for g, e in zip(got, expected):
        assert_same(g, e.detach(), rtol=1e-9, atol=1e-12)
    for g, e in zip(got_grads, expected_grads):
        assert_same(g, e, rtol=1e-9, atol=1e-12)
    assert fallbacks() == {}, f"{name} ran on the CPU fallback"


def test_dropout_and_random_ops_draw_on_the_device(dev):
    torch.manual_seed(0)
    x = torch.ones(2000, dtype=torch.float64, device=dev, requires_grad=True)
    y = F.dropout(x, 0.25, training=True)
    y.sum().backward()
    kept = (y.detach().cpu() != 0)
    assert 0.7 < kept.double().mean().item() < 0.8
    assert torch.equal(y.detach().cpu()[kept], torch.full((int(kept.sum()),), 1 / 0.75, dtype=torch.float64))
    assert torch.equal(x.grad.cpu(), y.detach().cpu())  # the gradient passes where the mask kept
    z = torch.empty(4000, device=dev)
    z.normal_(2.0, 0.5)
    mean, std = z.cpu().mean().item(), z.cpu().std().item()
    assert abs(mean - 2.0) < 0.05 and abs(std - 0.5) < 0.05
    e = torch.empty(4000, device=dev).exponential_(4.0).cpu()  # mean and std 1/4
    assert e.min().item() >= 0 and abs(e.mean().item() - 0.25) < 0.02 and abs(e.std().item() - 0.25) < 0.02
    r = torch.empty(1000, dtype=torch.int64, device=dev).random_(3, 7).cpu()
    assert r.min().item() == 3 and r.max().item() == 6
    b = torch.bernoulli(torch.full((4000,), 0.3, device=dev)).cpu()
    assert set(b.unique().tolist()) <= {0.0, 1.0} and 0.26 < b.mean().item() < 0.34
    bp = torch.bernoulli(torch.zeros(4000, device=dev), p=0.6).cpu()
    assert set(bp.unique().tolist()) <= {0.0, 1.0} and 0.56 < bp.mean().item() < 0.64
    assert fallbacks() == {}


def test_multinomial_draws_on_the_device(dev):
    torch.manual_seed(0)
    weights = torch.tensor([1.0, 2.0, 7.0, 0.0], dtype=torch.float64)
    draws = torch.multinomial(weights.to(dev), 20000, replacement=True).cpu()
    assert draws.dtype == torch.int64 and draws.shape == (20000,)
    shares = torch.bincount(draws, minlength=4).double() / 20000
    assert torch.allclose(shares, weights / weights.sum(), atol=0.015), shares
    rows = torch.tensor([[1.0, 2.0, 3.0, 4.0], [4.0, 0.0, 1.0, 1.0]])
    picked = torch.multinomial(rows.to(dev), 3).cpu()  # without replacement
    assert picked.shape == (2, 3) and all(len(set(r)) == 3 for r in picked.tolist())
    assert sorted(picked[1].tolist()) == [0, 2, 3]  # the zero weight is never drawn
    one = torch.multinomial(weights.expand(20000, 4).to(dev), 1).cpu()
    assert one.shape == (20000, 1)
    assert torch.allclose(torch.bincount(one.flatten(), minlength=4).double() / 20000,
                          weights / weights.sum(), atol=0.015)
    torch.manual_seed(3)
    again = torch.multinomial(rows.to(dev), 5, replacement=True).cpu()
    torch.manual_seed(3)
    assert torch.equal(torch.multinomial(rows.to(dev), 5, replacement=True).cpu(), again)
    assert torch.multinomial(torch.zeros(0, 3, device=dev), 1).shape == (0, 1)
    assert fallbacks() == {}


@pytest.mark.parametrize("weights, n, replacement", [
    (torch.tensor([1, 2]), 1, False),
    (torch.tensor([1.0, 2.0, 3.0]), 0, True),
    (torch.tensor([1.0, 2.0, 3.0]), 4, False),
    (torch.zeros(2, 2, 2), 1, True),
    (torch.tensor([1.0, -1.0]), 1, False), (torch.tensor([1.0, -1.0]), 2, True),
    (torch.tensor([1.0, float("inf")]), 1, False), (torch.tensor([1.0, float("inf")]), 2, True),
    (torch.tensor([1.0, float("nan")]), 2, True),
    (torch.tensor([[1.0, 2.0], [0.0, 0.0]]), 1, False), (torch.tensor([[1.0, 2.0], [0.0, 0.0]]), 2, True),
    (torch.zeros(3, 0), 1, True),
])
def test_multinomial_refuses_what_pytorch_refuses(dev, weights, n, replacement):
    with pytest.raises(RuntimeError) as expected:
        torch.multinomial(weights, n, replacement)
    with pytest.raises((RuntimeError, ValueError), match=re.escape(str(expected.value).splitlines()[0])):
        torch.multinomial(weights.to(dev), n, replacement)


@pytest.mark.parametrize("call, inputs", [
    (torch.mode, (torch.zeros(0),)),
    (torch.bincount, (torch.tensor([-1]),)), (torch.bincount, (torch.tensor([[1]]),)),
    (torch.bincount, (torch.tensor([1.0]),)), (torch.bincount, (torch.tensor([True]),)),
    (lambda a: torch.bincount(a, minlength=-1), (torch.tensor([1]),)),
    (torch.bincount, (torch.tensor([1, 2]), torch.tensor([1.0]))),
    (lambda a: torch.unique(a, dim=1), (torch.zeros(0, 3),)),
    (lambda a: torch.unique(a, dim=1), (torch.zeros(0, 0),)),
    (lambda a: torch.unique(a, dim=0), (torch.tensor(3.0),)),
    (lambda a: torch.unique_consecutive(a, dim=1), (torch.zeros(0, 3),)),
    (lambda a: F.channel_shuffle(a, 2), (torch.zeros(1, 3, 2, 2),)),
    (lambda a: F.channel_shuffle(a, 0), (torch.zeros(1, 4, 2, 2),)),
    (lambda a: F.channel_shuffle(a, 2), (torch.zeros(4),)),
])
def test_counting_ops_refuse_what_pytorch_refuses(dev, call, inputs):
    with pytest.raises((RuntimeError, IndexError)) as expected:
        call(*inputs)
    message = re.escape(str(expected.value).splitlines()[0].strip())
    with pytest.raises((RuntimeError, ValueError, IndexError), match=message):
        call(*(x.to(dev) for x in inputs))
    assert fallbacks() == {}


@pytest.mark.parametrize("call, inputs", [
    (torch.linalg.solve, (torch.eye(3), torch.ones(4, 3))),
    (torch.linalg.solve, (torch.zeros(2, 2), torch.ones(2))),  # singular: PyTorch's LinAlgError
    (torch.linalg.solve, (torch.ones(2, 3), torch.ones(2))),
    (lambda a, b: torch.linalg.solve(a, b, left=False), (torch.eye(2), torch.ones(2))),
    (lambda a, b: torch.linalg.solve_triangular(a, b, upper=True), (torch.eye(3), torch.ones(2, 3))),
    (torch.linalg.cholesky, (-torch.eye(3),)),
    (torch.linalg.cholesky, (torch.stack([torch.eye(2), -torch.eye(2)]),)),
    (torch.linalg.cholesky, (torch.ones(2, 3),)),
    (lambda a: torch.linalg.qr(a, mode="bad"), (torch.ones(2, 3),)),
    (torch.linalg.lu_factor, (torch.zeros(3, 3),)),
    (torch.linalg.eigh, (torch.ones(2, 3),)),
    (lambda a: torch.linalg.eigh(a, UPLO="X"), (torch.eye(2),)),
    (torch.linalg.eigh, (torch.full((3, 3), float("nan")),)),  # LinAlgError, LAPACK's error code
    (torch.linalg.svd, (torch.ones(2, 2, dtype=torch.int64),)),
    (torch.linalg.svd, (torch.ones(3),)),
    (torch.linalg.svd, (torch.full((2, 3), float("nan")),)),  # LinAlgError: non-finite values
    (lambda a: torch.linalg.svd(a, driver="gesvd"), (torch.eye(2),)),
    (torch.linalg.matrix_exp, (torch.ones(3, 2),)),
    (torch.linalg.matrix_exp, (torch.ones(3, 3, dtype=torch.int64),)),
    (torch.linalg.matrix_exp, (torch.ones(3),)),
    (lambda a: torch.linalg.lstsq(a, a, driver="lu"), (torch.ones(3, 2),)),
    (lambda a: torch.linalg.lstsq(a, a[:2]), (torch.ones(3, 2),)),
    (lambda a: torch.linalg.lstsq(a, a[0, 0]), (torch.ones(3, 2),)),
    (lambda a: torch.linalg.lstsq(a[0], a[0]), (torch.ones(3, 2),)),
    (lambda a: torch.linalg.lstsq(a, a.expand(2, 3, 2)), (torch.ones(3, 2),)),
    (lambda a: torch.linalg.lstsq(a, a.double()), (torch.ones(3, 2),)),
    (lambda a: torch.linalg.lstsq(a, a), (torch.ones(3, 2, dtype=torch.int64),)),
    # LinAlgError: rank 1. A zero column, so that the pivot is zero whatever LAPACK's rounding (on
    # ones(3, 2) some machines' OpenBLAS leaves 1e-16 there, and PyTorch answers instead)
    (lambda a: torch.linalg.lstsq(a, a, driver="gels"), (torch.tensor([[1., 0.]] * 3),)),
    (lambda a: torch.linalg.lstsq(a, a, driver="gels"), (torch.tensor([[[1., 0.]] * 3] * 2),)),  # in batch element 0
    (torch.linalg.pinv, (torch.full((2, 2), float("nan")),)),
    (lambda a: F.multi_margin_loss(a, torch.tensor([0, 1]).to(a.device)), (torch.zeros(3, 4),)),
    (lambda a: F.multilabel_margin_loss(a, torch.tensor([[0, 1, -1, 0]]).to(a.device)), (torch.zeros(3, 4),)),
    (lambda a: F.max_unpool2d(a, torch.zeros(1, 1, 2, 3, dtype=torch.long).to(a.device), 2),
     (torch.zeros(1, 1, 2, 2),)),
    (lambda a: a.index_reduce(0, torch.tensor([0]).to(a.device), a[:1], "sum"), (torch.zeros(2, 2),)),
])
def test_linalg_and_loss_ops_refuse_what_pytorch_refuses(dev, call, inputs):
    with pytest.raises(RuntimeError) as expected:
        call(*inputs)
    with pytest.raises(type(expected.value), match=re.escape(str(expected.value).splitlines()[0])):
        call(*(x.to(dev) for x in inputs))
    assert fallbacks() == {}


def test_embedding_max_norm_caps_the_rows_it_reads(dev):
    weight = torch.randn(10, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * 3
    cpu = torch.nn.Embedding.from_pretrained(weight.clone(), freeze=False, max_norm=1.0)
    lazy = torch.nn.Embedding.from_pretrained(weight.clone(), freeze=False, max_norm=1.0).to(dev)
    idx = torch.tensor([[1, 2, 2], [7, 1, 0]])  # repeated rows are capped once
    expected, got = cpu(idx), lazy(idx.to(dev))
    expected.sum().backward()
    got.sum().backward()
    assert_same(got, expected.detach())
    assert_same(lazy.weight.detach(), cpu.weight.detach())  # embedding_renorm_ wrote in place
    assert_same(lazy.weight.grad, cpu.weight.grad)
    assert fallbacks() == {}


@pytest.mark.parametrize("index, source", [
    (torch.tensor([1]), torch.tensor([7.0, 8.0])),  # one source element per index
    (torch.tensor([1], dtype=torch.int32), torch.tensor([7.0])),  # a long index
])
def test_put_refuses_what_pytorch_refuses(dev, index, source):
    with pytest.raises((RuntimeError, IndexError)) as expected:
        torch.zeros(3).put_(index, source)
    message = re.escape(str(expected.value).splitlines()[0].split(" but got")[0])
    with pytest.raises((RuntimeError, ValueError), match=message):
        torch.zeros(3, device=dev).put_(index.to(dev), source.to(dev))


def test_mode_counts_each_nan_once(dev):
    # A deliberate difference (docs/pytorch-device.md): PyTorch 1.13's CPU kernel sorts with a
    # comparison that NaN breaks, so its answer depends on where the NaNs sit ([2, nan, nan, 1, 2]
    # gives 1, [nan, nan, 1, 1] gives 1, [nan, 1, nan] gives nan). The device sorts NaN last and
    # counts each NaN as a value of its own.
    x = torch.tensor([[2.0, float("nan"), float("nan"), 1.0, 2.0], [float("nan"), 1.0, float("nan"), 3.0, 0.0]])
    values, indices = torch.mode(x.to(dev))
    assert values.cpu().tolist() == [2.0, 0.0] and indices.cpu().tolist() == [4, 4]
    assert fallbacks() == {}


def test_unique_unsorted_holds_the_same_values(dev):
    # PyTorch 1.13's CPU kernel returns unsorted values in hash order, which sorted=False allows;
    # the device sorts either way. The inverse and counts must agree with the values returned.
    x = torch.tensor([3, 1, 2, 3, 1, 1, 7])
    values, inverse, counts = torch.unique(x.to(dev), sorted=False, return_inverse=True, return_counts=True)
    values, inverse, counts = values.cpu(), inverse.cpu(), counts.cpu()
    assert sorted(values.tolist()) == torch.unique(x).tolist()
    assert torch.equal(values[inverse], x)
    assert counts.tolist() == [int((x == v).sum()) for v in values]
    assert fallbacks() == {}


def test_shifts_past_the_width_are_defined_as_in_pytorch_2(dev):
    # A deliberate difference (docs/pytorch-device.md): PyTorch 1.13's CPU kernel shifts by the
    # count modulo the width here, C++'s undefined behavior.
    x = torch.tensor([3, -3, 1], dtype=torch.int32, device=dev)
    assert (x << 40).cpu().tolist() == [0, 0, 0]
    assert (x >> torch.tensor([32, 33, -1], dtype=torch.int32, device=dev)).cpu().tolist() == [0, -1, 0]
    assert (x.long() << 64).cpu().tolist() == [0, 0, 0]
    assert fallbacks() == {}


@pytest.mark.parametrize("values, args", [
    (torch.tensor([1, 2]), ()), (torch.tensor([True]), ()), (torch.tensor([1.0, 2.0]), (0,)),
    (torch.tensor([1.0, 2.0]), (4, 3, 1)), (torch.tensor([1.0, float("inf")]), ()),
    (torch.tensor([1.0, 2.0]), (4, 0, float("inf"))),
])
def test_histc_refuses_what_pytorch_refuses(dev, values, args):
    with pytest.raises(RuntimeError) as expected:
        torch.histc(values, *args)
    with pytest.raises((RuntimeError, ValueError), match=re.escape(str(expected.value).splitlines()[0])):
        torch.histc(values.to(dev), *args)


def test_errors_name_the_op_and_shapes(dev):
    with pytest.raises((RuntimeError, ValueError), match="stack.*equal size.*\\[2, 3\\].*\\[2, 4\\]"):
        torch.stack([torch.zeros(2, 3, device=dev), torch.zeros(2, 4, device=dev)])
    with pytest.raises((RuntimeError, ValueError), match="glu.*Halving dimension must be even"):
        F.glu(torch.zeros(2, 3, device=dev))
    with pytest.raises((RuntimeError, ValueError), match="topk.*out of range"):
        torch.zeros(2, 3, device=dev).topk(4)
    with pytest.raises((RuntimeError, ValueError), match="masked_scatter.*source < number of ones in mask: 2 < 3"):
        torch.arange(4.0, device=dev).masked_scatter(torch.tensor([1, 1, 0, 1], dtype=torch.bool, device=dev),
                                                     torch.ones(2, device=dev))
    with pytest.raises((RuntimeError, ValueError), match="ZeroDivisionError"):
        torch.div(torch.tensor([7, 8], device=dev), torch.tensor([2, 0], device=dev), rounding_mode="floor")
    with pytest.raises((RuntimeError, ValueError), match="as_strided_copy.*reach element 12"):
        torch.ops.aten.as_strided_copy(torch.zeros(3, 4, device=dev), (2, 2), (4, 8))
    with pytest.raises((RuntimeError, ValueError), match="kthvalue.*k = 4 is out of range.*\\[2, 3\\]"):
        torch.zeros(2, 3, device=dev).kthvalue(4)
    with pytest.raises((RuntimeError, ValueError), match="median.*dim 1 of \\[2, 0\\].*non-zero size"):
        torch.zeros(2, 0, device=dev).median(1)
    with pytest.raises((RuntimeError, ValueError), match="linalg_cross.*\\[2, 4\\].*size 3"):
        torch.linalg.cross(torch.zeros(2, 4, device=dev), torch.zeros(2, 4, device=dev))
    with pytest.raises((RuntimeError, ValueError), match="searchsorted.*\\[3, 5\\].*\\[2, 4\\]"):
        torch.searchsorted(torch.zeros(3, 5, device=dev), torch.zeros(2, 4, device=dev))
    with pytest.raises((RuntimeError, ValueError), match="bucketize.*1-d boundaries.*\\[2, 2\\]"):
        torch.bucketize(torch.zeros(3, device=dev), torch.zeros(2, 2, device=dev))
    with pytest.raises((RuntimeError, ValueError), match="diag_embed: diagonal dimensions cannot be identical 1, 1"):
        torch.diag_embed(torch.zeros(2, 3, device=dev), 0, 1, 1)
    with pytest.raises((RuntimeError, ValueError), match="diag.*matrix or a vector.*\\[2, 2, 2\\]"):
        torch.diag(torch.zeros(2, 2, 2, device=dev))
    # Inputs PyTorch refuses are refused too (the composites would have computed something).
    flags = torch.tensor([True, False, True], device=dev)
    for bools in (lambda: flags.median(), lambda: flags.kthvalue(1), lambda: flags.nanmedian(),
                  lambda: torch.searchsorted(flags, flags)):
        with pytest.raises((RuntimeError, ValueError), match="takes numbers, not a bool tensor"):
            bools()
    with pytest.raises((RuntimeError, ValueError), match="im2col: expected a floating tensor, got int64"):
        F.unfold(torch.ones(1, 1, 3, 3, dtype=torch.int64, device=dev), 2)
    with pytest.raises((RuntimeError, ValueError), match="col2im: expected a floating tensor, got int64"):
        F.fold(torch.ones(1, 4, 4, dtype=torch.int64, device=dev), (3, 3), 2)
    with pytest.raises((RuntimeError, ValueError), match="linalg_cross: expected inputs of one dtype, got float32 and float64"):
        torch.linalg.cross(torch.ones(2, 3, device=dev), torch.ones(2, 3, dtype=torch.float64, device=dev))
    with pytest.raises((RuntimeError, ValueError), match="scatter_reduce: reduce argument must be either sum, prod, "
                                                         "mean, amax or amin, got 'max'"):
        torch.zeros(2, 3, device=dev).scatter_reduce(0, torch.zeros(1, 3, dtype=torch.int64, device=dev),
                                                     torch.ones(1, 3, device=dev), "max")
    with pytest.raises((RuntimeError, ValueError), match="scatter_reduce.*self.dtype to be equal to src.dtype"):
        torch.zeros(2, 3, device=dev).scatter_reduce(0, torch.zeros(1, 3, dtype=torch.int64, device=dev),
                                                     torch.ones(1, 3, dtype=torch.float64, device=dev), "sum")
    with pytest.raises((RuntimeError, ValueError), match="avg_pool3d: divisor must be not zero"):
        F.avg_pool3d(torch.zeros(1, 1, 2, 2, 2, device=dev), 2, divisor_override=0)
    with pytest.raises((RuntimeError, ValueError), match="polygamma.*does not support negative n"):
        torch.polygamma(-1, torch.ones(2, device=dev))
    singular = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], device=dev)
    with pytest.raises(RuntimeError, match="linalg.inv: The diagonal element 2 is zero"):
        torch.linalg.inv(singular)  # PyTorch's check, on the device's info


def test_average_pooling_of_integers_runs_on_the_cpu(dev):
    x = torch.arange(48).reshape(1, 2, 2, 3, 4)
    assert_same(F.avg_pool3d(x.to(dev), 2, stride=1, padding=1), F.avg_pool3d(x, 2, stride=1, padding=1))
    assert fallbacks() == {"aten::avg_pool3d": 1}


def test_polygamma_of_integers_computes_in_float32(dev):
    x = torch.tensor([1, 2, 7, 30])
    for n in range(4):
        assert_same(torch.polygamma(n, x.to(dev)), torch.polygamma(n, x), rtol=1e-6, atol=0)
    assert fallbacks() == {}


def test_masked_writes_of_one_value_do_not_sync(dev):
    # x[mask] = v with one v for every masked position is a where() (Note [Masked writes without
    # nonzero]): cross_entropy's label smoothing with an ignore_index writes so, forward and back.
    syncs = lambda: lazygen_torch.metrics.counter_value("exec.sync") or 0  # noqa: E731
    x = t(4, 5)
    mask = x > 0.5
    expected = x.clone()
    expected[mask] = -1.0
    expected[:, mask[0]] = torch.arange(4.0, dtype=torch.float64).unsqueeze(1)
    expected.index_put_((mask[:, 0],), torch.arange(5.0, dtype=torch.float64), accumulate=True)
    got = x.to(dev)
    before = syncs()
    got[mask.to(dev)] = -1.0
    got[:, mask[0].to(dev)] = torch.arange(4.0, dtype=torch.float64, device=dev).unsqueeze(1)
    got.index_put_((mask[:, 0].to(dev),), torch.arange(5.0, dtype=torch.float64, device=dev),
                   accumulate=True)
    assert syncs() == before
    assert_same(got, expected)
    logits = t(6, 5).requires_grad_()
    target = torch.tensor([0, 1, 2, 0, 4, 3])
    lazy_logits = logits.detach().to(dev).requires_grad_()
    before = syncs()
    loss = F.cross_entropy(lazy_logits, target.to(dev), ignore_index=0, label_smoothing=0.1,
                           reduction="sum")
    loss.backward()
    assert syncs() == before
    expected_loss = F.cross_entropy(logits, target, ignore_index=0, label_smoothing=0.1, reduction="sum")
    expected_loss.backward()
    assert_same(loss, expected_loss.detach())
    assert_same(lazy_logits.grad, logits.grad)
    assert fallbacks() == {}


def test_softshrink_refuses_a_negative_lambda_as_pytorch_does(dev):
    for device in ("cpu", dev):
        with pytest.raises(RuntimeError, match="lambda must be greater or equal to 0, but found to be -1"):
            F.softshrink(torch.zeros(3, device=device), -1.0)


def test_addmv_and_embedding_bag_refuse_what_pytorch_refuses(dev):
    with pytest.raises(RuntimeError, match="vector \\+ matrix @ vector expected, got 2, 2, 1"):
        torch.addmv(torch.zeros(2, 3, device=dev), torch.zeros(3, 4, device=dev), torch.zeros(4, device=dev))
    with pytest.raises((RuntimeError, ValueError), match="addmv"):
        torch.addmv(torch.zeros(2, device=dev), torch.zeros(3, 4, device=dev), torch.zeros(4, device=dev))
    with pytest.raises((RuntimeError, ValueError), match="per_sample_weights of dtype float64 must have weight's dtype float32"):
        F.embedding_bag(torch.tensor([1, 2], device=dev), torch.zeros(5, 2, device=dev), torch.tensor([0], device=dev),
                        mode="sum", per_sample_weights=torch.ones(2, dtype=torch.float64, device=dev))


def test_embedding_bag_scales_gradients_by_the_true_frequency(dev):
    # PyTorch 1.13's CPU kernel divides by the count of another index when counts differ
    # (pytorch/pytorch#190063, fixed upstream); the device divides each row by its own count, as
    # the documentation, CUDA and PyTorch's fix do.
    w = torch.ones(4, 3, dtype=torch.float64, device=dev, requires_grad=True)
    indices, offsets = torch.tensor([1, 1, 3], device=dev), torch.tensor([0], device=dev)
    F.embedding_bag(indices, w, offsets, mode="sum", scale_grad_by_freq=True).sum().backward()
    assert w.grad.cpu()[:, 0].tolist() == [0.0, 1.0, 0.0, 1.0]
    assert fallbacks() == {}


def test_factorizations_run_one_lapack_node_and_pytorchs_autograd_differentiates_them(dev):
    # Note [LAPACK or unrolled]: a factorization on the device is one _lapack_getrf node, no
    # unrolled LU (no argmax), also under autograd: PyTorch's own derivative formulas differentiate
    # the op, so the device's kernels never see a tensor that needs a gradient.
    traced = lambda op: lazygen_torch.metrics.counter_value("lazy.op." + op) or 0  # noqa: E731
    a, b = well_conditioned(t(2, 4, 4)), t(2, 4, 3, seed=70)
    getrf, argmax = traced("_lapack_getrf"), traced("argmax")
    assert_same(torch.linalg.solve(a.to(dev), b.to(dev)), torch.linalg.solve(a, b))
    assert (traced("_lapack_getrf"), traced("argmax")) == (getrf + 1, argmax)
    leaf = a.clone().requires_grad_()
    lazy_leaf = a.to(dev).requires_grad_()
    torch.linalg.solve(lazy_leaf, b.to(dev)).sum().backward()
    torch.linalg.solve(leaf, b).sum().backward()
    assert (traced("_lapack_getrf"), traced("argmax")) == (getrf + 2, argmax)
    assert_same(lazy_leaf.grad, leaf.grad)
    lazygen_torch.set_lapack_enabled(False)
    try:
        assert_same(torch.linalg.solve(a.to(dev), b.to(dev)), torch.linalg.solve(a, b))
    finally:
        lazygen_torch.set_lapack_enabled(True)
    # unrolled: a pivot choice per column and one for info
    assert (traced("_lapack_getrf"), traced("argmax")) == (getrf + 2, argmax + 5)
    # QR: one _lapack_geqrf node, no unrolled reflections (no hypot), with and without autograd
    geqrf, hypot = traced("_lapack_geqrf"), traced("hypot")
    lazy_leaf = b.to(dev).requires_grad_()
    leaf = b.clone().requires_grad_()
    for x, y in ((lazy_leaf, leaf), (b.to(dev), b)):
        (q, r), (want_q, want_r) = torch.linalg.qr(x), torch.linalg.qr(y)
        assert_same(q, want_q)
        assert_same(r, want_r)
        if x.requires_grad:
            (q.sum() + r.sum()).backward()
            (want_q.sum() + want_r.sum()).backward()
            assert_same(lazy_leaf.grad, leaf.grad)
    assert (traced("_lapack_geqrf"), traced("hypot")) == (geqrf + 2, hypot)
    assert fallbacks() == {}
