"""ArgMax/ArgMin, Hardmax, TopK and CumSum, against numpy and onnxruntime."""
import os
import sys

import numpy as np
import pytest

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import ort_run  # noqa: E402

NUMERIC = [np.float32, np.float16, np.float64, np.int8, np.int32, np.int64, np.uint8, np.uint32]


def rand(shape, dtype, seed=0, distinct=False):
    r = np.random.RandomState(seed)
    if distinct:
        return r.permutation(int(np.prod(shape))).reshape(shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return r.randint(0, 5, size=shape).astype(dtype)  # many ties
    return (r.randn(*shape) * 3).astype(dtype)


def np_arg(x, axis, keepdims, last, is_max):
    f = np.argmax if is_max else np.argmin
    if last:
        flipped = np.flip(x, axis)
        r = x.shape[axis] - 1 - f(flipped, axis=axis)
    else:
        r = f(x, axis=axis)
    return np.expand_dims(r, axis).astype(np.int64) if keepdims else r.astype(np.int64)


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("shape,axis", [((5,), 0), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -2), ((2, 3, 4), 2),
                                        ((4, 300), 1), ((300, 4), 0)])
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("last", [0, 1])
def test_arg_extremum(op_tester, op, shape, axis, keepdims, last):
    x = rand(shape, np.int32)  # ties exercise select_last_index
    attrs = {"axis": axis, "keepdims": keepdims, "select_last_index": last}
    op_tester.check(op, [x], reference=lambda x: np_arg(x, axis, keepdims, last, op == "ArgMax"), attrs=attrs,
                    opset=13)


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("opset", [1, 11, 12, 13])
def test_arg_extremum_dtypes(op_tester, op, dtype, opset):
    x = rand((3, 5), dtype)
    op_tester.check(op, [x], reference=lambda x: np_arg(x, 0, 1, 0, op == "ArgMax"), opset=opset)


def test_arg_extremum_errors(op_tester):
    x = rand((3, 4), np.float32)
    with pytest.raises(popart.popart_exception, match="axis 2 out of range"):
        op_tester.run("ArgMax", [x], attrs={"axis": 2}, opset=13)
    with pytest.raises(popart.popart_exception, match="select_last_index needs opset 12"):
        op_tester.run("ArgMin", [x], attrs={"select_last_index": 1}, opset=11)


