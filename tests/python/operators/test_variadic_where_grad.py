"""Gradients of Sum, Mean, Max, Min (N inputs, broadcasting; Max/Min ties share the
gradient equally, as torch.amax over the stacked inputs) and Where (X and Y,
broadcast condition) against torch autograd."""
import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _eltwise_grad import eltwise_grad_check  # noqa: E402

DTYPES = [np.float32, np.float16, np.float64]
SHAPES = [[(3, 4)], [(3, 4), (3, 4)], [(2, 3, 4), (4,), (3, 1)], [(3, 1), (1, 5)], [(), (2, 3), (2, 1)]]


def stacked(reduce):
    return lambda *xs: reduce(torch.stack(torch.broadcast_tensors(*xs)), 0)


VARIADIC = {
    "Sum": lambda *xs: sum(torch.broadcast_tensors(*xs)),
    "Mean": lambda *xs: sum(torch.broadcast_tensors(*xs)) / len(xs),
    "Max": stacked(torch.amax),
    "Min": stacked(torch.amin),
}


@pytest.mark.parametrize("op", sorted(VARIADIC))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_variadic_grad(op_tester, op, dtype, shapes):
    rng = np.random.RandomState(len(shapes))
    xs = [np.asarray(rng.randn(*s)).astype(dtype) for s in shapes]
    eltwise_grad_check(op_tester, op, xs, VARIADIC[op], wrt=range(len(xs)), opset=13)


@pytest.mark.parametrize("op", ["Max", "Min"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_variadic_max_min_ties(op_tester, op, dtype):
    a = np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 5.0, -1.0, 0.0]], dtype)
    b = np.array([[1.0, 0.0, 3.0, 4.0], [5.0, 6.0, -1.0, 1.0]], dtype)
    c = np.array([1.0, 2.0, 3.0, -4.0], dtype)  # broadcast over rows
    eltwise_grad_check(op_tester, op, [a, b, c], VARIADIC[op], wrt=[0, 1, 2], opset=13)


@pytest.mark.parametrize("opset", [6, 8])
def test_variadic_grad_old_opsets(op_tester, opset):
    xs = [np.random.RandomState(i).randn(2, 3).astype(np.float32) for i in range(3)]
    for op in ("Sum", "Max"):
        eltwise_grad_check(op_tester, op, xs, VARIADIC[op], wrt=[0, 1, 2], opset=opset)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((1, 4), (3, 1), ()),
                                    ((2, 1, 4), (3, 4), (2, 3, 1)), ((), (5,), (5,))], ids=str)
def test_where_grad(op_tester, dtype, shapes):
    rng = np.random.RandomState(0)
    c = rng.rand(*shapes[0]) > 0.5
    x, y = (np.asarray(rng.randn(*s)).astype(dtype) for s in shapes[1:])
    eltwise_grad_check(op_tester, "Where", [c, x, y], lambda c, x, y: torch.where(c, x, y), wrt=[1, 2], opset=16)


def test_where_grad_opset9_one_input(op_tester):
    c = np.array([True, False, True])
    x, y = np.arange(3, dtype=np.float32), np.ones((2, 3), np.float32)
    eltwise_grad_check(op_tester, "Where", [c, x, y], lambda c, x, y: torch.where(c, x, y), wrt=[1], opset=9)


def test_where_variadic_grad_errors(op_tester):
    import popart
    x = np.ones((2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="Where.*input 0.*expected one of \\[BOOL\\]"):
        eltwise_grad_check(op_tester, "Where", [x, x, x], lambda c, x, y: x, wrt=[1], opset=16)
    with pytest.raises(popart.popart_exception, match="Max.*broadcasting needs opset 8"):
        eltwise_grad_check(op_tester, "Max", [x, np.ones((3,), np.float32)], lambda a, b: a, wrt=[0, 1], opset=6)
