"""ai.onnx RNN/GRU/LSTM and ai.graphcore LSTM forward: against a torch reference of the ONNX formulas
(itself checked against torch.nn.RNN/GRU/LSTM) and onnxruntime; errors for bad shapes and attributes."""
import os
import sys

import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _ort_reference import ort_run  # noqa: E402
from _rnn_reference import onnx_rnn, random_inputs, reference  # noqa: E402

NUM_OUT = {"RNN": 2, "GRU": 2, "LSTM": 3}


def _check(op_tester, op, ins, attrs, opset=14, dtype=np.float32):
    ins = [a.astype(dtype) if a is not None and a.dtype.kind == "f" else a for a in ins]
    while ins and ins[-1] is None:
        ins.pop()
    tol = {np.float16: 2e-2, np.float32: 1e-5, np.float64: 1e-10}[dtype]
    op_tester.check(op, ins, lambda *a: reference(op, list(a), attrs), attrs=attrs, opset=opset,
                    num_outputs=NUM_OUT[op], rtol=tol, atol=tol)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_reference_matches_torch_nn(op):
    """The reference with torch.nn's weights (gate orders converted) gives torch.nn's outputs."""
    torch.manual_seed(0)
    S, N, I, H = 5, 3, 4, 3
    mod = {"RNN": torch.nn.RNN, "GRU": torch.nn.GRU, "LSTM": torch.nn.LSTM}[op](I, H, bidirectional=True).double()
    x = torch.randn(S, N, I, dtype=torch.float64)
    h0 = torch.randn(2, N, H, dtype=torch.float64)
    c0 = torch.randn(2, N, H, dtype=torch.float64)
    want = mod(x, (h0, c0) if op == "LSTM" else h0)
    # torch gate blocks: LSTM i, f, g, o -> ONNX i, o, f, c; GRU r, z, n -> ONNX z, r, h
    order = {"RNN": [0], "GRU": [1, 0, 2], "LSTM": [0, 3, 1, 2]}[op]

    def conv(m):
        return torch.cat([m.reshape(len(order), H, -1)[k] for k in order]).reshape(m.shape)
    W = torch.stack([conv(getattr(mod, f"weight_ih_l0{s}")) for s in ("", "_reverse")])
    R = torch.stack([conv(getattr(mod, f"weight_hh_l0{s}")) for s in ("", "_reverse")])
    B = torch.stack([torch.cat([conv(getattr(mod, f"bias_ih_l0{s}")), conv(getattr(mod, f"bias_hh_l0{s}"))])
                     for s in ("", "_reverse")])
    got = onnx_rnn(op, x, W, R, B, None, h0, c0 if op == "LSTM" else None, direction="bidirectional",
                   linear_before_reset=1)
    torch.testing.assert_close(got[0].permute(0, 2, 1, 3).reshape(S, N, 2 * H), want[0])
    torch.testing.assert_close(got[1], want[1][0] if op == "LSTM" else want[1])
    if op == "LSTM":
        torch.testing.assert_close(got[2], want[1][1])


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("seq", [1, 5])
@pytest.mark.parametrize("batch", [1, 3])
@pytest.mark.parametrize("hidden", [3, 8])
def test_shapes(op_tester, op, seq, batch, hidden):
    ins = random_inputs(op, seq, batch, 4, hidden, seed=seq * 10 + batch + hidden)
    _check(op_tester, op, ins, {"hidden_size": hidden}, opset=7)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_dtypes(op_tester, op, dtype):
    ins = random_inputs(op, 5, 3, 4, 8, dirs=2, seed=3)
    ins[4] = np.array([5, 4, 2], np.int32)  # the loop kernel (test_onednn_configurations covers oneDNN)
    _check(op_tester, op, ins, {"direction": "bidirectional"}, dtype=dtype)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("layout", [0, 1])
def test_directions_layouts_sequence_lens(op_tester, op, direction, layout):
    dirs = 2 if direction == "bidirectional" else 1
    ins = random_inputs(op, 5, 3, 4, 3, dirs=dirs, peep=True, layout=layout, seed=7)
    ins[4] = np.array([5, 2, 3], np.int32)
    _check(op_tester, op, ins, {"direction": direction, "layout": layout})