@pytest.mark.parametrize("shape,axis,opset", [((3, 4), 1, 11), ((2, 3, 4), 1, 11), ((2, 3, 4), 0, 1),
                                              ((2, 3, 4), -1, 11),
                                              ((2, 3, 4), 1, 13), ((2, 3, 4), -1, 13),
                                              ((2, 3, 4), 0, 13), ((5, 7), None, 13), ((2, 3, 4), None, 11)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_hardmax(op_tester, shape, axis, opset, dtype):
    x = rand(shape, dtype)
    attrs = {} if axis is None else {"axis": axis}
    ref = lambda x: ort_run("Hardmax", [x], attrs, max(opset, 11))[0].astype(dtype)  # noqa: E731
    op_tester.check("Hardmax", [x], reference=ref, attrs=attrs, opset=opset)


def test_hardmax_errors(op_tester):
    with pytest.raises(popart.popart_exception, match="axis 3 out of range"):
        op_tester.run("Hardmax", [rand((2, 3, 4), np.float32)], attrs={"axis": 3}, opset=11)
    with pytest.raises(popart.popart_exception, match="Hardmax.*INT32"):
        op_tester.run("Hardmax", [np.ones((2, 3), np.int32)], opset=13)


def test_hardmax_ties_pick_first(op_tester):
    x = np.array([[1, 3, 3], [2, 2, 2]], np.float32)
    op_tester.check("Hardmax", [x], reference=lambda x: np.array([[0, 1, 0], [1, 0, 0]], np.float32), opset=13)


def np_topk(x, k, axis, largest):
    key = -x.astype(np.float64) if largest else x.astype(np.float64)
    idx = np.argsort(key, axis=axis, kind="stable")
    idx = np.take(idx, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis), idx.astype(np.int64)


@pytest.mark.parametrize("shape,axis,k", [((10,), 0, 3), ((3, 8), 1, 8), ((3, 8), 0, 2), ((2, 5, 4), 1, 3),
                                          ((2, 5, 4), -1, 1), ((4, 500), 1, 17), ((3, 4), 1, 0)])
@pytest.mark.parametrize("largest", [1, 0])
def test_topk_11(op_tester, shape, axis, k, largest):
    x = rand(shape, np.float32, distinct=False)
    attrs = {"axis": axis, "largest": largest, "sorted": 1}
    op_tester.check("TopK", [x, op_tester.const(np.array([k], np.int64))],
                    reference=lambda x, _: np_topk(x, k, axis, largest), attrs=attrs, opset=11, num_outputs=2)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_topk_dtypes_ties(op_tester, dtype):
    x = rand((4, 9), dtype)  # integer inputs have ties: lower index first
    op_tester.check("TopK", [x, op_tester.const(np.array([4], np.int64))],
                    reference=lambda x, _: np_topk(x, 4, -1, True), opset=11, num_outputs=2)
    op_tester.check("TopK", [x, op_tester.const(np.array([3], np.int64))],
                    reference=lambda x, _: np_topk(x, 3, 0, False), attrs={"axis": 0, "largest": 0},
                    opset=11, num_outputs=2)


def test_topk_versions(op_tester):
    x = rand((3, 6), np.float32)
    op_tester.check("TopK", [x], reference=lambda x: np_topk(x, 2, -1, True), attrs={"k": 2}, opset=1,
                    num_outputs=2)
    op_tester.check("TopK", [x, op_tester.const(np.array([5], np.int64))],
                    reference=lambda x, _: np_topk(x, 5, 0 if False else -1, True), opset=10, num_outputs=2)


def test_topk_nan_ranks_highest(op_tester):
    x = np.array([1.0, np.nan, 3.0, 2.0], np.float32)
    v, i = op_tester.run("TopK", [x, op_tester.const(np.array([2], np.int64))], opset=11, num_outputs=2)
    assert np.isnan(v[0]) and v[1] == 3.0 and list(i) == [1, 2]
    v, i = op_tester.run("TopK", [x, op_tester.const(np.array([2], np.int64))], attrs={"largest": 0}, opset=11,
                         num_outputs=2)
    assert list(v) == [1.0, 2.0] and list(i) == [0, 3]


def test_topk_errors(op_tester):
    x = rand((3, 4), np.float32)
    with pytest.raises(popart.popart_exception, match="k = 5 out of range"):
        op_tester.run("TopK", [x, op_tester.const(np.array([5], np.int64))], opset=11, num_outputs=2)
    with pytest.raises(popart.popart_exception, match="must be a constant"):
        op_tester.run("TopK", [x, np.array([2], np.int64)], opset=11, num_outputs=2)
    with pytest.raises(popart.popart_exception, match="attribute k is required"):
        op_tester.run("TopK", [x], opset=1, num_outputs=2)


def np_cumsum(x, axis, exclusive, reverse):
    y = np.flip(x, axis) if reverse else x
    acc = np.cumsum(y.astype(np.float64), axis=axis)
    if exclusive:
        acc = acc - y
    return (np.flip(acc, axis) if reverse else acc).astype(x.dtype)


@pytest.mark.parametrize("shape,axis", [((7,), 0), ((3, 4), 0), ((3, 4), -1), ((2, 3, 4), 1), ((2, 600, 3), 1),
                                        ((3, 700), 0), ((2, 3, 300), 2)])
@pytest.mark.parametrize("exclusive", [0, 1])
@pytest.mark.parametrize("reverse", [0, 1])
def test_cumsum(op_tester, shape, axis, exclusive, reverse):
    x = rand(shape, np.float32)
    attrs = {"exclusive": exclusive, "reverse": reverse}
    op_tester.check("CumSum", [x, np.array(axis, np.int64)],
                    reference=lambda x, a: np_cumsum(x, axis, exclusive, reverse), attrs=attrs, opset=14,
                    rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int32, np.int64, np.uint32, np.uint64])
@pytest.mark.parametrize("opset", [11, 14])
def test_cumsum_dtypes(op_tester, dtype, opset):
    x = rand((4, 5), dtype)
    tol = {"rtol": 1e-2, "atol": 1e-2} if dtype == np.float16 else {}
    op_tester.check("CumSum", [x, op_tester.const(np.array([1], np.int32))],
                    reference=lambda x, a: np_cumsum(x, 1, 0, 0), opset=opset, **tol)


def test_cumsum_errors(op_tester):
    x = rand((3, 4), np.float32)
    with pytest.raises(popart.popart_exception, match="axis 2 out of range"):
        op_tester.run("CumSum", [x, op_tester.const(np.array(2, np.int64))], opset=14)
    with pytest.raises(popart.popart_runtime_error, match="axis -3 out of range"):
        op_tester.run("CumSum", [x, np.array(-3, np.int64)], opset=14)
    with pytest.raises(popart.popart_exception, match="axis must be INT32 or INT64"):
        op_tester.run("CumSum", [x, np.array(1.0, np.float32)], opset=14)
