# Control flow: If, Loop, Scan (ai.onnx) and Call (ai.graphcore) from ONNX
# models (onnx.helper, with outer-scope references and nested sub-graphs) and
# from the Builder helpers, compared with onnxruntime / numpy; error cases.
import json

import numpy as np
import onnx
import onnx.helper as oh
import pytest
from onnx import TensorProto as TP

import popart

import onnxruntime as ort

F, I64, B = TP.FLOAT, TP.INT64, TP.BOOL


def vi(name, elem, shape):
    return oh.make_tensor_value_info(name, elem, shape)


def const(name, value):
    return oh.make_node("Constant", [], [name], value=onnx.numpy_helper.from_array(np.asarray(value)))


def model(nodes, inputs, outputs, opset=11, inits=()):
    g = oh.make_graph(nodes, "cf", inputs, outputs, initializer=list(inits))
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", opset)])
    m.ir_version = min(m.ir_version, 10)
    return m


def run_popart(m, feeds):
    proto = m if isinstance(m, bytes) else m.SerializeToString()
    outs = [o.name for o in onnx.load_from_string(proto).graph.output]
    df = popart.DataFlow(1, {o: popart.AnchorReturnType("All") for o in outs})
    s = popart.InferenceSession(proto, df, popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, anchors))
    return [anchors[o] for o in outs]


def run_ort(m, feeds):
    proto = m if isinstance(m, bytes) else m.SerializeToString()
    return ort.InferenceSession(proto, providers=["CPUExecutionProvider"]).run(None, feeds)


def check(m, feeds, rtol=1e-5):
    got, want = run_popart(m, feeds), run_ort(m, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6)
    return got


rng = np.random.default_rng(0)


# ---- If ----

def if_model(opset, then_out, else_out):
    """out = If(c): then relu(x) + y, else x * y (x, y read from the outer scope)."""
    then_g = oh.make_graph([oh.make_node("Relu", ["x"], ["r"]), oh.make_node("Add", ["r", "y"], ["t"])],
                           "then", [], [vi("t", F, then_out)])
    else_g = oh.make_graph([oh.make_node("Mul", ["x", "y"], ["e"])], "else", [], [vi("e", F, else_out)])
    node = oh.make_node("If", ["c"], ["out"], then_branch=then_g, else_branch=else_g)
    return model([node], [vi("c", B, []), vi("x", F, [2, 3]), vi("y", F, [2, 3])],
                 [vi("out", F, [2, 3])], opset)


@pytest.mark.parametrize("opset", [9, 11, 13, 16, 19, 21])
@pytest.mark.parametrize("cond", [True, False])
def test_if_outer_scope(opset, cond):
    x, y = rng.standard_normal((2, 3), np.float32), rng.standard_normal((2, 3), np.float32)
    m = if_model(opset, [2, 3], [2, 3])
    (got,) = check(m, {"c": np.array(cond), "x": x, "y": y})
    np.testing.assert_allclose(got, np.maximum(x, 0) + y if cond else x * y, rtol=1e-6)


def test_if_constant_branches_and_several_outputs():
    then_g = oh.make_graph([const("a", np.float32([1, 2])), const("b", np.int64(7))], "t", [],
                           [vi("a", F, [2]), vi("b", I64, [])])
    else_g = oh.make_graph([const("a2", np.float32([3, 4])), oh.make_node("Identity", ["k"], ["b2"])], "e", [],
                           [vi("a2", F, [2]), vi("b2", I64, [])])
    node = oh.make_node("If", ["c"], ["o1", "o2"], then_branch=then_g, else_branch=else_g)
    m = model([node], [vi("c", B, [1]), vi("k", I64, [])], [vi("o1", F, [2]), vi("o2", I64, [])])
    for c in (True, False):
        check(m, {"c": np.array([c]), "k": np.array(5, np.int64)})


