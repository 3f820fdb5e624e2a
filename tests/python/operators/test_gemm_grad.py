"""Gemm gradients (GemmGrad for A, B and C) against torch autograd: transA/transB, alpha,
beta, C broadcast to the output (dC sums over the broadcast dims), every opset version."""
import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _torch_grad import check_against_torch  # noqa: E402


def torch_gemm(alpha, beta, trans_a, trans_b):
    def fn(a, b, c=None):
        y = alpha * ((a.T if trans_a else a) @ (b.T if trans_b else b))
        return y if c is None else y + beta * c
    return fn


def operands(m, k, n, trans_a, trans_b, c_shape, dtype, seed=0):
    rs = np.random.RandomState(seed)
    a = rs.randn(*((k, m) if trans_a else (m, k))).astype(dtype)
    b = rs.randn(*((n, k) if trans_b else (k, n))).astype(dtype)
    c = None if c_shape is None else np.asarray(rs.randn(*c_shape)).astype(dtype)
    return [a, b, c]


@pytest.mark.parametrize("trans_a,trans_b", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("c_shape", [None, (), (1,), (5,), (1, 5), (3, 1), (3, 5)])
def test_gemm_grad(op_tester, trans_a, trans_b, c_shape):
    attrs = {"alpha": 0.5, "beta": 2.0, "transA": trans_a, "transB": trans_b}
    check_against_torch(op_tester, "Gemm", operands(3, 4, 5, trans_a, trans_b, c_shape, np.float32), attrs=attrs,
                        torch_fn=torch_gemm(0.5, 2.0, trans_a, trans_b))


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
@pytest.mark.parametrize("trans_a,trans_b", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_gemm_grad_dtypes(op_tester, dtype, trans_a, trans_b):
    attrs = {"alpha": -1.5, "beta": 0.25, "transA": trans_a, "transB": trans_b}
    check_against_torch(op_tester, "Gemm", operands(6, 7, 5, trans_a, trans_b, (5,), dtype), attrs=attrs,
                        torch_fn=torch_gemm(-1.5, 0.25, trans_a, trans_b))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_gemm_grad_large(op_tester, dtype):
    attrs = {"transB": 1}
    check_against_torch(op_tester, "Gemm", operands(64, 128, 96, 0, 1, (96,), dtype), attrs=attrs,
                        torch_fn=torch_gemm(1.0, 1.0, 0, 1))


@pytest.mark.parametrize("trans_b", [0, 1])
def test_gemm_grad_packed_b(op_tester, trans_b):
    """512 rows and a 1600-wide dB: oneDNN reads a row-major B packed."""
    check_against_torch(op_tester, "Gemm", operands(512, 24, 1600, 0, trans_b, (1600,), np.float32),
                        attrs={"transB": trans_b, "alpha": 0.5}, torch_fn=torch_gemm(0.5, 1.0, 0, trans_b))


@pytest.mark.parametrize("opset,attrs", [(6, {"broadcast": 1}), (7, {}), (9, {}), (11, {}), (13, {})])
def test_gemm_grad_versions(op_tester, opset, attrs):
    check_against_torch(op_tester, "Gemm", operands(3, 4, 2, 1, 0, (1, 2), np.float32), opset=opset,
                        attrs={"transA": 1, "alpha": 2.0, "beta": 3.0, **attrs}, torch_fn=torch_gemm(2.0, 3.0, 1, 0))


def test_gemm_grad_beta_zero(op_tester):
    """beta = 0: C does not reach the output, its gradient is zero."""
    check_against_torch(op_tester, "Gemm", operands(3, 4, 5, 0, 0, (3, 5), np.float32), attrs={"beta": 0.0},
                        torch_fn=torch_gemm(1.0, 0.0, 0, 0))
