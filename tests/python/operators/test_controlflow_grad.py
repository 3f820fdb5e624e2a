# Gradients through sub-graph ops: Call (ai.graphcore), If, Scan and Loop
# (ai.onnx). Each model is also written in torch; the weight gradients
# (anchored as Gradient___<w>) must match torch autograd, in float32 and
# float64. One TrainingSession runs SGD for three steps against torch.
import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch
from onnx import TensorProto as TP

import popart
from _grad_util import weight_grads

ONNX_TYPE = {np.float16: TP.FLOAT16, np.float32: TP.FLOAT, np.float64: TP.DOUBLE}
DTYPES = [np.float32, np.float64]
TOL = {np.float16: dict(rtol=2e-2, atol=2e-2), np.float32: dict(rtol=2e-4, atol=2e-5),
       np.float64: dict(rtol=1e-10, atol=1e-12)}


def rand(rng, dtype, *shape):
    return rng.uniform(-1, 1, shape).astype(dtype)


def const(name, value):
    return oh.make_node("Constant", [], [name], value=onnx.numpy_helper.from_array(np.asarray(value), name))


def vi(name, dtype, shape):
    return oh.make_tensor_value_info(name, ONNX_TYPE.get(dtype, dtype), shape)


def sum_loss(outs, cots):
    """Nodes for loss = sum_k sum(outs[k] * cots[k])."""
    nodes = []
    for k, (o, c) in enumerate(zip(outs, cots)):
        nodes += [const(f"cot{k}", c), oh.make_node("Mul", [o, f"cot{k}"], [f"wo{k}"]),
                  oh.make_node("IdentityLoss", [f"wo{k}"], [f"l{k}"], domain="ai.graphcore", reduction=0)]
    total = "l0"
    for k in range(1, len(outs)):
        nodes.append(oh.make_node("Add", [total, f"l{k}"], [f"lsum{k}"]))
        total = f"lsum{k}"
    nodes.append(oh.make_node("Identity", [total], ["loss"]))
    return nodes


def torch_grads(fn, weights, cots):
    """Gradients of sum(fn(**weights)[k] * cots[k]) w.r.t. every weight, by torch
    autograd (float16 values are differentiated in float64)."""
    wide = lambda v: v.astype(np.float64) if v.dtype == np.float16 else v
    params = {k: torch.tensor(wide(v), requires_grad=True) for k, v in weights.items()}
    outs = fn(**params)
    loss = sum((o * torch.tensor(wide(c))).sum() for o, c in zip(outs, cots))
    loss.backward()
    return {k: np.zeros_like(weights[k]) if p.grad is None else p.grad.numpy() for k, p in params.items()}


def check(nodes, weights, fn, cots, outs):
    got = weight_grads(nodes + sum_loss(outs, cots), weights, "loss")
    want = torch_grads(fn, weights, cots)
    dtype = next(iter(weights.values())).dtype.type
    for k in weights:
        assert got[k].shape == want[k].shape, k
        np.testing.assert_allclose(got[k], want[k], err_msg=k, **TOL[dtype])
    return got


# ---- Call ----

def cell_graph(dtype, name="cell"):
    """cell(a, b) = tanh(a * b) + sigmoid(b) * exp(a), b broadcast over a's rows."""
    nodes = [oh.make_node("Mul", ["a", "b"], ["ab"]), oh.make_node("Tanh", ["ab"], ["t"]),
             oh.make_node("Sigmoid", ["b"], ["sb"]), oh.make_node("Exp", ["a"], ["ea"]),
             oh.make_node("Mul", ["sb", "ea"], ["se"]), oh.make_node("Add", ["t", "se"], ["y"])]
    return oh.make_graph(nodes, name, [vi("a", dtype, [3, 4]), vi("b", dtype, [4])], [vi("y", dtype, [3, 4])])


def t_cell(a, b):
    return torch.tanh(a * b) + torch.sigmoid(b) * torch.exp(a)


def call(ins, outs, graph):
    return oh.make_node("Call", ins, outs, domain="ai.graphcore", callee=graph)


