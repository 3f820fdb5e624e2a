"""ai.graphcore ops PopART lists that scripts rarely build by hand:
BinaryConstScalar, AutoLossScaleProxy, UnaryZeroGrad, ReplicatedAllReduceInplace."""
import numpy as np
import pytest
import torch

import popart
from _grad_util import tol

GC = {"domain": "ai.graphcore", "opset": 11}
CASES = [("Mul", 1, lambda x, v: x * v), ("Div", 1, lambda x, v: x / v), ("Div", 0, lambda x, v: v / x),
         ("Add", 0, lambda x, v: v + x), ("Sub", 1, lambda x, v: x - v), ("Sub", 0, lambda x, v: v - x),
         ("Pow", 1, lambda x, v: x ** v), ("Pow", 0, lambda x, v: v ** x)]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("name,at,fn", CASES)
def test_binary_const_scalar(op_tester, dtype, name, at, fn):
    x = np.random.RandomState(0).uniform(0.5, 2.0, (3, 5)).astype(dtype)
    attrs = {"value": 1.5, "op": name, "scalar_in_index": at}
    op_tester.check("BinaryConstScalar", [x], reference=lambda x: fn(x.astype(np.float64), 1.5).astype(dtype),
                    attrs=attrs, **GC, rtol=2e-3 if dtype == np.float16 else 1e-6)
    op_tester.check_grad("BinaryConstScalar", [x], reference=lambda x: fn(x, 1.5), attrs=attrs, **GC,
                         **tol(dtype))


def test_binary_const_scalar_op_index_against_torch(op_tester):
    """`op` as an index (4 = Pow): the forward against torch, the gradient by finite differences."""
    x = np.random.RandomState(1).uniform(0.5, 2.0, (4,)).astype(np.float32)
    t = torch.tensor(x)
    (y,) = op_tester.run("BinaryConstScalar", [x], attrs={"value": 2.5, "op": 4}, **GC)
    np.testing.assert_allclose(y, (t ** 2.5).detach().numpy(), rtol=1e-6)
    op_tester.check_grad("BinaryConstScalar", [x], reference=lambda x: x ** 2.5, attrs={"value": 2.5, "op": 4}, **GC)


@pytest.mark.parametrize("attrs,match", [({"value": 1.0, "op": "Mod"}, "'op'"), ({"value": 1.0, "op": 7}, "'op'"),
                                          ({"value": 1.0, "scalar_in_index": 2}, "scalar_in_index")])
def test_binary_const_scalar_errors(op_tester, attrs, match):
    with pytest.raises(popart.popart_exception, match=match):
        op_tester.run("BinaryConstScalar", [np.ones(3, np.float32)], attrs=attrs, **GC)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_auto_loss_scale_proxy_passes_values_and_gradients(op_tester, dtype):
    x = np.random.RandomState(2).randn(2, 3).astype(dtype)
    op_tester.check("AutoLossScaleProxy", [x], reference=lambda x: x, **GC)
    op_tester.check_grad("AutoLossScaleProxy", [x], reference=lambda x: x, **GC, **tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_unary_zero_grad_gives_zeros(op_tester, dtype):
    x = (np.arange(6).reshape(2, 3) + 1).astype(dtype)
    op_tester.check("UnaryZeroGrad", [x], reference=lambda x: np.zeros_like(x), **GC)


def test_replicated_all_reduce_inplace_single_replica(op_tester):
    x = np.random.RandomState(3).randn(4, 2).astype(np.float32)
    op_tester.check("ReplicatedAllReduceInplace", [x], reference=lambda x: x, **GC)
