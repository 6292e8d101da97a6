"""Float32 3x3 convolution accuracy against a float64 reference: PyTorch's CPU vs lazygen's, through
the PyTorch device, for the forward, input and weight gradients. Prints the largest absolute error
and the share of outputs outside rtol 1e-5 (atol 1e-6).

    build/lazygen-python bench/pytorch/conv_accuracy.py                      # im2col (default)
    LAZYGEN_WINOGRAD=1 build/lazygen-python bench/pytorch/conv_accuracy.py   # Winograd F(4x4, 3x3)
"""
import os
import torch
import torch.nn.functional as F
import lazygen_torch


def errs(got, ref):
    d = (got.double().cpu() - ref).abs()
    tol = 1e-6 + 1e-5 * ref.abs()
    return d.max().item(), (d > tol).double().mean().item()



def case(n, cin, cout, hw, pad):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, cin, hw, hw, generator=g); w = torch.randn(cout, cin, 3, 3, generator=g) * 0.2
    gy = torch.randn(n, cout, hw + 2 * pad - 2, hw + 2 * pad - 2, generator=g)
    xd, wd = x.double().requires_grad_(), w.double().requires_grad_()
    yd = F.conv2d(xd, wd, padding=pad); yd.backward(gy.double())
    res = {}
    for name, dev in (("pytorch", "cpu"), ("lazygen", lazygen_torch.device())):
        xf, wf = x.detach().clone().to(dev).requires_grad_(), w.detach().clone().to(dev).requires_grad_()
        y = F.conv2d(xf, wf, padding=pad); y.backward(gy.to(dev))
        lazygen_torch.mark_step()
        res[name] = (errs(y, yd.detach()), errs(xf.grad, xd.grad), errs(wf.grad, wd.grad))
    return res

mode = os.environ.get("LAZYGEN_WINOGRAD", "0")
for shape in [(1, 16, 16, 20, 1), (8, 32, 64, 26, 0), (4, 64, 64, 32, 1)]:
    r = case(*shape)
    for name, (fw, gi, gw) in r.items():
        print(f"winograd={mode} {shape} {name:8s} fwd max {fw[0]:.2e} out {fw[1]*100:.1f}% | dx max {gi[0]:.2e} out {gi[1]*100:.1f}% | dw max {gw[0]:.2e} out {gw[1]*100:.1f}%")