@pytest.mark.parametrize("dtype", DTYPES)
def test_call(dtype):
    rng = np.random.default_rng(1)
    x = rand(rng, dtype, 3, 4)
    w = {"w1": rand(rng, dtype, 3, 4), "w2": rand(rng, dtype, 4)}
    nodes = [const("x", x), oh.make_node("Mul", ["x", "w1"], ["xw"]), call(["xw", "w2"], ["y"], cell_graph(dtype))]
    check(nodes, w, lambda w1, w2: [t_cell(torch.tensor(x) * w1, w2)], [rand(rng, dtype, 3, 4)], ["y"])


@pytest.mark.parametrize("dtype", DTYPES)
def test_call_twice(dtype):
    """One callee, two call sites; the first call's output is also a loss term."""
    rng = np.random.default_rng(2)
    w = {"w1": rand(rng, dtype, 3, 4), "w2": rand(rng, dtype, 4)}
    g = cell_graph(dtype)
    nodes = [call(["w1", "w2"], ["u"], g), call(["u", "w2"], ["v"], g)]

    def fn(w1, w2):
        u = t_cell(w1, w2)
        return [u, t_cell(u, w2)]
    check(nodes, w, fn, [rand(rng, dtype, 3, 4), rand(rng, dtype, 3, 4)], ["u", "v"])


@pytest.mark.parametrize("dtype", DTYPES)
def test_call_nested_reading_outer_weight(dtype):
    """outer(a) = cell(a, w2) * a + Concat/Gather of a, with w2 read from the main graph by name."""
    rng = np.random.default_rng(3)
    w = {"w1": rand(rng, dtype, 3, 4), "w2": rand(rng, dtype, 4)}
    outer = oh.make_graph(
        [call(["oa", "w2"], ["c"], cell_graph(dtype)), oh.make_node("Mul", ["c", "oa"], ["m"]),
         oh.make_node("Concat", ["m", "oa"], ["cat"], axis=0), const("idx", np.int64([4, 0, 2])),
         oh.make_node("Gather", ["cat", "idx"], ["oy"], axis=0)],
        "outer", [vi("oa", dtype, [3, 4])], [vi("oy", dtype, [3, 4])])
    nodes = [call(["w1"], ["y"], outer)]

    def fn(w1, w2):
        cat = torch.cat([t_cell(w1, w2) * w1, w1], 0)
        return [cat[[4, 0, 2]]]
    check(nodes, w, fn, [rand(rng, dtype, 3, 4)], ["y"])


# ---- If ----

def if_node(dtype):
    then_g = oh.make_graph([oh.make_node("Mul", ["wa", "wc"], ["p"]), oh.make_node("Tanh", ["p"], ["ty"])],
                           "then", [], [vi("ty", dtype, [4])])
    else_g = oh.make_graph([oh.make_node("Exp", ["wb"], ["e"]), oh.make_node("Mul", ["e", "wc"], ["ey"])],
                           "else", [], [vi("ey", dtype, [4])])
    return oh.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cond", [True, False])
def test_if(dtype, cond):
    rng = np.random.default_rng(4)
    w = {k: rand(rng, dtype, 4) for k in ("wa", "wb", "wc")}
    nodes = [const("cond", np.bool_(cond)), if_node(dtype), oh.make_node("Sigmoid", ["y"], ["z"])]

    def fn(wa, wb, wc):
        return [torch.sigmoid(torch.tanh(wa * wc) if cond else torch.exp(wb) * wc)]
    got = check(nodes, w, fn, [rand(rng, dtype, 4)], ["z"])
    assert not np.any(got["wb" if cond else "wa"])  # the branch not taken


# ---- Scan ----

def rnn_body(dtype):
    """h' = tanh(h * wh + x_t * wx + b); y_t = h' * wy (weights read by name)."""
    nodes = [oh.make_node("Mul", ["h", "wh"], ["hh"]), oh.make_node("Mul", ["xt", "wx"], ["xx"]),
             oh.make_node("Add", ["hh", "xx"], ["hx"]), oh.make_node("Add", ["hx", "b"], ["pre"]),
             oh.make_node("Tanh", ["pre"], ["h2"]),
             oh.make_node("Mul", ["h2", "wy"], ["yt"])]
    return oh.make_graph(nodes, "rnn", [vi("h", dtype, [4]), vi("xt", dtype, [4])],
                         [vi("h2", dtype, [4]), vi("yt", dtype, [4])])


