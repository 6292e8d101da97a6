"""The CPU fallback: ops the device lacks run on the CPU, counted as LTC counts them, with writes
through views reaching their base and PyTorch's own errors."""
import pytest
import torch

import lazygen_torch
from conftest import assert_same, fallbacks


def test_ops_the_device_lacks_give_cpu_results_and_are_counted(dev):
    cpu = torch.tensor([[0.5, -1.0, 2.0], [3.0, 0.25, -0.75]])
    x = cpu.to(dev) * 2  # pending: the fallback syncs it first
    assert_same(torch.i0(x), torch.i0(cpu * 2))
    assert_same(torch.special.i1(x), torch.special.i1(cpu * 2))
    mantissa, exponent = torch.frexp(x)  # two results, one of them int32
    expected_mantissa, expected_exponent = torch.frexp(cpu * 2)
    assert_same(mantissa, expected_mantissa)
    assert_same(exponent, expected_exponent)
    assert mantissa.device == dev and exponent.device == dev
    counted = fallbacks()
    assert {"aten::i0", "aten::special_i1", "aten::frexp.Tensor_out"} <= set(counted), counted
    assert counted["aten::i0"] == 1


def test_a_fallback_result_feeds_device_ops(dev):
    cpu = torch.tensor([1.0, 2.0, 3.0])
    assert_same(torch.i0(cpu.to(dev)) * 2 + 1, torch.i0(cpu) * 2 + 1)


def test_a_fallback_splits_the_graph(dev):
    x = torch.ones(4, device=dev) + 1
    before = lazygen_torch.metrics.counter_value("exec.sync") or 0
    torch.i0(x)
    assert (lazygen_torch.metrics.counter_value("exec.sync") or 0) > before


def test_an_in_place_fallback_op_through_a_view_reaches_the_base(dev):
    cpu = torch.arange(1., 7.).reshape(2, 3)
    x = cpu.clone().to(dev)
    x[:, 1].i0_()  # select is a lazygen view; i0_ runs on the CPU fallback
    cpu[:, 1].i0_()
    assert_same(x, cpu)
    assert "aten::i0_" in fallbacks()


def test_an_out_argument_of_a_fallback_op_is_written_and_resized(dev):
    cpu = torch.tensor([0.1, 0.2, 0.3])
    out = torch.empty(0, device=dev)
    torch.i0(cpu.to(dev), out=out)
    assert_same(out, torch.i0(cpu))


def test_a_write_through_a_view_the_fallback_copied_raises(dev):
    x = torch.arange(9.).reshape(3, 3).to(dev)
    # as_strided of a view (here over the transpose's own elements) runs on the fallback: a copy
    d = x.t().as_strided((3,), (4,))
    assert_same(d, torch.tensor([0.0, 4.0, 8.0]))
    with pytest.raises(RuntimeError, match="cannot write through the result of aten::as_strided"):
        d.mul_(2)
    with pytest.raises(RuntimeError, match="aten::as_strided"):
        d[0].fill_(1)  # a view of the copy
    assert_same(x, torch.arange(9.).reshape(3, 3))
    assert_same(d.clone().mul_(2), torch.tensor([0.0, 8.0, 16.0]))  # an explicit copy is fine


def test_an_error_inside_a_fallback_op_reaches_the_user_with_pytorchs_message(dev):
    x = torch.ones(2, 2, device=dev)
    with pytest.raises(RuntimeError, match="torch.histogram\\(\\): bins must be > 0"):
        torch.histogram(x, -1)


def test_a_fallback_result_of_a_dtype_the_device_lacks_is_refused(dev):
    x = torch.ones(3, device=dev)
    with pytest.raises(TypeError, match="float16"):
        x.half()


def test_a_foreach_op_writes_back_every_tensor_of_its_list(dev):
    cpus = [torch.tensor([1.0, 2.0]), torch.tensor([[3.0], [4.0]])]
    devs = [t.clone().to(dev) for t in cpus]
    torch._foreach_add_(devs, 1.5)  # the whole list is an in-place argument
    torch._foreach_add_(cpus, 1.5)
    for got, want in zip(devs, cpus):
        assert_same(got, want)


def test_an_optimizer_with_foreach_updates_the_parameters(dev):
    torch.manual_seed(0)
    cpu = torch.nn.Linear(3, 2)
    on_dev = torch.nn.Linear(3, 2)
    on_dev.load_state_dict(cpu.state_dict())
    on_dev.to(dev)
    x = torch.randn(4, 3)
    for model, device in ((cpu, "cpu"), (on_dev, dev)):
        opt = torch.optim.Adam(model.parameters(), lr=0.1, foreach=True)
        model(x.to(device)).sum().backward()
        opt.step()
    for got, want in zip(on_dev.parameters(), cpu.parameters()):
        assert_same(got.detach(), want.detach())
