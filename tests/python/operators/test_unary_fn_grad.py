"""Gradients of the unary_fn ops (rounding, trigonometric/hyperbolic, activations,
Swish, Mish, ai.graphcore Expm1/Log1p/Gelu/GeluErf/Swish/Scale) against torch autograd."""
import os
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _eltwise_grad import eltwise_grad_check  # noqa: E402

GC = "ai.graphcore"


def f32(v):
    """Float attributes are stored as float32: references use the rounded value."""
    return float(np.float32(v))


def selu(x, alpha=f32(1.67326319217681884765625), gamma=f32(1.05070102214813232421875)):
    return gamma * torch.where(x > 0, x, alpha * torch.expm1(x))


def shrink(x, lambd, bias):
    return torch.where(x < -lambd, x + bias, torch.where(x > lambd, x - bias, x * 0))


def hard_sigmoid(x, alpha, beta):
    return torch.clamp(alpha * x + beta, 0, 1)


# op -> (torch function, attrs, domain, opset, input range)
CASES = {
    "Sign": (torch.sign, {}, "", 13, (-3, 3)),
    "Floor": (torch.floor, {}, "", 13, (-3, 3)),
    "Ceil": (torch.ceil, {}, "", 13, (-3, 3)),
    "Round": (torch.round, {}, "", 11, (-3, 3)),
    "gc.Round": (torch.round, {}, GC, 11, (-3, 3)),
    "gc.NearbyInt": (torch.round, {}, GC, 11, (-3, 3)),
    "Sin": (torch.sin, {}, "", 7, (-3, 3)),
    "Cos": (torch.cos, {}, "", 7, (-3, 3)),
    "Tan": (torch.tan, {}, "", 7, (-1.2, 1.2)),
    "Asin": (torch.asin, {}, "", 7, (-0.9, 0.9)),
    "Acos": (torch.acos, {}, "", 7, (-0.9, 0.9)),
    "Atan": (torch.atan, {}, "", 7, (-3, 3)),
    "Sinh": (torch.sinh, {}, "", 9, (-3, 3)),
    "Cosh": (torch.cosh, {}, "", 9, (-3, 3)),
    "Asinh": (torch.asinh, {}, "", 9, (-3, 3)),
    "Acosh": (torch.acosh, {}, "", 9, (1.2, 4)),
    "Atanh": (torch.atanh, {}, "", 9, (-0.9, 0.9)),
    "gc.Expm1": (torch.expm1, {}, GC, 11, (-3, 3)),
    "gc.Log1p": (torch.log1p, {}, GC, 11, (-0.8, 3)),
    "Elu": (lambda x: F.elu(x, f32(0.7)), {"alpha": 0.7}, "", 6, (-3, 3)),
    "Selu.attrs": (lambda x: selu(x, f32(1.5), f32(0.8)), {"alpha": 1.5, "gamma": 0.8}, "", 6, (-3, 3)),
    "Selu": (selu, {}, "", 6, (-3, 3)),
    "Celu": (lambda x: F.celu(x, 1.5), {"alpha": 1.5}, "", 12, (-3, 3)),
    "HardSigmoid": (lambda x: hard_sigmoid(x, f32(0.3), f32(0.4)), {"alpha": 0.3, "beta": 0.4}, "", 6, (-4, 4)),
    "HardSwish": (F.hardswish, {}, "", 14, (-5, 5)),
    "Softsign": (F.softsign, {}, "", 1, (-3, 3)),
    "Softplus": (F.softplus, {}, "", 1, (-6, 6)),
    "ThresholdedRelu": (lambda x: F.threshold(x, 0.5, 0.0), {"alpha": 0.5}, "", 10, (-3, 3)),
    "Shrink": (lambda x: shrink(x, f32(0.7), f32(0.2)), {"lambd": 0.7, "bias": 0.2}, "", 9, (-3, 3)),
    "Gelu": (F.gelu, {}, "", 20, (-4, 4)),
    "Gelu.tanh": (lambda x: F.gelu(x, approximate="tanh"), {"approximate": "tanh"}, "", 20, (-4, 4)),
    "gc.Gelu": (lambda x: F.gelu(x, approximate="tanh"), {}, GC, 11, (-4, 4)),
    "gc.GeluErf": (F.gelu, {}, GC, 11, (-4, 4)),
    "gc.Swish": (F.silu, {}, GC, 11, (-6, 6)),
    "Swish": (F.silu, {}, "", 24, (-6, 6)),
    "Swish.alpha": (lambda x: x * torch.sigmoid(f32(0.7) * x), {"alpha": 0.7}, "", 24, (-6, 6)),
    "Mish": (F.mish, {}, "", 18, (-6, 6)),
    "gc.Scale": (lambda x: x * 2.5, {"scale": 2.5}, GC, 11, (-3, 3)),
}


def op_type(name):
    return name.split(".")[1] if name.startswith("gc.") else name.split(".")[0]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_unary_fn_grad(op_tester, name, dtype):
    fn, attrs, domain, opset, (lo, hi) = CASES[name]
    rng = np.random.RandomState(3)
    for shape in [(7,), (2, 3, 5)]:
        x = rng.uniform(lo, hi, shape).astype(dtype)
        eltwise_grad_check(op_tester, op_type(name), [x], fn, attrs=attrs, domain=domain, opset=opset)


def test_unary_fn_grad_large(op_tester):
    # many elements: the kernel splits the work between threads
    x = np.random.RandomState(0).uniform(-4, 4, (50000,)).astype(np.float32)
    eltwise_grad_check(op_tester, "Gelu", [x], F.gelu, opset=20)
    eltwise_grad_check(op_tester, "Swish", [x], F.silu, domain=GC)
    eltwise_grad_check(op_tester, "Mish", [x], F.mish, opset=22)


def test_hard_sigmoid_grad_torch_defaults(op_tester):
    # with alpha = 1/6 and beta = 1/2 the gradient matches torch's hardsigmoid (zero at |x| >= 3)
    x = np.array([-4.0, -3.0, -1.0, 0.0, 2.0, 3.0, 5.0], np.float64)
    eltwise_grad_check(op_tester, "HardSigmoid", [x], F.hardsigmoid, attrs={"alpha": 1 / 6, "beta": 0.5}, opset=6)



@pytest.mark.parametrize("name", ["Elu", "Celu", "HardSwish", "ThresholdedRelu", "Shrink", "gc.Scale", "Sign"])
def test_unary_fn_grad_at_kinks(op_tester, name):
    # the one-sided choices at the kinks follow torch
    fn, attrs, domain, opset, _ = CASES[name]
    x = np.array([-3.0, -0.7, -0.5, 0.0, 0.5, 0.7, 3.0], np.float64)
    eltwise_grad_check(op_tester, op_type(name), [x], fn, attrs=attrs, domain=domain, opset=opset)
