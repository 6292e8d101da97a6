"""The C++ examples' training steps (examples/train_resnet, examples/train_gpt) on lazygen's lazy
device and eagerly on lazygen's cpu, against PyTorch eager training the same model, in one run.

    build/lazygen-python bench/pytorch/examples_bench.py [--reps 3] [--steps 12] [--warmup 3]

Models (examples/real_models.h, written again here in PyTorch layer for layer):
  resnet  ResNet-18 for 32x32 inputs (3x3 stem, no max pool), 1 channel, 10 classes; batch 32,
          SGD (lr 0.02, momentum 0.9, weight decay 5e-4), batch norm in training mode
  gpt     a GPT-style decoder: 4 pre-norm layers of width 128, 4 heads, causal attention, gelu
          MLP, tied output projection; batch 8 x 128 bytes, Adam lr 1e-3
PyTorch runs on random data of the same shapes with 2 threads (the examples use the CPU pool of
2 on this machine). Reports per repetition the median seconds per step after the warm-up, and the
medians over repetitions with ours / PyTorch eager. Repetitions interleave the three runs.
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import time

import torch
import torch.nn.functional as F

BUILD = os.environ.get("LAZYGEN_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build"))


class Block(torch.nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(cout)
        self.conv2 = torch.nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = torch.nn.Sequential(torch.nn.Conv2d(cin, cout, 1, stride, bias=False),
                                            torch.nn.BatchNorm2d(cout))

    def forward(self, x):
        h = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(h + (self.down(x) if self.down is not None else x))


class ResNet18(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(1, 64, 3, 1, 1, bias=False), torch.nn.BatchNorm2d(64),
                                        torch.nn.ReLU())
        blocks, cin = [], 64
        for stage, width in enumerate([64, 128, 256, 512]):
            for b in range(2):
                blocks.append(Block(cin, width, 2 if stage > 0 and b == 0 else 1))
                cin = width
        self.blocks = torch.nn.Sequential(*blocks)
        self.fc = torch.nn.Linear(512, 10)

    def forward(self, x):
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(self.blocks(self.stem(x)), 1), 1))


class Attention(torch.nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.proj = torch.nn.Linear(width, width)

    def forward(self, x):
        b, t, w = x.shape
        q, k, v = self.qkv(x).reshape(b, t, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(w // self.heads)
        causal = torch.ones(t, t, dtype=torch.bool).triu(1)
        y = scores.masked_fill(causal, float("-inf")).softmax(-1) @ v
        return self.proj(y.permute(0, 2, 1, 3).reshape(b, t, w))


class DecoderBlock(torch.nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(width), torch.nn.LayerNorm(width)
        self.attn = Attention(width, heads)
        self.fc1, self.fc2 = torch.nn.Linear(width, 4 * width), torch.nn.Linear(4 * width, width)

    def forward(self, x):
        h = x + self.attn(self.ln1(x))
        return h + self.fc2(F.gelu(self.fc1(self.ln2(h))))


class Gpt(torch.nn.Module):
    def __init__(self, vocab=256, context=128, width=128, heads=4, layers=4):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, width)
        self.pos = torch.nn.Embedding(context, width)
        torch.nn.init.normal_(self.tok.weight, std=0.02)
        torch.nn.init.normal_(self.pos.weight, std=0.02)
        self.blocks = torch.nn.Sequential(*[DecoderBlock(width, heads) for _ in range(layers)])
        self.ln_f = torch.nn.LayerNorm(width)

    def forward(self, idx):
        h = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        return self.ln_f(self.blocks(h)) @ self.tok.weight.t()


def pytorch_step_seconds(name, steps, warmup):
    torch.manual_seed(0)
    if name == "resnet":
        model, x, y = ResNet18(), torch.randn(32, 1, 32, 32), torch.randint(0, 10, (32,))
        opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=5e-4)
    else:
        model, idx = Gpt(), torch.randint(0, 256, (8, 129))
        x, y = idx[:, :-1], idx[:, 1:]
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    times = []
    for _ in range(warmup + steps):
        start = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        out = model(x)
        F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1)).backward()
        opt.step()
        times.append(time.perf_counter() - start)
    return statistics.median(times[warmup:])


def ours_step_seconds(name, device, steps, warmup):
    binary = os.path.join(BUILD, "examples", "train_resnet" if name == "resnet" else "train_gpt")
    out = subprocess.run([binary, "--steps", str(warmup + steps), "--log-every", "1", "--device", device],
                         check=True, capture_output=True, text=True).stdout
    times = [float(t) for t in re.findall(r"loss \S+\s+(\S+) s/step", out)]
    return statistics.median(times[warmup:])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--models", default="resnet,gpt")
    args = parser.parse_args()
    torch.set_num_threads(2)
    for name in args.models.split(","):
        runs = {"lazy": [], "ours eager": [], "pytorch eager": []}
        for rep in range(args.reps):
            runs["lazy"].append(ours_step_seconds(name, "lazy", args.steps, args.warmup))
            runs["ours eager"].append(ours_step_seconds(name, "cpu", args.steps, args.warmup))
            runs["pytorch eager"].append(pytorch_step_seconds(name, args.steps, args.warmup))
            print(f"{name} rep {rep + 1}: " + ", ".join(f"{k} {v[-1] * 1e3:.1f} ms" for k, v in runs.items()),
                  flush=True)
        med = {k: statistics.median(v) for k, v in runs.items()}
        print(f"{name}: lazy {med['lazy'] * 1e3:.1f} ms, ours eager {med['ours eager'] * 1e3:.1f} ms, "
              f"PyTorch eager {med['pytorch eager'] * 1e3:.1f} ms; lazy / PyTorch eager "
              f"{med['lazy'] / med['pytorch eager']:.2f}, ours eager / PyTorch eager "
              f"{med['ours eager'] / med['pytorch eager']:.2f}", flush=True)


if __name__ == "__main__":
    main()
