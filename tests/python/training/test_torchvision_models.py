"""torchvision's own models (random weights: nothing is downloaded), exported with
torch.onnx.export and run by popart against torch: the user guide's AlexNet by
the legacy and the dynamo exporter, in eval() and train() mode, for inference
and for one SGD step with a loss added by the Builder; ResNet-18, ResNet-50,
MobileNetV3 and a torchvision VisionTransformer for inference; ResNet-18 (in
train(): BatchNorm on batch statistics), MobileNetV3 and the ViT also for training.

torchvision from PyPI does not load beside the CPU build of torch 2.13 that the
main environment uses; scripts/test.sh runs this file in a second environment
(build/tvvenv: torch 2.14.1 + torchvision 0.29.1, created once)."""
import numpy as np
import pytest

import popart  # noqa: F401

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip(
    "torchvision",
    reason="torchvision is not installed here: PyPI's builds need another torch than the main environment's "
           "2.13 CPU build; scripts/test.sh runs these tests in build/tvvenv (torch 2.14.1, torchvision 0.29.1)")

from test_torch_exported_models import (LAMBDA, LR, _trainable, export, run_inference,  # noqa: E402
                                        train_one_step)


def randomized(module):
    """Random values everywhere (no two parameters equal: exporters merge equal
    initializers), BatchNorm running statistics included."""
    with torch.no_grad():
        for p in module.parameters():
            p.add_(0.05 * torch.randn_like(p))
        for b in module.modules():
            if isinstance(b, torch.nn.BatchNorm2d):
                b.running_mean.copy_(0.1 * torch.randn_like(b.running_mean))
                b.running_var.copy_(0.5 + torch.rand_like(b.running_var))
    return module


def make(name):
    torch.manual_seed(0)
    models = torchvision.models
    if name == "alexnet":
        # The guide's model; dropout 0 so that train() outputs are comparable with torch's.
        return randomized(models.alexnet(weights=None, num_classes=10, dropout=0.0))
    if name == "resnet18":
        return randomized(models.resnet18(weights=None, num_classes=10))
    if name == "resnet50":
        return randomized(models.resnet50(weights=None, num_classes=10))
    if name == "mobilenet_v3_small":
        return randomized(models.mobilenet_v3_small(weights=None, num_classes=10))
    if name == "vit":
        return randomized(models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4,
                                                   hidden_dim=64, mlp_dim=128, num_classes=10, dropout=0.0))
    raise ValueError(name)


def image(name):
    # AlexNet at the guide's 224 x 224: its 6 x 6 adaptive pooling must divide the feature map
    # for the legacy exporter.
    size = {"alexnet": 224, "vit": 32}.get(name, 64)
    return [np.random.default_rng(3).standard_normal((2, 3, size, size)).astype(np.float32)]


def check_close(got, expected):
    assert got.dtype == np.float32 and got.shape == expected.shape
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=2e-5 * scale)


INFERENCE = [("alexnet", opset, dynamo, mode) for opset, dynamo in ((17, False), (20, True))
             for mode in ("eval", "train")]
INFERENCE += [("resnet18", 18, False, "eval"), ("resnet18", 20, True, "eval"), ("resnet50", 20, True, "eval"),
              ("mobilenet_v3_small", 17, False, "eval"), ("mobilenet_v3_small", 19, True, "eval"),
              ("vit", 18, False, "eval"), ("vit", 21, True, "eval")]


@pytest.mark.parametrize("name,opset,dynamo,mode", INFERENCE)
def test_inference_matches_torch(name, opset, dynamo, mode):
    module = make(name).train(mode == "train")
    inputs = image(name)
    proto = export(module, inputs, opset, dynamo, mode)
    with torch.no_grad():
        expected = module(torch.from_numpy(inputs[0])).numpy()
    check_close(run_inference(proto, inputs), expected)


TRAINING = [("alexnet", opset, dynamo, mode) for opset, dynamo in ((18, False), (21, True))
            for mode in ("eval", "train")]
TRAINING += [("resnet18", 17, False, "train"), ("mobilenet_v3_small", 20, True, "eval"), ("vit", 19, True, "eval")]


@pytest.mark.parametrize("name,opset,dynamo,mode", TRAINING)
def test_one_sgd_step_matches_torch(name, opset, dynamo, mode):
    """A loss added with the Builder at the model's own opset, one SGD step: the
    loss and every weight that kept a torch parameter's value match torch."""
    module = make(name).train(mode == "train")
    inputs = image(name)
    proto = export(module, inputs, opset, dynamo, mode)
    session, loss, anchors = train_one_step(proto, inputs, anchor="loss")

    ref_loss = LAMBDA * module(torch.from_numpy(inputs[0])).abs().mean()
    ref_loss.backward()
    np.testing.assert_allclose(anchors[loss], ref_loss.item(), rtol=1e-4, atol=1e-6)
    trainable = _trainable(proto, module)
    assert len(trainable) >= 4, sorted(trainable)
    weights = {k: np.empty(tuple(p.shape), np.float32) for k, p in trainable.items()}
    session.weightsToHost()
    session.readWeights(popart.PyWeightsIO(weights))
    for k, p in trainable.items():
        expected = (p - LR * p.grad).detach().numpy()
        scale = max(1.0, float(np.abs(expected).max()))
        np.testing.assert_allclose(weights[k], expected, rtol=1e-4, atol=1e-5 * scale, err_msg=k)
