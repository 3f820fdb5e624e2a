"""Trilu (opset 14) against numpy triu/tril, its gradient by finite differences,
and Size (opset 13/19/21) against numpy."""
import os
import sys

import numpy as np
import pytest

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import ort_run  # noqa: E402  (float inputs run in float32)


def trilu_ref(upper):
    def ref(x, k=None):
        kk = 0 if k is None else int(k)
        return np.triu(x, kk) if upper else np.tril(x, kk)
    return ref


@pytest.mark.parametrize("shape", [(3, 4), (5, 2), (2, 3, 3), (2, 1, 4, 6), (0, 3), (3, 0)])
@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize("k", [None, 0, 1, -1, 3, -7, 9])
def test_trilu(op_tester, shape, upper, k):
    x = np.random.RandomState(0).randn(*shape).astype(np.float32)
    ins = [x] + ([] if k is None else [np.array(k, np.int64)])
    op_tester.check("Trilu", ins, reference=trilu_ref(upper), attrs={"upper": upper}, opset=14)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int32, np.int64, np.uint8, np.bool_])
def test_trilu_dtypes(op_tester, dtype):
    x = (np.random.RandomState(1).randn(2, 4, 5) * 10).astype(dtype)
    op_tester.check("Trilu", [x, np.array(-1, np.int64)], reference=trilu_ref(0), attrs={"upper": 0}, opset=14)
    op_tester.check("Trilu", [x, op_tester.const(np.array(2, np.int64))], reference=trilu_ref(1), opset=14)


def test_trilu_onnxruntime(op_tester):
    x = np.random.RandomState(2).randn(3, 5, 4).astype(np.float32)
    for upper, k in [(0, 2), (1, -2)]:
        ins = [x, np.array(k, np.int64)]
        want = ort_run("Trilu", ins, attrs={"upper": upper}, opset=14)[0]
        (got,) = op_tester.run("Trilu", ins, attrs={"upper": upper}, opset=14)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("upper,k", [(1, 0), (0, 1), (1, -2)])
def test_trilu_grad(op_tester, upper, k):
    x = np.random.RandomState(3).randn(2, 3, 4)
    op_tester.check_grad("Trilu", [x, op_tester.const(np.array(k, np.int64))], reference=trilu_ref(upper),
                         wrt=[0], attrs={"upper": upper}, opset=14)


def test_trilu_errors(op_tester):
    with pytest.raises(popart.popart_exception, match="input 0 must have rank 2 or more"):
        op_tester.run("Trilu", [np.zeros(3, np.float32)], opset=14)
    with pytest.raises(popart.popart_exception, match="attribute upper must be 0 or 1"):
        op_tester.run("Trilu", [np.zeros((2, 2), np.float32)], attrs={"upper": 2}, opset=14)
    with pytest.raises(popart.popart_exception, match="input 1 \\(k\\) must be an INT64 scalar"):
        op_tester.run("Trilu", [np.zeros((2, 2), np.float32), np.array([1, 2], np.int64)], opset=14)


@pytest.mark.parametrize("opset", [1, 13, 19, 21])
@pytest.mark.parametrize("shape,dtype", [((), np.float32), ((3, 4, 5), np.float16), ((0, 2), np.int64),
                                         ((7,), np.bool_)])
def test_size(op_tester, opset, shape, dtype):
    x = np.zeros(shape, dtype)
    op_tester.check("Size", [x], reference=lambda x: np.array(x.size, np.int64), opset=opset)
