"""popart.ir: popxl under its earlier name and call forms, run through popart sessions created from the IR."""
import numpy as np
import pytest

import popart
import popart.ir as pir
import popart.ir.ops as ops


def build_addition():
    ir = pir.Ir()
    main = ir.main_graph()
    with main:
        input0 = pir.h2d_stream([1], pir.float32, name="input0_stream")
        a = ops.host_load(input0, "a")
        input1 = pir.h2d_stream([1], pir.float32, name="input1_stream")
        b = ops.host_load(input1, "b")
        o = ops.add(a, b)
        o_d2h = pir.d2h_stream(o.shape, o.dtype, name="output_stream")
        ops.host_store(o_d2h, o)
    return ir, input0, input1, o_d2h


def test_call_forms():
    ir, input0, _, o_d2h = build_addition()
    assert ir.main_graph() is ir.main_graph and isinstance(ir.main_graph, pir.Graph)
    assert input0.tensor_id() == "input0_stream" and o_d2h.tensor_id == "output_stream"
    assert pir.dtypes.half is pir.float16 and pir.dtypes.double is pir.float64 and pir.float is pir.float32
    assert pir.subgraph_input is not None and pir.SubgraphOpInfo.__name__ == "CallSiteInfo"


def test_runs_through_inference_session_from_ir():
    ir, input0, input1, o_d2h = build_addition()
    pb = ir._pb_ir
    pb.setDataFlow(popart.DataFlow(1, {o_d2h.tensor_id(): popart.AnchorReturnType("All")}))
    opts = pb.getSessionOptions()
    opts.useHostCopyOps = True
    opts.enableExplicitMainLoops = True
    pb.updateVertices()
    pb.logIr()
    session = popart.InferenceSession.fromIr(ir=pb, deviceInfo=popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    a, b = np.array([1.5], np.float32), np.array([2.25], np.float32)
    anchors = {o_d2h.tensor_id(): np.zeros(1, np.float32)}
    session.run(popart.PyStepIO({input0.tensor_id(): a, input1.tensor_id(): b}, anchors))
    np.testing.assert_array_equal(anchors[o_d2h.tensor_id()], [3.75])


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
