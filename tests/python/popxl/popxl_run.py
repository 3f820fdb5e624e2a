"""Shared helpers of the popxl op tests: build an Ir around one op, run it in a popxl.Session (inputs
host_load-ed, outputs host_store-d) and compare with numpy / torch, forward and through autodiff."""
import numpy as np

import popxl  # before torch: popart's OpenMP runtime first
import popxl.ops as ops
import popxl.transforms as transforms
import torch

TOL = {np.dtype(np.float16): dict(rtol=2e-2, atol=2e-2), np.dtype(np.float32): dict(rtol=1e-5, atol=1e-5),
       np.dtype(np.float64): dict(rtol=1e-10, atol=1e-10)}


def rand(shape, dtype=np.float32, lo=-2.0, hi=2.0, seed=0):
    """Random data of `shape` and `dtype` (floats uniform in [lo, hi), ints in [lo, hi))."""
    rng = np.random.default_rng(seed + len(shape) * 7 + int(np.prod(shape, dtype=np.int64)))
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.uniform(lo, hi, shape).astype(dt)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    return rng.integers(int(lo), int(hi), shape).astype(dt)


def _store(t):
    d2h = popxl.d2h_stream(t.shape, t.dtype, name=f"{t.id}_d2h")
    ops.host_store(d2h, t)
    return d2h


def _load(a, name):
    h2d = popxl.h2d_stream(a.shape, popxl.dtype.as_dtype(a.dtype), name=name)
    return h2d, ops.host_load(h2d, name)


def _as_list(outs):
    return list(outs) if isinstance(outs, (list, tuple)) else [outs]


def run(fn, *arrays):
    """fn(*tensors) in the main graph of a new Ir, the tensors loaded from `arrays`; returns the values
    of fn's output tensor(s) (a list when fn returns several)."""
    ir = popxl.Ir()
    feeds = {}
    with ir.main_graph:
        ts = []
        for i, a in enumerate(arrays):
            a = np.asarray(a)
            h2d, t = _load(a, f"in{i}")
            feeds[h2d] = a
            ts.append(t)
        outs = fn(*ts)
        streams = [_store(o) for o in _as_list(outs)]
    with popxl.Session(ir, "ipu_model") as s:
        res = s.run(feeds)
    vals = [res[d] for d in streams]
    return vals if isinstance(outs, (list, tuple)) else vals[0]


def run_inplace(fn, a, *arrays):
    """fn(x, *tensors) with x a variable holding `a` (modified in place by fn); returns fn's output value
    and x's value after the run."""
    ir = popxl.Ir()
    feeds = {}
    with ir.main_graph:
        x = popxl.variable(np.asarray(a), name="x")
        ts = []
        for i, b in enumerate(arrays):
            b = np.asarray(b)
            h2d, t = _load(b, f"in{i}")
            feeds[h2d] = b
            ts.append(t)
        out = _store(fn(x, *ts))
    with popxl.Session(ir, "ipu_model") as s:
        res = s.run(feeds)
        x_after = s.get_tensor_data(x)
    return res[out], x_after


def run_grad(fn, *arrays, seed=None):
    """fn(*tensors) as a subgraph called from the main graph, differentiated with autodiff; returns
    (output value, gradients of every float input, given the output gradient `seed`, default random)."""
    ir = popxl.Ir()
    feeds = {}
    with ir.main_graph:
        ts = []
        for i, a in enumerate(arrays):
            a = np.asarray(a)
            h2d, t = _load(a, f"in{i}")
            feeds[h2d] = a
            ts.append(t)
        g = ir.create_graph(fn, *ts)
        fwd = ops.call_with_info(g, *ts)  # as the guide does: call, then differentiate
        info = transforms.autodiff(g)
        out = fwd.outputs[0]
        if seed is None:
            seed = rand(out.shape, out.dtype.as_numpy(), seed=5)
        seed = np.asarray(seed, out.dtype.as_numpy())
        s_h2d, s_t = _load(seed, "grad_seed")
        feeds[s_h2d] = seed
        bwd = ops.call_with_info(info.graph, s_t, inputs_dict=info.inputs_dict(fwd))
        grads = info.fwd_parent_ins_to_grad_parent_outs(fwd, bwd)
        out_stream = _store(out)
        grad_streams = [_store(grads[t]) if t in grads else None for t in ts]
    with popxl.Session(ir, "ipu_model") as s:
        res = s.run(feeds)
    return res[out_stream], [res[d] if d is not None else None for d in grad_streams], seed


def check(got, want, dtype=None):
    """got == want in value, shape and dtype (tolerance by dtype; exact for ints and bools)."""
    want = np.asarray(want)
    if dtype is not None:
        want = want.astype(dtype)
    assert got.dtype == want.dtype, f"dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape}, expected {want.shape}"
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), **TOL[got.dtype])
    else:
        np.testing.assert_array_equal(got, want)


def torch_grads(torch_fn, arrays, seed):
    """torch_fn's output and the gradients of the float inputs given output gradient `seed`
    (computed in float64, cast back to each input's dtype)."""
    ts = [torch.tensor(np.asarray(a).astype(np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a),
                       requires_grad=np.asarray(a).dtype.kind == "f") for a in arrays]
    out = torch_fn(*ts)
    out.backward(torch.tensor(np.asarray(seed, np.float64)))
    return out.detach().numpy(), [t.grad.numpy().astype(np.asarray(a).dtype) if t.grad is not None else None
                                  for t, a in zip(ts, arrays)]


def check_grad(fn, torch_fn, *arrays, grad_tol=None, out_dtype=None, out_tol=None):
    """Forward value and dtype (out_dtype, default the first input's) of fn against torch_fn, and the
    gradients of the float inputs through popxl autodiff against torch autograd."""
    out, grads, seed = run_grad(fn, *arrays)
    want, want_grads = torch_grads(torch_fn, arrays, seed)
    want = want.astype(out_dtype or np.asarray(arrays[0]).dtype)
    if out_tol is not None:
        assert out.dtype == want.dtype and out.shape == want.shape
        np.testing.assert_allclose(out.astype(np.float64), want.astype(np.float64), **out_tol)
    else:
        check(out, want)
    for i, (g, w) in enumerate(zip(grads, want_grads)):
        if w is None:
            continue
        assert g is not None, f"no gradient for input {i}"
        if grad_tol is not None:
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), **grad_tol)
        else:
            check(g, w)
