"""rrelu and randperm draw on the device (runtime/pytorch/adapters/training.cpp): what they draw
is distributed as PyTorch's CPU draws it, gradients follow the slopes drawn, what does not draw
answers exactly as the CPU, torch.manual_seed repeats a run, and bad arguments raise PyTorch's
errors. The numbers themselves are not the CPU's (another generator)."""
import re

import pytest
import torch
import torch.nn.functional as F

from conftest import assert_same, fallbacks


def values(n=4000, dtype=torch.float64):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(n, generator=g, dtype=dtype)
    x[:4] = torch.tensor([0.0, -0.0, float("nan"), float("-inf")], dtype=dtype)
    return x


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_rrelu_in_training_scales_each_negative_element_by_a_drawn_slope(dev, dtype):
    torch.manual_seed(0)
    x = values(dtype=dtype)
    xd = x.to(dev).requires_grad_()
    y = F.rrelu(xd, 0.1, 0.3, training=True)
    y.sum().backward()
    got, grad = y.detach().cpu(), xd.grad.cpu()
    assert got.dtype == dtype and got.shape == x.shape
    positive = x > 0
    assert torch.equal(got[positive], x[positive]) and torch.equal(grad[positive], torch.ones_like(x[positive]))
    assert torch.isnan(got[2]) and grad[2] == 1  # NaN is not <= 0: kept, as on the CPU
    finite = (x < 0) & torch.isfinite(x)
    slopes = got[finite] / x[finite]
    assert 0.1 <= slopes.min() and slopes.max() < 0.3
    assert abs(slopes.mean().item() - 0.2) < 0.005 and abs(slopes.std().item() - 0.2 / 12 ** 0.5) < 0.005
    torch.testing.assert_close(grad[finite], slopes)  # the gradient is the slope drawn
    assert fallbacks() == {}


def test_rrelu_writes_the_slopes_it_drew_into_noise(dev):
    torch.manual_seed(1)
    x = values(200)
    noise = torch.full((200,), 7.0, dtype=torch.float64, device=dev)
    y = torch.ops.aten.rrelu_with_noise(x.to(dev), noise, 0.2, 0.4, True).cpu()
    noise = noise.cpu()
    assert torch.equal(noise[x > 0], torch.ones(int((x > 0).sum()), dtype=torch.float64))
    negative = x <= 0
    assert ((0.2 <= noise[negative]) & (noise[negative] < 0.4)).all()
    finite = torch.isfinite(x)
    assert torch.equal(y[finite], (x * noise)[finite])
    assert fallbacks() == {}


def test_rrelu_draws_again_each_call_and_repeats_under_manual_seed(dev):
    x = values(500).to(dev)
    torch.manual_seed(2)
    first, second = F.rrelu(x, training=True).cpu(), F.rrelu(x, training=True).cpu()
    torch.manual_seed(2)
    torch.testing.assert_close(F.rrelu(x, training=True).cpu(), first, rtol=0, atol=0, equal_nan=True)
    assert not torch.equal(first[4:], second[4:])  # past the NaN


