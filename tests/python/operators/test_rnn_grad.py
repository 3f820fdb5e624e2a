"""Gradients (backprop through time) of ai.onnx RNN/GRU/LSTM and ai.graphcore LSTM with respect to every
float input, for a loss weighting each output with a random cotangent; references: torch.nn.RNN/GRU/LSTM
autograd (weights converted to ONNX gate order) and torch autograd through the ONNX-formula reference."""
import os
import sys

import numpy as np
import onnx
import onnx.helper as oh
from onnx import numpy_helper
import pytest
import torch

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _rnn_reference import onnx_rnn, random_inputs  # noqa: E402

NAMES = ["X", "W", "R", "B", "lens", "h0", "c0", "P"]
NUM_OUT = {"RNN": 2, "GRU": 2, "LSTM": 3}


def popart_grads(op, ins, attrs, cots, opset=14, domain="", feed_x=False):
    """Gradients of sum_k sum(out_k * cots[k]) w.r.t. the float inputs (initializers), by name;
    with feed_x, X is a streamed graph input instead (no gradient)."""
    dtype = ins[0].dtype
    names = [NAMES[i] if a is not None else "" for i, a in enumerate(ins)]
    floats = [n for n, a in zip(names, ins) if n and a.dtype.kind == "f" and not (feed_x and n == names[0])]
    inits = [onnx.numpy_helper.from_array(a, n) for n, a in zip(names, ins) if n in floats]
    nodes = [oh.make_node("Constant", [], [n], value=onnx.numpy_helper.from_array(a, n))
             for n, a in zip(names, ins) if n and n not in floats and not (feed_x and n == names[0])]
    outs = [f"out{k}" for k in range(len(cots))]
    nodes.append(oh.make_node(op, names, outs, domain=domain, **attrs))
    flat = []
    for k, c in enumerate(cots):
        if c is None:  # an output outside the loss
            continue
        nodes += [oh.make_node("Constant", [], [f"cot{k}"], value=numpy_helper.from_array(c.astype(dtype), f"cot{k}")),
                  oh.make_node("Mul", [outs[k], f"cot{k}"], [f"w{k}"]),
                  oh.make_node("Constant", [], [f"shape{k}"],
                               value=numpy_helper.from_array(np.array([-1]), f"shape{k}")),
                  oh.make_node("Reshape", [f"w{k}", f"shape{k}"], [f"flat{k}"])]
        flat.append(f"flat{k}")
    nodes += [oh.make_node("Concat", flat, ["all"], axis=0),
              oh.make_node("IdentityLoss", ["all"], ["loss"], domain="ai.graphcore", reduction=0)]
    loss = oh.make_tensor_value_info("loss", oh.np_dtype_to_tensor_dtype(dtype), [])
    streams = [oh.make_tensor_value_info(names[0], oh.np_dtype_to_tensor_dtype(dtype), ins[0].shape)] if feed_x else []
    graph = oh.make_graph(nodes, "rnn_grad", streams, [loss], initializer=inits)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset), oh.make_opsetid("ai.graphcore", 1)])
    model.ir_version = min(model.ir_version, 10)
    anchors = [popart.reservedGradientPrefix() + n for n in floats]
    s = popart.TrainingSession(model.SerializeToString(), popart.DataFlow(1, anchors), "loss", popart.ConstSGD(0.0),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({names[0]: ins[0]} if feed_x else {}, res))
    return {n: res[popart.reservedGradientPrefix() + n] for n in floats}


def reference_grads(op, ins, attrs, cots):
    t = [None if a is None else torch.tensor(a.astype(np.float64), requires_grad=True) if a.dtype.kind == "f" else a
         for a in ins] + [None] * (8 - len(ins))
    kw = dict(attrs)
    if "activations" in kw:
        kw["activations_"] = kw.pop("activations")
    outs = onnx_rnn(op, *t, **kw)
    loss = sum((o * torch.tensor(c.astype(np.float64))).sum() for o, c in zip(outs, cots) if c is not None)
    loss.backward()
    return {NAMES[i]: v.grad.numpy() for i, v in enumerate(t) if isinstance(v, torch.Tensor)}


def cotangents(op, ins, attrs, seed=0):
    rng = np.random.RandomState(seed)
    kw = dict(attrs)
    if "activations" in kw:
        kw["activations_"] = kw.pop("activations")
    shapes = [o.shape for o in onnx_rnn(op, *[None if a is None else torch.tensor(a.astype(np.float64))
                                              if a.dtype.kind == "f" else a for a in ins], **kw)]
    return [rng.uniform(-1, 1, s) for s in shapes]