def test_if_nested_reads_grandparent():
    """An If inside an If's branch reads a tensor of the main graph."""
    inner_t = oh.make_graph([oh.make_node("Neg", ["x"], ["n"])], "it", [], [vi("n", F, [3])])
    inner_e = oh.make_graph([oh.make_node("Abs", ["x"], ["a"])], "ie", [], [vi("a", F, [3])])
    outer_t = oh.make_graph([oh.make_node("If", ["c2"], ["io"], then_branch=inner_t, else_branch=inner_e)],
                            "ot", [], [vi("io", F, [3])])
    outer_e = oh.make_graph([oh.make_node("Identity", ["x"], ["xe"])], "oe", [], [vi("xe", F, [3])])
    node = oh.make_node("If", ["c1"], ["out"], then_branch=outer_t, else_branch=outer_e)
    m = model([node], [vi("c1", B, []), vi("c2", B, []), vi("x", F, [3])], [vi("out", F, [3])])
    x = np.float32([-1, 2, -3])
    for c1 in (True, False):
        for c2 in (True, False):
            check(m, {"c1": np.array(c1), "c2": np.array(c2), "x": x})


def graph_attr(node, name):
    return next(a.g for a in node.attribute if a.name == name)


def test_if_branches_must_agree():
    m = if_model(11, [2, 3], [2, 3])
    graph_attr(m.graph.node[0], "else_branch").node[0].op_type = "MatMul"  # x @ y: shape error in else
    with pytest.raises(popart.popart_exception, match="in sub-graph 'else_branch'.*MatMul"):
        run_popart(m, {})
    # A branch whose output has another shape: PopART needs static shapes.
    else_g = oh.make_graph([oh.make_node("ReduceSum", ["x"], ["e"], keepdims=0)], "else", [], [vi("e", F, [])])
    m = if_model(11, [2, 3], [2, 3])
    graph_attr(m.graph.node[0], "else_branch").CopyFrom(else_g)
    with pytest.raises(popart.popart_exception, match="same type and shape"):
        run_popart(m, {})


def test_if_cond_must_be_bool():
    m = if_model(11, [2, 3], [2, 3])
    m.graph.input[0].type.tensor_type.elem_type = F
    with pytest.raises(popart.popart_exception, match="cond must be one BOOL"):
        run_popart(m, {})


# ---- Loop ----

def loop_body(scan=True, extra_nodes=(), extra_out=()):
    """(i, cond, s) -> (cond && i < 6, s + w * i, [s])   (w from the outer scope)."""
    nodes = [oh.make_node("Cast", ["i"], ["fi"], to=F), oh.make_node("Mul", ["w", "fi"], ["wi"]),
             oh.make_node("Add", ["s", "wi"], ["s2"]), const("six", np.int64(6)),
             oh.make_node("Less", ["i", "six"], ["lt"]), oh.make_node("And", ["cin", "lt"], ["cout"])]
    outs = [vi("cout", B, []), vi("s2", F, [2])]
    if scan:
        nodes.append(oh.make_node("Identity", ["s"], ["sc"]))
        outs.append(vi("sc", F, [2]))
    return oh.make_graph(nodes + list(extra_nodes), "body", [vi("i", I64, []), vi("cin", B, []), vi("s", F, [2])],
                         outs + list(extra_out))


@pytest.mark.parametrize("opset", [11, 13, 16, 19, 21])
def test_loop_constant_trip_count(opset):
    node = oh.make_node("Loop", ["M", "c", "s0"], ["s", "scan"], body=loop_body())
    m = model([node], [vi("c", B, []), vi("s0", F, [2]), vi("w", F, [2])], [vi("s", F, [2]), vi("scan", F, [5, 2])],
              opset, inits=[onnx.numpy_helper.from_array(np.int64(5), "M")])
    feeds = {"c": np.array(True), "s0": np.float32([1, -1]), "w": np.float32([0.5, 2])}
    s, scan = check(m, feeds)
    np.testing.assert_allclose(s, [1 + 0.5 * 10, -1 + 2 * 10])
    assert scan.shape == (5, 2)


