"""The device's own decompositions of ops PyTorch decomposes with a sync (Note [Decompositions
above autograd] in runtime/pytorch/decompositions.cpp): each answers as PyTorch's CPU does,
gradients and errors included, and traces without a sync."""
import itertools

import pytest
import torch
import torch.nn.functional as F

import lazygen_torch
from conftest import assert_same, fallbacks


def syncs():
    return lazygen_torch.metrics.counter_value("exec.sync") or 0


def run_on(device, fn, *inputs):
    """fn's result and the gradients of its floating inputs, with fn's inputs moved to `device`;
    also the syncs its trace made (forward and backward, before the results are read)."""
    leaves = [x.detach().to(device).requires_grad_(x.dtype.is_floating_point) for x in inputs]
    before = syncs()
    out = fn(*leaves)
    out.backward(torch.ones_like(out))
    traced = syncs() - before
    return out.detach(), [x.grad for x in leaves if x.requires_grad], traced


def expect_matches_cpu_without_syncs(dev, fn, *inputs):
    expected, expected_grads, _ = run_on("cpu", fn, *inputs)
    got, grads, traced = run_on(dev, fn, *inputs)
    assert traced == 0, "the trace synced"
    assert_same(got, expected)
    for g, e in zip(grads, expected_grads):
        assert_same(g, e)


def test_both_are_registered_above_autograd():
    report = {name: (origin, registered, reason)
              for name, origin, registered, reason in lazygen_torch.registration_report()}
    for name in ("cross_entropy_loss", "repeat_interleave.self_int"):
        assert report[name] == ("decomposition", True, ""), report[name]


G = torch.Generator().manual_seed(3)
LOGITS = {"batch": torch.randn(6, 5, generator=G, dtype=torch.float64),
          "one sample": torch.randn(5, generator=G, dtype=torch.float64),
          "image": torch.randn(2, 5, 3, 2, generator=G, dtype=torch.float64)}
TARGETS = {"batch": torch.tensor([0, 1, 2, 0, 4, 3]), "one sample": torch.tensor(2),
           "image": torch.tensor([[[0, 1], [2, 0], [4, 3]], [[1, 1], [0, 2], [3, 4]]])}
WEIGHT = torch.tensor([0.5, 1.0, 2.0, 0.25, 1.5], dtype=torch.float64)


@pytest.mark.parametrize("reduction,weighted,ignore_index,layout", itertools.product(
    ["mean", "sum", "none"], [False, True], [-100, 0], ["batch", "one sample", "image"]))
def test_label_smoothing_matches_cpu_without_syncs(dev, reduction, weighted, ignore_index, layout):
    target = TARGETS[layout]
    weight = WEIGHT.to(dev) if weighted else None
    expected_weight = WEIGHT if weighted else None

    def loss(logits):
        w = weight if logits.device.type != "cpu" else expected_weight
        return F.cross_entropy(logits, target.to(logits.device), weight=w, reduction=reduction,
                               ignore_index=ignore_index, label_smoothing=0.2)
    expect_matches_cpu_without_syncs(dev, loss, LOGITS[layout])
    assert fallbacks() == {}


@pytest.mark.parametrize("smoothing", [1.0, 0.05])
def test_label_smoothing_at_the_ends_of_its_range_and_when_every_target_is_ignored(dev, smoothing):
    ignored = torch.tensor([4, 4, 4, 4, 4, 4])
    for target in (TARGETS["batch"], ignored):
        def loss(logits, target=target):
            return F.cross_entropy(logits, target.to(logits.device), ignore_index=4,
                                   label_smoothing=smoothing)
        expect_matches_cpu_without_syncs(dev, loss, LOGITS["batch"])  # all ignored: NaN, as PyTorch


def test_other_cross_entropy_forms_are_pytorchs(dev):
    probabilities = torch.softmax(torch.randn(6, 5, generator=G, dtype=torch.float64), 1)
    expect_matches_cpu_without_syncs(
        dev, lambda x: F.cross_entropy(x, probabilities.to(x.device), label_smoothing=0.1),
        LOGITS["batch"])
    expect_matches_cpu_without_syncs(
        dev, lambda x: F.cross_entropy(x, TARGETS["batch"].to(x.device)), LOGITS["batch"])


def test_label_smoothing_errors_are_pytorchs(dev):
    x = LOGITS["batch"]
    for device in ("cpu", dev):
        with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
            F.cross_entropy(x.to(device), TARGETS["batch"].to(device), label_smoothing=1.5)
        with pytest.raises(ValueError, match=r"input batch_size \(6\) to match target batch_size \(2\)"):
            F.cross_entropy(x.to(device), torch.tensor([0, 1]).to(device), label_smoothing=0.1)


X = torch.randn(3, 1, 4, generator=G, dtype=torch.float64)


@pytest.mark.parametrize("repeats,dim", itertools.product([0, 1, 3], [None, 0, 1, -1]))
def test_repeat_interleave_by_an_int_matches_cpu_without_syncs(dev, repeats, dim):
    expect_matches_cpu_without_syncs(dev, lambda x: x.repeat_interleave(repeats, dim=dim), X)
    expect_matches_cpu_without_syncs(
        dev, lambda x: torch.repeat_interleave(x, repeats, dim, output_size=X.shape[dim or 0] * repeats
                                               if dim is not None else X.numel() * repeats), X)
    assert fallbacks() == {}


def test_repeat_interleave_by_an_int_makes_a_new_tensor(dev):
    for dim in (0, 1):  # repeats == 1, and a dim of size 1: a reshape could have been a view
        x = X.to(dev)
        y = x.repeat_interleave(1 if dim == 0 else 3, dim=dim)
        y.zero_()
        assert_same(x, X)
    assert_same(torch.arange(4, device=dev).repeat_interleave(2), torch.arange(4).repeat_interleave(2))


def test_repeat_interleave_errors(dev):
    for device in ("cpu", dev):
        with pytest.raises(RuntimeError, match="repeats can not be negative"):
            X.to(device).repeat_interleave(-1, dim=0)
        with pytest.raises(IndexError, match="Dimension out of range"):
            X.to(device).repeat_interleave(2, dim=3)
    with pytest.raises(RuntimeError, match="output_size 5 does not match 3 elements repeated 2 times"):
        X.to(dev).repeat_interleave(2, dim=0, output_size=5)
