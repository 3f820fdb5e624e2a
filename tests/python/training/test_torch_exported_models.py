"""Models exported by torch 2.13's torch.onnx.export, both the legacy
(TorchScript, dynamo=False) and the default (dynamo) exporter, at ai.onnx
opsets 17 to 21: run for inference against torch, then continued with the
Builder (a loss added at the model's own opset) and trained for one SGD step
against torch's autograd. Exporters store compile-time operands (Dropout
ratio/training_mode, Clip bounds, Reshape shapes) as initializers: they must
stay constants, never weights."""
import io
import warnings

import numpy as np
import pytest

import onnx
import onnx.numpy_helper
import onnxscript  # noqa: F401  the dynamo exporter needs it (requirements-dev.txt): a missing one fails here
import torch

import popart

from _torch_models import (AlexNetStyle, MobileNetV3BlockNet, ResNetBlockNet,  # noqa: E402
                           TransformerEncoderBlock, ViTSmall)

LR = 0.05
LAMBDA = 0.1

# name -> (constructor taking dropout, example inputs, input names)
MODELS = {
    "alexnet": (lambda p: AlexNetStyle(dropout=p), lambda g: [g.standard_normal((2, 3, 32, 32))]),
    "resnet_block": (lambda p: ResNetBlockNet(), lambda g: [g.standard_normal((2, 3, 16, 16))]),
    "mobilenetv3_block": (lambda p: MobileNetV3BlockNet(dropout=p), lambda g: [g.standard_normal((2, 3, 16, 16))]),
    "vit": (lambda p: ViTSmall(dropout=p), lambda g: [g.standard_normal((2, 3, 16, 16))]),
    "transformer_block": (lambda p: TransformerEncoderBlock(dropout=p),
                          lambda g: [g.standard_normal((2, 5, 32)), np.array([[1, 1, 1, 1, 0], [1, 1, 1, 0, 0]])]),
}
# Each model at two opsets of 17..21, so that every opset is exported by both exporters.
OPSETS = {"alexnet": (17, 21), "resnet_block": (18, 20), "mobilenetv3_block": (19, 17),
          "vit": (20, 18), "transformer_block": (21, 19)}
CASES = [(name, opset, dynamo, mode)
         for name, opsets in OPSETS.items() for opset in opsets
         for dynamo in (False, True) for mode in ("eval", "train")]


def _inputs(name):
    g = np.random.default_rng(7)
    return [a.astype(np.float32) for a in MODELS[name][1](g)]


def _model(name, mode, dropout):
    """The model with random (trained-looking) values everywhere: no two
    parameters equal, since the exporters merge equal initializers (two
    LayerNorms' all-ones scales would become one tied weight)."""
    torch.manual_seed(0)
    m = MODELS[name][0](dropout)
    with torch.no_grad():
        for p in m.parameters():
            p.add_(0.1 * torch.randn_like(p))
        for b in m.modules():
            if isinstance(b, torch.nn.BatchNorm2d):
                b.running_mean.copy_(0.1 * torch.randn_like(b.running_mean))
                b.running_var.copy_(0.5 + torch.rand_like(b.running_var))
    return m.train(mode == "train")


def _has_batchnorm(module):
    return any(isinstance(b, torch.nn.BatchNorm2d) for b in module.modules())


def _reference_mode(module, dynamo, mode):
    """The mode the exported graph computes: torch 2.13's dynamo exporter folds
    BatchNorm into the convolutions with the running statistics even in train()
    (onnxruntime computes the same), the legacy exporter with
    TrainingMode.TRAINING keeps batch statistics."""
    return "eval" if dynamo and mode == "train" and _has_batchnorm(module) else mode


def export(module, inputs, opset, dynamo, mode):
    """The serialised ModelProto torch.onnx.export writes for `module`."""
    f = io.BytesIO()
    kwargs = {"input_names": [f"in{i}" for i in range(len(inputs))]}
    if not dynamo and mode == "train":
        kwargs.update(training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, tuple(torch.from_numpy(a) for a in inputs), f, opset_version=opset,
                          dynamo=dynamo, verbose=False, **kwargs)
    return f.getvalue()


def _input_names(proto):
    m = onnx.load_from_string(proto)
    inits = {t.name for t in m.graph.initializer}
    return [i.name for i in m.graph.input if i.name not in inits], m.graph.output[0].name


