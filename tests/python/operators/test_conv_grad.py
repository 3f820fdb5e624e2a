"""Conv gradients (ConvDataGrad, ConvWeightsGrad, ConvBiasGrad) against torch autograd, and a small CNN
trained with SGD for three steps against torch."""
import os
import sys

import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch
import torch.nn.functional as F

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _grad_util import weight_grads, weighted_loss  # noqa: E402

CASES = [  # x shape, w shape, attrs
    ((2, 3, 9, 9), (4, 3, 3, 3), {"pads": [1, 1, 1, 1]}),
    ((1, 4, 10, 8), (6, 2, 3, 2), {"group": 2, "strides": [2, 1], "pads": [1, 0, 2, 1]}),
    ((2, 4, 9, 9), (4, 1, 3, 3), {"group": 4, "pads": [1, 1, 1, 1], "strides": [2, 2]}),  # depthwise
    ((1, 3, 11, 11), (2, 3, 3, 3), {"dilations": [2, 3], "pads": [2, 1, 0, 3]}),
    ((1, 3, 11, 10), (5, 3, 3, 3), {"strides": [2, 3], "auto_pad": "SAME_UPPER"}),
    ((1, 3, 11, 10), (5, 3, 4, 2), {"strides": [2, 2], "auto_pad": "SAME_LOWER"}),
    ((1, 3, 11, 10), (5, 3, 3, 3), {"strides": [2, 2], "auto_pad": "VALID"}),
    ((2, 8, 5, 5), (16, 8, 1, 1), {}),
    ((2, 3, 12), (4, 3, 3), {"pads": [1, 2], "strides": [2]}),  # 1-D
    ((1, 2, 5, 6, 7), (4, 2, 3, 2, 3), {"pads": [1, 0, 1, 1, 1, 0], "dilations": [1, 2, 1]}),  # 3-D
    ((1, 4, 6, 6, 6), (4, 2, 3, 3, 3), {"group": 2, "auto_pad": "SAME_UPPER", "strides": [2, 1, 2]}),
]