def test_loop_early_exit_zero_fills_scan_rows():
    node = oh.make_node("Loop", ["M", "", "s0"], ["s", "scan"], body=loop_body())
    m = model([node], [vi("s0", F, [2]), vi("w", F, [2])], [vi("s", F, [2]), vi("scan", F, [10, 2])],
              inits=[onnx.numpy_helper.from_array(np.int64(10), "M")])
    # The body's cond stops the loop after i = 6 (7 iterations), with or
    # without a cond input (as in onnxruntime and onnx's reference): ORT gives
    # 7 scan rows, PopART the static 10 with zeros after the exit.
    feeds = {"s0": np.float32([0, 0]), "w": np.float32([1, 1])}
    for with_cond in (False, True):
        if with_cond:
            node = oh.make_node("Loop", ["M", "c", "s0"], ["s", "scan"], body=loop_body())
            m = model([node], [vi("c", B, []), vi("s0", F, [2]), vi("w", F, [2])],
                      [vi("s", F, [2]), vi("scan", F, [None, 2])], inits=[onnx.numpy_helper.from_array(np.int64(10), "M")])
            feeds["c"] = np.array(True)
        (s, scan), (ws, wscan) = run_popart(m, feeds), run_ort(m, feeds)
        np.testing.assert_allclose(s, ws)
        np.testing.assert_allclose(s, [21, 21])
        assert scan.shape == (10, 2) and wscan.shape == (7, 2)
        np.testing.assert_allclose(scan[:7], wscan)
        assert not scan[7:].any()


def test_loop_runtime_trip_count_and_while():
    body = loop_body(scan=False)
    for ins in (["M", "c", "s0"], ["M", "", "s0"], ["", "c", "s0"]):
        node = oh.make_node("Loop", ins, ["s"], body=body)
        inputs = [vi("w", F, [2]), vi("s0", F, [2])] + ([vi("M", I64, [])] if ins[0] else []) + \
                 ([vi("c", B, [])] if ins[1] else [])
        m = model([node], inputs, [vi("s", F, [2])])
        for trips in (0, 3, 20):
            feeds = {"w": np.float32([1, 2]), "s0": np.float32([3, 4])}
            if ins[0]:
                feeds["M"] = np.array(trips, np.int64)
            if ins[1]:
                feeds["c"] = np.array(trips != 3)
            check(m, feeds)


def test_loop_swapped_carried_values_and_omitted_outputs():
    body = oh.make_graph([oh.make_node("Identity", ["cin"], ["cout"]), oh.make_node("Identity", ["b"], ["b2"]),
                          oh.make_node("Add", ["a", "b"], ["ab"])], "body",
                         [vi("i", I64, []), vi("cin", B, []), vi("a", F, [3]), vi("b", F, [3])],
                         [vi("cout", B, []), vi("b2", F, [3]), vi("ab", F, [3])])
    node = oh.make_node("Loop", ["M", "", "a0", "b0"], ["", "bn"], body=body)  # fibonacci, first output omitted
    m = model([node], [vi("a0", F, [3]), vi("b0", F, [3])], [vi("bn", F, [3])],
              inits=[onnx.numpy_helper.from_array(np.int64(6), "M")])
    a, b = np.float32([0, 1, 2]), np.float32([1, 1, 3])
    (got,) = run_popart(m, {"a0": a, "b0": b})  # onnxruntime crashes on the omitted output
    for _ in range(6):
        a, b = b, a + b
    np.testing.assert_array_equal(got, b)
    assert got[0] == 13


def test_loop_folds_when_constant():
    """All inputs constant (w is a Constant of the main graph, copied into the
    body as a constant): the Loop is evaluated at import time."""
    node = oh.make_node("Loop", ["M", "", "s0"], ["s", "scan"], body=loop_body())
    nodes = [const("M", np.int64(4)), const("s0", np.float32([1, 1])), const("w", np.float32([2, 3])), node,
             oh.make_node("Relu", ["s"], ["o"]), oh.make_node("Relu", ["scan"], ["o2"])]
    m = model(nodes, [], [vi("o", F, [2]), vi("o2", F, [4, 2])])
    check(m, {})
    df = popart.DataFlow(1, {"o": popart.AnchorReturnType("All")})
    s = popart.InferenceSession(m.SerializeToString(), df, popart.DeviceManager().createCpuDevice())
    assert json.loads(s.getSerializedGraph())["maingraph"] == []


