"""Gradients of the float binary_fn ops (ai.graphcore Atan2/Fmod/Remainder/ScaledAdd,
ai.onnx Mod with fmod=1 and PRelu), with broadcasting, against torch autograd.
ScaledAdd's scale inputs get gradients too."""
import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _eltwise_grad import eltwise_grad_check  # noqa: E402

GC = "ai.graphcore"
DTYPES = [np.float32, np.float16, np.float64]
SHAPES = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 5)), ((), (2, 3)), ((2, 3), ())]


def operands(shapes, dtype, seed=0):
    """a, b with |b| in [0.5, 2] and a/b at least 0.1 away from an integer (the
    modulo gradients jump there)."""
    rng = np.random.RandomState(seed)
    b = (rng.uniform(0.5, 2.0, shapes[1]) * rng.choice([-1, 1], shapes[1])).astype(dtype)
    full = np.broadcast_shapes(shapes[0], shapes[1])
    q = rng.randint(-4, 4, full) + rng.uniform(0.1, 0.9, full)
    a = (q * b.astype(np.float64))
    a = a.reshape(-1)[:int(np.prod(shapes[0]))].reshape(shapes[0]) if shapes[0] != full else a
    return np.asarray(a).astype(dtype), b


def safe_operands(shapes, dtype):
    for seed in range(50):
        a, b = operands(shapes, dtype, seed)
        frac = np.abs(a.astype(np.float64) / b.astype(np.float64)) % 1.0
        if np.all((frac > 0.05) & (frac < 0.95)):
            return a, b
    raise AssertionError("no safe operands")


MODULO = {"Fmod": (torch.fmod, {}, GC, 11), "Remainder": (torch.remainder, {}, GC, 11),
          "Mod": (torch.fmod, {"fmod": 1}, "", 13)}


@pytest.mark.parametrize("op", sorted(MODULO))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_modulo_grad(op_tester, op, dtype, shapes):
    fn, attrs, domain, opset = MODULO[op]
    a, b = safe_operands(shapes, dtype)
    eltwise_grad_check(op_tester, op, [a, b], fn, wrt=[0, 1], attrs=attrs, domain=domain, opset=opset)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_atan2_grad(op_tester, dtype, shapes):
    rng = np.random.RandomState(1)
    a = np.asarray(rng.randn(*shapes[0])).astype(dtype)
    b = np.asarray(rng.randn(*shapes[1])).astype(dtype)
    eltwise_grad_check(op_tester, "Atan2", [a, b], torch.atan2, wrt=[0, 1], domain=GC)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (3, 1)), ((2, 3, 4), (4,)), ((5,), ())],
                         ids=str)
def test_prelu_grad(op_tester, dtype, shapes):
    rng = np.random.RandomState(2)
    x = (rng.uniform(0.1, 2.0, shapes[0]) * rng.choice([-1, 1], shapes[0])).astype(dtype)
    slope = np.asarray(rng.uniform(0.05, 0.5, shapes[1])).astype(dtype)
    eltwise_grad_check(op_tester, "PRelu", [x, slope], lambda x, s: torch.where(x < 0, s * x, x), wrt=[0, 1],
                       opset=16)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_scaled_add_grad_attributes(op_tester, dtype, shapes):
    rng = np.random.RandomState(3)
    a, b = (np.asarray(rng.randn(*s)).astype(dtype) for s in shapes)
    eltwise_grad_check(op_tester, "ScaledAdd", [a, b], lambda a, b: 0.5 * a - 2.0 * b, wrt=[0, 1],
                       attrs={"scale0": 0.5, "scale1": -2.0}, domain=GC)
    eltwise_grad_check(op_tester, "ScaledAdd", [a, b], lambda a, b: a + b, wrt=[0, 1], domain=GC)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scaled_add_grad_scale_inputs(op_tester, dtype):
    rng = np.random.RandomState(4)
    a, b = rng.randn(3, 4).astype(dtype), rng.randn(4).astype(dtype)
    s0, s1 = np.array(1.5, dtype), np.array(-0.25, dtype)
    eltwise_grad_check(op_tester, "ScaledAdd", [a, b, s0, s1], lambda a, b, s, t: s * a + t * b, wrt=[0, 1, 2, 3],
                       domain=GC)
    eltwise_grad_check(op_tester, "ScaledAdd", [a, b, op_tester.const(s0), None], lambda a, b, s, t: s * a + 3 * b,
                       wrt=[0, 1], attrs={"scale1": 3.0}, domain=GC)
