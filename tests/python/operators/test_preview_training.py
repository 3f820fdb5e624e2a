"""ai.onnx.preview.training Adagrad, Adam and Momentum (standard, nesterov) against numpy formulas in
float64 and the onnx reference evaluator: one and several variables, T = 0 and T > 0, float32/16/64,
outputs left out; error cases."""
import numpy as np
import onnx.helper as oh
import pytest
from onnx.reference import ReferenceEvaluator

import popart

DOMAIN = "ai.onnx.preview.training"
GROUP = {"Adagrad": 3, "Adam": 4, "Momentum": 3}
ATTRS = {
    "Adagrad": {"decay_factor": 0.1, "epsilon": 1e-5, "norm_coefficient": 0.001},
    "Adam": {"alpha": 0.95, "beta": 0.85, "epsilon": 0.01, "norm_coefficient": 0.001, "norm_coefficient_post": 0.02},
    "Momentum": {"alpha": 0.95, "beta": 0.1, "mode": "standard", "norm_coefficient": 0.001},
    "Nesterov": {"alpha": 0.9, "beta": 0.5, "mode": "nesterov", "norm_coefficient": 0.01},
}


def f32(v):
    return float(np.float32(v))


def update(op, attrs, r, t, x, g, *state):
    """One variable's new X and state in float64 (attributes rounded to float32 as stored)."""
    a = {k: (f32(v) if isinstance(v, float) else v) for k, v in attrs.items()}
    r, t = float(r), int(t)
    x, g = x.astype(np.float64), g.astype(np.float64)
    gr = a.get("norm_coefficient", 0.0) * x + g
    if op == "Adagrad":
        h = state[0] + gr * gr
        return x - r / (1 + t * a.get("decay_factor", 0.0)) * gr / (np.sqrt(h) + a.get("epsilon", 1e-6)), h
    if op == "Adam":
        al, be = a.get("alpha", 0.9), a.get("beta", 0.999)
        v = al * state[0] + (1 - al) * gr
        h = be * state[1] + (1 - be) * gr * gr
        ra = r * np.sqrt(1 - be ** t) / (1 - al ** t) if t > 0 else r
        xn = x - ra * v / (np.sqrt(h) + a.get("epsilon", 1e-6))
        return (1 - a.get("norm_coefficient_post", 0.0)) * xn, v, h
    v = a["alpha"] * state[0] + (a["beta"] if t > 0 else 1.0) * gr
    return (x - r * (gr + a["alpha"] * v) if a["mode"] == "nesterov" else x - r * v), v


def reference(op, attrs):
    def ref(r, t, *tensors):
        n = len(tensors) // GROUP[op]
        groups = [tensors[k * n:(k + 1) * n] for k in range(GROUP[op])]
        outs = [update(op, attrs, r, t, *(gk[i] for gk in groups)) for i in range(n)]
        dtype = tensors[0].dtype
        return [outs[i][k].astype(dtype) for k in range(GROUP[op] - 1) for i in range(n)]
    return ref


def inputs_for(op, shapes, dtype, t, seed=0):
    """R, T, then X..., G..., and the state: V... (Adam, Momentum) and H... >= 0 (Adagrad, Adam)."""
    rng = np.random.RandomState(seed)
    kinds = ["x", "g"] + {"Adagrad": ["h"], "Adam": ["v", "h"], "Momentum": ["v"]}[op]
    tensors = [(rng.uniform(0, 1, s) if k == "h" else rng.randn(*s)).astype(dtype) for k in kinds for s in shapes]
    return [np.array(0.1, np.float32), np.array(t, np.int64)] + tensors


CASES = [("Adagrad", "Adagrad"), ("Adam", "Adam"), ("Momentum", "Momentum"), ("Momentum", "Nesterov")]