def explicit_pads(x_shape, w_shape, attrs):
    """ONNX pads [begins..., ends...] after resolving auto_pad."""
    r = len(x_shape) - 2
    s, d = attrs.get("strides", [1] * r), attrs.get("dilations", [1] * r)
    mode = attrs.get("auto_pad", "NOTSET")
    if mode == "VALID":
        return [0] * 2 * r
    if mode not in ("SAME_UPPER", "SAME_LOWER"):
        return attrs.get("pads", [0] * 2 * r)
    begin, end = [], []
    for i in range(r):
        out = -(-x_shape[2 + i] // s[i])
        total = max(0, (out - 1) * s[i] + (w_shape[2 + i] - 1) * d[i] + 1 - x_shape[2 + i])
        small = total // 2
        begin.append(small if mode == "SAME_UPPER" else total - small)
        end.append(total - begin[-1])
    return begin + end


def torch_conv(x, w, b, x_shape, w_shape, attrs):
    r = len(x_shape) - 2
    pads = explicit_pads(x_shape, w_shape, attrs)
    torch_pads = []
    for i in reversed(range(r)):
        torch_pads += [pads[i], pads[r + i]]
    conv = [F.conv1d, F.conv2d, F.conv3d][r - 1]
    return conv(F.pad(x, torch_pads), w, b, stride=attrs.get("strides", 1), dilation=attrs.get("dilations", 1),
                groups=attrs.get("group", 1))


def torch_grads(fn, arrays, cot):
    """Gradients of sum(fn(*arrays) * cot), computed in float64 (float16 inputs included)."""
    ts = [torch.tensor(a.astype(np.float64), requires_grad=True) for a in arrays]
    (fn(*ts) * torch.tensor(cot.astype(np.float64))).sum().backward()
    return [t.grad.numpy() for t in ts]


TOL = {np.float32: (1e-4, 1e-4), np.float64: (1e-10, 1e-10), np.float16: (2e-2, 3e-2)}


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("x_shape,w_shape,attrs", CASES)
def test_conv_grad(dtype, x_shape, w_shape, attrs):
    rs = np.random.RandomState(0)
    x = rs.randn(*x_shape).astype(dtype)
    w = (rs.randn(*w_shape) * 0.3).astype(dtype)
    b = rs.randn(w_shape[0]).astype(dtype)
    want_y = torch_conv(torch.tensor(x, dtype=torch.float64), torch.tensor(w, dtype=torch.float64), None, x_shape,
                        w_shape, attrs)
    cot = rs.uniform(-1, 1, want_y.shape).astype(dtype)
    want = torch_grads(lambda x, w, b: torch_conv(x, w, b, x_shape, w_shape, attrs), [x, w, b], cot)
    nodes = [oh.make_node("Conv", ["x", "w", "b"], ["y"], **attrs)] + weighted_loss("y", cot)
    got = weight_grads(nodes, {"x": x, "w": w, "b": b}, "loss", opset=11)
    rtol, atol = TOL[dtype]
    for name, ref in zip("xwb", want):
        scale = max(1.0, np.abs(ref).max())
        np.testing.assert_allclose(got[name].astype(np.float64), ref, rtol=rtol, atol=atol * scale, err_msg=name)


def test_conv_grad_without_bias():
    rs = np.random.RandomState(3)
    x, w = rs.randn(2, 3, 8, 8).astype(np.float32), rs.randn(5, 3, 3, 3).astype(np.float32)
    attrs = {"strides": [2, 2], "pads": [0, 1, 1, 0]}
    cot = rs.randn(2, 5, 4, 4).astype(np.float32)
    want = torch_grads(lambda x, w: torch_conv(x, w, None, x.shape, w.shape, attrs), [x, w], cot)
    nodes = [oh.make_node("Conv", ["x", "w"], ["y"], **attrs)] + weighted_loss("y", cot)
    got = weight_grads(nodes, {"x": x, "w": w}, "loss")
    for name, ref in zip("xw", want):
        np.testing.assert_allclose(got[name], ref, rtol=1e-4, atol=1e-4)


def _cnn_model(weights, target, batch):
    f = onnx.TensorProto.FLOAT
    nodes = [
        oh.make_node("Constant", [], ["t"], value=onnx.numpy_helper.from_array(target, "t")),
        oh.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        oh.make_node("Relu", ["c1"], ["r1"]),
        oh.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        oh.make_node("Conv", ["p1", "w2", "b2"], ["c2"], strides=[2, 2], pads=[0, 0, 1, 1]),
        oh.make_node("GlobalAveragePool", ["c2"], ["g"]),
        oh.make_node("Mul", ["g", "t"], ["m"]),
        oh.make_node("IdentityLoss", ["m"], ["loss"], domain="ai.graphcore", reduction=0),
    ]
    inits = [onnx.numpy_helper.from_array(v, k) for k, v in weights.items()]
    graph = oh.make_graph(nodes, "cnn", [oh.make_tensor_value_info("x", f, batch.shape)],
                          [oh.make_tensor_value_info("loss", f, [])], initializer=inits)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11), oh.make_opsetid("ai.graphcore", 1)])
    model.ir_version = min(model.ir_version, 10)
    return model.SerializeToString()


def test_small_cnn_trains_like_torch():
    rs = np.random.RandomState(4)
    weights = {"w1": rs.randn(4, 3, 3, 3).astype(np.float32) * 0.3, "b1": rs.randn(4).astype(np.float32) * 0.1,
               "w2": rs.randn(6, 4, 3, 3).astype(np.float32) * 0.3, "b2": rs.randn(6).astype(np.float32) * 0.1}
    target = rs.randn(1, 6, 1, 1).astype(np.float32)
    batches = [rs.randn(2, 3, 8, 8).astype(np.float32) for _ in range(3)]
    lr = 0.05
    sess = popart.TrainingSession(_cnn_model(weights, target, batches[0]), popart.DataFlow(1, []), "loss",
                                  popart.SGD({"defaultLearningRate": (lr, False)}),
                                  popart.DeviceManager().createCpuDevice())
    sess.prepareDevice()
    sess.weightsFromHost()
    tw = {k: torch.tensor(v, requires_grad=True) for k, v in weights.items()}
    opt = torch.optim.SGD(tw.values(), lr=lr)
    for step, batch in enumerate(batches):
        sess.run(popart.PyStepIO({"x": batch}, {}))
        opt.zero_grad()
        h = F.max_pool2d(F.relu(F.conv2d(torch.tensor(batch), tw["w1"], tw["b1"], padding=1)), 2)
        h = F.conv2d(F.pad(h, (0, 1, 0, 1)), tw["w2"], tw["b2"], stride=2)
        (h.mean(dim=(2, 3), keepdim=True) * torch.tensor(target)).sum().backward()
        opt.step()
        got = {k: np.zeros_like(v) for k, v in weights.items()}
        sess.weightsToHost()
        sess.readWeights(popart.PyWeightsIO(got))
        for k in weights:
            np.testing.assert_allclose(got[k], tw[k].detach().numpy(), rtol=1e-4, atol=1e-6, err_msg=f"{k} step {step}")
