"""transforms.autodiff with grads_required / grads_provided: which gradients the backward graph gives and
which output gradients it takes, checked against numpy through a Session."""
import numpy as np
import pytest

import popart
import popxl
import popxl.ops as ops
import popxl.transforms as transforms


def two_output_graph(ir):
    """f(x, W, b) = (relu(x @ W + b), x * 3)."""
    g = ir.create_empty_graph("f")
    with g:
        x = popxl.graph_input((4, 3), popxl.float32, "x")
        W = popxl.graph_input((3, 2), popxl.float32, "W")
        b = popxl.graph_input((2,), popxl.float32, "b")
        popxl.graph_output(ops.relu(x @ W + b))
        popxl.graph_output(x * popxl.constant(np.float32(3)))
    return g, x, W, b


def run_grads(grads_required, grads_provided, seeds):
    rng = np.random.default_rng(0)
    xv, Wv, bv = (rng.standard_normal(s).astype(np.float32) for s in [(4, 3), (3, 2), (2,)])
    ir = popxl.Ir()
    with ir.main_graph:
        g, x, W, b = two_output_graph(ir)
        names = {"x": x, "W": W, "b": b}
        req = None if grads_required is None else [names[n] for n in grads_required]
        prov = None if grads_provided is None else [g.outputs[i] for i in grads_provided]
        bwd = transforms.autodiff(g, grads_provided=prov, grads_required=req)
        fwd_info = ops.call_with_info(g, popxl.constant(xv), popxl.constant(Wv), popxl.constant(bv))
        grads = ops.call(bwd.graph, *[popxl.constant(s) for s in seeds], inputs_dict=bwd.inputs_dict(fwd_info))
        streams = []
        for t in grads:
            streams.append(popxl.d2h_stream(t.shape, t.dtype))
            ops.host_store(streams[-1], t)
    with popxl.Session(ir, "cpu") as s:
        out = s.run()
    expected_out = [c.fwd_tensor.id for c in bwd.expected_outputs]
    expected_in = [(c.connection_type.name, c.fwd_tensor.id) for c in bwd.expected_inputs]
    return [out[st] for st in streams], expected_out, expected_in, (xv, Wv, bv)


def reference(xv, Wv, bv, dy, dz):
    pre = xv @ Wv + bv
    d = dy * (pre > 0)
    return {"x": d @ Wv.T + 3 * dz, "W": xv.T @ d, "b": d.sum(0)}


def test_default_is_all_inputs_from_all_outputs():
    dy, dz = np.ones((4, 2), np.float32), np.full((4, 3), 0.5, np.float32)
    got, outs, ins, vals = run_grads(None, None, [dy, dz])
    assert [i for i in outs] == ["f/x", "f/W", "f/b"]
    assert [t for t, _ in ins[:2]] == ["FwdGrad", "FwdGrad"]
    ref = reference(*vals, dy, dz)
    for g, n in zip(got, ["x", "W", "b"]):
        np.testing.assert_allclose(g, ref[n], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("required", [["W"], ["b", "W"], ["x"]])
def test_grads_required_selects_and_orders_outputs(required):
    dy, dz = np.ones((4, 2), np.float32), np.full((4, 3), 0.5, np.float32)
    got, outs, _, vals = run_grads(required, None, [dy, dz])
    assert outs == [f"f/{n}" for n in required]
    ref = reference(*vals, dy, dz)
    assert len(got) == len(required)
    for g, n in zip(got, required):
        np.testing.assert_allclose(g, ref[n], rtol=1e-5, atol=1e-6)


def test_grads_required_prunes_unneeded_gradient_ops():
    ir = popxl.Ir()
    with ir.main_graph:
        g, x, W, b = two_output_graph(ir)
        full = transforms.autodiff(g)
        only_w = transforms.autodiff(g, grads_required=[W])
    n_full = len(full.graph._pb_graph.getOps())
    n_w = len(only_w.graph._pb_graph.getOps())
    assert n_w < n_full  # no MatMul gradient for x, no x * 3 gradient


def test_grads_provided_takes_only_those_output_gradients():
    dy = np.full((4, 2), 2.0, np.float32)
    got, outs, ins, vals = run_grads(["x"], [0], [dy])
    assert [t for t, _ in ins].count("FwdGrad") == 1 and ins[0][0] == "FwdGrad"
    assert "Relu" in ins[0][1]  # the gradient of output 0 (relu(x @ W + b))
    np.testing.assert_allclose(got[0], reference(*vals, dy, np.zeros((4, 3), np.float32))["x"], rtol=1e-5)


def test_selection_errors():
    ir = popxl.Ir()
    with ir.main_graph:
        g, x, W, b = two_output_graph(ir)
        other = popxl.variable(np.zeros(2, np.float32), name="other")
        with pytest.raises(ValueError, match="grads_required 'other' is not a tensor of that graph"):
            transforms.autodiff(g, grads_required=[other])
        with pytest.raises(popart.popart_exception, match="grads_required '.*' is not an input"):
            transforms.autodiff(g, grads_required=[g.outputs[0]])
        with pytest.raises(popart.popart_exception, match="grads_provided '.*x' is not an output"):
            transforms.autodiff(g, grads_provided=[x])
        with pytest.raises(popart.popart_exception, match="names 'f/W' twice"):
            transforms.autodiff(g, grads_required=[W, W])
        h = ir.create_empty_graph("h")
        with h:
            i = popxl.graph_input((2,), popxl.int32, "i")
            f = popxl.graph_input((2,), popxl.float32, "f")
            popxl.graph_output(f * 2)
        with pytest.raises(popart.popart_exception, match="'h/i' is INT32.*no gradient"):
            transforms.autodiff(h, grads_required=[i])


def test_autodiff_after_the_call_site_exists():
    """The forward call is made before autodiff: the activations autodiff exposes (here p = x @ W and
    e = exp(p + b), both read by the gradient of y = e * p) become outputs of that call op, and
    inputs_dict finds them there."""
    rng = np.random.default_rng(1)
    xv, Wv, bv = (rng.standard_normal(s).astype(np.float32) * 0.5 for s in [(4, 3), (3, 2), (2,)])
    ir = popxl.Ir()
    with ir.main_graph:
        g = ir.create_empty_graph("f")
        with g:
            x = popxl.graph_input((4, 3), popxl.float32, "x")
            W = popxl.graph_input((3, 2), popxl.float32, "W")
            b = popxl.graph_input((2,), popxl.float32, "b")
            p = x @ W
            popxl.graph_output(ops.exp(p + b) * p)
        info = ops.call_with_info(g, popxl.constant(xv), popxl.constant(Wv), popxl.constant(bv))
        assert len(info.outputs) == 1
        bwd = transforms.autodiff(g, grads_required=[W, b])
        acts = bwd.inputs_dict(info)
        assert len(g.outputs) > 1 and all(t.graph == ir.main_graph for t in acts.values())
        dy = rng.standard_normal((4, 2)).astype(np.float32)
        dW, db = ops.call(bwd.graph, popxl.constant(dy), inputs_dict=acts)
        streams = [popxl.d2h_stream(t.shape, t.dtype) for t in (dW, db)]
        for st, t in zip(streams, (dW, db)):
            ops.host_store(st, t)
    with popxl.Session(ir, "cpu") as s:
        out = s.run()
    pv = xv @ Wv
    e = np.exp(pv + bv)
    np.testing.assert_allclose(out[streams[0]], xv.T @ (dy * e * (pv + 1)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[streams[1]], (dy * e * pv).sum(0), rtol=1e-5, atol=1e-6)
