"""Gradients of Pow (base and exponent, broadcasting) and Clip (attributes or
inputs, boundaries included as torch.clamp; min/max inputs get theirs too) against
torch autograd."""
import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _eltwise_grad import eltwise_grad_check  # noqa: E402

DTYPES = [np.float32, np.float16, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 5)), ((), (2, 3))])
def test_pow_grad_broadcast(op_tester, dtype, shapes):
    rng = np.random.RandomState(1)
    a = rng.uniform(0.5, 2.0, shapes[0]).astype(dtype)
    b = rng.uniform(-1.5, 2.5, shapes[1]).astype(dtype)
    eltwise_grad_check(op_tester, "Pow", [a, b], torch.pow, wrt=[0, 1], opset=13)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_grad_zero_and_negative_base(op_tester, dtype):
    # a = 0 with b >= 0: db = 0 (torch's convention); b = 0: da = 0; a < 0, integer b:
    # da is finite while db is NaN (log of a negative base), as in torch.
    a = np.array([0.0, 0.0, 0.0, -1.5, -2.0, 1.5], dtype)
    b = np.array([0.0, 1.0, 2.0, 2.0, 3.0, 0.0], dtype)
    eltwise_grad_check(op_tester, "Pow", [a, b], torch.pow, wrt=[0, 1], opset=13)


def test_pow_grad_base_only(op_tester):
    a = np.linspace(0.5, 3.0, 12).reshape(3, 4).astype(np.float32)
    b = np.array([2.0, 0.5, -1.0, 3.0], np.float32)
    eltwise_grad_check(op_tester, "Pow", [a, b], torch.pow, wrt=[0], opset=7)


def clip_data(dtype):
    return np.linspace(-10, 10, 41).astype(dtype).reshape(41)  # contains the bounds exactly


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opset", [11, 12, 13])
def test_clip_grad_inputs(op_tester, dtype, opset):
    lo, hi = np.array(-2.5, dtype), np.array(3.0, dtype)
    x = clip_data(dtype)
    eltwise_grad_check(op_tester, "Clip", [x, lo, hi], lambda x, a, b: torch.clamp(x, a, b), wrt=[0, 1, 2],
                       opset=opset)
    eltwise_grad_check(op_tester, "Clip", [x, op_tester.const(lo), op_tester.const(hi)],
                     lambda x, a, b: torch.clamp(x, a, b), opset=opset)
    eltwise_grad_check(op_tester, "Clip", [x, None, hi], lambda x, a, b: torch.clamp(x, max=b), wrt=[0, 2],
                       opset=opset)
    eltwise_grad_check(op_tester, "Clip", [x, lo], lambda x, a: torch.clamp(x, min=a), wrt=[0, 1], opset=opset)
    eltwise_grad_check(op_tester, "Clip", [x], lambda x: x * 1, opset=opset)


@pytest.mark.parametrize("opset", [6])
@pytest.mark.parametrize("dtype", DTYPES)
def test_clip_grad_attributes(op_tester, opset, dtype):
    x = clip_data(dtype).reshape(1, 41)
    eltwise_grad_check(op_tester, "Clip", [x], lambda x: torch.clamp(x, -2.5, 3.0), attrs={"min": -2.5, "max": 3.0},
                     opset=opset)
    eltwise_grad_check(op_tester, "Clip", [x], lambda x: torch.clamp(x, max=3.0), attrs={"max": 3.0}, opset=opset)


@pytest.mark.parametrize("bounds", [(5.0, 1.0), (2.0, 2.0)])
def test_clip_grad_min_above_or_equal_max(op_tester, bounds):
    # torch.clamp with min > max returns max everywhere: x and min get no gradient, max all of it;
    # with min == max, min gets none and max what lies above it (torch's convention)
    x = clip_data(np.float32)
    lo, hi = (np.array(v, np.float32) for v in bounds)
    eltwise_grad_check(op_tester, "Clip", [x, lo, hi], lambda x, a, b: torch.clamp(x, a, b), wrt=[0, 1, 2],
                       opset=13)


@pytest.mark.parametrize("edtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_pow_grad_integer_exponent(op_tester, dtype, edtype):
    # opset >= 12: the exponent may be an integer tensor; only the base gets a gradient
    a = np.linspace(-2.0, 2.0, 12).reshape(3, 4).astype(dtype)
    b = np.array([0, 1, 2, 3], edtype)
    eltwise_grad_check(op_tester, "Pow", [a, b], lambda a, b: torch.pow(a, b.double()), wrt=[0], opset=13)
