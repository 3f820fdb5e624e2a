"""ConvInteger and QLinearConv (opset 10) against the onnx reference evaluator (exact INT32 sums),
onnxruntime, and a numpy requantisation: 1-D/2-D/3-D windows, groups, strides, dilations, pads,
auto_pad, INT8/UINT8 mixes, per-tensor and per-channel weight parameters, a bias; error cases."""
import os
import sys

import numpy as np
import onnx.helper as oh
import pytest
from onnx.reference import ReferenceEvaluator

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import ort_run  # noqa: E402

CASES = [  # x shape, w shape, attrs
    ((1, 1, 5, 5), (2, 1, 3, 3), {}),
    ((2, 4, 7, 6), (6, 2, 3, 2), {"group": 2, "strides": [2, 1], "pads": [1, 0, 1, 1]}),
    ((1, 3, 9, 8), (4, 3, 3, 3), {"dilations": [2, 1], "auto_pad": "SAME_UPPER"}),
    ((2, 2, 11), (3, 2, 4), {"strides": [3], "pads": [2, 1]}),
    ((1, 2, 5, 4, 6), (2, 2, 2, 3, 2), {"pads": [1, 0, 1, 0, 1, 1]}),
    ((1, 8, 14, 14), (16, 8, 3, 3), {"pads": [1, 1, 1, 1]}),
]


def q(shape, dtype, seed):
    info = np.iinfo(dtype)
    return np.random.RandomState(seed).randint(info.min, int(info.max) + 1, shape).astype(dtype)


def conv_integer_ref(attrs):
    """ConvInteger via the reference evaluator's Conv on the centred values in float64 (exact sums)."""
    def ref(x, w, zx=None, zw=None):
        xc = x.astype(np.float64) - (0.0 if zx is None else float(zx.reshape(-1)[0]))
        wc = w.astype(np.float64)
        if zw is not None:
            z = zw.astype(np.float64).reshape(-1)
            wc = wc - (z.reshape((-1,) + (1,) * (w.ndim - 1)) if z.size > 1 else z[0])
        node = oh.make_node("Conv", ["x", "w"], ["y"], **attrs)
        graph = oh.make_graph([node], "g", [oh.make_tensor_value_info(n, 11, v.shape) for n, v in (("x", xc), ("w", wc))],
                              [oh.make_empty_tensor_value_info("y")])
        model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)])
        return np.rint(ReferenceEvaluator(model).run(None, {"x": xc, "w": wc})[0]).astype(np.int32)
    return ref


@pytest.mark.parametrize("x_shape,w_shape,attrs", CASES)
@pytest.mark.parametrize("tx,tw", [(np.uint8, np.uint8), (np.int8, np.int8), (np.uint8, np.int8)])
@pytest.mark.parametrize("zeros", ["none", "tensor", "channel"])
def test_conv_integer(op_tester, x_shape, w_shape, attrs, tx, tw, zeros):
    x, w = q(x_shape, tx, 0), q(w_shape, tw, 1)
    zx = None if zeros == "none" else q((), tx, 2)
    zw = {"none": None, "tensor": q((1,), tw, 3), "channel": q((w_shape[0],), tw, 3)}[zeros]
    inputs = [x, w] + ([zx, zw] if zx is not None else [])
    op_tester.check("ConvInteger", inputs, reference=conv_integer_ref(attrs), attrs=attrs, opset=10)


def test_conv_integer_vs_onnxruntime(op_tester):
    x, w = q((2, 3, 8, 7), np.uint8, 4), q((4, 3, 3, 2), np.uint8, 5)
    attrs = {"pads": [1, 1, 0, 1], "strides": [1, 2]}
    inputs = [x, w, np.array(9, np.uint8), np.array(130, np.uint8)]
    op_tester.check("ConvInteger", inputs, reference=lambda *a: ort_run("ConvInteger", a, attrs, 10)[0], attrs=attrs,
                    opset=10)


def qlinear_conv_ref(attrs):
    def ref(x, sx, zx, w, sw, zw, sy, zy, b=None):
        acc = conv_integer_ref(attrs)(x, w, zx, zw).astype(np.int64)
        if b is not None:
            acc = acc + b.reshape((1, -1) + (1,) * (x.ndim - 2))
        mult = ((sx * sw) / sy).astype(np.float32).astype(np.float64)
        mult = mult.reshape((1, -1) + (1,) * (x.ndim - 2)) if sw.size > 1 else mult.reshape(())
        info = np.iinfo(zy.dtype)
        return np.clip(np.rint(acc.astype(np.int32) * mult) + zy, info.min, info.max).astype(zy.dtype)
    return ref


