"""Gradients of Identity and inference Dropout: dx = dy (a view of dy)."""
import numpy as np
import pytest

from _grad_util import tol


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("shape", [(5,), (2, 3, 4)])
def test_identity_grad(op_tester, dtype, shape):
    x = np.random.RandomState(0).randn(*shape).astype(dtype)
    op_tester.check_grad("Identity", [x], reference=lambda x: x, opset=13, **tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("opset,attrs", [(10, {"ratio": 0.3}), (13, {})])
def test_dropout_inference_grad(op_tester, dtype, opset, attrs):
    x = np.random.RandomState(1).randn(3, 4).astype(dtype)
    op_tester.check_grad("Dropout", [x], reference=lambda x: x, attrs=attrs, opset=opset, **tol(dtype))