@pytest.mark.parametrize("op,attrs", [
    ("RNN", {"activations": ["Relu"]}),
    ("RNN", {"activations": ["Sigmoid", "Affine"], "direction": "bidirectional", "activation_alpha": [0.7],
             "activation_beta": [0.2]}),
    ("RNN", {"activations": ["LeakyRelu"], "activation_alpha": [0.3], "clip": 0.5}),
    ("GRU", {"activations": ["Relu", "Tanh"]}),
    ("GRU", {"linear_before_reset": 1, "activations": ["HardSigmoid", "ScaledTanh"],
             "activation_alpha": [0.3, 1.5], "activation_beta": [0.4, 0.8]}),
    ("GRU", {"activations": ["Sigmoid", "Softsign"], "clip": 0.3}),
    ("LSTM", {"activations": ["Sigmoid", "Relu", "Tanh"]}),
    ("LSTM", {"activations": ["Sigmoid", "Elu", "Softplus"], "activation_alpha": [0.5]}),
    ("LSTM", {"input_forget": 1, "clip": 0.4}),
    ("LSTM", {"activations": ["Sigmoid", "Tanh", "ThresholdedRelu", "Tanh", "Relu", "Tanh"],
              "activation_alpha": [0.05], "direction": "bidirectional"}),
])
def test_attributes(op_tester, op, attrs):
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    ins = random_inputs(op, 5, 3, 4, 3, dirs=dirs, peep=True, seed=11)
    _check(op_tester, op, ins, attrs)


