"""Data-parallel training on the PyTorch device (lazygen_torch.distributed): a torchrun job of two
ranks trains like one process (ddp_worker.py), and misuse raises clear errors."""
import os
import socket
import subprocess
import sys

import pytest
import torch

import lazygen_torch
import lazygen_torch.distributed as ldist


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun(script, *args):
    """Runs `script` on two ranks under torchrun; returns its output, asserting success."""
    # --redirects/--tee 1: Debian's torchrun (PyTorch 1.13) fails to parse its default "0" on
    # Python 3.11, whose IntFlag no longer iterates the zero member.
    cmd = [sys.executable, "-m", "torch.distributed.run", "--redirects", "1", "--tee", "1",
           "--nproc_per_node", "2", "--master_addr", "127.0.0.1", "--master_port", str(free_port()),
           script, *args]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    return output


def test_two_ranks_under_torchrun_train_like_one_process():
    output = torchrun(os.path.join(os.path.dirname(__file__), "ddp_worker.py"), "--steps", "10")
    assert "OK 2 ranks, 10 steps: parameters equal on every rank" in output, output


@pytest.mark.skipif(not os.path.isdir("/usr/share/datasets/fashion-mnist"),
                    reason="needs Debian's dataset-fashion-mnist")
def test_the_tutorial_trains_under_torchrun_without_fallback():
    tutorial = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "train_tutorial.py")
    output = torchrun(tutorial, "--distributed", "--epochs", "1", "--steps", "20",
                      "--no-progress", "--log-interval", "10")
    assert "Test set: Average loss" in output, output
    assert "ops run on the CPU fallback: none" in output, output


def test_init_outside_torchrun_names_what_is_missing(monkeypatch):
    for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(RuntimeError, match="RANK is not set; launch the program with torchrun"):
        ldist.init()
    assert not ldist.is_initialized()


def test_collectives_before_init_raise(dev):
    with pytest.raises(RuntimeError, match="all_reduce: no distributed engine"):
        ldist.all_reduce(torch.ones(3, device=dev))


def test_collectives_refuse_tensors_that_require_grad(dev):
    x = torch.ones(3, device=dev, requires_grad=True)
    with pytest.raises(RuntimeError, match="all_reduce: not differentiable on the PyTorch device"):
        ldist.all_reduce(x)
