"""Fixtures of the PyTorch device's tests: the device, and comparisons against PyTorch's CPU."""
import pytest
import torch

import lazygen_torch


@pytest.fixture
def dev():
    """The lazygen device, with a fresh trace and zeroed metrics."""
    lazygen_torch.mark_step()
    lazygen_torch.wait_device_ops()
    lazygen_torch.metrics.reset()
    return lazygen_torch.device()


def assert_same(got, expected, rtol=1e-5, atol=1e-6):
    """`got` (any device) equals the CPU tensor `expected`: dtype, sizes and values (exact for
    integers and bools, NaNs equal)."""
    assert isinstance(got, torch.Tensor), f"expected a tensor, got {type(got)}"
    got = got.cpu()
    assert got.dtype == expected.dtype, f"dtype {got.dtype} != {expected.dtype}"
    assert got.shape == expected.shape, f"shape {tuple(got.shape)} != {tuple(expected.shape)}"
    if expected.dtype.is_floating_point:
        torch.testing.assert_close(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        assert torch.equal(got, expected), f"{got} != {expected}"


def fallbacks():
    """The ops counted on the CPU fallback since the last metrics reset."""
    return lazygen_torch.metrics.fallback_counters()