@pytest.mark.parametrize("x_shape,w_shape,attrs", CASES)
@pytest.mark.parametrize("tx,tw,ty", [(np.uint8, np.uint8, np.uint8), (np.int8, np.int8, np.int8),
                                      (np.uint8, np.int8, np.int8)])
@pytest.mark.parametrize("channel,bias", [(False, False), (True, True)])
def test_qlinear_conv(op_tester, x_shape, w_shape, attrs, tx, tw, ty, channel, bias):
    x, w = q(x_shape, tx, 0), q(w_shape, tw, 1)
    m = w_shape[0]
    rng = np.random.RandomState(2)
    sx = np.array(rng.uniform(0.01, 0.05), np.float32)
    sw = rng.uniform(0.01, 0.05, (m,) if channel else ()).astype(np.float32)
    zx, zw = q((), tx, 3), q((m,) if channel else (), tw, 4)
    sy, zy = np.array(0.002 * np.prod(w_shape[1:]), np.float32), q((), ty, 5)
    inputs = [x, sx, zx, w, sw, zw, sy, zy] + ([rng.randint(-5000, 5000, m).astype(np.int32)] if bias else [])
    op_tester.check("QLinearConv", inputs, reference=qlinear_conv_ref(attrs), attrs=attrs, opset=10)


def onnx_reference_run(op_type, inputs, attrs, opset):
    """Runs one node with onnx's reference evaluator."""
    names = [f"i{k}" for k in range(len(inputs))]
    node = oh.make_node(op_type, names, ["y"], **attrs)
    graph = oh.make_graph([node], "g", [oh.make_tensor_value_info(n, oh.np_dtype_to_tensor_dtype(a.dtype), a.shape)
                                        for n, a in zip(names, inputs)], [oh.make_empty_tensor_value_info("y")])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset)])
    return ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))[0]


def test_qlinear_conv_vs_onnx_reference(op_tester):
    # onnx's reference evaluator, not onnxruntime: onnxruntime 1.32 requantises 15 of these 48 outputs
    # one step away from both the onnx reference and the float computation rint(conv / y_scale) + y_zero_point.
    x, w = q((1, 2, 7, 7), np.uint8, 6), q((3, 2, 3, 3), np.int8, 7)
    inputs = [x, np.array(0.02, np.float32), np.array(128, np.uint8), w, np.array([0.01, 0.02, 0.03], np.float32),
              np.zeros(3, np.int8), np.array(0.3, np.float32), np.array(100, np.uint8),
              np.array([100, -200, 300], np.int32)]
    attrs = {"pads": [1, 1, 1, 1], "strides": [2, 2]}
    op_tester.check("QLinearConv", inputs, reference=lambda *a: onnx_reference_run("QLinearConv", a, attrs, 10),
                    attrs=attrs, opset=10)


def test_conv_integer_errors(op_tester):
    x, w = q((1, 2, 4, 4), np.uint8, 0), q((3, 2, 2, 2), np.uint8, 1)
    with pytest.raises(popart.popart_exception, match="ConvInteger.*INT32"):
        op_tester.run("ConvInteger", [x.astype(np.int32), w], opset=10)
    with pytest.raises(popart.popart_exception, match="input 1 must be INT8 or UINT8, got FLOAT"):
        op_tester.run("ConvInteger", [x, w.astype(np.float32)], opset=10)
    with pytest.raises(popart.popart_exception, match="group 1 does not fit X channels 2"):
        op_tester.run("ConvInteger", [x, q((3, 1, 2, 2), np.uint8, 1)], opset=10)
    with pytest.raises(popart.popart_exception, match="input 2 \\(x_zero_point\\) must be UINT8 with one value"):
        op_tester.run("ConvInteger", [x, w, np.array([1, 2], np.uint8)], opset=10)
    with pytest.raises(popart.popart_exception, match="input 3 \\(w_zero_point\\) must be UINT8 with one value or \\[3\\]"):
        op_tester.run("ConvInteger", [x, w, np.array(1, np.uint8), np.array([1, 2], np.uint8)], opset=10)
    s, z = np.array(0.1, np.float32), np.array(1, np.uint8)
    with pytest.raises(popart.popart_exception, match="input 1 \\(x_scale\\) must be FLOAT"):
        op_tester.run("QLinearConv", [x, s.astype(np.float16), z, w, s, z, s, z], opset=10)
    with pytest.raises(popart.popart_exception, match="input 8 \\(B\\) must be INT32 \\[3\\]"):
        op_tester.run("QLinearConv", [x, s, z, w, s, z, s, z, np.zeros(2, np.int32)], opset=10)
    with pytest.raises(popart.popart_exception, match="input 7 \\(y_zero_point\\) must be given, INT8 or UINT8"):
        op_tester.run("QLinearConv", [x, s, z, w, s, z, s, np.array(1, np.int32)], opset=10)