@pytest.mark.parametrize("dtype", DTYPES + [np.float16])
@pytest.mark.parametrize("reverse_in,out_axis", [(0, 0), (1, 1)])
def test_scan_rnn(dtype, reverse_in, out_axis):
    rng = np.random.default_rng(5)
    xs = rand(rng, dtype, 5, 4)
    w = {"h0": rand(rng, dtype, 4), "wxs": rand(rng, dtype, 5, 4),
         **{k: rand(rng, dtype, 4) for k in ("wh", "wx", "b", "wy")}}
    nodes = [const("xs", xs), oh.make_node("Mul", ["xs", "wxs"], ["seq"]),
             oh.make_node("Scan", ["h0", "seq"], ["hT", "ys"], body=rnn_body(dtype), num_scan_inputs=1,
                          scan_input_directions=[reverse_in], scan_output_axes=[out_axis])]

    def fn(h0, wxs, wh, wx, b, wy):
        seq = torch.tensor(xs) * wxs
        h, ys = h0, []
        for t in range(5):
            h = torch.tanh(h * wh + seq[4 - t if reverse_in else t] * wx + b)
            ys.append(h * wy)
        return [h, torch.stack(ys, out_axis)]
    ys_shape = (5, 4) if out_axis == 0 else (4, 5)
    check(nodes, w, fn, [rand(rng, dtype, 4), rand(rng, dtype, *ys_shape)], ["hT", "ys"])


# ---- Loop ----

def loop_body(dtype, exit_after=None):
    """s' = tanh(s * w + float(i) * v); y_i = s' * v; cond' = i < exit_after (or the cond input)."""
    cast_to = ONNX_TYPE[dtype]
    nodes = [oh.make_node("Cast", ["i"], ["fi"], to=cast_to), oh.make_node("Mul", ["fi", "v"], ["iv"]),
             oh.make_node("Mul", ["s", "w"], ["sw"]), oh.make_node("Add", ["sw", "iv"], ["pre"]),
             oh.make_node("Tanh", ["pre"], ["s2"]), oh.make_node("Mul", ["s2", "v"], ["y"])]
    if exit_after is None:
        nodes.append(oh.make_node("Identity", ["c"], ["c2"]))
    else:
        nodes += [const("lim", np.int64(exit_after)), oh.make_node("Less", ["i", "lim"], ["c2"])]
    return oh.make_graph(nodes, "loop", [vi("i", TP.INT64, []), vi("c", TP.BOOL, []), vi("s", dtype, [3])],
                         [vi("c2", TP.BOOL, []), vi("s2", dtype, [3]), vi("y", dtype, [3])])


def t_loop(s0, w, v, trips):
    s, ys = s0, []
    for i in range(trips):
        s = torch.tanh(s * w + float(i) * v)
        ys.append(s * v)
    return s, ys


@pytest.mark.parametrize("dtype", DTYPES)
def test_loop_constant_trip_count(dtype):
    rng = np.random.default_rng(6)
    w = {"w0": rand(rng, dtype, 3), "w": rand(rng, dtype, 3), "v": rand(rng, dtype, 3)}
    x0 = rand(rng, dtype, 3)
    nodes = [const("x0", x0), const("M", np.int64(4)), const("c0", np.bool_(True)),
             oh.make_node("Mul", ["x0", "w0"], ["s0"]),
             oh.make_node("Loop", ["M", "c0", "s0"], ["sT", "ys"], body=loop_body(dtype))]

    def fn(w0, w, v):
        s, ys = t_loop(torch.tensor(x0) * w0, w, v, 4)
        return [s, torch.stack(ys)]
    check(nodes, w, fn, [rand(rng, dtype, 3), rand(rng, dtype, 4, 3)], ["sT", "ys"])


