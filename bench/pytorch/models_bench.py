"""Training steps of real models on lazygen's PyTorch device against PyTorch eager, in one run.

    build/lazygen-python bench/pytorch/models_bench.py [--reps 3] [--steps 24] [--warmup 12]

Models (random data of the right shapes; 2 threads; the same model, optimizer and inputs on both
devices; repetitions interleave the devices so both see the same load):
  resnet18  torchvision's ResNet-18 for 10 classes on 32x32 images, batch 32, SGD (momentum 0.9,
            weight decay 5e-4), batch norm in training mode, cross-entropy
  decoder   a GPT-style decoder: token + position embedding, 2 pre-norm TransformerEncoderLayers
            (d 128, 4 heads, gelu MLP 512) with a causal mask, tied output projection,
            cross-entropy over 256 tokens; batch 8 x 128 tokens, AdamW
Reports the median ms per step after the warm-up, ours / eager, and our compiles and CPU-fallback
ops. The warm-up is 12 steps: our first two compile, and on both devices the decoder's first ~8
steps run 3x slower, because at initialisation its tied projection spreads the logits by +-30, so
the far tail of the softmax and its gradient are subnormal floats that the gemms after it crawl
through until training narrows the logits.
"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F

import lazygen_torch


class Decoder(torch.nn.Module):
    def __init__(self, vocab=256, d=128, heads=4, layers=2, length=128):
        super().__init__()
        self.tokens = torch.nn.Embedding(vocab, d)
        self.positions = torch.nn.Embedding(length, d)
        layer = torch.nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu",
                                                 batch_first=True, norm_first=True)
        self.blocks = torch.nn.TransformerEncoder(layer, layers)
        self.norm = torch.nn.LayerNorm(d)
        self.register_buffer("mask", torch.triu(torch.full((length, length), float("-inf")), 1))

    def forward(self, idx):
        positions = torch.arange(idx.shape[1], device=idx.device)
        x = self.tokens(idx) + self.positions(positions)
        x = self.blocks(x, mask=self.mask)
        return self.norm(x) @ self.tokens.weight.t()  # tied output projection


def make(name):
    torch.manual_seed(0)
    if name == "resnet18":
        import torchvision
        model = torchvision.models.resnet18(num_classes=10)
        data = (torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,)))
        return model, data, lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9, weight_decay=5e-4)
    model = Decoder()
    idx = torch.randint(0, 256, (8, 129))
    return model, (idx[:, :-1], idx[:, 1:]), lambda p: torch.optim.AdamW(p, lr=1e-3)


def run(name, device, steps, warmup):
    model, (x, y), make_optimizer = make(name)
    model.to(device)
    optimizer = make_optimizer(model.parameters())
    lazy = device != "cpu"
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        inputs, target = x.to(device), y.to(device)
        optimizer.zero_grad(set_to_none=True)
        logits = model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1))
        loss.backward()
        optimizer.step()
        if lazy:
            lazygen_torch.mark_step()
            lazygen_torch.wait_device_ops()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times[warmup:]), float(loss.item())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--steps", type=int, default=24)
    ap.add_argument("--warmup", type=int, default=12)
    ap.add_argument("--models", default="resnet18,decoder")
    args = ap.parse_args()
    torch.set_num_threads(2)
    dev = lazygen_torch.device()
    for name in args.models.split(","):
        ours, eager = [], []
        lazygen_torch.metrics.reset()
        for _ in range(args.reps):
            ours.append(run(name, dev, args.steps, args.warmup)[0])
            eager.append(run(name, "cpu", args.steps, args.warmup)[0])
        o, e = statistics.median(ours), statistics.median(eager)
        print(f"{name}: lazygen device {o:.1f} ms, PyTorch eager {e:.1f} ms per step ({o / e:.2f}x); "
              f"compiles {lazygen_torch.metrics.counter_value('computation_cache.miss')}, "
              f"fallbacks {lazygen_torch.metrics.fallback_counters()}", flush=True)


if __name__ == "__main__":
    main()
