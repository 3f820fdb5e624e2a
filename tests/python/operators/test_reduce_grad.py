"""Gradients of the Reduce* ops (axes as attribute or input, keepdims, empty axes,
noop_with_empty_axes) against torch autograd. ReduceMax/Min ties share the gradient
equally (torch.amax/amin); ReduceProd handles zeros as torch.prod. Also CumSum
(exclusive/reverse), whose gradient is the cumulative sum the other way."""
import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _eltwise_grad import eltwise_grad_check  # noqa: E402

DTYPES = [np.float32, np.float16, np.float64]


def prod(x, dims, keep):
    for d in sorted(dims, reverse=True):
        x = torch.prod(x, d, keepdim=True)
    return x if keep else x.reshape([s for i, s in enumerate(x.shape) if i not in dims])


REFS = {
    "ReduceSum": lambda x, d, k: torch.sum(x, d, keepdim=k),
    "ReduceMean": lambda x, d, k: torch.mean(x, d, keepdim=k),
    "ReduceMax": lambda x, d, k: torch.amax(x, d, keepdim=k),
    "ReduceMin": lambda x, d, k: torch.amin(x, d, keepdim=k),
    "ReduceProd": prod,
    "ReduceL1": lambda x, d, k: torch.sum(torch.abs(x), d, keepdim=k),
    "ReduceL2": lambda x, d, k: torch.linalg.vector_norm(x, 2, d, keepdim=k),
    "ReduceLogSum": lambda x, d, k: torch.log(torch.sum(x, d, keepdim=k)),
    "ReduceLogSumExp": lambda x, d, k: torch.logsumexp(x, d, keepdim=k),
    "ReduceSumSquare": lambda x, d, k: torch.sum(x * x, d, keepdim=k),
}
CASES = [((3, 4, 5), [1], 1), ((3, 4, 5), [0, 2], 0), ((3, 4, 5), [-1], 0), ((2, 3, 4), [], 1), ((6,), [0], 0),
         ((2, 1, 3, 4), [1, 3], 1), ((4, 5), [0], 1)]


def data(op, shape, dtype, seed=0):
    rng = np.random.RandomState(seed)
    if op in ("ReduceMax", "ReduceMin"):  # small integers: many ties
        return rng.randint(-2, 3, shape).astype(dtype)
    if op == "ReduceLogSum":
        return rng.uniform(0.5, 2.0, shape).astype(dtype)
    if op == "ReduceProd":
        return (rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape)).astype(dtype)
    return np.asarray(rng.randn(*shape)).astype(dtype)


def axes_of(axes, rank):
    return sorted(a % rank for a in axes) if axes else list(range(rank))


@pytest.mark.parametrize("op", sorted(REFS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce_grad_axes_attribute(op_tester, op, dtype):
    for shape, axes, keep in CASES:
        x = data(op, shape, dtype)
        attrs = {"keepdims": keep, **({"axes": axes} if axes else {})}
        dims = axes_of(axes, len(shape))
        eltwise_grad_check(op_tester, op, [x], lambda x: REFS[op](x, dims, bool(keep)), attrs=attrs, opset=11)


@pytest.mark.parametrize("op", sorted(REFS))
def test_reduce_grad_axes_input(op_tester, op):
    opset = 13 if op == "ReduceSum" else 18
    for shape, axes, keep in CASES[:3]:
        x = data(op, shape, np.float32)
        dims = axes_of(axes, len(shape))
        eltwise_grad_check(op_tester, op, [x, op_tester.const(np.array(axes, np.int64))],
                           lambda x, a: REFS[op](x, dims, bool(keep)), attrs={"keepdims": keep}, opset=opset)
    x = data(op, (2, 3), np.float64)
    eltwise_grad_check(op_tester, op, [x], lambda x: REFS[op](x, [0, 1], False), attrs={"keepdims": 0}, opset=opset)
    eltwise_grad_check(op_tester, op, [x, op_tester.const(np.zeros(0, np.int64))], lambda x, a: x * 1,
                       attrs={"noop_with_empty_axes": 1}, opset=opset)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce_prod_grad_zeros(op_tester, dtype):
    x = np.array([[0.0, 2.0, 3.0, 0.5],    # one zero: it gets the product of the others
                  [1.5, 0.0, 0.0, 2.0],    # two zeros: all zero
                  [1.0, -2.0, 0.5, 3.0]],  # none: y / x
                 dtype)
    eltwise_grad_check(op_tester, "ReduceProd", [x], lambda x: torch.prod(x, 1), attrs={"axes": [1], "keepdims": 0})


@pytest.mark.parametrize("op", ["ReduceMax", "ReduceMin"])
def test_reduce_max_min_ties_share_equally(op_tester, op):
    x = np.array([[1.0, 3.0, 3.0, -1.0], [-1.0, -1.0, -1.0, 2.0]], np.float32)
    eltwise_grad_check(op_tester, op, [x], lambda x: REFS[op](x, [1], True), attrs={"axes": [1]})
    eltwise_grad_check(op_tester, op, [x], lambda x: REFS[op](x, [0, 1], False), attrs={"keepdims": 0})


def test_reduce_grad_large(op_tester):
    x = np.random.RandomState(0).randn(64, 300).astype(np.float32)
    for op in ("ReduceMean", "ReduceLogSumExp", "ReduceMax"):
        for dims in ([0], [1]):
            eltwise_grad_check(op_tester, op, [x], lambda x: REFS[op](x, dims, True), attrs={"axes": dims})


def cumsum(x, axis, exclusive, reverse):
    if reverse:
        x = torch.flip(x, [axis])
    y = torch.cumsum(x, axis)
    if exclusive:
        y = y - x
    return torch.flip(y, [axis]) if reverse else y


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("exclusive", [0, 1])
@pytest.mark.parametrize("reverse", [0, 1])
def test_cumsum_grad(op_tester, dtype, exclusive, reverse):
    x = np.random.RandomState(5).randn(3, 4, 5).astype(dtype)
    for axis in (0, 1, -1):
        eltwise_grad_check(op_tester, "CumSum", [x, op_tester.const(np.array(axis, np.int64))],
                           lambda x, a: cumsum(x, axis % 3, exclusive, reverse),
                           attrs={"exclusive": exclusive, "reverse": reverse}, opset=14)


def test_cumsum_grad_runtime_axis(op_tester):
    x = np.random.RandomState(6).randn(2, 6).astype(np.float32)
    eltwise_grad_check(op_tester, "CumSum", [x, np.array(1, np.int32)], lambda x, a: cumsum(x, 1, 1, 0),
                       attrs={"exclusive": 1}, opset=11)


def test_reduce_grad_errors(op_tester):
    import popart
    x = np.ones((2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="ReduceMax.*axis 2 out of range for rank 2"):
        eltwise_grad_check(op_tester, "ReduceMax", [x], lambda x: x, attrs={"axes": [2]})
    with pytest.raises(popart.popart_exception, match="CumSum.*axis must be INT32 or INT64"):
        eltwise_grad_check(op_tester, "CumSum", [x, op_tester.const(np.array(1.0, np.float32))], lambda x, a: x,
                           opset=14)
