"""popart.ir: popxl under its earlier name and call forms, run through popart sessions created from the IR."""
import numpy as np
import pytest

import popart
import popart.ir as pir
import popart.ir.ops as ops


def build_addition():
    """x + y over two [2] float32 host streams, stored to a third."""
    ir = pir.Ir()
    with ir.main_graph():
        x_in = pir.h2d_stream([2], pir.float32, name="x_in")
        y_in = pir.h2d_stream([2], pir.float32, name="y_in")
        total = ops.add(ops.host_load(x_in, "x"), ops.host_load(y_in, "y"))
        total_out = pir.d2h_stream(total.shape, total.dtype, name="total_out")
        ops.host_store(total_out, total)
    return ir, x_in, y_in, total_out


def test_call_forms():
    ir, x_in, _, total_out = build_addition()
    assert ir.main_graph() is ir.main_graph and isinstance(ir.main_graph, pir.Graph)
    assert x_in.tensor_id() == "x_in" and total_out.tensor_id == "total_out"
    assert pir.dtypes.half is pir.float16 and pir.dtypes.double is pir.float64 and pir.float is pir.float32
    assert pir.subgraph_input is not None and pir.SubgraphOpInfo.__name__ == "CallSiteInfo"


def test_runs_through_inference_session_from_ir():
    ir, x_in, y_in, total_out = build_addition()
    pb = ir._pb_ir
    pb.setDataFlow(popart.DataFlow(1, {total_out.tensor_id(): popart.AnchorReturnType("All")}))
    opts = pb.getSessionOptions()
    opts.useHostCopyOps = True
    opts.enableExplicitMainLoops = True
    pb.updateVertices()
    pb.logIr()
    session = popart.InferenceSession.fromIr(ir=pb, deviceInfo=popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    x, y = np.array([1.5, -2.0], np.float32), np.array([2.25, 0.5], np.float32)
    anchors = {total_out.tensor_id(): np.zeros(2, np.float32)}
    session.run(popart.PyStepIO({x_in.tensor_id(): x, y_in.tensor_id(): y}, anchors))
    np.testing.assert_array_equal(anchors[total_out.tensor_id()], x + y)


def test_tensor_kinds_and_subgraphs_with_popxl_session():
    import popxl
    ir = pir.Ir()
    with ir.main_graph():
        a = pir.variable(3, dtype=pir.int8, name="variable_a")
        b = pir.constant(1, dtype=pir.int8, name="constant_b")

        def inc(x):
            y = pir.subgraph_input(x.shape, x.dtype, "y")
            return x + y

        g = ir.create_graph(inc, a)
        info = ops.call_with_info(g, a, b)
        assert isinstance(info, pir.SubgraphOpInfo)
        o = info.outputs[0] + 1
        o_d2h = pir.d2h_stream(o.shape, o.dtype, name="out")
        ops.host_store(o_d2h, o)
    with popxl.Session(ir, "cpu") as s:
        out = s.run()[o_d2h]
    assert out.dtype == np.int8 and out == 5


def test_bad_call_form_errors_are_clear():
    ir = pir.Ir()
    with pytest.raises(RuntimeError, match="no current graph"):
        ops.add(1, 2)


def guide_text():
    """The text of popart-ir-user-guide.txt in the spec folder beside the checkout, or None."""
    import os
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[3]
    env = os.environ.get("POPXL_GUIDE_FILES")
    candidates = [pathlib.Path(env).parents[1]] if env else []
    candidates += [p / "shared" / "spec" for p in [root.parent, *root.parents]]
    for c in candidates:
        if (c / "popart-ir-user-guide.txt").is_file():
            return (c / "popart-ir-user-guide.txt").read_text()
    return None


def snippet(text, first_line, end_line):
    """The guide's code from the line `first_line` up to (not including) the line `end_line`."""
    start = text.index(first_line + "\n")
    return text[start:text.index("\n" + end_line + "\n", start)]


def test_guide_snippets_run_unchanged():
    """The popart.ir guide's code (11.2, 11.4, 11.4.1), cut from the spec's text as it stands: the simple
    addition runs through InferenceSession.fromIr; the tensor kinds, with `o = a + 1` in place of
    `o = a + b`, give 3 + 1 in int8."""
    import popxl
    text = guide_text()
    if text is None:
        pytest.skip("popart-ir-user-guide.txt is not beside this checkout (set POPXL_GUIDE_FILES)")
    simple = snippet(text, "import popart.ir as pir\nimport popart.ir.ops as ops", "files/simple_addition_popart_ir.py")
    tensors = snippet(text, "with main:\n    a = pir.variable(3, dtype=pir.int8, name=\"variable_a\")",
                      "files/tensor_addition_popart_ir.py")
    literal = snippet(text, "o = a + 1", "11.4.2. Variable")
    ns = {}
    exec(compile(simple, "simple_addition_popart_ir", "exec"), ns)
    pb = ns["ir"]._pb_ir
    out = ns["o_d2h"].tensor_id()
    pb.setDataFlow(popart.DataFlow(1, {out: popart.AnchorReturnType("All")}))
    session = popart.InferenceSession.fromIr(ir=pb, deviceInfo=popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    anchors = {out: np.zeros(1, np.float32)}
    session.run(popart.PyStepIO({ns["input0"].tensor_id(): np.array([1.5], np.float32),
                                 ns["input1"].tensor_id(): np.array([-4.0], np.float32)}, anchors))
    np.testing.assert_array_equal(anchors[out], [-2.5])

    ns = {}
    setup = "import popart.ir as pir\nir = pir.Ir()\nmain = ir.main_graph()\n"  # as in the simple example
    exec(compile(setup + tensors, "tensor_addition", "exec"), ns)
    assert (ns["a"].dtype, ns["b"].dtype, ns["o"].dtype) == (pir.int8,) * 3
    with ns["main"]:
        exec(compile(literal, "literal", "exec"), ns)
        o_d2h = pir.d2h_stream(ns["o"].shape, ns["o"].dtype, name="o")
        ops.host_store(o_d2h, ns["o"])
    with popxl.Session(ns["ir"], "cpu") as s:
        got = s.run()[o_d2h]
    assert got.dtype == np.int8 and got == 4
