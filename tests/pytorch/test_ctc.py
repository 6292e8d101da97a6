"""F.ctc_loss and nn.CTCLoss on the device (runtime/pytorch/adapters/ctc.cpp): losses, log_alpha
and gradients equal PyTorch's CPU kernel for padded and concatenated targets, every reduction,
empty inputs and targets, repeated labels, impossible alignments with and without
zero_infinity, and bad arguments raise the CPU's errors."""
import pytest
import torch
import torch.nn.functional as F

from conftest import assert_same, fallbacks

T, N, C = 14, 5, 6
# Input and target lengths per sample: a full input, shorter ones, empty targets, a one-step
# input. (PyTorch 1.13's CPU kernel reads uninitialized memory for an empty input: See
# test_an_empty_input.)
INPUTS = [14, 11, 9, 1, 7]
TARGETS = [5, 3, 0, 0, 2]


def case(dtype, blank=0, seed=0):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(T, N, C, generator=g, dtype=dtype)
    labels = [c for c in range(C) if c != blank]
    targets = torch.tensor(labels, dtype=torch.long)[torch.randint(0, C - 1, (N, max(TARGETS)), generator=g)]
    targets[0, 1] = targets[0, 2]  # a repeated label: the recursion may not skip the blank
    return logits, targets


def ctc(logits, targets, device, concatenated=False, **kw):
    """The loss on `device` and the gradient of its sum for the logits (through log_softmax)."""
    x = logits.to(device).requires_grad_()
    tg = targets
    if concatenated:
        tg = torch.cat([targets[i, :n] for i, n in enumerate(TARGETS)])
    loss = F.ctc_loss(x.log_softmax(2), tg.to(device), INPUTS, TARGETS, **kw)
    (loss.sum() if loss.dim() else loss).backward()
    return loss.detach().cpu(), x.grad.cpu()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("concatenated", [False, True])
def test_losses_and_gradients_equal_the_cpu(dev, dtype, reduction, concatenated):
    logits, targets = case(dtype)
    loss, grad = ctc(logits, targets, dev, concatenated, reduction=reduction, zero_infinity=True)
    want_loss, want_grad = ctc(logits, targets, "cpu", concatenated, reduction=reduction,
                               zero_infinity=True)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == torch.float32 else {}
    assert_same(loss, want_loss, **tol)
    assert_same(grad, want_grad, **tol)
    assert fallbacks() == {}


@pytest.mark.parametrize("blank", [0, 3, C - 1])
def test_any_blank_label(dev, blank):
    logits, targets = case(torch.float64, blank=blank, seed=blank)
    got = ctc(logits, targets, dev, reduction="none", blank=blank, zero_infinity=True)
    want = ctc(logits, targets, "cpu", reduction="none", blank=blank, zero_infinity=True)
    assert_same(got[0], want[0])
    assert_same(got[1], want[1])


def test_the_gradient_for_log_probs_is_pytorchs_for_any_input(dev):
    # PyTorch's kernel returns exp(log_probs) - posteriors, right for the logits of a
    # log_softmax: the device returns the same for inputs that are not normalized.
    logits, targets = case(torch.float64, seed=3)
    lp = (logits * 0.3).requires_grad_()
    lpd = lp.detach().to(dev).requires_grad_()
    F.ctc_loss(lp, targets, INPUTS, TARGETS, reduction="sum", zero_infinity=True).backward()
    F.ctc_loss(lpd, targets.to(dev), INPUTS, TARGETS, reduction="sum", zero_infinity=True).backward()
    assert_same(lpd.grad, lp.grad)
    for i, t in enumerate(INPUTS):
        assert torch.all(lpd.grad.cpu()[t:, i] == 0)  # no gradient past an input's end


def test_log_alpha_equals_the_cpu_within_each_sample(dev):
    logits, targets = case(torch.float64, seed=4)
    lp = logits.log_softmax(2)
    nll, alpha = torch.ops.aten._ctc_loss(lp.to(dev), targets.to(dev), INPUTS, TARGETS, 0, False)
    want_nll, want_alpha = torch.ops.aten._ctc_loss(lp, targets, INPUTS, TARGETS, 0, False)
    assert_same(nll, want_nll)
    assert alpha.shape == want_alpha.shape == (N, T, 2 * max(TARGETS) + 1)
    alpha = alpha.cpu()
    for i, (t, n) in enumerate(zip(INPUTS, TARGETS)):
        assert_same(alpha[i, :t, :2 * n + 1], want_alpha[i, :t, :2 * n + 1])
    assert torch.isfinite(want_nll).all()


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_an_empty_input(dev, zero_infinity):
    # With no step, the likelihood is 1 for an empty target and 0 for any other: a loss of 0 and
    # inf (0 with zero_infinity), and no gradient. PyTorch 1.13's CPU kernel returns whatever its
    # uninitialized output held (later versions return these values).
    lp = torch.randn(6, 3, 4, dtype=torch.float64).log_softmax(2)
    x = lp.to(dev).requires_grad_()
    loss = F.ctc_loss(x, torch.tensor([[1, 2], [1, 2], [3, 1]]).to(dev), [0, 0, 6], [0, 2, 2],
                      reduction="none", zero_infinity=zero_infinity)
    loss.sum().backward()
    want = F.ctc_loss(lp[:, 2:], torch.tensor([[3, 1]]), [6], [2], reduction="none")
    assert_same(loss.detach(), torch.cat([torch.tensor([0.0, 0.0 if zero_infinity else float("inf")],
                                                       dtype=torch.float64), want]))
    assert torch.all(x.grad.cpu()[:, :2] == 0)


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_an_impossible_alignment(dev, zero_infinity):
    # A label repeated 4 times needs 7 steps; the input has 5: the likelihood is 0.
    lp = torch.randn(5, 2, 4, dtype=torch.float64).log_softmax(2)
    targets = torch.tensor([[2, 2, 2, 2], [1, 3, 0, 0]])
    got, want = [], []
    for device, out in ((dev, got), ("cpu", want)):
        x = lp.to(device).requires_grad_()
        loss = F.ctc_loss(x, targets.to(device), [5, 5], [4, 2], reduction="none",
                          zero_infinity=zero_infinity)
        loss.sum().backward()
        out += [loss.detach().cpu(), x.grad.cpu()]
    assert_same(got[0], want[0])
    assert_same(got[1], want[1])
    assert torch.isnan(want[1][:, 0]).all() != zero_infinity