@pytest.mark.parametrize("lower, upper", [(0.125, 1 / 3), (0.2, 0.2), (0.0, 0.5)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_rrelu_in_evaluation_is_the_cpus_mean_slope_leaky_relu(dev, lower, upper, dtype):
    x = values(300, dtype)
    expected_input = x.clone().requires_grad_()
    expected = F.rrelu(expected_input, lower, upper, training=False)
    expected.sum().backward()
    xd = x.to(dev).requires_grad_()
    got = F.rrelu(xd, lower, upper, training=False)
    got.sum().backward()
    assert_same(got, expected.detach())
    assert_same(xd.grad, expected_input.grad)
    assert fallbacks() == {}


def test_rrelu_with_equal_bounds_in_training_is_the_cpus(dev):
    x = values(300)
    assert_same(F.rrelu(x.to(dev), 0.25, 0.25, training=True), F.rrelu(x, 0.25, 0.25, training=True))


@pytest.mark.parametrize("training", [False, True])
def test_rrelu_in_place_writes_its_input(dev, training):
    torch.manual_seed(3)
    x = values(1000)
    leaf = x.to(dev).requires_grad_()
    y = leaf * 1.0
    out = F.rrelu(y, 0.1, 0.3, training=training, inplace=True)
    assert out is y
    out.sum().backward()
    got, grad = y.detach().cpu(), leaf.grad.cpu()
    if not training:
        assert_same(got, F.rrelu(x, 0.1, 0.3))
    finite = torch.isfinite(x) & (x != 0)
    torch.testing.assert_close(grad[finite], (got / x)[finite])  # slope 1 where kept
    assert fallbacks() == {}


@pytest.mark.parametrize("call", [
    lambda x: F.rrelu(x, 0.5, 0.2, training=True),
    lambda x: F.rrelu(x, 0.5, 0.2, training=False),
    lambda x: F.rrelu(x.long(), training=True),
    lambda x: F.rrelu(x.long(), training=False),
], ids=["bounds_training", "bounds_evaluation", "integer_training", "integer_evaluation"])
def test_rrelu_refuses_what_pytorch_refuses(dev, call):
    x = values(10)
    with pytest.raises(RuntimeError) as expected:
        call(x)
    with pytest.raises(RuntimeError, match=re.escape(str(expected.value).splitlines()[0])):
        call(x.to(dev))


def test_rrelu_refuses_a_noise_of_another_shape(dev):
    # PyTorch's CPU kernel reads and writes past such a noise tensor; the device refuses it.
    noise = torch.empty(3, dtype=torch.float64, device=dev)
    with pytest.raises(RuntimeError, match=re.escape("noise of shape [3] must have self's shape [10]")):
        torch.ops.aten.rrelu_with_noise(values(10).to(dev), noise, 0.1, 0.3, True)


@pytest.mark.parametrize("n", [0, 1, 2, 17, 10000])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float32, torch.float64])
def test_randperm_is_a_permutation(dev, n, dtype):
    torch.manual_seed(4)
    p = torch.randperm(n, device=dev, dtype=dtype)
    assert p.device == dev and p.dtype == dtype and p.shape == (n,)
    assert torch.equal(p.cpu().sort().values, torch.arange(n, dtype=dtype))
    assert fallbacks() == {}


def test_randperm_is_uniform(dev):
    torch.manual_seed(5)
    counts = torch.zeros(4, 4)
    for _ in range(600):
        p = torch.randperm(4, device=dev).cpu()
        counts[torch.arange(4), p] += 1
    assert ((counts - 150).abs() < 45).all(), counts  # each value at each place 1/4 of the time
    long = torch.randperm(10000, device=dev).double().cpu()
    order = torch.arange(10000, dtype=torch.float64)
    assert abs(torch.corrcoef(torch.stack([long, order]))[0, 1].item()) < 0.05


def test_randperm_repeats_under_manual_seed_and_a_generator(dev):
    torch.manual_seed(6)
    a, b = torch.randperm(50, device=dev).cpu(), torch.randperm(50, device=dev).cpu()
    assert not torch.equal(a, b)
    torch.manual_seed(6)
    assert torch.equal(torch.randperm(50, device=dev).cpu(), a)
    g = torch.Generator().manual_seed(9)
    first = torch.randperm(50, generator=g, device=dev).cpu()
    g.manual_seed(9)
    assert torch.equal(torch.randperm(50, generator=g, device=dev).cpu(), first)


def test_randperm_indexes_a_device_batch(dev):
    # Mixup's shuffle: a permutation drawn on the device indexes the batch there, with no sync.
    torch.manual_seed(7)
    batch = torch.arange(12, dtype=torch.float64).reshape(6, 2)
    shuffled = batch.to(dev)[torch.randperm(6, device=dev)].cpu()
    assert torch.equal(shuffled.sort(dim=0).values, batch)
    assert fallbacks() == {}


def test_randperm_out_resizes_its_out_tensor(dev):
    out = torch.empty(0, dtype=torch.int64, device=dev)
    torch.randperm(7, out=out)
    assert torch.equal(out.cpu().sort().values, torch.arange(7))


@pytest.mark.parametrize("n, dtype", [(-1, torch.int64), (3, torch.bool), (2 ** 24 + 2, torch.float32)])
def test_randperm_refuses_what_pytorch_refuses(dev, n, dtype):
    with pytest.raises(RuntimeError) as expected:
        torch.randperm(n, dtype=dtype)
    with pytest.raises(RuntimeError, match=re.escape(str(expected.value).splitlines()[0])):
        torch.randperm(n, dtype=dtype, device=dev)
