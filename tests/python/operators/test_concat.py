"""Concat: every axis (negative too), several inputs of different sizes, all dtypes."""
import numpy as np
import pytest

import popart


def data(shape, dtype=np.float32, start=0):
    x = np.arange(start, start + int(np.prod(shape))).reshape(shape)
    return (x % 3 == 1) if dtype == np.bool_ else x.astype(dtype)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_concat_axes(op_tester, axis):
    a = axis % 3
    shapes = [[2, 3, 4], [2, 3, 4], [2, 3, 4]]
    for i, s in enumerate(shapes):
        s[a] = i + 1
    xs = [data(s, start=100 * i) for i, s in enumerate(shapes)]
    op_tester.check("Concat", xs, reference=lambda *xs: np.concatenate(xs, axis=axis), attrs={"axis": axis})


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.int32, np.int64, np.uint16, np.bool_])
def test_concat_dtypes(op_tester, dtype):
    xs = [data((3, 2), dtype), data((3, 5), dtype, 7)]
    op_tester.check("Concat", xs, reference=lambda *xs: np.concatenate(xs, axis=1), attrs={"axis": 1})


def test_concat_opset1_default_axis_is_1(op_tester):
    xs = [data((2, 3)), data((2, 1), start=50)]
    op_tester.check("Concat", xs, reference=lambda *xs: np.concatenate(xs, axis=1), opset=1)


def test_concat_single_and_many_inputs(op_tester):
    op_tester.check("Concat", [data((4,))], reference=lambda x: x, attrs={"axis": 0})
    xs = [data((1, 3), start=i) for i in range(20)]
    op_tester.check("Concat", xs, reference=lambda *xs: np.concatenate(xs, axis=0), attrs={"axis": 0})


def test_concat_constant_and_zero_sized(op_tester):
    xs = [op_tester.const(np.zeros((2, 0), np.int64)), op_tester.const(np.ones((2, 3), np.int64))]
    op_tester.check("Concat", xs, reference=lambda *xs: np.concatenate(xs, axis=1), attrs={"axis": 1})


@pytest.mark.parametrize("shape,axis", [((64, 1000), 0), ((300, 700), 1), ((8, 16, 512), 2)])
def test_concat_large(op_tester, shape, axis):
    rs = np.random.RandomState(1)
    xs = [rs.randn(*shape).astype(np.float32) for _ in range(3)]
    op_tester.check("Concat", xs, reference=lambda *xs: np.concatenate(xs, axis=axis), attrs={"axis": axis})


def test_concat_errors(op_tester):
    with pytest.raises(popart.popart_exception, match="differs from input 0's .* outside axis 1"):
        op_tester.run("Concat", [data((2, 3)), data((3, 3))], attrs={"axis": 1})
    with pytest.raises(popart.popart_exception, match="input 1 has type INT32, input 0 has type FLOAT"):
        op_tester.run("Concat", [data((2, 3)), data((2, 3), np.int32)], attrs={"axis": 1})
    with pytest.raises(popart.popart_exception, match="axis 2 out of range for rank 2"):
        op_tester.run("Concat", [data((2, 3)), data((2, 3))], attrs={"axis": 2})
    with pytest.raises(popart.popart_exception, match="'axis' is required"):
        op_tester.run("Concat", [data((2, 3)), data((2, 3))], opset=11)
