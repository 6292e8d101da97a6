"""The lazy-tensor tutorial's CNN through the device, against PyTorch eager on the CPU."""
import os
import sys

import pytest
import torch
import torch.nn.functional as F

import lazygen_torch
from conftest import fallbacks

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
from train_tutorial import Net  # noqa: E402


def train_steps(device, batches, dropout=True):
    torch.manual_seed(0)
    model = Net()
    if not dropout:
        model.dropout1.p = model.dropout2.p = 0.0
    model.to(device)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    losses = []
    for data, target in batches:
        optimizer.zero_grad(set_to_none=True)
        loss = F.nll_loss(model(data.to(device)), target.to(device))
        loss.backward()
        optimizer.step()
        if device != "cpu":
            lazygen_torch.mark_step()
        losses.append(loss)
    return [float(l.item()) for l in losses], [p.to("cpu") for p in model.parameters()]


def batches(n, size=16):
    g = torch.Generator().manual_seed(7)
    return [(torch.randn(size, 1, 28, 28, generator=g), torch.randint(0, 10, (size,), generator=g))
            for _ in range(n)]


def test_twenty_steps_match_eager_with_no_fallback_and_one_compile_per_step_graph(dev):
    # Dropout off: its random stream is lazygen's (Philox), not PyTorch's CPU generator's.
    data = batches(20)
    losses, params = train_steps(dev, data, dropout=False)
    expected_losses, expected_params = train_steps("cpu", data, dropout=False)
    torch.testing.assert_close(torch.tensor(losses), torch.tensor(expected_losses), rtol=1e-4, atol=1e-5)
    for got, want in zip(params, expected_params):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    assert fallbacks() == {}
    # Step 1 creates Adadelta's state, step 2 updates it: two graphs, then cache hits only.
    assert lazygen_torch.metrics.counter_value("computation_cache.miss") == 2


def test_batches_of_other_sizes_specialize_the_step_instead_of_compiling(dev):
    # An epoch's short last batch, batch sizes that change, and an evaluation at other sizes:
    # one compile per graph structure (See Note [Dynamic shapes] in runtime/backend/graph.h).
    lazygen_torch.reset_trace_caches()
    counter = lazygen_torch.metrics.counter_value
    compiled, specialized = counter("computation_cache.miss") or 0, counter("computation_cache.specialize") or 0
    g = torch.Generator().manual_seed(11)
    data = [(torch.randn(n, 1, 28, 28, generator=g), torch.randint(0, 10, (n,), generator=g))
            for n in (16, 16, 5, 16, 9, 1, 23)]
    losses, params = train_steps(dev, data, dropout=False)
    expected_losses, expected_params = train_steps("cpu", data, dropout=False)
    torch.testing.assert_close(torch.tensor(losses), torch.tensor(expected_losses), rtol=1e-4, atol=1e-5)
    for got, want in zip(params, expected_params):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    assert counter("computation_cache.miss") - compiled == 2  # Adadelta's first step, then the rest
    assert counter("computation_cache.specialize") - specialized == 4  # 5, 9, 1, 23
    torch.manual_seed(0)
    model = Net().to(dev).eval()
    with torch.no_grad():
        for n in (30, 7):
            x = torch.randn(n, 1, 28, 28, generator=g)
            torch.testing.assert_close(model(x.to(dev)).cpu(), model.to("cpu")(x), rtol=1e-4, atol=1e-5)
            model.to(dev)
    assert counter("computation_cache.miss") - compiled == 3  # the evaluation's forward, once
    assert fallbacks() == {}


def test_with_dynamic_shapes_off_each_new_batch_size_compiles(dev):
    assert lazygen_torch.dynamic_shapes()
    lazygen_torch.reset_trace_caches()
    lazygen_torch.set_dynamic_shapes(False)
    try:
        compiled = lazygen_torch.metrics.counter_value("computation_cache.miss") or 0
        torch.manual_seed(0)
        model = Net().to(dev).eval()
        with torch.no_grad():
            for n in (3, 4, 5):
                model(torch.randn(n, 1, 28, 28).to(dev)).cpu()
        assert lazygen_torch.metrics.counter_value("computation_cache.miss") - compiled == 3
    finally:
        lazygen_torch.set_dynamic_shapes(True)


def test_training_with_dropout_has_no_fallback_and_repeats_under_a_seed(dev):
    data = batches(1) * 8  # one batch, learned: the loss must fall
    first, _ = train_steps(dev, data)
    again, _ = train_steps(dev, data)
    assert first == again
    assert fallbacks() == {}
    assert first[-1] < 0.5 * first[0], first


def test_bernoulli_draws_with_the_requested_probability(dev):
    torch.manual_seed(3)
    mask = torch.empty(200, 500, device=dev).bernoulli_(0.3).cpu()
    assert set(mask.unique().tolist()) <= {0.0, 1.0}
    assert abs(mask.mean().item() - 0.3) < 0.01
