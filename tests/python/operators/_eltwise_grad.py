"""Gradient checks against torch autograd for the element-wise/reduction grad tests:
popart trains a one-node model with loss sum(out * c) for a random cotangent c; torch
differentiates the same function in float64 from the same (dtype-rounded) inputs."""
import numpy as np
import torch

TOL = {np.dtype(np.float16): (2e-2, 2e-2), np.dtype(np.float32): (1e-4, 1e-5), np.dtype(np.float64): (1e-9, 1e-10)}


def _tensor(x, grad=False):
    x = np.asarray(x)
    return torch.tensor(x.astype(np.float64) if x.dtype.kind == "f" else x, requires_grad=grad)


def eltwise_grad_check(op_tester, op_type, inputs, fn, wrt=(0,), attrs=None, opset=11, domain="", tol=None, seed=0):
    """Compares popart's gradients of inputs `wrt` with torch autograd of `fn`
    (fn gets float64 torch tensors, None for absent inputs)."""
    plain = [x.value if isinstance(x, op_tester.const) else (None if x is None else np.asarray(x)) for x in inputs]
    wrt = list(wrt)
    dtype = plain[wrt[0]].dtype
    ts = [None if x is None else _tensor(x, i in wrt) for i, x in enumerate(plain)]
    out = fn(*ts)
    rng = np.random.RandomState(seed)
    cot = rng.uniform(0.5, 1.5, tuple(out.shape)) * rng.choice([-1, 1], tuple(out.shape))
    cot = cot.astype(dtype).astype(np.float64)  # the cotangent popart sees
    (out * torch.tensor(cot)).sum().backward()
    got = op_tester._popart_grads(op_type, inputs, plain, wrt, attrs, opset, domain, cot)
    rtol, atol = tol or TOL[np.dtype(dtype)]
    for i in wrt:
        assert got[i].dtype == dtype and got[i].shape == plain[i].shape
        np.testing.assert_allclose(got[i].astype(np.float64), ts[i].grad.numpy(), rtol=rtol, atol=atol,
                                   err_msg=f"{op_type}: gradient of input {i}")