def test_loop_early_exit():
    """cond turns false after iteration 2 of M = 5: iterations 3 and 4 never ran (zero rows)."""
    dtype = np.float64
    rng = np.random.default_rng(7)
    w = {"w0": rand(rng, dtype, 3), "w": rand(rng, dtype, 3), "v": rand(rng, dtype, 3)}
    nodes = [const("M", np.int64(5)), const("c0", np.bool_(True)),
             oh.make_node("Loop", ["M", "c0", "w0"], ["sT", "ys"], body=loop_body(dtype, exit_after=2))]

    def fn(w0, w, v):
        s, ys = t_loop(w0, w, v, 3)
        return [s, torch.stack(ys + [torch.zeros(3, dtype=torch.float64)] * 2)]
    check(nodes, w, fn, [rand(rng, dtype, 3), rand(rng, dtype, 5, 3)], ["sT", "ys"])


def test_scan8_gradient_is_an_error():
    dtype = np.float32
    body = oh.make_graph([oh.make_node("Add", ["h", "xt"], ["h2"]), oh.make_node("Identity", ["h2"], ["yt"])], "b8",
                         [vi("h", dtype, [4]), vi("xt", dtype, [4])], [vi("h2", dtype, [4]), vi("yt", dtype, [4])])
    nodes = [const("xs", np.ones((1, 3, 4), dtype)),
             oh.make_node("Scan", ["", "h0", "xs"], ["hT", "ys"], body=body, num_scan_inputs=1)]
    with pytest.raises(popart.popart_exception, match="Scan.*gradient of Scan-8 .* use Scan-9 or later"):
        weight_grads(nodes + sum_loss(["hT"], [np.ones((1, 4), dtype)]), {"h0": np.ones((1, 4), dtype)}, "loss",
                     opset=8)


def test_loop_runtime_trip_count_is_an_error():
    dtype = np.float32
    nodes = [const("c0", np.bool_(True)),
             oh.make_node("Loop", ["M", "c0", "w"], ["sT"], body=loop_body(dtype)),
             oh.make_node("IdentityLoss", ["sT"], ["loss"], domain="ai.graphcore", reduction=0)]
    body = nodes[1].attribute[0].g
    del body.output[2]  # no scan output, so M may be a run-time value
    graph = oh.make_graph(nodes, "g", [vi("M", TP.INT64, [])], [vi("loss", dtype, [])],
                          initializer=[onnx.numpy_helper.from_array(np.ones(3, dtype), k) for k in ("w", "v")])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13), oh.make_opsetid("ai.graphcore", 1)])
    model.ir_version = min(model.ir_version, 10)
    want = r"Loop.*gradient of Loop needs its trip count M \(input 0, 'M'\)"
    with pytest.raises(popart.popart_exception, match=want):
        popart.TrainingSession(model.SerializeToString(), popart.DataFlow(1, ["loss"]), "loss",
                               popart.ConstSGD(0.1), popart.DeviceManager().createCpuDevice())


# ---- Training end to end ----

