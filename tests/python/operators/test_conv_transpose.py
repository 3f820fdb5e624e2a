"""ConvTranspose forward and gradients (data, weights, bias) against torch conv_transpose with autograd."""
import os
import sys

import numpy as np
import onnx.helper as oh
import pytest
import torch
import torch.nn.functional as F

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _grad_util import weight_grads, weighted_loss  # noqa: E402

CASES = [  # x shape, w shape, attrs
    ((2, 3, 5, 5), (3, 4, 3, 3), {}),
    ((1, 4, 4, 5), (4, 3, 3, 2), {"group": 2, "strides": [2, 3], "pads": [1, 0, 2, 1]}),
    ((2, 4, 5, 5), (4, 1, 3, 3), {"group": 4, "strides": [2, 2], "pads": [1, 1, 1, 1]}),  # depthwise
    ((1, 3, 4, 4), (3, 2, 3, 3), {"dilations": [2, 3], "pads": [2, 1, 0, 3]}),
    ((1, 2, 4, 5), (2, 3, 3, 3), {"strides": [3, 2], "output_padding": [2, 1], "pads": [1, 0, 0, 1]}),
    ((1, 2, 4, 5), (2, 3, 3, 3), {"strides": [3, 2], "output_shape": [13, 10]}),
    ((1, 2, 4, 5), (2, 3, 4, 3), {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ((1, 2, 4, 5), (2, 3, 4, 3), {"strides": [2, 2], "auto_pad": "SAME_LOWER"}),
    ((1, 2, 4, 5), (2, 3, 3, 3), {"strides": [2, 1], "auto_pad": "VALID", "kernel_shape": [3, 3]}),
    ((2, 3, 6), (3, 2, 3), {"strides": [2], "pads": [1, 2], "output_padding": [1]}),  # 1-D
    ((1, 2, 3, 4, 3), (2, 2, 3, 2, 3), {"strides": [2, 1, 2], "pads": [1, 0, 1, 0, 1, 0], "dilations": [1, 2, 1]}),
]


def geometry(x_shape, w_shape, attrs):
    """(pads begin, output spatial shape) by ONNX's rules."""
    r = len(x_shape) - 2
    s, d = attrs.get("strides", [1] * r), attrs.get("dilations", [1] * r)
    op, pads = attrs.get("output_padding", [0] * r), attrs.get("pads", [0] * 2 * r)
    mode = attrs.get("auto_pad", "NOTSET")
    begin, out = [], []
    for i in range(r):
        full = s[i] * (x_shape[2 + i] - 1) + op[i] + (w_shape[2 + i] - 1) * d[i] + 1
        if "output_shape" in attrs or mode.startswith("SAME"):
            o = attrs["output_shape"][i] if "output_shape" in attrs else x_shape[2 + i] * s[i]
            total = full - o
            begin.append(total // 2 if mode == "SAME_UPPER" else total - total // 2)
            out.append(o)
        else:
            pb, pe = (0, 0) if mode == "VALID" else (pads[i], pads[r + i])
            begin.append(pb)
            out.append(full - pb - pe)
    return begin, out


def torch_conv_transpose(x, w, b, x_shape, w_shape, attrs):
    r = len(x_shape) - 2
    begin, out = geometry(x_shape, w_shape, attrs)
    fn = [F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d][r - 1]
    y = fn(x, w, None, stride=attrs.get("strides", 1), dilation=attrs.get("dilations", 1), groups=attrs.get("group", 1))
    pad = []
    for i in reversed(range(r)):
        pad += [-begin[i], out[i] + begin[i] - y.shape[2 + i]]
    y = F.pad(y, pad)
    return y if b is None else y + b.reshape(1, -1, *([1] * r))


TOL = {np.float32: (1e-4, 1e-4), np.float64: (1e-10, 1e-10), np.float16: (2e-2, 3e-2)}


def data(x_shape, w_shape, dtype, seed=0):
    rs = np.random.RandomState(seed)
    return rs.randn(*x_shape).astype(dtype), (rs.randn(*w_shape) * 0.3).astype(dtype), rs


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("x_shape,w_shape,attrs", CASES)
def test_conv_transpose(op_tester, dtype, x_shape, w_shape, attrs):
    x, w, rs = data(x_shape, w_shape, dtype)
    b = rs.randn(w_shape[1] * attrs.get("group", 1)).astype(dtype)

    def reference(x, w, b):
        t = [torch.tensor(a.astype(np.float64)) for a in (x, w, b)]
        return torch_conv_transpose(*t, x_shape, w_shape, attrs).numpy()
    rtol, atol = TOL[dtype]
    op_tester.check("ConvTranspose", [x, w, b], attrs=attrs, reference=reference, rtol=rtol, atol=atol * 5)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("x_shape,w_shape,attrs", CASES)
def test_conv_transpose_grad(dtype, x_shape, w_shape, attrs):
    x, w, rs = data(x_shape, w_shape, dtype, seed=1)
    b = rs.randn(w_shape[1] * attrs.get("group", 1)).astype(dtype)
    ts = [torch.tensor(a.astype(np.float64), requires_grad=True) for a in (x, w, b)]
    y = torch_conv_transpose(*ts, x_shape, w_shape, attrs)
    cot = rs.uniform(-1, 1, tuple(y.shape)).astype(dtype)
    (y * torch.tensor(cot.astype(np.float64))).sum().backward()
    nodes = [oh.make_node("ConvTranspose", ["x", "w", "b"], ["y"], **attrs)] + weighted_loss("y", cot)
    got = weight_grads(nodes, {"x": x, "w": w, "b": b}, "loss", opset=11)
    rtol, atol = TOL[dtype]
    for name, t in zip("xwb", ts):
        ref = t.grad.numpy()
        scale = max(1.0, np.abs(ref).max())
        np.testing.assert_allclose(got[name].astype(np.float64), ref, rtol=rtol, atol=atol * scale, err_msg=name)


@pytest.mark.parametrize("opset", [1, 11])
def test_conv_transpose_versions_without_bias(op_tester, opset):
    x, w, _ = data((1, 2, 4, 4), (2, 3, 3, 3), np.float32)
    attrs = {"strides": [2, 2], "pads": [1, 1, 0, 0]}

    def reference(x, w):
        return torch_conv_transpose(torch.tensor(x), torch.tensor(w), None, x.shape, w.shape, attrs).numpy()
    op_tester.check("ConvTranspose", [x, w], attrs=attrs, opset=opset, reference=reference, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("attrs,match", [
    ({"group": 3}, "group 3"),
    ({"auto_pad": "SAME"}, "auto_pad.*SAME"),
    ({"kernel_shape": [2, 2]}, "kernel_shape"),
    ({"output_shape": [5]}, "output_shape has 1 values, expected 2"),
    ({"output_padding": [3, 0]}, "more than stride - 1"),
])
def test_conv_transpose_errors(op_tester, attrs, match):
    with pytest.raises(popart.popart_exception, match=match):
        op_tester.run("ConvTranspose", [np.zeros((1, 4, 5, 5), np.float32), np.zeros((4, 2, 3, 3), np.float32)],
                      attrs=attrs)