def check(op, ins, attrs, dtype=np.float32, tol=2e-4):
    ins = [a.astype(dtype) if a is not None and a.dtype.kind == "f" else a for a in ins]
    cots = cotangents(op, ins, attrs)
    got = popart_grads(op, ins, attrs, cots)
    want = reference_grads(op, ins, attrs, cots)
    assert got.keys() == want.keys()
    for n in want:
        np.testing.assert_allclose(got[n], want[n], rtol=tol, atol=tol, err_msg=f"gradient of {n}")


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("seq", [1, 5])
@pytest.mark.parametrize("batch", [1, 3])
@pytest.mark.parametrize("hidden", [3, 8])
def test_shapes(op, seq, batch, hidden):
    check(op, random_inputs(op, seq, batch, 4, hidden, seed=seq + batch + hidden), {})


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", ["reverse", "bidirectional"])
def test_directions_float64(op, direction):
    ins = random_inputs(op, 5, 3, 4, 3, dirs=2 if direction == "bidirectional" else 1, seed=9)
    check(op, ins, {"direction": direction}, dtype=np.float64, tol=1e-10)


@pytest.mark.parametrize("op,attrs,peep,lens", [
    ("LSTM", {}, True, None),
    ("LSTM", {"input_forget": 1, "clip": 0.5, "direction": "bidirectional"}, True, [5, 2, 3]),
    ("LSTM", {"layout": 1, "activations": ["HardSigmoid", "Elu", "Softsign"]}, False, [1, 5, 4]),
    ("GRU", {"linear_before_reset": 1}, False, [3, 5, 2]),
    ("GRU", {"direction": "reverse", "activations": ["Sigmoid", "Relu"], "clip": 0.4}, False, [2, 4, 5]),
    ("RNN", {"activations": ["LeakyRelu", "ScaledTanh"], "activation_alpha": [0.2, 0.9], "activation_beta": [1.3],
             "direction": "bidirectional"}, False, [5, 3, 1]),
])
def test_attributes(op, attrs, peep, lens):
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    ins = random_inputs(op, 5, 3, 4, 3, dirs=dirs, peep=peep, layout=attrs.get("layout", 0), seed=13)
    if lens is not None:
        ins[4] = np.array(lens, np.int32)
    check(op, ins, attrs, dtype=np.float64, tol=1e-6)  # activation alpha/beta are float32 attributes


def test_float16():
    check("LSTM", random_inputs("LSTM", 5, 3, 4, 3, seed=1), {}, dtype=np.float16, tol=3e-2)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_against_torch_nn(op, bidirectional):
    """torch.nn's own autograd, with its weights and gradients converted between gate orders."""
    torch.manual_seed(1)
    S, N, I, H, D = 5, 3, 4, 8, 2 if bidirectional else 1
    cls = {"RNN": torch.nn.RNN, "GRU": torch.nn.GRU, "LSTM": torch.nn.LSTM}[op]
    mod = cls(I, H, bidirectional=bidirectional).double()
    x = torch.randn(S, N, I, dtype=torch.float64, requires_grad=True)
    h0 = torch.randn(D, N, H, dtype=torch.float64, requires_grad=True)
    c0 = torch.randn(D, N, H, dtype=torch.float64, requires_grad=True)
    y, st = mod(x, (h0, c0) if op == "LSTM" else h0)
    rng = np.random.RandomState(2)
    cy = rng.uniform(-1, 1, (S, D, N, H))
    cst = [rng.uniform(-1, 1, (D, N, H)) for _ in range(NUM_OUT[op] - 1)]
    loss = (y * torch.tensor(cy).permute(0, 2, 1, 3).reshape(S, N, D * H)).sum()
    for s, c in zip(st if op == "LSTM" else [st], cst):
        loss = loss + (s * torch.tensor(c)).sum()
    loss.backward()
    order = {"RNN": [0], "GRU": [1, 0, 2], "LSTM": [0, 3, 1, 2]}[op]  # ONNX block k is torch block order[k]

    def conv(m):
        return np.concatenate([m.reshape(len(order), H, -1)[k] for k in order]).reshape(m.shape)
    sfx = ["", "_reverse"][:D]
    par = lambda n: [getattr(mod, f"{n}_l0{s}") for s in sfx]
    W = np.stack([conv(p.detach().numpy()) for p in par("weight_ih")])
    R = np.stack([conv(p.detach().numpy()) for p in par("weight_hh")])
    B = np.stack([np.concatenate([conv(a.detach().numpy()), conv(b.detach().numpy())])
                  for a, b in zip(par("bias_ih"), par("bias_hh"))])
    ins = [x.detach().numpy(), W, R, B, None, h0.detach().numpy()]
    if op == "LSTM":
        ins.append(c0.detach().numpy())
    attrs = {"direction": "bidirectional"} if bidirectional else {}
    if op == "GRU":
        attrs["linear_before_reset"] = 1
    got = popart_grads(op, ins, attrs, [cy] + cst)
    want = {"X": x.grad.numpy(), "h0": h0.grad.numpy(),
            "W": np.stack([conv(p.grad.numpy()) for p in par("weight_ih")]),
            "R": np.stack([conv(p.grad.numpy()) for p in par("weight_hh")]),
            "B": np.stack([np.concatenate([conv(a.grad.numpy()), conv(b.grad.numpy())])
                           for a, b in zip(par("bias_ih"), par("bias_hh"))])}
    if op == "LSTM":
        want["c0"] = c0.grad.numpy()
    for n in want:
        np.testing.assert_allclose(got[n], want[n], rtol=1e-10, atol=1e-10, err_msg=f"gradient of {n}")


