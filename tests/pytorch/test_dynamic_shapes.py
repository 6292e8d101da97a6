"""Dynamic shapes on the PyTorch device: ordinary training loops whose batch size or sequence
length changes compile once per graph structure and match PyTorch's CPU (See
docs/dynamic-shapes.md). The loops zero gradients with PyTorch 1.13's default
``zero_grad()`` (in place, set_to_none=False), which every step then accumulates into."""
import random

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import lazygen_torch
from conftest import fallbacks


def counts():
    counter = lazygen_torch.metrics.counter_value
    return counter("computation_cache.miss") or 0, counter("computation_cache.specialize") or 0


class Encoder(nn.Module):
    """A token classifier: embedding, one transformer encoder layer, a linear head."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
        self.head = nn.Linear(16, 50)

    def forward(self, tokens):
        return self.head(self.layer(self.embed(tokens)))


def mlp():
    return nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 5))


def train(device, make_model, make_optimizer, batches):
    torch.manual_seed(0)
    model = make_model().double().to(device)
    optimizer = make_optimizer(model.parameters())
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        out = model(x.to(device))
        loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.to(device).reshape(-1))
        loss.backward()
        optimizer.step()
        if device != "cpu":
            lazygen_torch.mark_step()
        losses.append(loss)
    return torch.tensor([l.item() for l in losses]), [p.cpu() for p in model.parameters()]


def expect_matches_cpu_with_two_compiles(dev, make_model, make_optimizer, batches, sizes):
    lazygen_torch.reset_trace_caches()
    compiled, specialized = counts()
    losses, params = train(dev, make_model, make_optimizer, batches)
    expected_losses, expected_params = train("cpu", make_model, make_optimizer, batches)
    torch.testing.assert_close(losses, expected_losses)
    for got, want in zip(params, expected_params):
        torch.testing.assert_close(got, want)
    assert fallbacks() == {}
    # Step 1 creates the gradients (and the optimizer's state), the others accumulate into them:
    # two structures, each compiled once; every other new size specializes.
    assert counts()[0] - compiled == 2
    assert counts()[1] - specialized == len(set(sizes[1:])) - 1


def test_sequence_lengths_of_a_transformer_compile_once_per_structure(dev):
    rng = random.Random(3)
    lengths = [8, 12] + [rng.randint(5, 40) for _ in range(10)]
    g = torch.Generator().manual_seed(5)
    batches = [(torch.randint(0, 50, (3, n), generator=g), torch.randint(0, 50, (3, n), generator=g))
               for n in lengths]
    adam = lambda params: torch.optim.Adam(params, lr=1e-2)  # noqa: E731
    expect_matches_cpu_with_two_compiles(dev, Encoder, adam, batches, lengths)


@pytest.mark.parametrize("optimizer", ["sgd_momentum", "adamw"])
def test_batch_sizes_of_a_classifier_compile_once_per_structure(dev, optimizer):
    sizes = [16, 16, 3, 1, 30, 7, 16, 9]
    g = torch.Generator().manual_seed(9)
    batches = [(torch.randn(n, 12, generator=g, dtype=torch.float64),
                torch.randint(0, 5, (n,), generator=g)) for n in sizes]
    make = {"sgd_momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
            "adamw": lambda p: torch.optim.AdamW(p, lr=1e-2)}[optimizer]
    expect_matches_cpu_with_two_compiles(dev, mlp, make, batches, sizes)


def test_products_compile_only_where_their_length_crosses_a_power_of_two(dev):
    # prod and cumprod run ceil(log2(n)) rounds (Note [Scans by doubling]): one graph per
    # exact power of two and per range between two, 9 over lengths 2..32 (31 when prod halved
    # odd lengths as they came).
    lazygen_torch.reset_trace_caches()
    compiled, _ = counts()
    g = torch.Generator().manual_seed(2)
    for n in range(2, 33):
        x = 1 + 0.1 * torch.randn(n, 3, generator=g, dtype=torch.float64)
        got_prod, got_scan = x.to(dev).prod(0), x.to(dev).cumprod(0)
        lazygen_torch.mark_step()  # one graph computes both
        torch.testing.assert_close(got_prod.cpu(), x.prod(0))
        torch.testing.assert_close(got_scan.cpu(), x.cumprod(0))
    assert fallbacks() == {}
    assert counts()[0] - compiled <= 9