def test_loop_errors():
    node = oh.make_node("Loop", ["M", "c", "s0"], ["s", "scan"], body=loop_body())
    m = model([node], [vi("M", I64, []), vi("c", B, []), vi("s0", F, [2]), vi("w", F, [2])],
              [vi("s", F, [2]), vi("scan", F, [5, 2])])
    with pytest.raises(popart.popart_exception, match="Loop.*scan outputs.*must be a constant known at compile time"):
        run_popart(m, {})
    node = oh.make_node("Loop", ["", "c", "s0"], ["s", "scan"], body=loop_body())
    m = model([node], [vi("c", B, []), vi("s0", F, [2]), vi("w", F, [2])], [vi("s", F, [2]), vi("scan", F, [5, 2])])
    with pytest.raises(popart.popart_exception, match="no trip count M"):
        run_popart(m, {})
    node = oh.make_node("Loop", ["", "", "s0"], ["s"], body=loop_body(scan=False))
    m = model([node], [vi("s0", F, [2]), vi("w", F, [2])], [vi("s", F, [2])])
    with pytest.raises(popart.popart_exception, match="never end"):
        run_popart(m, {})
    # A loop-carried value whose shape changes in the body.
    body = loop_body(scan=False)
    body.node.append(oh.make_node("Concat", ["s2", "s2"], ["s3"], axis=0))
    body.output[1].CopyFrom(vi("s3", F, [4]))
    node = oh.make_node("Loop", ["M", "", "s0"], ["s"], body=body)
    m = model([node], [vi("s0", F, [2]), vi("w", F, [2])], [vi("s", F, [2])],
              inits=[onnx.numpy_helper.from_array(np.int64(3), "M")])
    with pytest.raises(popart.popart_exception, match="loop-carried value 0.*static"):
        run_popart(m, {})


def test_loop_reads_unknown_tensor():
    body = loop_body(scan=False)
    body.node[1].input[0] = "nowhere"
    node = oh.make_node("Loop", ["M", "", "s0"], ["s"], body=body)
    m = model([node], [vi("s0", F, [2])], [vi("s", F, [2])], inits=[onnx.numpy_helper.from_array(np.int64(3), "M")])
    with pytest.raises(popart.popart_exception, match="nowhere"):
        run_popart(m, {})


def test_loop_with_nested_if_and_scan_of_outer_values():
    """Loop body: If(i even) adds x else subtracts y (x, y two scopes up); the
    loop's scan output feeds a Scan whose body multiplies by z (outer scope)."""
    t = oh.make_graph([oh.make_node("Add", ["acc", "x"], ["ta"])], "t", [], [vi("ta", F, [2])])
    e = oh.make_graph([oh.make_node("Sub", ["acc", "y"], ["ea"])], "e", [], [vi("ea", F, [2])])
    body = oh.make_graph([
        const("two", np.int64(2)), const("zero", np.int64(0)), oh.make_node("Mod", ["i", "two"], ["r"]),
        oh.make_node("Equal", ["r", "zero"], ["even"]),
        oh.make_node("If", ["even"], ["acc2"], then_branch=t, else_branch=e),
        oh.make_node("Identity", ["cin"], ["cout"]), oh.make_node("Identity", ["acc2"], ["rec"])],
        "body", [vi("i", I64, []), vi("cin", B, []), vi("acc", F, [2])],
        [vi("cout", B, []), vi("acc2", F, [2]), vi("rec", F, [2])])
    loop = oh.make_node("Loop", ["M", "", "a0"], ["af", "hist"], body=body)
    sbody = oh.make_graph([oh.make_node("Mul", ["h", "z"], ["hz"]), oh.make_node("Add", ["st", "hz"], ["st2"]),
                           oh.make_node("Identity", ["hz"], ["o"])], "sbody",
                          [vi("st", F, [2]), vi("h", F, [2])], [vi("st2", F, [2]), vi("o", F, [2])])
    scan = oh.make_node("Scan", ["a0", "hist"], ["sf", "ys"], body=sbody, num_scan_inputs=1)
    m = model([loop, scan], [vi(n, F, [2]) for n in ("a0", "x", "y", "z")],
              [vi("af", F, [2]), vi("hist", F, [5, 2]), vi("sf", F, [2]), vi("ys", F, [5, 2])],
              inits=[onnx.numpy_helper.from_array(np.int64(5), "M")])
    feeds = {n: rng.standard_normal(2).astype(np.float32) for n in ("a0", "x", "y", "z")}
    check(m, feeds)


