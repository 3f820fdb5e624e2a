import os
import sys

import numpy as np
import pytest

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import reference, tolerance  # noqa: E402

CASES = [  # x shape, w shape, attrs
    ((2, 3, 9, 9), (4, 3, 3, 3), {}),
    ((2, 3, 9, 9), (4, 3, 3, 3), {"pads": [1, 1, 1, 1]}),
    ((1, 4, 10, 8), (6, 2, 3, 2), {"group": 2, "strides": [2, 1], "pads": [1, 0, 2, 1]}),
    ((2, 4, 9, 9), (4, 1, 3, 3), {"group": 4, "pads": [1, 1, 1, 1]}),          # depthwise
    ((1, 3, 11, 11), (2, 3, 3, 3), {"dilations": [2, 3], "pads": [2, 1, 0, 3]}),
    ((1, 3, 11, 10), (5, 3, 3, 3), {"strides": [2, 3], "auto_pad": "SAME_UPPER"}),
    ((1, 3, 11, 10), (5, 3, 4, 2), {"strides": [2, 2], "auto_pad": "SAME_LOWER"}),
    ((1, 3, 11, 10), (5, 3, 3, 3), {"strides": [2, 2], "auto_pad": "VALID"}),
    ((2, 8, 7, 7), (16, 8, 1, 1), {}),                                         # 1x1
    ((2, 3, 16, 16), (8, 3, 7, 7), {"strides": [2, 2], "pads": [3, 3, 3, 3]}),  # ResNet stem
    ((2, 3, 12), (4, 3, 3), {"pads": [1, 2], "strides": [2]}),                # 1-D
    ((1, 2, 5, 6, 7), (4, 2, 3, 2, 3), {"pads": [1, 0, 1, 1, 1, 0], "dilations": [1, 2, 1]}),  # 3-D
    ((1, 4, 6, 6, 6), (4, 2, 3, 3, 3), {"group": 2, "auto_pad": "SAME_UPPER", "strides": [2, 1, 2]}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("x_shape,w_shape,attrs", CASES)
@pytest.mark.parametrize("bias", [True, False])
def test_conv(op_tester, dtype, x_shape, w_shape, attrs, bias):
    rs = np.random.RandomState(0)
    x = rs.randn(*x_shape).astype(dtype)
    w = (rs.randn(*w_shape) * 0.3).astype(dtype)
    b = rs.randn(w_shape[0]).astype(dtype) if bias else None
    rtol, atol = tolerance(dtype)
    op_tester.check("Conv", [x, w, b], attrs=attrs, reference=reference("Conv", attrs), rtol=rtol, atol=atol * 10)


@pytest.mark.parametrize("opset", [1, 11])
def test_conv_versions_and_kernel_shape(op_tester, opset):
    rs = np.random.RandomState(1)
    x, w = rs.randn(1, 2, 6, 6).astype(np.float32), rs.randn(3, 2, 3, 3).astype(np.float32)
    attrs = {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}
    op_tester.check("Conv", [x, op_tester.const(w)], attrs=attrs, opset=opset, reference=reference("Conv", attrs),
                    rtol=1e-4, atol=1e-4)


def test_conv_large(op_tester):
    rs = np.random.RandomState(2)
    x, w, b = rs.randn(2, 32, 28, 28).astype(np.float32), rs.randn(32, 32, 3, 3).astype(np.float32) * 0.1, \
        rs.randn(32).astype(np.float32)
    attrs = {"pads": [1, 1, 1, 1]}
    op_tester.check("Conv", [x, op_tester.const(w), op_tester.const(b)], attrs=attrs,
                    reference=reference("Conv", attrs), rtol=1e-4, atol=1e-4)


def test_conv_bad_group(op_tester):
    with pytest.raises(popart.popart_exception, match="group 3"):
        op_tester.run("Conv", [np.zeros((1, 4, 5, 5), np.float32), np.zeros((2, 4, 3, 3), np.float32)],
                      attrs={"group": 3})


def test_conv_bad_auto_pad(op_tester):
    with pytest.raises(popart.popart_exception, match="auto_pad.*SAME"):
        op_tester.run("Conv", [np.zeros((1, 1, 5, 5), np.float32), np.zeros((1, 1, 3, 3), np.float32)],
                      attrs={"auto_pad": "SAME"})


def test_conv_kernel_shape_mismatch(op_tester):
    with pytest.raises(popart.popart_exception, match="kernel_shape"):
        op_tester.run("Conv", [np.zeros((1, 1, 5, 5), np.float32), np.zeros((1, 1, 3, 3), np.float32)],
                      attrs={"kernel_shape": [2, 2]})


def test_conv_bad_strides(op_tester):
    with pytest.raises(popart.popart_exception, match="strides has 1 values, expected 2"):
        op_tester.run("Conv", [np.zeros((1, 1, 5, 5), np.float32), np.zeros((1, 1, 3, 3), np.float32)],
                      attrs={"strides": [2]})


def test_conv_kernel_too_large(op_tester):
    with pytest.raises(popart.popart_exception, match="smaller than the dilated kernel"):
        op_tester.run("Conv", [np.zeros((1, 1, 2, 2), np.float32), np.zeros((1, 1, 3, 3), np.float32)])


def test_conv_rejects_int(op_tester):
    with pytest.raises(popart.popart_exception, match="INT32"):
        op_tester.run("Conv", [np.zeros((1, 1, 5, 5), np.int32), np.zeros((1, 1, 3, 3), np.int32)])


def test_conv_constant_folded(op_tester):  # all inputs constant: evaluated at import by the same kernel
    rs = np.random.RandomState(3)
    x, w = rs.randn(1, 2, 5, 5).astype(np.float32), rs.randn(3, 2, 3, 3).astype(np.float32)
    op_tester.check("Conv", [op_tester.const(x), op_tester.const(w)], reference=reference("Conv"), rtol=1e-4, atol=1e-4)



@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op,relu", [("conv", False), ("conv", True), ("convtranspose", False)])
def test_conv_weights_written_between_runs(dtype, op, relu):
    """Kernels cache weights laid out for oneDNN; weightsFromHost must refresh them."""
    import torch
    import torch.nn.functional as F
    rng = np.random.default_rng(11)
    w0 = rng.standard_normal((8, 16, 3, 3) if op == "convtranspose" else (16, 8, 3, 3)).astype(dtype)
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT16" if dtype == np.float16 else "FLOAT", [2, 8, 9, 9]))
    w = b.addInitializedInputTensor(w0, "w")
    y = getattr(b.aiOnnx, op)([x, w])
    if relu:
        y = b.aiOnnx.relu([y])
    session = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, {y: popart.AnchorReturnType("All")}),
                                      popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    xv = rng.standard_normal((2, 8, 9, 9)).astype(dtype)
    tol = dict(rtol=1e-2, atol=5e-2) if dtype == np.float16 else dict(rtol=1e-4, atol=1e-4)
    fn = F.conv_transpose2d if op == "convtranspose" else F.conv2d
    for k in range(3):
        wk = (w0 * (k + 1) - k).astype(dtype)
        if k:
            session.writeWeights(popart.PyWeightsIO({w: wk}))
            session.weightsFromHost()
        ref = fn(torch.tensor(xv.astype(np.float64)), torch.tensor(wk.astype(np.float64))).numpy()
        for _ in range(2):
            session.run(popart.PyStepIO({x: xv}, anchors))
            np.testing.assert_allclose(anchors[y].astype(np.float64), np.maximum(ref, 0) if relu else ref, **tol)
