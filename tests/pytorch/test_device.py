"""The lazygen device as PyTorch sees it: moving data, dtypes, devices, printing, saving."""
import io
import re
import subprocess
import sys

import pytest
import torch

import lazygen_torch
from conftest import assert_same, fallbacks

DTYPES = [torch.bool, torch.int32, torch.int64, torch.float32, torch.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (3, 4), (2, 0, 3)])
def test_values_survive_a_round_trip(dev, dtype, shape):
    cpu = (torch.arange(int(torch.tensor(shape).prod()) if shape else 1) % 3).to(dtype).reshape(shape)
    on_device = cpu.to(dev)
    assert on_device.device == dev
    assert on_device.dtype == dtype and on_device.shape == cpu.shape
    assert_same(on_device.cpu(), cpu)


def test_a_non_contiguous_cpu_tensor_moves_by_value(dev):
    cpu = torch.arange(12.).reshape(3, 4).t()
    assert_same(cpu.to(dev), cpu)


def test_the_cpu_copy_is_independent_of_the_device_tensor(dev):
    x = torch.ones(3).to(dev)
    back = x.cpu()
    back.add_(1)
    assert_same(x.cpu(), torch.ones(3))
    source = torch.zeros(2)
    y = source.to(dev)
    source.fill_(5)
    assert_same(y.cpu(), torch.zeros(2))


def test_device_tensors_report_contiguous_strides_and_no_storage(dev):
    x = torch.ones(2, 3, device=dev)
    assert x.is_contiguous() and x.stride() == (3, 1)
    with pytest.raises(Exception):
        x.data_ptr()


def test_an_expanded_tensor_reports_the_cpu_strides(dev):
    # Note [Expanded strides]: 0 along enlarged dims, so autograd copies such a gradient first;
    # elsewhere the input's strides, which for a view are contiguous ones, not the cpu's.
    for make, view in ((lambda d: torch.ones(3, 1, device=d).expand(3, 4), False),
                       (lambda d: torch.ones(4, device=d).expand(2, 3, 4), False),
                       (lambda d: torch.ones(1, 3, device=d).expand(1, 3), False),
                       (lambda d: torch.ones(1, 3, device=d).expand(0, 3), False),
                       (lambda d: torch.ones(2, 3, device=d).t().unsqueeze(0).expand(5, 3, 2), True)):
        got, want = make(dev), make("cpu")
        assert got.is_contiguous() == want.is_contiguous()
        assert [s == 0 for s in got.stride()] == [s == 0 for s in want.stride()]
        assert view or got.stride() == want.stride()
        assert_same(got.contiguous(), want.contiguous())
        assert got.contiguous().stride() == want.contiguous().stride()
        assert_same(got.reshape(-1), want.reshape(-1))


def test_a_dtype_the_device_lacks_is_refused_by_name(dev):
    with pytest.raises(TypeError, match="torch.uint8 is not supported on the lazygen device"):
        torch.zeros(3, dtype=torch.uint8).to(dev)
    with pytest.raises(TypeError, match="float16"):
        torch.zeros(3, device=dev, dtype=torch.float16)


def test_mixing_devices_is_an_error_naming_both(dev):
    x = torch.ones(3, device=dev)
    with pytest.raises(RuntimeError, match="privateuseone:0 and cpu"):
        x + torch.ones(3)


def test_a_cpu_scalar_tensor_joins_device_ops_as_pytorch_allows(dev):
    x = torch.tensor([1.0, 2.0], device=dev)
    assert_same(x * torch.tensor(3.0), torch.tensor([3.0, 6.0]))


@pytest.mark.parametrize("value,dtype,number,expected", [
    ([1.5, 2.5], torch.float32, 0.5, torch.float32),
    (2.0, torch.float32, 0.5, torch.float32),      # a zero-dim tensor wins over a Python float
    ([1, 2], torch.int64, 2.5, torch.float32),     # the default dtype for a float number
    ([1, 2], torch.int32, 7, torch.int32),
    ([True, False], torch.bool, 1, torch.int64),
    ([1.0], torch.float64, 2, torch.float64),
])
def test_python_numbers_promote_as_numbers(dev, value, dtype, number, expected):
    cpu = torch.tensor(value, dtype=dtype)
    got = cpu.to(dev) * number
    assert got.dtype == expected
    assert_same(got, cpu * number)


def test_item_and_bool_read_one_value(dev):
    x = torch.tensor([2.5], device=dev)
    assert x.item() == 2.5
    assert bool(x > 2) and not bool(x > 3)


def test_printing_shows_values_and_the_device(dev):
    text = repr(torch.tensor([1.0, 2.0], device=dev) * 2)
    assert "2." in text and "4." in text and "privateuseone:0" in text


def test_out_tensors_are_resized_as_pytorch_does(dev):
    a, b = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0, 6.0])
    out = torch.empty(0, device=dev)
    torch.add(a.to(dev), b.to(dev), out=out)
    assert_same(out, a + b)
    with pytest.warns(UserWarning, match="was resized"):
        torch.add(a.to(dev), b.to(dev), out=torch.empty(2, device=dev))


def test_a_model_saves_loads_and_moves_back_to_the_cpu(dev):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    reference = {k: v.clone() for k, v in model.state_dict().items()}
    model.to(dev)
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)
    for name, tensor in reference.items():
        assert loaded[name].device == dev
        assert_same(loaded[name], tensor)
        assert_same(model.state_dict()[name].to("cpu"), tensor)
    for p in model.parameters():
        assert p.to("cpu").device.type == "cpu"