# ---- Scan ----

def scan_model(opset, attrs, x_shape, out_shape, nstate=1, **kw):
    """Running sum over scan slices, the body also emits the sum times the outer `k`."""
    sl = [d for i, d in enumerate(x_shape) if i != kw.get("in_axis", 0)] if opset >= 9 else list(x_shape[2:])
    st = sl
    body = oh.make_graph([oh.make_node("Add", ["s", "xt"], ["s2"]), oh.make_node("Mul", ["s2", "k"], ["y"])],
                         "body", [vi("s", F, st), vi("xt", F, sl)], [vi("s2", F, st), vi("y", F, sl)])
    ins = ([""] if opset == 8 else []) + ["s0", "x"]
    node = oh.make_node("Scan", ins, ["sf", "ys"], body=body, num_scan_inputs=1, **attrs)
    s0_shape = ([x_shape[0]] if opset == 8 else []) + st
    return model([node], [vi("s0", F, s0_shape), vi("x", F, list(x_shape)), vi("k", F, [])],
                 [vi("sf", F, s0_shape), vi("ys", F, out_shape)], opset)


SCAN_AXES = [(0, 0, 0, 0), (1, 1, 0, 0), (2, 0, 1, 1), (1, 0, 2, 1), (-1, 1, -1, 0)]


@pytest.mark.parametrize("opset,in_axis,in_dir,out_axis,out_dir", [  # negative axes exist from Scan-11
    (opset, *axes) for opset in (9, 11, 16, 19, 21) for axes in SCAN_AXES if opset > 9 or min(axes) >= 0])
def test_scan_axes_and_directions(opset, in_axis, in_dir, out_axis, out_dir):
    x_shape = (3, 4, 5)
    attrs = {"scan_input_axes": [in_axis], "scan_input_directions": [in_dir],
             "scan_output_axes": [out_axis], "scan_output_directions": [out_dir]}
    m = scan_model(opset, attrs, x_shape, None, in_axis=in_axis % 3)
    feeds = {"s0": rng.standard_normal([d for i, d in enumerate(x_shape) if i != in_axis % 3]).astype(np.float32),
             "x": rng.standard_normal(x_shape).astype(np.float32), "k": np.array(0.5, np.float32)}
    check(m, feeds)


@pytest.mark.parametrize("directions", [[0], [1]])
def test_scan8_batch(directions):
    m = scan_model(8, {"directions": directions}, (2, 4, 3), [2, 4, 3])
    feeds = {"s0": rng.standard_normal((2, 3)).astype(np.float32),
             "x": rng.standard_normal((2, 4, 3)).astype(np.float32), "k": np.array(2, np.float32)}
    check(m, feeds)