@pytest.mark.parametrize("op,attrs,peep", [
    ("LSTM", {"direction": "bidirectional", "layout": 1}, True),
    ("LSTM", {"direction": "reverse"}, True),
    ("GRU", {"direction": "bidirectional", "linear_before_reset": 1}, False),
    ("GRU", {"direction": "reverse", "layout": 1}, False),
    ("RNN", {"activations": ["Relu"], "direction": "reverse"}, False),
    ("RNN", {"activations": ["Sigmoid", "Sigmoid"], "direction": "bidirectional", "layout": 1}, False),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_onednn_configurations(op_tester, op, attrs, peep, dtype):
    """Configurations the oneDNN primitives compute (no sequence_lens, clip or custom cell activations)."""
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    ins = random_inputs(op, 5, 3, 4, 8, dirs=dirs, peep=peep, layout=attrs.get("layout", 0), seed=21)
    _check(op_tester, op, ins, attrs, dtype=dtype)


@pytest.mark.parametrize("op,attrs", [("LSTM", {"direction": "bidirectional"}), ("GRU", {"linear_before_reset": 1}),
                                      ("GRU", {}), ("RNN", {"direction": "reverse"})])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_constant_weights(op, attrs, dtype):
    """W, R, B (and P) from Constant nodes: the oneDNN path lays them out once when the session is prepared."""
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    ins = [None if a is None else a.astype(dtype) for a in random_inputs(op, 5, 3, 4, 8, dirs=dirs, peep=True, seed=17)]
    want = reference(op, ins, attrs)
    got = _run_model(op, ins, attrs, [f"out{i}" for i in range(NUM_OUT[op])], consts=(1, 2, 3, 7))
    tol = 2e-2 if dtype == np.float16 else 1e-5
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_no_optional_inputs(op_tester, op):
    ins = random_inputs(op, 5, 3, 4, 3, bias=False, h0=False, c0=False, seed=2)
    _check(op_tester, op, ins, {})


@pytest.mark.parametrize("op,attrs", [("GRU", {"direction": "bidirectional", "linear_before_reset": 1}),
                                      ("LSTM", {"direction": "reverse"}), ("RNN", {"activations": ["Relu"]})])
def test_matches_onnxruntime(op, attrs):
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    ins = random_inputs(op, 5, 3, 4, 8, dirs=dirs, peep=True, seed=5)
    ins[4] = np.array([4, 5, 1], np.int32)
    attrs = dict(attrs, hidden_size=8)
    want = ort_run(op, ins, attrs, opset=14, num_outputs=NUM_OUT[op])
    got = _run_model(op, ins, attrs, [f"out{i}" for i in range(NUM_OUT[op])])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def _run_model(op, ins, attrs, outs, opset=14, domain="", consts=()):
    """Runs one node; inputs whose index is in `consts` are Constant nodes, the others graph inputs."""
    names, infos, feeds, nodes = [], [], {}, []
    for i, a in enumerate(ins):
        names.append("" if a is None else f"in{i}")
        if a is not None and i in consts:
            nodes.append(oh.make_node("Constant", [], [f"in{i}"], value=onnx.numpy_helper.from_array(a, f"in{i}")))
        elif a is not None:
            infos.append(oh.make_tensor_value_info(f"in{i}", oh.np_dtype_to_tensor_dtype(a.dtype), a.shape))
            feeds[f"in{i}"] = a
    node = oh.make_node(op, names, outs, domain=domain, **attrs)
    wanted = [o for o in outs if o]
    graph = oh.make_graph(nodes + [node], "rnn", infos, [oh.make_empty_tensor_value_info(o) for o in wanted])
    opsets = [oh.make_opsetid("", opset)] + ([oh.make_opsetid(domain, 1)] if domain else [])
    model = oh.make_model(graph, opset_imports=opsets)
    model.ir_version = min(model.ir_version, 10)
    s = popart.InferenceSession(model.SerializeToString(), popart.DataFlow(1, wanted),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, anchors))
    return [anchors[o] for o in wanted]


@pytest.mark.parametrize("outs", [["", "yh"], ["y"], ["", "", "yc"], ["", "yh", "yc"]])
def test_optional_outputs(outs):
    ins = random_inputs("LSTM", 5, 3, 4, 3, peep=True, seed=4)
    want = reference("LSTM", ins, {})
    got = _run_model("LSTM", ins, {}, outs)
    for g, w in zip(got, [w for o, w in zip(outs, want) if o]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def _gc_to_onnx(weights, biases):
    """ai.graphcore LSTM weights [4, I + H, H] (gates forget, input, candidate, output) -> ONNX W, R, B."""
    H = weights.shape[2]
    I = weights.shape[1] - H
    onnx_of = [2, 0, 3, 1]
    W, R, B = np.zeros((4, H, I)), np.zeros((4, H, H)), np.zeros((8, H))
    for k in range(4):
        W[onnx_of[k]] = weights[k, :I].T
        R[onnx_of[k]] = weights[k, I:].T
        B[onnx_of[k]] = biases[k]
    return W.reshape(1, 4 * H, I), R.reshape(1, 4 * H, H), B.reshape(1, 8 * H)


@pytest.mark.parametrize("full", [1, 0])
@pytest.mark.parametrize("seq,batch,hidden", [(1, 1, 3), (5, 3, 8)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_graphcore_lstm(full, seq, batch, hidden, dtype):
    rng = np.random.RandomState(seq + hidden)
    I = 4
    x = rng.uniform(-1, 1, (seq, batch, I)).astype(dtype)
    weights = rng.uniform(-0.5, 0.5, (4, I + hidden, hidden)).astype(dtype)
    biases = rng.uniform(-0.5, 0.5, (4, hidden)).astype(dtype)
    state = rng.uniform(-0.5, 0.5, (2, batch, hidden)).astype(dtype)
    W, R, B = _gc_to_onnx(weights.astype(np.float64), biases.astype(np.float64))
    y, yh, yc = reference("LSTM", [x.astype(np.float64), W, R, B, None, state[:1].astype(np.float64),
                                   state[1:].astype(np.float64)], {})
    got = _run_model("LSTM", [x, weights, biases, state], {"outputFullSequence": full}, ["out", "cell"],
                     domain="ai.graphcore")
    tol = 2e-2 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(got[0], y[:, 0] if full else yh[0], rtol=tol, atol=tol)
    np.testing.assert_allclose(got[1], yc[0], rtol=tol, atol=tol)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_builder(op):
    """Builder.aiOnnx.rnn/gru/lstm nodes (opset 11) are accepted; all outputs anchored."""
    b = popart.Builder(opsets={"ai.onnx": 11, "ai.graphcore": 1})
    ins = random_inputs(op, 5, 3, 4, 3, peep=True, seed=8)
    ids = [b.addInputTensor(popart.TensorInfo(ins[0])), b.addInitializedInputTensor(ins[1]),
           b.addInitializedInputTensor(ins[2]), b.addInitializedInputTensor(ins[3])]
    fn = getattr(b.aiOnnx, op.lower())
    outs = fn(ids, NUM_OUT[op], direction="reverse")
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, outs), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({ids[0]: ins[0]}, anchors))
    want = reference(op, ins[:4], {"direction": "reverse"})
    for o, w in zip(outs, want):
        np.testing.assert_allclose(anchors[o], w, rtol=1e-5, atol=1e-6)


def test_graphcore_lstm_builder():
    """Builder.aiGraphcore.lstm without initial state: zero states."""
    b = popart.Builder()
    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, (5, 2, 4)).astype(np.float32)
    w = rng.uniform(-0.5, 0.5, (4, 7, 3)).astype(np.float32)
    bias = rng.uniform(-0.5, 0.5, (4, 3)).astype(np.float32)
    xi = b.addInputTensor(popart.TensorInfo("FLOAT", x.shape))
    out, cell = b.aiGraphcore.lstm([xi, b.addInitializedInputTensor(w), b.addInitializedInputTensor(bias)],
                                   outputFullSequence=1)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [out, cell]),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({xi: x}, anchors))
    W, R, B = _gc_to_onnx(w.astype(np.float64), bias.astype(np.float64))
    y, _, yc = reference("LSTM", [x.astype(np.float64), W, R, B], {})
    np.testing.assert_allclose(anchors[out], y[:, 0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(anchors[cell], yc[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op,change,match", [
    ("LSTM", {"attrs": {"direction": "sideways"}}, "direction has unsupported value 'sideways'"),
    ("GRU", {"attrs": {"activations": ["Sigmoid", "Cube"]}}, "activations has unsupported value 'Cube'"),
    ("RNN", {"attrs": {"activations": ["Tanh", "Tanh", "Tanh"]}}, "activations has 3 entries, expected 1"),
    ("LSTM", {"attrs": {"clip": -1.0}}, "clip must be positive"),
    ("LSTM", {"attrs": {"layout": 1}, "opset": 7}, "layout needs opset 14"),
    ("GRU", {"attrs": {"layout": 2}}, "layout has unsupported value 2"),
    ("LSTM", {"input": (1, np.zeros((1, 12, 5), np.float32))}, r"input W has shape \[1 12 5\]|input W has shape"),
    ("GRU", {"input": (0, np.zeros((5, 4), np.float32))}, "input X must have rank 3"),
    ("RNN", {"attrs": {"hidden_size": 7}}, "hidden_size 7"),
    ("LSTM", {"input": (4, np.zeros(3, np.int64))}, "sequence_lens has type INT64, expected INT32"),
    ("LSTM", {"input": (5, np.zeros((1, 2, 3), np.float32))}, "initial_h has shape"),
    ("LSTM", {"input": (3, np.zeros((1, 24), np.float64))}, "input B has type DOUBLE, expected FLOAT"),
    ("GRU", {"input": (6, np.zeros((1, 3, 3), np.float32))}, "only LSTM takes initial_c and P"),
])
def test_errors(op, change, match):
    ins = random_inputs(op, 5, 3, 4, 3, seed=1)
    if "input" in change:
        i, a = change["input"]
        ins += [None] * (i + 1 - len(ins))
        ins[i] = a
    with pytest.raises(popart.popart_exception, match=match):
        _run_model(op, ins, change.get("attrs", {}), ["y"], opset=change.get("opset", 14))


@pytest.mark.parametrize("shapes,match", [
    ([(5, 3, 4), (4, 6, 3), (4, 3)], r"weights has shape \[4 6 3\]|weights has shape"),
    ([(5, 3, 4), (3, 7, 3), (4, 3)], "expected \\[4, input_size \\+ hidden_size, hidden_size\\]"),
    ([(5, 3, 4), (4, 7, 3), (4, 4)], "biases has shape"),
    ([(5, 3, 4), (4, 7, 3), (4, 3), (2, 2, 3)], "initial_state has shape"),
])
def test_graphcore_lstm_errors(shapes, match):
    ins = [np.zeros(s, np.float32) for s in shapes]
    with pytest.raises(popart.popart_exception, match=match):
        _run_model("LSTM", ins, {}, ["out", "cell"], domain="ai.graphcore")


@pytest.mark.parametrize("op,attrs", [("LSTM", {"direction": "bidirectional"}), ("GRU", {"linear_before_reset": 1}),
                                      ("RNN", {})])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_weights_written_between_runs(op, attrs, dtype):
    """W, R, B (and P) as initializers of an inference session: oneDNN's copies of them are made once and
    remade after writeWeights + weightsFromHost."""
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    ins = [None if a is None else a.astype(dtype) for a in random_inputs(op, 5, 3, 4, 8, dirs=dirs, peep=True, seed=23)]
    weights = {i: f"in{i}" for i in (1, 2, 3, 7) if i < len(ins) and ins[i] is not None}
    outs = [f"out{i}" for i in range(NUM_OUT[op])]
    names = ["" if a is None else f"in{i}" for i, a in enumerate(ins)]
    graph = oh.make_graph([oh.make_node(op, names, outs, **attrs)], "rnn",
                          [oh.make_tensor_value_info("in0", oh.np_dtype_to_tensor_dtype(ins[0].dtype), ins[0].shape)]
                          + [oh.make_tensor_value_info(f"in{i}", oh.np_dtype_to_tensor_dtype(a.dtype), a.shape)
                             for i, a in enumerate(ins) if a is not None and i and i not in weights],
                          [oh.make_empty_tensor_value_info(o) for o in outs],
                          initializer=[onnx.numpy_helper.from_array(ins[i], n) for i, n in weights.items()])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 14)])
    model.ir_version = min(model.ir_version, 10)
    s = popart.InferenceSession(model.SerializeToString(), popart.DataFlow(1, outs),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    feeds = {f"in{i}": a for i, a in enumerate(ins) if a is not None and i not in weights}
    tol = 2e-2 if dtype == np.float16 else 1e-5
    for k in range(3):
        if k:
            for i, name in weights.items():
                ins[i] = (ins[i] * (1 - 0.3 * k)).astype(dtype)
            s.writeWeights(popart.PyWeightsIO({n: ins[i] for i, n in weights.items()}))
            s.weightsFromHost()
        want = reference(op, ins, attrs)
        for _ in range(2):
            s.run(popart.PyStepIO(feeds, anchors))
            for o, w in zip(outs, want):
                np.testing.assert_allclose(anchors[o], w, rtol=tol, atol=tol, err_msg=f"{o} after {k} writes")
