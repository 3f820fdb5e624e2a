"""Gradients of Identity and non-dropping Dropout: dx = dy (a view of dy)."""
import numpy as np
import pytest

from _grad_util import tol


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("shape", [(5,), (2, 3, 4)])
def test_identity_grad(op_tester, dtype, shape):
    x = np.random.RandomState(0).randn(*shape).astype(dtype)
    op_tester.check_grad("Identity", [x], reference=lambda x: x, opset=13, **tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("opset,attrs,extra", [(6, {"is_test": 1}, 0), (10, {"ratio": 0.0}, 0), (13, {}, 2)])
def test_dropout_inference_grad(op_tester, dtype, opset, attrs, extra):
    """Dropout that does not drop in a training session: Dropout-6 is_test=1,
    ratio 0, or training_mode=False (opset 12+); the training-mode gradient
    is tested in tests/python/training/test_dropout_training.py."""
    x = np.random.RandomState(1).randn(3, 4).astype(dtype)
    inputs = [x] + [op_tester.const(np.array(0.5, np.float32)), op_tester.const(np.array(False))][:extra]
    op_tester.check_grad("Dropout", inputs, reference=lambda x, *rest: x, attrs=attrs, opset=opset, wrt=[0],
                         **tol(dtype))
