"""Real models from torchvision and torch.nn train a step on the device without the CPU fallback:
the loss and every parameter's gradient equal PyTorch's CPU ones, in float64 (so that a ReLU whose
input rounds to the other side of 0 cannot flip a gradient). Small inputs, but large enough that
batch norm's last layers normalize over several elements (over the 2 of a batch of 2 on 1x1 planes
it amplifies rounding a hundredfold a layer); dropout and stochastic depth off, batch norm in
training mode. Each model is one of the families a user would bring:
depthwise and grouped convolutions with in-place activations (MobileNetV2, EfficientNet,
ShuffleNet, RegNet with squeeze-excitation), dense concatenation (DenseNet), attention with
advanced indexing and rolled windows (Swin), a vision transformer, recurrent layers, and 3-d
convolutions over video clips (R3D-18)."""
import copy

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import lazygen_torch
from conftest import assert_same, fallbacks

torchvision = pytest.importorskip("torchvision")
models = torchvision.models


class Recurrent(nn.Module):
    """An LSTM over a sequence and a bidirectional GRU over its output, then a linear head."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, num_layers=2, batch_first=True)
        self.gru = nn.GRU(8, 5, batch_first=True, bidirectional=True)
        self.head = nn.Linear(10, 4)

    def forward(self, x):
        return self.head(self.gru(self.lstm(x)[0])[0][:, -1])


# name -> (the model, the input's shape, the number of classes)
MODELS = {
    "mobilenet_v2": (lambda: models.mobilenet_v2(num_classes=4), (4, 3, 64, 64), 4),
    "efficientnet_b0": (lambda: models.efficientnet_b0(num_classes=4), (4, 3, 64, 64), 4),
    "shufflenet_v2": (lambda: models.shufflenet_v2_x0_5(num_classes=4), (2, 3, 32, 32), 4),
    "regnet_y_400mf": (lambda: models.regnet_y_400mf(num_classes=4), (4, 3, 64, 64), 4),
    "densenet121": (lambda: models.densenet121(num_classes=4), (2, 3, 32, 32), 4),
    "swin_t": (lambda: models.swin_t(num_classes=4), (1, 3, 32, 32), 4),
    "vit": (lambda: models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                             hidden_dim=16, mlp_dim=32, num_classes=4), (2, 3, 32, 32), 4),
    "recurrent": (Recurrent, (3, 7, 6), 4),
    "r3d_18": (lambda: models.video.r3d_18(num_classes=4), (2, 3, 4, 16, 16), 4),
}

def train_step(make, shape, classes, device):
    torch.manual_seed(0)
    model = make()
    for module in model.modules():
        if isinstance(module, nn.Dropout) or type(module).__name__ == "StochasticDepth":
            module.p = 0.0
    model = model.double().train().to(device)
    torch.manual_seed(1)
    x = torch.randn(*shape, dtype=torch.float64)
    y = torch.randint(0, classes, (shape[0],))
    loss = F.cross_entropy(model(x.to(device)), y.to(device))
    loss.backward()
    return loss, [(name, p.grad) for name, p in model.named_parameters()]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_training_step_matches_the_cpu_without_the_fallback(dev, name):
    make, shape, classes = MODELS[name]
    expected_loss, expected = train_step(make, shape, classes, "cpu")
    loss, grads = train_step(make, shape, classes, dev)
    lazygen_torch.mark_step()
    assert fallbacks() == {}, f"{name} ran on the CPU fallback"
    assert_same(loss, expected_loss.detach(), rtol=1e-9, atol=1e-12)
    for (param, got), (_, want) in zip(grads, expected):
        assert (got is None) == (want is None), f"{name}.{param}: gradient presence differs"
        if want is not None:
            scale = want.abs().max().item()
            assert_same(got, want, rtol=1e-7, atol=1e-9 * max(scale, 1.0))
