"""CumProd (opset 26) against numpy (exclusive, reverse, every axis, float and integer
dtypes, zeros, a run-time axis) and its gradient against torch autograd."""
import os
import sys

import numpy as np
import pytest
import torch

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _eltwise_grad import eltwise_grad_check  # noqa: E402


def cumprod_ref(x, axis, exclusive, reverse):
    """numpy reference in x's dtype (float16 computed in float32, integers wrap)."""
    acc = np.float32 if x.dtype == np.float16 else x.dtype
    if reverse:
        x = np.flip(x, axis)
    y = np.cumprod(x, axis=axis, dtype=acc)
    if exclusive:
        y = np.concatenate([np.ones_like(np.take(y, [0], axis)), np.delete(y, -1, axis)], axis)
    return (np.flip(y, axis) if reverse else y).astype(x.dtype)


def values(shape, dtype, seed=0):
    rng = np.random.RandomState(seed)
    if np.issubdtype(dtype, np.integer):
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -3
        return rng.randint(lo, 4, shape).astype(dtype)
    return rng.uniform(0.5, 1.5, shape).astype(dtype) * rng.choice([-1, 1], shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int32, np.int64, np.uint32, np.uint64])
@pytest.mark.parametrize("exclusive", [0, 1])
@pytest.mark.parametrize("reverse", [0, 1])
def test_cumprod(op_tester, dtype, exclusive, reverse):
    for shape in [(7,), (3, 4, 5), (2, 300, 3), (4, 520)]:  # strips of 256 columns, long lanes
        x = values(shape, dtype)
        for axis in range(-len(shape), len(shape)):
            op_tester.check("CumProd", [x, op_tester.const(np.array(axis, np.int64))],
                            reference=lambda x, a: cumprod_ref(x, axis, exclusive, reverse),
                            attrs={"exclusive": exclusive, "reverse": reverse}, opset=26,
                            rtol=1e-2 if dtype == np.float16 else 1e-5)


def test_cumprod_integer_wraps(op_tester):
    x = np.full(40, 7, np.int32)
    op_tester.check("CumProd", [x, op_tester.const(np.array(0, np.int32))],
                    reference=lambda x, a: np.cumprod(x, dtype=np.int32), opset=26)


def test_cumprod_runtime_axis(op_tester):
    x = values((3, 4), np.float32)
    for axis in (0, 1, -1):
        op_tester.check("CumProd", [x, np.array(axis, np.int32)],
                        reference=lambda x, a: cumprod_ref(x, int(a), 0, 0), opset=26)


def test_cumprod_errors(op_tester):
    x = np.ones((2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="CumProd.*axis must be INT32 or INT64"):
        op_tester.run("CumProd", [x, op_tester.const(np.array(1.0, np.float32))], opset=26)
    with pytest.raises(popart.popart_exception, match="CumProd.*axis must have one element"):
        op_tester.run("CumProd", [x, op_tester.const(np.array([0, 1], np.int64))], opset=26)
    with pytest.raises(popart.popart_exception, match="axis 2 .*out of range"):
        op_tester.run("CumProd", [x, op_tester.const(np.array(2, np.int64))], opset=26)
    with pytest.raises(popart.popart_exception, match="attribute exclusive=2"):
        op_tester.run("CumProd", [x, op_tester.const(np.array(0, np.int64))], attrs={"exclusive": 2}, opset=26)
    with pytest.raises(popart.popart_exception, match="axis 5 out of range for rank 2"):
        op_tester.run("CumProd", [x, np.array(5, np.int64)], opset=26)


def torch_cumprod(x, axis, exclusive, reverse):
    if reverse:
        x = torch.flip(x, [axis])
    y = torch.cumprod(x, axis)
    if exclusive:
        first = torch.ones_like(x.narrow(axis, 0, 1))
        y = torch.cat([first, y.narrow(axis, 0, x.shape[axis] - 1)], axis)
    return torch.flip(y, [axis]) if reverse else y


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("exclusive", [0, 1])
@pytest.mark.parametrize("reverse", [0, 1])
@pytest.mark.parametrize("zeros", [0, 1, 2])
def test_cumprod_grad(op_tester, dtype, exclusive, reverse, zeros):
    x = values((3, 4, 5), dtype, seed=5)
    x.reshape(-1)[[7, 29, 33, 50][:zeros * 2]] = 0  # one or two zeros in some lanes
    for axis in (0, 1, -1):
        eltwise_grad_check(op_tester, "CumProd", [x, op_tester.const(np.array(axis, np.int64))],
                           lambda x, a: torch_cumprod(x, axis % 3, exclusive, reverse),
                           attrs={"exclusive": exclusive, "reverse": reverse}, opset=26)


def test_cumprod_grad_runtime_axis(op_tester):
    x = values((2, 6), np.float32, seed=6)
    eltwise_grad_check(op_tester, "CumProd", [x, np.array(1, np.int32)], lambda x, a: torch_cumprod(x, 1, 1, 0),
                       attrs={"exclusive": 1}, opset=26)
