"""Gradient checks against torch autograd: op_tester trains loss = sum(out0 * cot)
for one step (learning rate 0) and the gradients of the chosen inputs are compared
with torch's for the same cotangent, computed in float64 from the same input values."""
import numpy as np
import torch


def _tolerances(dtype, want, rtol, atol):
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    if np.dtype(dtype) == np.float16:
        return rtol or 1e-2, atol or 1e-2 * scale
    if np.dtype(dtype) == np.float32:
        return rtol or 1e-4, atol or 1e-5 * scale
    return rtol or 1e-7, atol or 1e-7 * scale


def check_torch_grad(op_tester, op_type, inputs, torch_fn, wrt=None, attrs=None, opset=13, domain="", seed=0,
                     rtol=None, atol=None):
    """inputs: numpy arrays, op_tester.const(array) or None (absent optional input);
    torch_fn gets torch tensors (None for absent inputs) and returns the first output.
    wrt: input indices to differentiate (default: every non-constant float input)."""
    plain = [x.value if isinstance(x, op_tester.const) else (None if x is None else np.asarray(x)) for x in inputs]
    if wrt is None:
        wrt = [i for i, x in enumerate(inputs)
               if x is not None and not isinstance(x, op_tester.const) and plain[i].dtype.kind == "f"]
    dtype = plain[wrt[0]].dtype
    targs = [None if x is None else torch.tensor(x.astype(np.float64) if x.dtype.kind == "f" else x,
                                                 requires_grad=i in wrt) for i, x in enumerate(plain)]
    out = torch_fn(*targs)
    rng = np.random.RandomState(seed)
    shape = tuple(out.shape)
    cot = np.asarray(rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape)).astype(dtype).astype(np.float64)
    (out * torch.from_numpy(cot)).sum().backward()
    got = op_tester._popart_grads(op_type, inputs, plain, wrt, attrs, opset, domain, cot)
    for i in wrt:
        want = targs[i].grad.numpy()
        assert got[i].shape == want.shape, f"gradient of input {i}: shape {got[i].shape} != {want.shape}"
        r, a = _tolerances(dtype, want, rtol, atol)
        np.testing.assert_allclose(got[i].astype(np.float64), want, rtol=r, atol=a, err_msg=f"gradient of input {i}")


check_against_torch = check_torch_grad