def test_training_scan_sgd_three_steps():
    """Three SGD steps on the Scan RNN (loss = mean of ys^2): weights after each step match torch."""
    dtype = np.float32
    rng = np.random.default_rng(8)
    xs = rand(rng, dtype, 5, 4)
    init = {"h0": rand(rng, dtype, 4), **{k: rand(rng, dtype, 4) for k in ("wh", "wx", "b", "wy")}}
    nodes = [oh.make_node("Scan", ["h0", "xs"], ["hT", "ys"], body=rnn_body(dtype), num_scan_inputs=1),
             oh.make_node("Mul", ["ys", "ys"], ["sq"]),
             oh.make_node("IdentityLoss", ["sq"], ["loss"], domain="ai.graphcore", reduction=1)]
    graph = oh.make_graph(nodes, "train", [vi("xs", dtype, [5, 4])], [vi("loss", dtype, [])],
                          initializer=[onnx.numpy_helper.from_array(v, k) for k, v in init.items()])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13), oh.make_opsetid("ai.graphcore", 1)])
    model.ir_version = min(model.ir_version, 10)
    lr = 0.5
    s = popart.TrainingSession(model.SerializeToString(), popart.DataFlow(1, ["loss"]), "loss",
                               popart.ConstSGD(lr), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    params = {k: torch.tensor(v, requires_grad=True) for k, v in init.items()}
    opt = torch.optim.SGD(params.values(), lr=lr)
    for _ in range(3):
        s.run(popart.PyStepIO({"xs": xs}, anchors))
        opt.zero_grad()
        h, ys = params["h0"], []
        for t in range(5):
            h = torch.tanh(h * params["wh"] + torch.tensor(xs[t]) * params["wx"] + params["b"])
            ys.append(h * params["wy"])
        loss = (torch.stack(ys) ** 2).mean()
        loss.backward()
        opt.step()
        np.testing.assert_allclose(anchors["loss"], loss.item(), rtol=1e-5)
        s.weightsToHost()
        got = {k: np.zeros_like(v) for k, v in init.items()}
        s.readWeights(popart.PyWeightsIO(got))
        for k, p in params.items():
            np.testing.assert_allclose(got[k], p.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=k)


# ---- Nesting ----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cond", [True, False])
def test_scan_body_with_if(dtype, cond):
    """h' = If(cond, tanh(h * wh + x_t), sigmoid(h + x_t * wx)), branches reading the body and the main graph."""
    rng = np.random.default_rng(9)
    xs = rand(rng, dtype, 3, 4)
    w = {"h0": rand(rng, dtype, 4), "wh": rand(rng, dtype, 4), "wx": rand(rng, dtype, 4)}
    then_g = oh.make_graph([oh.make_node("Mul", ["h", "wh"], ["a"]), oh.make_node("Add", ["a", "xt"], ["b"]),
                            oh.make_node("Tanh", ["b"], ["ty"])], "then", [], [vi("ty", dtype, [4])])
    else_g = oh.make_graph([oh.make_node("Mul", ["xt", "wx"], ["c"]), oh.make_node("Add", ["h", "c"], ["d"]),
                            oh.make_node("Sigmoid", ["d"], ["ey"])], "else", [], [vi("ey", dtype, [4])])
    body = oh.make_graph([oh.make_node("If", ["cond"], ["h2"], then_branch=then_g, else_branch=else_g),
                          oh.make_node("Identity", ["h2"], ["yt"])],
                         "body", [vi("h", dtype, [4]), vi("xt", dtype, [4])],
                         [vi("h2", dtype, [4]), vi("yt", dtype, [4])])
    nodes = [const("cond", np.bool_(cond)), const("xs", xs),
             oh.make_node("Scan", ["h0", "xs"], ["hT", "ys"], body=body, num_scan_inputs=1)]

    def fn(h0, wh, wx):
        h, ys = h0, []
        for t in range(3):
            x = torch.tensor(xs[t])
            h = torch.tanh(h * wh + x) if cond else torch.sigmoid(h + x * wx)
            ys.append(h)
        return [h, torch.stack(ys)]
    check(nodes, w, fn, [rand(rng, dtype, 4), rand(rng, dtype, 3, 4)], ["hT", "ys"])


@pytest.mark.parametrize("dtype", DTYPES)
def test_loop_body_with_call(dtype):
    """s' = cell(s, w) * 0.5 three times; cell is called from the loop body with the outer weight w."""
    rng = np.random.default_rng(10)
    w = {"s0": rand(rng, dtype, 3, 4), "w": rand(rng, dtype, 4)}
    body = oh.make_graph([call(["s", "w"], ["cs"], cell_graph(dtype)), const("half", np.asarray(0.5, dtype)),
                          oh.make_node("Mul", ["cs", "half"], ["s2"]), oh.make_node("Identity", ["c"], ["c2"])],
                         "body", [vi("i", TP.INT64, []), vi("c", TP.BOOL, []), vi("s", dtype, [3, 4])],
                         [vi("c2", TP.BOOL, []), vi("s2", dtype, [3, 4])])
    nodes = [const("M", np.int64(3)), const("c0", np.bool_(True)),
             oh.make_node("Loop", ["M", "c0", "s0"], ["sT"], body=body)]

    def fn(s0, w):
        s = s0
        for _ in range(3):
            s = t_cell(s, w) * 0.5
        return [s]
    check(nodes, w, fn, [rand(rng, dtype, 3, 4)], ["sT"])


@pytest.mark.parametrize("dtype", DTYPES)
def test_call_with_index_argument_and_unused_output(dtype):
    """callee(t, idx) = (exp(g) * g with g = Gather(t, idx), -t): the int argument
    gets no gradient, the unused output a zero one."""
    rng = np.random.default_rng(11)
    w = {"w": rand(rng, dtype, 4, 3)}
    callee = oh.make_graph([oh.make_node("Gather", ["t", "idx"], ["g"], axis=0), oh.make_node("Exp", ["g"], ["e"]),
                            oh.make_node("Mul", ["e", "g"], ["y"]), oh.make_node("Neg", ["t"], ["unused"])],
                           "gather", [vi("t", dtype, [4, 3]), vi("idx", TP.INT64, [2])],
                           [vi("y", dtype, [2, 3]), vi("unused", dtype, [4, 3])])
    nodes = [const("ids", np.int64([3, 1])), call(["w", "ids"], ["y"], callee)]

    def fn(w):
        g = w[[3, 1]]
        return [torch.exp(g) * g]
    check(nodes, w, fn, [rand(rng, dtype, 2, 3)], ["y"])


def test_builder_call_and_if_training():
    """Builder model: y = Call(cell)(x * w1, w2); z = If(cond, tanh(y * w3), y); loss = mean(z^2).
    Three steps of popart.SGD (learning rate 0.3) match torch.optim.SGD."""
    rng = np.random.default_rng(12)
    init = {"w1": rand(rng, np.float32, 3, 4), "w2": rand(rng, np.float32, 4), "w3": rand(rng, np.float32, 3, 4)}
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [3, 4], "x")
    cond = b.addInputTensor("BOOL", [], "cond")
    ids = {k: b.addInitializedInputTensor(v, k) for k, v in init.items()}
    cell = b.createSubgraphBuilder()
    a, c = cell.addInputTensor("FLOAT", [3, 4]), cell.addInputTensor("FLOAT", [4])
    cell.addOutputTensor(cell.aiOnnx.add([cell.aiOnnx.tanh([cell.aiOnnx.mul([a, c])]),
                                          cell.aiOnnx.mul([cell.aiOnnx.sigmoid([c]), cell.aiOnnx.exp([a])])]))
    y = b.aiGraphcore.call([b.aiOnnx.mul([x, ids["w1"]]), ids["w2"]], 1, cell)[0]
    then_b = b.createSubgraphBuilder()
    then_b.addOutputTensor(then_b.aiOnnx.tanh([then_b.aiOnnx.mul([y, ids["w3"]])]))
    else_b = b.createSubgraphBuilder()
    else_b.addOutputTensor(else_b.aiOnnx.identity([y]))
    z = b.aiOnnx.logical_if([cond], 1, else_b, then_b)[0]
    loss = b.aiGraphcore.identityloss([b.aiOnnx.mul([z, z])], reduction=popart.ReductionType.Mean)
    lr = 0.3
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss,
                               popart.SGD({"defaultLearningRate": (lr, False)}),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    params = {k: torch.tensor(v, requires_grad=True) for k, v in init.items()}
    opt = torch.optim.SGD(params.values(), lr=lr)
    for step, cv in enumerate([True, False, True]):
        xv = rand(rng, np.float32, 3, 4)
        s.run(popart.PyStepIO({x: xv, cond: np.array(cv)}, anchors))
        opt.zero_grad()
        yt = t_cell(torch.tensor(xv) * params["w1"], params["w2"])
        zt = torch.tanh(yt * params["w3"]) if cv else yt
        (zt * zt).mean().backward()
        opt.step()
        s.weightsToHost()
        got = {k: np.zeros_like(v) for k, v in init.items()}
        s.readWeights(popart.PyWeightsIO({ids[k]: v for k, v in got.items()}))
        for k, p in params.items():
            np.testing.assert_allclose(got[k], p.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=f"{k} step {step}")
