"""GroupNormalization (ai.graphcore 1: outputs y, mean, invstd; ai.onnx 18/21) forward and
gradients against torch.nn.functional.group_norm with autograd."""
import numpy as np
import onnx.helper as oh
import pytest
import torch
import torch.nn.functional as F

import popart
from _grad_util import weight_grads, weighted_loss
from conftest import run_model

EPS = 1e-5
CASES = [((4, 6), 3), ((3, 4, 5), 2), ((2, 6, 3, 4), 3), ((2, 4, 3, 3), 4), ((2, 4, 5), 1)]
DTYPES = [np.float32, np.float16, np.float64]


def tols(dtype):
    return {"rtol": 2e-2, "atol": 2e-2} if dtype == np.float16 else {"rtol": 1e-5, "atol": 1e-5}


def data(shape, params, dtype, seed=0):
    rng = np.random.RandomState(seed)
    x = (rng.randn(*shape) * 2 + 0.5).astype(dtype)
    return x, rng.uniform(0.5, 1.5, params).astype(dtype), rng.randn(params).astype(dtype)


def torch_group_norm(x, scale, bias, groups):
    """y, mean, invstd of group (n, g); per-group parameters are repeated over their channels."""
    t = [torch.tensor(v.astype(np.float64), requires_grad=True) for v in (x, scale, bias)]
    per = x.shape[1] // scale.shape[0]
    y = F.group_norm(t[0], groups, t[1].repeat_interleave(per), t[2].repeat_interleave(per), EPS)
    g = t[0].detach().reshape(x.shape[0] * groups, -1)
    return t, y, g.mean(1).numpy(), (1 / torch.sqrt(g.var(1, unbiased=False) + EPS)).numpy()


def graphcore_model(x, scale, bias, groups, outs):
    b = popart.Builder()
    xi = b.addInputTensor(popart.TensorInfo(x), "x")
    s = b.addInitializedInputTensor(scale, "scale")
    bb = b.addInitializedInputTensor(bias, "bias")
    ys = b.aiGraphcore.groupnormalization([xi, s, bb], num_groups=groups, epsilon=EPS)
    for y in ys[:outs]:
        b.addOutputTensor(y)
    return b.getModelProto(), xi, ys[:outs]


@pytest.mark.parametrize("shape,groups", CASES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_graphcore_forward(shape, groups, dtype):
    x, scale, bias = data(shape, shape[1], dtype)
    proto, xi, ys = graphcore_model(x, scale, bias, groups, 3)
    got = run_model(proto, {xi: x}, ys)
    _, y, mean, invstd = torch_group_norm(x, scale, bias, groups)
    for name, w in zip(ys, (y.detach().numpy(), mean, invstd)):
        assert got[name].dtype == dtype
        np.testing.assert_allclose(got[name].astype(np.float64), w, **tols(dtype), err_msg=name)


@pytest.mark.parametrize("shape,groups", CASES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_graphcore_gradients(shape, groups, dtype):
    x, scale, bias = data(shape, shape[1], dtype, seed=1)
    cot = np.random.RandomState(2).uniform(-1.5, 1.5, shape).astype(dtype)
    node = oh.make_node("GroupNormalization", ["x", "s", "b"], ["y", "m", "i"], domain="ai.graphcore",
                        num_groups=groups, epsilon=EPS)
    got = weight_grads([node] + weighted_loss("y", cot), {"x": x, "s": scale, "b": bias}, "loss")
    t, y, _, _ = torch_group_norm(x, scale, bias, groups)
    (y * torch.tensor(cot.astype(np.float64))).sum().backward()
    for name, v in zip("xsb", t):
        np.testing.assert_allclose(got[name].astype(np.float64), v.grad.numpy(), **tols(dtype), err_msg=name)


@pytest.mark.parametrize("opset", [18, 21])
@pytest.mark.parametrize("shape,groups", [((3, 4, 5), 2), ((2, 6, 3, 4), 3)])
def test_onnx_forward_and_gradients(opset, shape, groups):
    params = groups if opset == 18 else shape[1]
    x, scale, bias = data(shape, params, np.float64, seed=3)
    cot = np.random.RandomState(4).uniform(-1.5, 1.5, shape)
    node = oh.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=groups, epsilon=EPS)
    got = weight_grads([node] + weighted_loss("y", cot), {"x": x, "s": scale, "b": bias}, "loss", opset=opset)
    t, y, _, _ = torch_group_norm(x, scale, bias, groups)
    (y * torch.tensor(cot)).sum().backward()
    for name, v in zip("xsb", t):
        np.testing.assert_allclose(got[name], v.grad.numpy(), rtol=1e-9, atol=1e-10, err_msg=name)


def test_bad_num_groups_and_params():
    x, scale, bias = data((2, 6, 3), 6, np.float32)
    with pytest.raises(popart.popart_exception, match="num_groups=4 must be positive and divide the 6 channels"):
        proto, xi, ys = graphcore_model(x, scale, bias, 4, 1)
        run_model(proto, {xi: x}, ys)
    with pytest.raises(popart.popart_exception, match=r"input 1 \(scale\) has shape \[5\], expected \[6\]"):
        proto, xi, ys = graphcore_model(x, scale[:5], bias, 3, 1)
        run_model(proto, {xi: x}, ys)