def run_inference(proto, inputs):
    names, out = _input_names(proto)
    session = popart.InferenceSession(proto, popart.DataFlow(1, {out: popart.AnchorReturnType("All")}),
                                      popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    session.run(popart.PyStepIO(dict(zip(names, inputs)), anchors))
    return anchors[out]


def _torch_forward(module, inputs):
    return module(*(torch.from_numpy(a) for a in inputs))


@pytest.mark.parametrize("name,opset,dynamo,mode", CASES)
def test_inference_matches_torch(name, opset, dynamo, mode):
    # train(): dropout off so that the numbers are comparable; BatchNorm uses batch statistics.
    module = _model(name, mode, dropout=0.0 if mode == "train" else 0.5)
    inputs = _inputs(name)
    proto = export(module, inputs, opset, dynamo, mode)
    assert onnx.load_from_string(proto).opset_import[0].version >= opset
    ref_mode = _reference_mode(module, dynamo, mode)
    with torch.no_grad():
        expected = _torch_forward(_model(name, ref_mode, dropout=0.0 if mode == "train" else 0.5), inputs).numpy()
    got = run_inference(proto, inputs)
    assert got.dtype == np.float32 and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def _trainable(proto, module):
    """Initializers holding a torch parameter unchanged (the exporters keep the
    names; BatchNorm folded into a convolution changes its values)."""
    params = {k: v.detach().numpy() for k, v in module.named_parameters()}
    found = {}
    for t in onnx.load_from_string(proto).graph.initializer:
        p = params.get(t.name)
        if p is not None and tuple(t.dims) == p.shape and np.array_equal(onnx.numpy_helper.to_array(t), p):
            found[t.name] = dict(module.named_parameters())[t.name]
    return found


def train_one_step(proto, inputs, anchor):
    """Adds an L1 loss with the Builder (at the model's own opset), runs one SGD
    step anchoring the loss or the model output; returns (session, loss, anchors)."""
    names, out = _input_names(proto)
    builder = popart.Builder(modelProtoOrFilename=proto)
    assert builder.aiOnnx.version == onnx.load_from_string(proto).opset_import[0].version
    loss = builder.aiGraphcore.l1loss([out], LAMBDA, reduction=popart.ReductionType.Mean)
    session = popart.TrainingSession(
        fnModel=builder.getModelProto(), loss=loss, optimizer=popart.ConstSGD(LR),
        dataFlow=popart.DataFlow(1, {loss if anchor == "loss" else out: popart.AnchorReturnType("All")}),
        deviceInfo=popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    session.weightsFromHost()
    anchors = session.initAnchorArrays()
    session.run(popart.PyStepIO(dict(zip(names, inputs)), anchors))
    return session, loss, anchors


@pytest.mark.parametrize("name,opset,dynamo,mode", CASES)
def test_training_with_a_builder_loss_matches_torch(name, opset, dynamo, mode):
    module = _model(name, mode, dropout=0.0 if mode == "train" else 0.5)
    inputs = _inputs(name)
    proto = export(module, inputs, opset, dynamo, mode)

    session, loss, anchors = train_one_step(proto, inputs, anchor="loss")

    reference = _model(name, _reference_mode(module, dynamo, mode), dropout=0.0 if mode == "train" else 0.5)
    y = _torch_forward(reference, inputs)
    ref_loss = LAMBDA * y.abs().mean()
    ref_loss.backward()
    np.testing.assert_allclose(anchors[loss], ref_loss.item(), rtol=1e-4, atol=1e-5)

    trainable = _trainable(proto, reference)
    assert trainable, "no initializer kept a torch parameter's name"
    weights = {k: np.empty(tuple(p.shape), np.float32) for k, p in trainable.items()}
    session.weightsToHost()
    session.readWeights(popart.PyWeightsIO(weights))
    for k, p in trainable.items():
        expected = (p - LR * p.grad).detach().numpy()
        np.testing.assert_allclose(weights[k], expected, rtol=1e-4, atol=1e-5, err_msg=k)


@pytest.mark.parametrize("dynamo", [False, True])
def test_train_mode_dropout_operands_stay_constants(dynamo):
    """AlexNet-style in train() with p=0.5: the exporters write Dropout's ratio and
    training_mode as initializers (dynamo) or Constant nodes (legacy). They are
    constants: the model trains, only torch's parameters change, and writing an
    operand is refused by name."""
    module = _model("alexnet", "train", dropout=0.5)
    inputs = _inputs("alexnet")
    proto = export(module, inputs, 18, dynamo, "train")
    m = onnx.load_from_string(proto)
    dropouts = [n for n in m.graph.node if n.op_type == "Dropout"]
    assert len(dropouts) == 2
    inits = {t.name for t in m.graph.initializer}
    operands = sorted({i for n in dropouts for i in n.input[1:] if i in inits})
    assert bool(operands) == dynamo
    _, out = _input_names(proto)
    session, _, anchors = train_one_step(proto, inputs, anchor="output")
    # eval-mode output without dropout vs the dropped one: the classifier input is
    # masked, so the train output differs while staying finite
    assert np.isfinite(anchors[out]).all()
    with torch.no_grad():
        undropped = _torch_forward(_model("alexnet", "eval", 0.5), inputs).numpy()
    assert not np.allclose(anchors[out], undropped, atol=1e-3)
    for name in operands:
        value = onnx.numpy_helper.to_array(next(t for t in m.graph.initializer if t.name == name))
        with pytest.raises(popart.popart_exception, match=f"'{name}' is not a weight"):
            session.writeWeights(popart.PyWeightsIO({name: np.array(value)}))
