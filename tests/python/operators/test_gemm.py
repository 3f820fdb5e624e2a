import os
import sys

import numpy as np
import pytest

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import tolerance  # noqa: E402


def gemm_ref(alpha=1.0, beta=1.0, transA=0, transB=0):
    def ref(a, b, c=None):
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        y = alpha * ((a64.T if transA else a64) @ (b64.T if transB else b64))
        if c is not None:
            y = y + beta * c.astype(np.float64)
        return y.astype(a.dtype)
    return ref


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("transA,transB", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("c_shape", [None, (), (1,), (5,), (1, 5), (3, 1), (3, 5), (1, 1)])
def test_gemm(op_tester, dtype, transA, transB, c_shape):
    rs = np.random.RandomState(0)
    m, k, n = 3, 4, 5
    a = rs.randn(*((k, m) if transA else (m, k))).astype(dtype)
    b = rs.randn(*((n, k) if transB else (k, n))).astype(dtype)
    c = None if c_shape is None else np.asarray(rs.randn(*c_shape)).astype(dtype)
    attrs = {"alpha": 0.5, "beta": 2.0, "transA": transA, "transB": transB}
    rtol, atol = tolerance(dtype)
    op_tester.check("Gemm", [a, b, c], attrs=attrs, opset=13, rtol=rtol, atol=atol,
                    reference=gemm_ref(0.5, 2.0, transA, transB))


@pytest.mark.parametrize("alpha,beta", [(1.0, 1.0), (1.0, 0.0), (0.0, 1.0), (2.0, 1.0), (1.0, -3.0)])
def test_gemm_scales(op_tester, alpha, beta):
    rs = np.random.RandomState(1)
    a, b, c = rs.randn(6, 7).astype(np.float32), rs.randn(7, 8).astype(np.float32), rs.randn(8).astype(np.float32)
    op_tester.check("Gemm", [a, b, c], attrs={"alpha": alpha, "beta": beta}, reference=gemm_ref(alpha, beta),
                    rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64])
def test_gemm_int(op_tester, dtype):
    rs = np.random.RandomState(2)
    a, b, c = (rs.randint(0, 10, s).astype(dtype) for s in [(3, 4), (5, 4), (3, 5)])
    op_tester.check("Gemm", [a, b, c], attrs={"transB": 1}, reference=lambda a, b, c: a @ b.T + c)


@pytest.mark.parametrize("opset", [7, 9, 11, 13])
def test_gemm_versions(op_tester, opset):
    rs = np.random.RandomState(3)
    a, b, c = rs.randn(4, 3).astype(np.float32), rs.randn(3, 2).astype(np.float32), rs.randn(1, 2).astype(np.float32)
    op_tester.check("Gemm", [a, b, c], opset=opset, reference=gemm_ref(), rtol=1e-5, atol=1e-5)


def test_gemm_opset6_broadcast(op_tester):
    rs = np.random.RandomState(4)
    a, b, c = rs.randn(4, 3).astype(np.float32), rs.randn(3, 2).astype(np.float32), rs.randn(2).astype(np.float32)
    op_tester.check("Gemm", [a, b, c], attrs={"broadcast": 1}, opset=6, reference=gemm_ref(), rtol=1e-5, atol=1e-5)
    with pytest.raises(popart.popart_exception, match="broadcast=1"):
        op_tester.run("Gemm", [a, b, c], opset=6)


def test_gemm_large_bias(op_tester):  # the fully-connected layer of a CNN
    rs = np.random.RandomState(5)
    a, b, c = rs.randn(8, 512).astype(np.float32), rs.randn(1000, 512).astype(np.float32), rs.randn(1000).astype(np.float32)
    op_tester.check("Gemm", [a, op_tester.const(b), op_tester.const(c)], attrs={"transB": 1},
                    reference=gemm_ref(transB=1), rtol=1e-4, atol=1e-4)


def test_gemm_missing_c_before_11(op_tester):
    with pytest.raises(popart.popart_exception, match="requires input C"):
        op_tester.run("Gemm", [np.zeros((2, 3), np.float32), np.zeros((3, 4), np.float32)], opset=9)


def test_gemm_bad_inner(op_tester):
    with pytest.raises(popart.popart_exception, match="inner dimensions differ"):
        op_tester.run("Gemm", [np.zeros((2, 3), np.float32), np.zeros((4, 4), np.float32)])


def test_gemm_bad_c(op_tester):
    with pytest.raises(popart.popart_exception, match="cannot be broadcast"):
        op_tester.run("Gemm", [np.zeros((2, 3), np.float32), np.zeros((3, 4), np.float32), np.zeros((3,), np.float32)])


def test_gemm_needs_2d(op_tester):
    with pytest.raises(popart.popart_exception, match="2-D"):
        op_tester.run("Gemm", [np.zeros((2, 3, 1), np.float32), np.zeros((3, 4), np.float32)])