def test_the_control_flow_example_gives_eager_answers_on_both_branches(dev):
    def add_two_maybe(t, maybe):
        if maybe:
            return t + 2
        return t
    t = torch.ones(1)
    for maybe in (torch.BoolTensor([0]), torch.BoolTensor([1])):
        assert_same(add_two_maybe(t.to(dev), maybe.to(dev)), add_two_maybe(t, maybe))
    assert fallbacks() == {}


def test_the_device_without_the_package_is_a_clear_error_not_a_crash():
    code = "import torch\ntry:\n    torch.ones(1).to('privateuseone')\nexcept RuntimeError as e:\n    print(e)\n"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "privateuseone" in run.stdout


def test_addcdiv_of_integer_tensors_is_refused_as_in_pytorch_whatever_self_is(dev):
    self_, t1, t2 = torch.ones(3), torch.tensor([4, 5, 6]), torch.tensor([2, 2, 2])
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        torch.addcdiv(self_, t1, t2)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        torch.addcdiv(self_.to(dev), t1.to(dev), t2.to(dev))
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        self_.to(dev).addcdiv_(t1.to(dev), t2.to(dev))
    assert_same(torch.addcdiv(self_.to(dev), t1.to(dev).float(), t2.to(dev)), torch.addcdiv(self_, t1.float(), t2))


def test_reset_trace_caches_makes_the_next_step_compile_again(dev):
    def step():
        y = (torch.ones(4, device=dev) * 3).sum()
        lazygen_torch.mark_step()
        return y.item()

    step()
    misses = lazygen_torch.metrics.counter_value("computation_cache.miss") or 0
    step()  # the same graph: a cache hit
    assert (lazygen_torch.metrics.counter_value("computation_cache.miss") or 0) == misses
    lazygen_torch.reset_trace_caches()
    assert step() == 12.0
    assert lazygen_torch.metrics.counter_value("computation_cache.miss") == misses + 1


def test_step_profiling_says_what_each_step_of_an_execution_ran(dev):
    x, w = torch.randn(6, 11), torch.randn(11, 9)
    def step():
        y = torch.relu(x.to(dev) @ w.to(dev) * 2 + 1)
        lazygen_torch.mark_step()
        return y.cpu()

    assert not lazygen_torch.step_profiling()
    lazygen_torch.metrics.reset()
    lazygen_torch.set_step_profiling(True)
    try:
        step()
        step()
    finally:
        lazygen_torch.set_step_profiling(False)
    step()  # off again: not recorded
    profile = {what: count for what, count, total in lazygen_torch.metrics.step_profile()}
    assert profile["mm float32[6, 9]"] == 2
    assert any(what.startswith("group [54] ") and count == 2 for what, count in profile.items())
    assert all(total >= 0 for _, _, total in lazygen_torch.metrics.step_profile())


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float64, torch.bool])
def test_convolutions_of_every_dtype_answer_as_pytorch_does(dev, dtype):
    # PyTorch's CPU convolves integers exactly (wrapping on overflow) and refuses bool.
    g = torch.Generator().manual_seed(5)
    x = torch.randint(-50, 50, (2, 4, 7, 6), generator=g).to(dtype)
    w = torch.randint(-50, 50, (6, 2, 3, 2), generator=g).to(dtype)
    b = torch.randint(-50, 50, (6,), generator=g).to(dtype)
    def conv(device):
        try:
            return torch.nn.functional.conv2d(x.to(device), w.to(device), b.to(device), stride=(2, 1),
                                              padding=1, dilation=(1, 2), groups=2).cpu()
        except RuntimeError as e:
            return e
    expected, got = conv("cpu"), conv(dev)
    if dtype == torch.int32:  # PyTorch 1.13's dilated kernel lacks int32 (docs/pytorch-device.md: deliberate)
        assert "not implemented for 'Int'" in str(expected)
        x, w, b = x.long(), w.long(), b.long()
        expected = conv("cpu").int()
    if isinstance(expected, Exception):
        assert isinstance(got, Exception), got
    else:
        assert got.dtype == expected.dtype and torch.equal(got, expected)


@pytest.mark.parametrize("call", [
    lambda t: t.sum(5), lambda t: t.transpose(0, 4), lambda t: torch.cat([t, t], 3), lambda t: t.softmax(-3),
    lambda t: t.select(2, 0), lambda t: t.unsqueeze(4), lambda t: t.flip(2), lambda t: t.cumsum(-3),
    lambda t: t.argmax(2), lambda t: torch.stack([t, t], 4), lambda t: t.squeeze(3), lambda t: t.split(1, 2),
    lambda t: torch.tensor(1.0, device=t.device).sum(1),
])
def test_a_dim_out_of_range_is_an_index_error_as_in_pytorch(dev, call):
    # Note [Dim errors as IndexError] in runtime/pytorch/registrar.h.
    x = torch.ones(2, 3)
    with pytest.raises(IndexError) as expected:
        call(x)
    with pytest.raises(IndexError, match=re.escape(str(expected.value).splitlines()[0])):
        call(x.to(dev))



@pytest.mark.parametrize("call", [
    lambda d: torch.empty(-1, device=d), lambda d: torch.zeros(2, -1, device=d),
    lambda d: torch.full((-2,), 1.0, device=d), lambda d: torch.rand(-1, device=d),
    lambda d: torch.ones(3, device=d).new_empty((4, -3)),
])
def test_a_negative_size_is_refused_with_pytorchs_message(dev, call):
    with pytest.raises(RuntimeError) as expected:
        call("cpu")
    with pytest.raises(RuntimeError, match=re.escape(str(expected.value).splitlines()[0])):
        call(dev)