@pytest.mark.parametrize("full", [1, 0])
def test_graphcore_lstm(full):
    """ai.graphcore LSTM: gradients of X, weights [4, I + H, H], biases [4, H], initial_state [2, N, H]."""
    rng = np.random.RandomState(3)
    S, N, I, H = 5, 3, 4, 3
    x = rng.uniform(-1, 1, (S, N, I))
    weights = rng.uniform(-0.5, 0.5, (4, I + H, H))
    biases = rng.uniform(-0.5, 0.5, (4, H))
    state = rng.uniform(-0.5, 0.5, (2, N, H))
    cots = [rng.uniform(-1, 1, (S, N, H) if full else (N, H)), rng.uniform(-1, 1, (N, H))]
    global NAMES
    saved, NAMES = NAMES, ["X", "weights", "biases", "state"]
    try:
        got = popart_grads("LSTM", [x, weights, biases, state], {"outputFullSequence": full}, cots,
                           domain="ai.graphcore")
    finally:
        NAMES = saved
    t = {k: torch.tensor(v, requires_grad=True) for k, v in
         {"X": x, "weights": weights, "biases": biases, "state": state}.items()}
    onnx_of = [2, 0, 3, 1]  # graphcore gate k (forget, input, candidate, output) is ONNX gate onnx_of[k]
    perm = [onnx_of.index(g) for g in range(4)]
    W = torch.cat([t["weights"][k, :I].T for k in perm])[None]
    R = torch.cat([t["weights"][k, I:].T for k in perm])[None]
    B = torch.cat([torch.cat([t["biases"][k] for k in perm]), torch.zeros(4 * H, dtype=torch.float64)])[None]
    y, yh, yc = onnx_rnn("LSTM", t["X"], W, R, B, None, t["state"][:1], t["state"][1:])
    out = y[:, 0] if full else yh[0]
    ((out * torch.tensor(cots[0])).sum() + (yc[0] * torch.tensor(cots[1])).sum()).backward()
    for k in t:
        np.testing.assert_allclose(got[k], t[k].grad.numpy(), rtol=1e-10, atol=1e-10, err_msg=f"gradient of {k}")


@pytest.mark.parametrize("used", [[1], [0, 2], [1, 2]])
def test_outputs_outside_the_loss(used):
    """Outputs not in the loss (present, or absent after the last used one) contribute nothing."""
    ins = random_inputs("LSTM", 5, 3, 4, 3, peep=True, seed=6)
    ins = [a.astype(np.float64) if a is not None else None for a in ins]
    cots = cotangents("LSTM", ins, {})[:max(used) + 1]
    cots = [c if k in used else None for k, c in enumerate(cots)]
    want = reference_grads("LSTM", ins, {}, cots)
    got = popart_grads("LSTM", ins, {}, cots)
    for n in want:
        np.testing.assert_allclose(got[n], want[n], rtol=1e-10, atol=1e-10, err_msg=f"gradient of {n}")


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_streamed_input(op):
    """X fed at run time (only the weights and states are trained)."""
    ins = [None if a is None else a.astype(np.float64) for a in random_inputs(op, 5, 3, 4, 3, seed=12)]
    cots = cotangents(op, ins, {})
    got = popart_grads(op, ins, {}, cots, feed_x=True)
    want = reference_grads(op, ins, {}, cots)
    assert "X" not in got and set(got) == set(want) - {"X"}
    for n in got:
        np.testing.assert_allclose(got[n], want[n], rtol=1e-10, atol=1e-10, err_msg=f"gradient of {n}")