def test_scan_several_states_and_inputs():
    body = oh.make_graph([oh.make_node("Add", ["a", "u"], ["a2"]), oh.make_node("Mul", ["b", "v"], ["b2"]),
                          oh.make_node("Sub", ["a2", "b2"], ["d"]), oh.make_node("Identity", ["a2"], ["a3"])], "body",
                         [vi("a", F, [2]), vi("b", F, [2]), vi("u", F, [2]), vi("v", F, [2])],
                         [vi("a2", F, [2]), vi("b2", F, [2]), vi("d", F, [2]), vi("a3", F, [2])])
    def scan(outs):
        node = oh.make_node("Scan", ["a0", "b0", "u", "v"], outs, body=body, num_scan_inputs=2,
                            scan_input_axes=[0, 1], scan_input_directions=[0, 1])
        shapes = {"af": [2], "bf": [2], "ds": [3, 2], "as": [3, 2]}
        return model([node], [vi("a0", F, [2]), vi("b0", F, [2]), vi("u", F, [3, 2]), vi("v", F, [2, 3])],
                     [vi(o, F, shapes[o]) for o in outs if o])
    feeds = {"a0": np.float32([1, 2]), "b0": np.float32([1, -1]),
             "u": rng.standard_normal((3, 2)).astype(np.float32), "v": rng.standard_normal((2, 3)).astype(np.float32)}
    want = check(scan(["af", "bf", "ds", "as"]), feeds)
    got = run_popart(scan(["af", "", "ds", "as"]), feeds)  # onnxruntime rejects the omitted output
    for g, w in zip(got, want[:1] + want[2:]):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_scan_errors():
    m = scan_model(11, {"scan_input_directions": [2]}, (3, 2), [3, 2])
    with pytest.raises(popart.popart_exception, match="direction 2"):
        run_popart(m, {})
    m = scan_model(11, {"scan_output_axes": [0, 1]}, (3, 2), [3, 2])
    with pytest.raises(popart.popart_exception, match="scan_output_axes.*2 values, expected 1"):
        run_popart(m, {})
    m = scan_model(11, {"scan_input_axes": [3]}, (3, 2), [3, 2])
    with pytest.raises(popart.popart_exception, match="scan_input_axes value 3 out of range"):
        run_popart(m, {})
    m = scan_model(9, {"scan_output_axes": [-1]}, (3, 2), [3, 2])
    with pytest.raises(popart.popart_exception, match="Scan-11"):
        run_popart(m, {})
    m = scan_model(11, {}, (3, 2), [3, 2])
    m.graph.node[0].attribute[1].i = 3  # num_scan_inputs
    with pytest.raises(popart.popart_exception, match="num_scan_inputs 3"):
        run_popart(m, {})


# ---- Builder helpers and Call ----

def test_builder_logical_if_reads_parent():
    b = popart.Builder()
    cond = b.addInputTensor("BOOL", [])
    x = b.addInputTensor("FLOAT", [3])
    then_b = b.createSubgraphBuilder()
    then_b.addOutputTensor(then_b.aiOnnx.relu([x]))
    else_b = b.createSubgraphBuilder()
    else_b.addOutputTensor(else_b.aiOnnx.neg([x]))
    out = b.aiOnnx.logical_if([cond], 1, else_b, then_b)[0]
    b.addOutputTensor(out)
    xv = np.float32([-1, 0, 2])
    for c in (True, False):
        (got,) = run_popart(b.getModelProto(), {cond: np.array(c), x: xv})
        np.testing.assert_array_equal(got, np.maximum(xv, 0) if c else -xv)


def test_builder_loop():
    b = popart.Builder()
    x0 = b.addInputTensor("FLOAT", [2])
    step = b.addInputTensor("FLOAT", [2])
    trips = b.aiOnnx.constant(np.int64(4))
    cond0 = b.aiOnnx.constant(np.bool_(True))
    body = b.createSubgraphBuilder()
    body.addInputTensor("INT64", [], "iter")
    c = body.addInputTensor("BOOL", [], "cond")
    xi = body.addInputTensor("FLOAT", [2], "x")
    body.addOutputTensor(body.aiOnnx.identity([c]))
    body.addOutputTensor(body.aiOnnx.add([xi, step]))  # `step` from the parent
    out = b.aiOnnx.loop([trips, cond0, x0], 1, body)[0]
    b.addOutputTensor(out)
    (got,) = run_popart(b.getModelProto(), {x0: np.float32([1, 2]), step: np.float32([0.5, -1])})
    np.testing.assert_allclose(got, [3, -2])