@pytest.mark.parametrize("op,attr_key", CASES)
@pytest.mark.parametrize("shapes", [[(1,)], [(3, 4)], [(5,), (2, 3, 4), (1000,)]])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("t", [0, 3])
def test_preview_training(op_tester, op, attr_key, shapes, dtype, t):
    attrs = ATTRS[attr_key]
    inputs = inputs_for(op, shapes, dtype, t)
    n_out = (GROUP[op] - 1) * len(shapes)
    tol = {"rtol": 1e-2, "atol": 1e-2} if dtype == np.float16 else {"rtol": 1e-6, "atol": 1e-6}
    op_tester.check(op, inputs, reference=reference(op, attrs), attrs=attrs, domain=DOMAIN, num_outputs=n_out, **tol)


@pytest.mark.parametrize("op,attr_key", CASES)
def test_preview_training_vs_onnx_reference(op_tester, op, attr_key):
    attrs = ATTRS[attr_key]
    inputs = inputs_for(op, [(4,), (2, 3)], np.float32, 5, seed=1)
    names = [f"in{i}" for i in range(len(inputs))]
    n_out = (GROUP[op] - 1) * 2
    node = oh.make_node(op, names, [f"out{i}" for i in range(n_out)], domain=DOMAIN, **attrs)
    graph = oh.make_graph([node], "g", [oh.make_tensor_value_info(n, oh.np_dtype_to_tensor_dtype(a.dtype), a.shape)
                                         for n, a in zip(names, inputs)],
                          [oh.make_empty_tensor_value_info(f"out{i}") for i in range(n_out)])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11), oh.make_opsetid(DOMAIN, 1)])
    want = ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))
    op_tester.check(op, inputs, reference=lambda *a: [w.astype(np.float32) for w in want], attrs=attrs,
                    domain=DOMAIN, num_outputs=n_out, rtol=1e-5, atol=1e-6)


def test_preview_training_defaults_and_partial_outputs(op_tester):
    inputs = inputs_for("Adam", [(6,)], np.float32, 2)
    want = reference("Adam", {})(*inputs)
    (x_new,) = op_tester.run("Adam", inputs, domain=DOMAIN, num_outputs=1)  # only X_new
    np.testing.assert_allclose(x_new, want[0], rtol=1e-6)


def test_preview_training_errors(op_tester):
    good = inputs_for("Momentum", [(3,)], np.float32, 1)
    attrs = ATTRS["Momentum"]
    run = lambda op, ins, a=attrs, n=2: op_tester.run(op, ins, attrs=a, domain=DOMAIN, num_outputs=n)  # noqa: E731
    with pytest.raises(popart.popart_exception, match="Momentum.*expects R, T and 3 tensors per variable"):
        run("Momentum", good[:4])
    with pytest.raises(popart.popart_exception, match="input 0 \\(R\\) must be one FLOAT or DOUBLE value"):
        run("Momentum", [np.ones(2, np.float32)] + good[1:])
    with pytest.raises(popart.popart_exception, match="input 1 \\(T\\) must be one INT64 value"):
        run("Momentum", [good[0], np.array(1, np.int32)] + good[2:])
    with pytest.raises(popart.popart_exception, match="input 3 must be FLOAT of shape \\[3\\] \\(as X1\\)"):
        run("Momentum", good[:3] + [np.ones(4, np.float32)] + good[4:])
    with pytest.raises(popart.popart_exception, match="input 2 \\(X1\\) must be FLOAT, FLOAT16 or DOUBLE, got INT32"):
        run("Momentum", good[:2] + [g.astype(np.int32) for g in good[2:]])
    with pytest.raises(popart.popart_exception, match="attribute mode must be 'standard' or 'nesterov'"):
        run("Momentum", good, dict(attrs, mode="heavy"))
    with pytest.raises(popart.popart_exception, match="attribute alpha is required"):
        run("Momentum", good, {"beta": 0.1, "mode": "standard", "norm_coefficient": 0.0})
    with pytest.raises(popart.popart_exception, match="has 3 outputs, at most 2 for 1 variables"):
        run("Momentum", good, attrs, 3)
