"""Reshape, Flatten, Squeeze, Unsqueeze: view ops (output aliases the input)."""
import numpy as np
import pytest

import popart

DTYPES = [np.float32, np.float16, np.float64, np.int8, np.int32, np.int64, np.bool_]


def data(shape, dtype=np.float32):
    x = np.arange(int(np.prod(shape))).reshape(shape)
    return (x % 2 == 1) if dtype == np.bool_ else x.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reshape_dtypes(op_tester, dtype):
    x = data((2, 3, 4), dtype)
    op_tester.check("Reshape", [x, op_tester.const(np.array([4, -1], np.int64))],
                    reference=lambda x, s: x.reshape(4, 6))


@pytest.mark.parametrize("shape,target,want", [
    ((2, 3, 4), [0, 12], (2, 12)),
    ((2, 3, 4), [0, 0, -1], (2, 3, 4)),
    ((2, 3, 4), [-1], (24,)),
    ((2, 3, 4), [4, 0, 2], (4, 3, 2)),
    ((6,), [1, 2, 1, 3], (1, 2, 1, 3)),
    ((1,), [], ()),
])
@pytest.mark.parametrize("opset", [5, 13])
def test_reshape_shapes(op_tester, shape, target, want, opset):
    x = data(shape)
    op_tester.check("Reshape", [x, op_tester.const(np.array(target, np.int64))], reference=lambda x, s: x.reshape(want),
                    opset=opset)


def test_reshape_zero_sized(op_tester):
    # Zero-sized stream inputs are not accepted by the step IO, so use a constant.
    x = op_tester.const(np.zeros((2, 0, 3), np.int64))
    op_tester.check("Reshape", [x, op_tester.const(np.array([0, -1], np.int64))],
                    reference=lambda x, s: x.reshape(2, 0))


def test_reshape_opset1_attribute(op_tester):
    x = data((2, 6))
    op_tester.check("Reshape", [x], reference=lambda x: x.reshape(3, 4), attrs={"shape": [3, -1]}, opset=1)


def test_reshape_allowzero(op_tester):
    x = op_tester.const(np.zeros((0, 4), np.int64))
    op_tester.check("Reshape", [x, op_tester.const(np.array([4, 0], np.int64))], reference=lambda x, s: x.reshape(4, 0),
                    attrs={"allowzero": 1}, opset=14)
    y = data((3, 4))  # without allowzero, 0 copies the input dimension
    op_tester.check("Reshape", [y, op_tester.const(np.array([0, 2, 2], np.int64))],
                    reference=lambda x, s: x.reshape(3, 2, 2),
                    opset=14)


@pytest.mark.parametrize("target,match", [
    ([5, -1], "cannot infer the -1"),
    ([-1, -1], "more than one -1"),
    ([2, -2, 6], "invalid dimension -2"),
    ([7, 2], "has 14 elements, the input has 12"),
    ([0, 0, 0, 0], "rank 2"),
])
def test_reshape_errors(op_tester, target, match):
    with pytest.raises(popart.popart_exception, match=match):
        op_tester.run("Reshape", [data((3, 4)), op_tester.const(np.array(target, np.int64))], opset=13)


def test_reshape_needs_constant_shape(op_tester):
    with pytest.raises(popart.popart_exception, match="(?i)constant"):
        op_tester.run("Reshape", [data((3, 4)), np.array([4, 3], np.int64)], opset=13)


@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1, -3])
def test_flatten(op_tester, axis):
    x = data((2, 3, 4))
    a = axis % 4 if axis >= 0 else axis + 3
    want = (int(np.prod(x.shape[:a])), -1)
    op_tester.check("Flatten", [x], reference=lambda x: x.reshape(want), attrs={"axis": axis}, opset=13)


@pytest.mark.parametrize("opset", [1, 9, 11])
def test_flatten_default_axis(op_tester, opset):
    x = data((2, 3, 4, 5), np.float32)
    op_tester.check("Flatten", [x], reference=lambda x: x.reshape(2, 60), opset=opset)


def test_flatten_int_and_bool(op_tester):
    for dtype in (np.int64, np.bool_, np.float16):
        op_tester.check("Flatten", [data((2, 3, 2), dtype)], reference=lambda x: x.reshape(6, 2),
                        attrs={"axis": 2})


def test_flatten_bad_axis(op_tester):
    with pytest.raises(popart.popart_exception, match="axis 4 out of range for rank 3"):
        op_tester.run("Flatten", [data((2, 3, 4))], attrs={"axis": 4})


@pytest.mark.parametrize("opset", [1, 11])
def test_squeeze_attribute(op_tester, opset):
    x = data((1, 3, 1, 2))
    op_tester.check("Squeeze", [x], reference=lambda x: x.reshape(3, 2), opset=opset)
    op_tester.check("Squeeze", [x], reference=lambda x: x.reshape(3, 1, 2), attrs={"axes": [0]}, opset=opset)
    if opset >= 11:
        op_tester.check("Squeeze", [x], reference=lambda x: x.reshape(1, 3, 2), attrs={"axes": [-2]}, opset=opset)


@pytest.mark.parametrize("dtype", DTYPES)
def test_squeeze_input_axes(op_tester, dtype):
    x = data((1, 3, 1, 2), dtype)
    op_tester.check("Squeeze", [x, op_tester.const(np.array([2, 0], np.int64))], reference=lambda x, a: x.reshape(3, 2),
                    opset=13)
    op_tester.check("Squeeze", [x], reference=lambda x: x.reshape(3, 2), opset=13)


def test_squeeze_errors(op_tester):
    with pytest.raises(popart.popart_exception, match="cannot squeeze axis 1 of size 3"):
        op_tester.run("Squeeze", [data((1, 3))], attrs={"axes": [1]})
    with pytest.raises(popart.popart_exception, match="out of range for rank 2"):
        op_tester.run("Squeeze", [data((1, 3))], attrs={"axes": [2]})
    with pytest.raises(popart.popart_exception, match="input 1 since opset 13"):
        op_tester.run("Squeeze", [data((1, 3))], attrs={"axes": [0]}, opset=13)


@pytest.mark.parametrize("axes,want", [
    ([0], (1, 3, 4)), ([2], (3, 4, 1)), ([0, 3], (1, 3, 4, 1)),
    ([-1], (3, 4, 1)), ([1, -1], (3, 1, 4, 1)), ([4, 0, 2], (1, 3, 1, 4, 1)),
])
def test_unsqueeze(op_tester, axes, want):
    x = data((3, 4))
    op_tester.check("Unsqueeze", [x], reference=lambda x: x.reshape(want), attrs={"axes": axes}, opset=11)
    op_tester.check("Unsqueeze", [x, op_tester.const(np.array(axes, np.int64))], reference=lambda x, a: x.reshape(want),
                    opset=13)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unsqueeze_dtypes_and_scalar(op_tester, dtype):
    x = data((), dtype)
    op_tester.check("Unsqueeze", [x], reference=lambda x: x.reshape(1, 1), attrs={"axes": [0, 1]}, opset=1)


def test_unsqueeze_errors(op_tester):
    with pytest.raises(popart.popart_exception, match="more than once"):
        op_tester.run("Unsqueeze", [data((3,))], attrs={"axes": [0, 0]})
    with pytest.raises(popart.popart_exception, match="axes 3 out of range for rank 3"):
        op_tester.run("Unsqueeze", [data((3, 4))], attrs={"axes": [3]})
    with pytest.raises(popart.popart_exception, match="'axes' is required"):
        op_tester.run("Unsqueeze", [data((3, 4))], opset=13)