def test_builder_scan():
    b = popart.Builder()
    s0 = b.addInputTensor("FLOAT", [2])
    xs = b.addInputTensor("FLOAT", [3, 2])
    body = b.createSubgraphBuilder()
    s = body.addInputTensor("FLOAT", [2])
    xt = body.addInputTensor("FLOAT", [2])
    acc = body.aiOnnx.add([s, xt])
    body.addOutputTensor(acc)
    body.addOutputTensor(body.aiOnnx.identity([acc]))
    final, seq = b.aiOnnx.scan([s0, xs], 2, body, 1, scan_input_directions=[1])
    b.addOutputTensor(final)
    b.addOutputTensor(seq)
    xv = np.arange(6, dtype=np.float32).reshape(3, 2)
    got_final, got_seq = run_popart(b.getModelProto(), {s0: np.zeros(2, np.float32), xs: xv})
    np.testing.assert_array_equal(got_seq, np.cumsum(xv[::-1], axis=0))
    np.testing.assert_array_equal(got_final, xv.sum(0))


def test_builder_call_twice_and_nested():
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2, 2])
    w = b.addInitializedInputTensor(np.float32([[1, 2], [3, 4]]))
    sub = b.createSubgraphBuilder()
    sub.setGraphName("mm_relu")
    si = sub.addInputTensor("FLOAT", [2, 2])
    sub.addOutputTensor(sub.aiOnnx.relu([sub.aiOnnx.matmul([si, w])]))  # w read from the parent
    y = b.aiGraphcore.call([x], 1, sub)[0]
    z = b.aiGraphcore.call([y], 1, sub)[0]
    outer = b.createSubgraphBuilder()
    oi = outer.addInputTensor("FLOAT", [2, 2])
    outer.addOutputTensor(outer.aiGraphcore.call([oi], 1, sub)[0])
    outer.addOutputTensor(outer.aiOnnx.neg([oi]))
    u, v = b.aiGraphcore.call([z], 2, outer)
    for t in (y, z, u, v):
        b.addOutputTensor(t)
    xv = np.float32([[1, -1], [0.5, 2]])
    wv = np.float32([[1, 2], [3, 4]])
    f = lambda a: np.maximum(a @ wv, 0)
    got = run_popart(b.getModelProto(), {x: xv})
    for g, want in zip(got, (f(xv), f(f(xv)), f(f(f(xv))), -f(f(xv)))):
        np.testing.assert_allclose(g, want, rtol=1e-6)


def test_call_input_mismatch():
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [3])
    sub = b.createSubgraphBuilder()
    si = sub.addInputTensor("FLOAT", [2])
    sub.addOutputTensor(sub.aiOnnx.relu([si]))
    b.addOutputTensor(b.aiGraphcore.call([x], 1, sub)[0])
    with pytest.raises(popart.popart_exception, match="Call.*declared with shape \\[2\\] but the op passes FLOAT \\[3\\]"):
        run_popart(b.getModelProto(), {x: np.zeros(3, np.float32)})


def test_outer_constants_stay_constant_and_weights_flow_in():
    """The body reshapes with a main-graph int64 initializer (a compile-time
    shape, copied into the body as a constant), multiplies by a main-graph float
    initializer (a weight, passed in as an implicit input) and adds its own
    float initializer."""
    body = oh.make_graph(
        [oh.make_node("Reshape", ["s", "shape"], ["r"]), oh.make_node("MatMul", ["r", "W"], ["rw"]),
         oh.make_node("Add", ["rw", "bias"], ["rb"]), oh.make_node("Reshape", ["rb", "flat"], ["s2"]),
         oh.make_node("Identity", ["cin"], ["cout"])],
        "body", [vi("i", I64, []), vi("cin", B, []), vi("s", F, [4])], [vi("cout", B, []), vi("s2", F, [4])],
        initializer=[onnx.numpy_helper.from_array(np.float32([0.5, -0.5]), "bias")])
    node = oh.make_node("Loop", ["M", "", "s0"], ["s"], body=body)
    inits = [onnx.numpy_helper.from_array(v, n) for n, v in
             (("M", np.int64(3)), ("shape", np.int64([2, 2])), ("flat", np.int64([4])),
              ("W", np.float32([[0.5, 1], [-1, 0.25]])))]
    m = model([node], [vi("s0", F, [4])], [vi("s", F, [4])], inits=inits)
    check(m, {"s0": np.float32([1, 2, 3, 4])})
