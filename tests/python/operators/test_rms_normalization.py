"""RMSNormalization (opset 23) against the onnx reference evaluator and numpy, and its
gradient (dX, dScale) against torch autograd, over several shapes, axes and dtypes."""
import numpy as np
import onnx.helper as oh
import pytest
import torch
from onnx.reference.ops.op_rms_normalization import _rms_normalization

import popart
from _grad_util import weight_grads, weighted_loss

RNG = np.random.default_rng(0)
TOL = {np.float32: (1e-5, 1e-5), np.float16: (1e-2, 1e-2), np.float64: (1e-7, 1e-8)}


def rms_norm(x, s, axis, eps):
    """float64 numpy reference, returned in x's dtype."""
    ax = tuple(range(axis % x.ndim, x.ndim))
    x64 = x.astype(np.float64)
    return (x64 / np.sqrt((x64 * x64).mean(ax, keepdims=True) + eps) * s).astype(x.dtype)


@pytest.mark.parametrize("shape,axis,sshape", [((3, 4), -1, (4,)), ((3, 4), 0, (3, 4)), ((2, 3, 5), 1, (3, 5)),
                                               ((2, 3, 4, 5), -2, (1, 5)), ((4, 16, 32), -1, (32,)),
                                               ((2, 3, 4), 2, (1,))])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_rms_norm(op_tester, shape, axis, sshape, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    s = RNG.standard_normal(sshape).astype(dtype)
    rtol, atol = TOL[dtype]
    op_tester.check("RMSNormalization", [x, s], reference=lambda x, s: rms_norm(x, s, axis, 0.1),
                    attrs={"axis": axis, "epsilon": 0.1}, opset=23, rtol=rtol, atol=atol)


def test_rms_norm_vs_onnx_reference(op_tester):
    x = RNG.standard_normal((5, 6, 7)).astype(np.float32) * 3
    s = RNG.standard_normal((6, 7)).astype(np.float32)
    op_tester.check("RMSNormalization", [x, s], reference=lambda x, s: _rms_normalization(x, s, 1, 1e-5),
                    attrs={"axis": 1}, opset=23, rtol=1e-5, atol=1e-5)


def test_rms_norm_zero_rows(op_tester):
    """An all-zero row gives 0 (x / sqrt(eps)), not NaN."""
    x = np.zeros((2, 8), np.float32)
    x[1] = np.arange(8)
    s = np.ones(8, np.float32)
    op_tester.check("RMSNormalization", [x, s], reference=lambda x, s: rms_norm(x, s, -1, 1e-5), opset=23)


def test_rms_norm_errors(op_tester):
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(popart.popart_exception, match="input 1 of shape \\[3\\] does not broadcast"):
        op_tester.run("RMSNormalization", [x, np.ones(3, np.float32)], opset=23)
    with pytest.raises(popart.popart_exception, match="stash_type=10"):
        op_tester.run("RMSNormalization", [x, np.ones(4, np.float32)], attrs={"stash_type": 10}, opset=23)
    with pytest.raises(popart.popart_exception, match="axis 3"):
        op_tester.run("RMSNormalization", [x, np.ones(4, np.float32)], attrs={"axis": 3}, opset=23)
    with pytest.raises(popart.popart_exception, match="input 1 has type FLOAT16"):
        op_tester.run("RMSNormalization", [x, np.ones(4, np.float16)], opset=23)
    with pytest.raises(popart.popart_exception, match="RMSNormalization.*INT32"):
        op_tester.run("RMSNormalization", [x.astype(np.int32), np.ones(4, np.int32)], opset=23)


def torch_rms_norm(axis, eps):
    def fn(x, s):
        dims = tuple(range(axis % x.dim(), x.dim()))
        return x / torch.sqrt((x * x).mean(dims, keepdim=True) + eps) * s
    return fn


@pytest.mark.parametrize("shape,axis,sshape", [((4, 6), -1, (6,)), ((2, 3, 4), 1, (3, 4)), ((2, 3, 4), 1, (1, 4)),
                                               ((3, 2, 2, 3), 2, (2, 1)), ((3, 13, 37), -1, (37,))])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_rms_norm_grad(shape, axis, sshape, dtype):
    node = oh.make_node("RMSNormalization", ["x", "s"], ["y"], axis=axis, epsilon=1e-3)
    rng = np.random.RandomState(1)
    inputs = {"x": (rng.randn(*shape) * 1.5 + 0.3).astype(dtype), "s": rng.randn(*sshape).astype(dtype)}
    t = [torch.tensor(v.astype(np.float64), requires_grad=True) for v in inputs.values()]
    y = torch_rms_norm(axis, 1e-3)(*t)
    cot = rng.uniform(-1.5, 1.5, tuple(y.shape)).astype(dtype)
    (y * torch.tensor(cot.astype(np.float64))).sum().backward()
    got = weight_grads([node] + weighted_loss("y", cot), inputs, "loss", opset=23)
    tol = {"rtol": 3e-2, "atol": 3e-2} if dtype == np.float16 else {"rtol": 1e-4, "atol": 1e-5}
    for (name, _), v in zip(inputs.items(), t):
        assert got[name].dtype == dtype and got[name].shape == inputs[name].shape
        np.testing.assert_allclose(got[name].astype(np.float64), v.grad.numpy(), **tol, err_msg=name)
