"""QuantizeLinear / DequantizeLinear (opsets 10-25: per tensor, per axis,
blocked; INT8/UINT8/INT16/UINT16) and DynamicQuantizeLinear against numpy
formulas and onnxruntime."""
import os
import sys

import numpy as np
import onnx.helper as oh
import pytest

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import ort_run  # noqa: E402  (float inputs run in float32)

QTYPES = [np.int8, np.uint8, np.int16, np.uint16]


def expand(p, x_shape, axis, block):
    """The scale / zero point broadcast to x's shape."""
    if p.size == 1 and block == 0:
        return p.reshape(())
    if block:
        return np.repeat(p, block, axis=axis)[tuple(slice(0, d) for d in x_shape)]
    shape = [1] * len(x_shape)
    shape[axis] = -1
    return p.reshape(shape)


def quantize_ref(qtype, axis=1, block=0):
    def ref(x, s, z=None):
        info = np.iinfo(qtype)
        zz = 0 if z is None else expand(z, x.shape, axis, block).astype(np.float64)
        q = np.rint((x / expand(s, x.shape, axis, block)).astype(x.dtype)).astype(np.float64) + zz
        return np.clip(q, info.min, info.max).astype(qtype)
    return ref


def dequantize_ref(axis=1, block=0):
    def ref(x, s, z=None):
        zz = 0 if z is None else expand(z, x.shape, axis, block).astype(np.float64)
        return ((x.astype(np.float64) - zz) * expand(s, x.shape, axis, block)).astype(s.dtype)
    return ref


def layouts(x_shape):
    """(attrs, scale shape) for per tensor, per axis 1, per axis -1 and blocked along axis 1."""
    blocked = list(x_shape)
    blocked[1] = (blocked[1] + 1) // 2
    return [({}, ()), ({"axis": 1}, (x_shape[1],)), ({"axis": -1}, (x_shape[-1],)),
            ({"axis": 1, "block_size": 2}, tuple(blocked))]


@pytest.mark.parametrize("qtype", QTYPES)
@pytest.mark.parametrize("layout", range(4))
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_quantize_dequantize(op_tester, qtype, layout, dtype):
    rng = np.random.RandomState(layout)
    x_shape = (2, 5, 3)
    attrs, s_shape = layouts(x_shape)[layout]
    axis = attrs.get("axis", 1) % 3
    block = attrs.get("block_size", 0)
    info = np.iinfo(qtype)
    x = (rng.randn(*x_shape) * 300).astype(dtype)
    s = rng.uniform(0.5, 4, s_shape).astype(dtype)
    z = rng.randint(max(info.min, -50), min(info.max, 50) + 1, s_shape).astype(qtype)
    op_tester.check("QuantizeLinear", [x, s, z], reference=quantize_ref(qtype, axis, block), attrs=attrs, opset=25)
    q = rng.randint(info.min, info.max + 1, x_shape).astype(qtype)
    tol = 1e-2 if dtype == np.float16 else 1e-6
    op_tester.check("DequantizeLinear", [q, s, z], reference=dequantize_ref(axis, block), attrs=attrs, opset=25,
                    rtol=tol, atol=tol)


@pytest.mark.parametrize("opset", [10, 13, 19, 21])
def test_quantize_defaults_and_onnxruntime(op_tester, opset):
    x = np.array([-300.0, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 254.0, 1e6], np.float32)
    s = np.array(2.0, np.float32)
    got = op_tester.check("QuantizeLinear", [x, s], reference=quantize_ref(np.uint8), opset=opset)[0]
    assert got.dtype == np.uint8
    z = np.array(-3, np.int8)
    want = ort_run("QuantizeLinear", [x, s, z], opset=opset)[0]
    (got,) = op_tester.run("QuantizeLinear", [x, s, z], opset=opset)
    np.testing.assert_array_equal(got, want)
    q = np.array([-128, -1, 0, 5, 127], np.int8)
    want = ort_run("DequantizeLinear", [q, s, z], opset=opset)[0]
    (got,) = op_tester.run("DequantizeLinear", [q, s, z], opset=opset)
    np.testing.assert_array_equal(got, want)
    op_tester.check("DequantizeLinear", [np.array([1, -7, 100000], np.int32), s], reference=dequantize_ref(),
                    opset=opset)


def test_quantize_output_dtype(op_tester):
    x = np.linspace(-1000, 1000, 11).astype(np.float32)
    s = np.array(3.0, np.float32)
    op_tester.check("QuantizeLinear", [x, s], reference=quantize_ref(np.int16), attrs={"output_dtype": 5}, opset=25)


@pytest.mark.parametrize("shape,lo,hi", [((6,), -3, 5), ((3, 4), 1, 9), ((5,), -9, -1), ((2, 2, 3), -0.01, 300)])
def test_dynamic_quantize_linear(op_tester, shape, lo, hi):
    x = np.random.RandomState(4).uniform(lo, hi, shape).astype(np.float32)

    def ref(x):
        mn, mx = min(0.0, float(x.min())), max(0.0, float(x.max()))
        scale = np.float32((np.float32(mx) - np.float32(mn)) / np.float32(255))
        zp = np.uint8(np.clip(np.rint(np.float32(-mn) / scale), 0, 255))
        y = np.clip(np.rint(x / scale) + zp, 0, 255).astype(np.uint8)
        return y, np.array(scale, np.float32), np.array(zp, np.uint8)
    op_tester.check("DynamicQuantizeLinear", [x], reference=ref, opset=11, num_outputs=3)
    want = ort_run("DynamicQuantizeLinear", [x], opset=11, num_outputs=3)
    got = op_tester.run("DynamicQuantizeLinear", [x], opset=11, num_outputs=3)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1)  # onnxruntime may round one step apart


def test_quantize_errors(op_tester):
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="input 1 \\(scale\\) must be a scalar"):
        op_tester.run("QuantizeLinear", [x, np.ones(4, np.float32)], opset=13)
    with pytest.raises(popart.popart_exception, match="quantised type must be INT8, UINT8, INT16 or UINT16"):
        op_tester.run("QuantizeLinear", [x, np.float32(1.0)], attrs={"output_dtype": 6}, opset=25)
    with pytest.raises(popart.popart_exception, match="input 0 must be INT8, UINT8, INT16, UINT16 or INT32"):
        op_tester.run("DequantizeLinear", [x, np.float32(1.0)], opset=13)
    with pytest.raises(popart.popart_exception, match="attribute axis 3 is out of range"):
        op_tester.run("QuantizeLinear", [x, np.ones(3, np.float32)], attrs={"axis": 3}, opset=13)
