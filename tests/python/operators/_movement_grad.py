"""Torch-autograd references for the data-movement gradient tests (Expand, Tile,
Pad, gathers/scatters, Resize, ...): trains loss = sum(op(inputs)[0] * cot) for one
step with the differentiated inputs as weights and the others as Constant nodes,
and compares their gradients with torch's for the same cotangent (in float64)."""
import numpy as np
import onnx
import onnx.helper as oh
import torch

from _grad_util import weight_grads, weighted_loss


def popart_grads(op_type, inputs, cot, attrs=None, opset=13, wrt=(0,), num_outputs=1):
    """Gradients of sum(op(inputs)[0] * cot) for the inputs in `wrt` (weights; the
    other inputs are Constant nodes, so shape-like inputs stay compile-time constants)."""
    names = ["" if x is None else f"in{i}" for i, x in enumerate(inputs)]
    nodes = [oh.make_node("Constant", [], [names[i]], value=onnx.numpy_helper.from_array(x, names[i]))
             for i, x in enumerate(inputs) if x is not None and i not in wrt]
    outs = ["y"] + [f"y{k}" for k in range(1, num_outputs)]
    nodes.append(oh.make_node(op_type, names, outs, **(attrs or {})))
    got = weight_grads(nodes + weighted_loss("y", cot), {names[i]: inputs[i] for i in wrt}, "loss", opset)
    return [got[names[i]] for i in wrt]


def cotangent(shape, dtype, seed=0):
    rng = np.random.RandomState(seed)
    return np.asarray(rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape)).astype(dtype)


def check_vs_torch(op_type, inputs, torch_fn, attrs=None, opset=13, wrt=(0,), num_outputs=1, rtol=1e-5,
                   atol=1e-6, seed=0):
    """inputs: numpy arrays (None for an absent optional input); those in `wrt`
    become weights, the others constants. torch_fn gets float64 torch tensors
    (integer inputs unchanged) and returns the op's first output."""
    dtype = inputs[wrt[0]].dtype
    targs = [None if x is None else torch.tensor(x.astype(np.float64) if x.dtype.kind == "f" else x,
                                                 requires_grad=i in wrt) for i, x in enumerate(inputs)]
    out = torch_fn(*targs)
    cot = cotangent(tuple(out.shape), dtype, seed)
    (out * torch.from_numpy(cot.astype(np.float64))).sum().backward()
    got = popart_grads(op_type, inputs, cot, attrs, opset, wrt, num_outputs)
    for g, i in zip(got, wrt):
        want = targs[i].grad.numpy()
        assert g.shape == want.shape
        np.testing.assert_allclose(g.astype(np.float64), want, rtol=rtol, atol=atol, err_msg=f"gradient of input {i}")


def check_vs_numeric(op_type, inputs, reference, attrs=None, opset=13, wrt=(0,), num_outputs=1, rtol=1e-5,
                     atol=1e-6, seed=0, eps=1e-6):
    """As check_vs_torch, against central differences of the float64 numpy `reference`."""
    args = [None if x is None else x.astype(np.float64) if x.dtype.kind == "f" else x for x in inputs]
    cot = cotangent(np.shape(reference(*args)), inputs[wrt[0]].dtype, seed)
    got = popart_grads(op_type, inputs, cot, attrs, opset, wrt, num_outputs)
    for g, i in zip(got, wrt):
        want = np.zeros_like(args[i])
        flat, gflat = args[i].reshape(-1), want.reshape(-1)
        for k in range(flat.size):
            old = flat[k]
            flat[k] = old + eps
            up = np.sum(reference(*args) * cot)
            flat[k] = old - eps
            down = np.sum(reference(*args) * cot)
            flat[k] = old
            gflat[k] = (up - down) / (2 * eps)
        np.testing.assert_allclose(g.astype(np.float64), want, rtol=rtol, atol=atol, err_msg=f"gradient of input {i}")


def tol(dtype, scale=1.0):
    """Tolerances per dtype; float16 rounds once per stored value (~1e-3)."""
    if np.dtype(dtype) == np.float16:
        return {"rtol": 5e-3 * scale, "atol": 5e-3 * scale}
    if np.dtype(dtype) == np.float32:
        return {"rtol": 1e-5, "atol": 1e-5 * scale}
    return {"rtol": 1e-10, "atol": 1e-10}
