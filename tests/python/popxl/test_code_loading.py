"""ops.remote_code_load (guide 8.7): accepted wherever PopXL allows it (main graph, sub-graphs, nested and
conditional loading), placed in the schedule by in_sequence, a no-op when run (code is always resident on
the CPU), and its arguments are checked."""
import numpy as np
import pytest

import popart
import popxl
import popxl.ops as ops


def code_loads(graph):
    return [op for op in graph._pb_graph.getOps() if op.opType() == "RemoteCodeLoad"]


def test_loads_before_calls_run_in_sequence_and_leave_results_alone():
    ir = popxl.Ir()
    with ir.main_graph:
        w = popxl.variable(np.array([1.0, 2.0], np.float32), name="w")

    def scale_add(x, y):
        return ops.add(ops.mul(x, y), y)
    g = ir.create_graph(scale_add, w.spec, w.spec)
    with ir.main_graph, popxl.in_sequence():
        ops.remote_code_load(g, destination="executable")
        a, = ops.call(g, w, w)
        ops.remote_code_load(g, destination="executable")
        b, = ops.call(g, a, w)
        out = popxl.d2h_stream(b.shape, b.dtype, name="b")
        ops.host_store(out, b)
    loads = code_loads(ir.main_graph)
    assert len(loads) == 2
    assert all(op.getAttribute("graph_id") == g.id and op.getAttribute("destination") == "executable"
               for op in loads)
    schedule = [op.opType() for op in ir.main_graph._pb_graph.getOpSchedule()]
    assert [t for t in schedule if t in ("RemoteCodeLoad", "Call")] == ["RemoteCodeLoad", "Call"] * 2
    with popxl.Session(ir, "cpu") as s:
        np.testing.assert_array_equal(s.run()[out], [(1 * 1 + 1) * 1 + 1, (2 * 2 + 2) * 2 + 2])


def test_nested_and_conditional_loads_run():
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.variable(np.array([3.0], np.float32), name="x")
        flag = popxl.variable(np.array(True), popxl.bool, name="flag")
    inner = ir.create_graph(lambda t: ops.mul(t, t), x.spec)
    loader = ir.create_graph(lambda: ops.remote_code_load(inner, "executable"))
    then_g = ir.create_graph(lambda t: (ops.remote_code_load(inner, "executable"), ops.call(inner, t)[0])[1], x.spec)
    else_g = ir.create_graph(lambda t: ops.negate(t), x.spec)
    with ir.main_graph, popxl.in_sequence():
        ops.remote_code_load(loader, "executable")
        ops.call(loader)
        y, = ops.call(inner, x)
        z, = ops.conditional(flag, then_g, else_g, then_inputs=[y], else_inputs=[y])
        out = popxl.d2h_stream(z.shape, z.dtype, name="z")
        ops.host_store(out, z)
    assert len(code_loads(loader)) == 1 and len(code_loads(then_g)) == 1
    with popxl.Session(ir, "cpu") as s:
        np.testing.assert_array_equal(s.run()[out], [81.0])


def test_argument_checks():
    ir = popxl.Ir()
    other = popxl.Ir()
    with ir.main_graph:
        x = popxl.variable(np.ones(2, np.float32), name="x")
    g = ir.create_graph(lambda t: ops.negate(t), x.spec)
    g_other = other.create_graph(lambda t: ops.negate(t), x.spec)
    with ir.main_graph:
        with pytest.raises(ValueError, match=r"destination 'compute' of graph '.*' is not one of \['executable'\]"):
            ops.remote_code_load(g, destination="compute")
        with pytest.raises(ValueError, match="destination None"):
            ops.remote_code_load(g, None)
        with pytest.raises(TypeError, match="expected a popxl.Graph to load, got Variable"):
            ops.remote_code_load(x, "executable")
        with pytest.raises(ValueError, match="belongs to another Ir"):
            ops.remote_code_load(g_other, "executable")
        with pytest.raises(ValueError, match="the main graph's code cannot be loaded"):
            ops.remote_code_load(ir.main_graph, "executable")
    assert code_loads(ir.main_graph) == []
    with pytest.raises(RuntimeError, match="no current graph"):
        ops.remote_code_load(g, "executable")


def test_ir_op_checks_its_attributes():
    """The IR op itself (created through the generic factory) checks what popxl checks."""
    ir = popxl.Ir()
    g = ir.create_graph(lambda: None)
    pb = ir.main_graph._pb_graph
    with pytest.raises(popart.popart_exception, match="code can only be loaded to 'executable'"):
        pb.createConnectedOp("ai.graphcore", "RemoteCodeLoad", 0, {}, {}, {"graph_id": g.id, "destination": "io"})
    with pytest.raises(popart.popart_exception, match="the Ir has no graph 'nope'"):
        pb.createConnectedOp("ai.graphcore", "RemoteCodeLoad", 0, {}, {},
                             {"graph_id": "nope", "destination": "executable"})


def test_frozen_ir_refuses_new_loads():
    ir = popxl.Ir()
    g = ir.create_graph(lambda: None)
    with ir.main_graph:
        popxl.variable(np.zeros(1, np.float32))
    session = popxl.Session(ir, "cpu")
    with ir.main_graph, pytest.raises(popart.popart_exception, match="remote_code_load in graph 'main'"):
        ops.remote_code_load(g, "executable")
    del session
