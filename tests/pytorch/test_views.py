"""Writes through views reach their base on the device as on the CPU (lazygen's lazy views)."""
import pytest
import torch

from conftest import assert_same, fallbacks


def run_both(dev, program, make=lambda: torch.arange(12.).reshape(3, 4)):
    cpu = make()
    device = make().to(dev)
    cpu_out = program(cpu)
    device_out = program(device)
    assert_same(device, cpu)
    if cpu_out is not None:
        assert_same(device_out, cpu_out)


def test_indexed_assignment(dev):
    def program(z):
        z[0] = 5
        z[1, 2] = -1
    run_both(dev, program)


def test_fill_through_a_column(dev):
    run_both(dev, lambda a: a[:, 0].fill_(7))


def test_in_place_through_a_transpose(dev):
    run_both(dev, lambda x: x.t().mul_(2))


def test_in_place_through_a_chain_of_views(dev):
    def program(x):
        v = x.view(2, 6)[1].narrow(0, 1, 3)
        v.add_(100)
        return x.sum(0)
    run_both(dev, program)


def test_other_views_of_the_base_see_the_write(dev):
    def program(x):
        row, col = x[1], x[:, 2]
        row.zero_()
        return col * 1
    run_both(dev, program)


def test_copy_into_a_slice_from_the_cpu(dev):
    def program(x):
        x[1:, :2].copy_(torch.tensor([[9.0, 8.0], [7.0, 6.0]]))
    run_both(dev, program)
    assert fallbacks() == {}


def test_in_place_view_ops_restride_self_over_the_same_values(dev):
    # transpose_, t_, squeeze_ and unsqueeze_ change self's view (PyTorch's defaults would restride
    # it with as_strided_): later writes through self, and through an older view, reach both.
    def program(x):
        row = x[0]
        y = x.view(3, 4)
        y.transpose_(0, 1)
        y.mul_(10)
        y.unsqueeze_(1).squeeze_(1).t_()
        y.unsqueeze_(0).squeeze_()
        y[1, 2] = -5
        return row + y.sum(0)
    run_both(dev, program)
    assert fallbacks() == {}


def test_in_place_view_ops_carry_gradients(dev):
    def grads(device):
        x = torch.arange(6.0, dtype=torch.float64).reshape(2, 3).to(device).requires_grad_()
        y = x * 2
        y.transpose_(0, 1)
        y.unsqueeze_(0)
        (y * torch.arange(2.0, dtype=torch.float64).to(device)).sum().backward()
        return x.grad
    assert_same(grads(dev), grads("cpu"))
    assert fallbacks() == {}


def test_resize_keeps_the_elements_in_order_and_refuses_a_view(dev):
    # resize_ is no view op: self takes the new sizes; elements past the old ones are PyTorch's
    # uninitialized memory, so only the kept ones are compared.
    def program(x):
        x.resize_(2, 5)
        x.mul_(2)
        x.resize_(3)
    run_both(dev, program)
    grown = torch.arange(4.0).to(dev).resize_(2, 3)
    assert grown.shape == (2, 3)
    assert torch.equal(grown.cpu().flatten()[:4], torch.arange(4.0))
    base = torch.arange(6.0).to(dev)
    with pytest.raises(RuntimeError, match="resize_: cannot resize a view"):
        base[1:].resize_(9)
    assert fallbacks() == {}


def test_writes_through_diagonal_and_unfold_reach_the_base(dev):
    # Composite views (Note [Composite views]): the device's diagonal and unfold are lazygen views.
    run_both(dev, lambda a: a.diagonal(1).mul_(10))
    run_both(dev, lambda a: a.t().diagonal(-1).add_(100))
    run_both(dev, lambda a: a.diagonal()[1:].neg_())
    run_both(dev, lambda a: a.unfold(1, 2, 3).mul_(-1))
    run_both(dev, lambda a: a.unfold(0, 1, 2).unfold(1, 2, 2).fill_(0))

    def read_after_base_write(a):
        windows = a.unfold(1, 3, 1)
        a.add_(1)
        return windows * 2
    run_both(dev, read_after_base_write)
    assert fallbacks() == {}


def test_a_write_through_overlapping_unfold_windows_is_refused_and_changes_nothing(dev):
    a = torch.arange(12.).reshape(3, 4).to(dev)
    windows = a.unfold(1, 3, 1)
    with pytest.raises(RuntimeError, match="unfold.*windows of unfold\\(1, 3, 1\\) overlap"):
        windows.mul_(-1)
    assert_same(a, torch.arange(12.).reshape(3, 4))
    assert_same(windows, torch.arange(12.).reshape(3, 4).unfold(1, 3, 1))


def test_as_strided_of_a_tensor_is_a_view_of_it(dev):
    run_both(dev, lambda a: a.as_strided((2, 2), (4, 1), 5).mul_(-1))  # a[1:3, 1:3]
    run_both(dev, lambda a: a.as_strided((3,), (5,)).fill_(0))         # the diagonal
    assert fallbacks() == {}


def test_an_ellipsis_index_aliases_the_tensor(dev):
    # x[...] is PyTorch's alias op, whose composite restrides storage the device does not have.
    run_both(dev, lambda a: a[...].mul_(2))

    def assign(a):
        a[...] = torch.full((3, 4), 7.0, device=a.device)
    run_both(dev, assign)
    assert fallbacks() == {}