def test_module_unbatched_int32_targets_and_length_tensors(dev):
    logits, targets = case(torch.float32, seed=5)
    loss = torch.nn.CTCLoss(blank=0, zero_infinity=True)
    il, tl = torch.tensor(INPUTS), torch.tensor(TARGETS, dtype=torch.int32)
    got = loss(logits.to(dev).log_softmax(2), targets.int().to(dev), il, tl)
    assert_same(got, loss(logits.log_softmax(2), targets.int(), il, tl), rtol=1e-4, atol=1e-5)
    one = logits[:, 0].log_softmax(1)  # [T, C], targets [S]
    got = F.ctc_loss(one.to(dev), targets[0].to(dev), [T], [5])
    assert_same(got, F.ctc_loss(one, targets[0], [T], [5]), rtol=1e-4, atol=1e-5)
    assert fallbacks() == {}


def test_lengths_change_without_errors_between_steps(dev):
    # The trace depends on the lengths (one step per time step): each set is traced anew.
    logits, targets = case(torch.float64, seed=6)
    lp = logits.log_softmax(2)
    for inputs in ([14, 14, 14, 14, 14], [3, 5, 7, 9, 11], [1, 1, 1, 1, 1]):
        targets_lengths = [min(n, (t + 1) // 2) for n, t in zip(TARGETS, inputs)]
        got = F.ctc_loss(lp.to(dev), targets.to(dev), inputs, targets_lengths, reduction="none")
        assert_same(got, F.ctc_loss(lp, targets, inputs, targets_lengths, reduction="none"))


def errors(fn):
    try:
        fn()
    except RuntimeError as e:
        return str(e).split("\n")[0]
    return None


@pytest.mark.parametrize("bad", ["blank", "input_count", "target_count", "long_input",
                                 "short_targets", "concatenated_size"])
def test_bad_arguments_raise_the_cpus_errors(dev, bad):
    logits, targets = case(torch.float64, seed=7)
    lp = logits.log_softmax(2)
    il, tl, blank, tg = list(INPUTS), list(TARGETS), 0, targets
    if bad == "blank":
        blank = C
    elif bad == "input_count":
        il = il[:-1]
    elif bad == "target_count":
        tl = tl + [1]
    elif bad == "long_input":
        il[1] = T + 1
    elif bad == "short_targets":
        tg = targets[:, :2]
    else:
        tg = targets.flatten()[:3]
    want = errors(lambda: torch.ops.aten._ctc_loss(lp, tg, il, tl, blank, False))
    assert want is not None
    assert errors(lambda: torch.ops.aten._ctc_loss(lp.to(dev), tg.to(dev), il, tl, blank, False)) == want


def test_gradients_numerically(dev):
    # Through log_softmax, where PyTorch's gradient is the loss's true gradient.
    logits = torch.randn(6, 2, 4, dtype=torch.float64).to(dev).requires_grad_()
    targets = torch.tensor([[1, 2, 2], [3, 1, 0]]).to(dev)
    loss = lambda x: F.ctc_loss(x.log_softmax(2), targets, [6, 4], [3, 2], reduction="sum")
    assert torch.autograd.gradcheck(loss, (logits,))


def test_loss_and_backward_trace_without_a_sync(dev):
    import lazygen_torch
    logits, targets = case(torch.float32, seed=8)
    x = logits.to(dev).requires_grad_()
    tg = targets.to(dev)
    lazygen_torch.mark_step()
    lazygen_torch.metrics.reset()
    F.ctc_loss(x.log_softmax(2), tg, INPUTS, TARGETS).backward()
    assert lazygen_torch.metrics.counter_value("exec.sync") == 0
    assert torch.isfinite(x.grad.cpu()).all()
    assert lazygen_torch.metrics.counter_value("exec.sync") >= 1  # the counter counts
    assert fallbacks() == {}
