"""popxl builds IR graphs through popart._internal.ir: tensors, dtypes, ops, sub-graphs and calls,
checked on the bound IR (op types, shapes, dtypes, connections) and for clear errors on bad input."""
import numpy as np
import pytest

import popart
import popxl
import popxl.ops as ops
from popart._internal import ir as _ir


def test_internal_ir_module_exposes_ir_classes():
    pb = _ir.Ir()
    g = pb.getMainGraph()
    assert isinstance(g, _ir.Graph) and g.isMainGraph()
    g.addConstInit("c", _ir.TensorInfo(_ir.DataType.FLOAT, [2]), np.ones(2, np.float32))
    t = g.getTensor("c")
    assert isinstance(t, _ir.Tensor) and t.tensorType() == _ir.TensorType.Const
    op = g.createConnectedOp("ai.onnx", "Relu", 0, {0: "c"}, {0: "r"})
    assert isinstance(op, _ir.Op) and op.opType() == "Relu"
    assert g.getTensor("r").info().shape() == [2]
    assert [o.opType() for o in g.getOpSchedule()] == ["Relu"]


def test_unknown_op_is_a_clear_error():
    pb = _ir.Ir()
    with pytest.raises(popart.popart_exception, match="NoSuchOp"):
        pb.getMainGraph().createConnectedOp("ai.onnx", "NoSuchOp", 0, {}, {0: "x"})


@pytest.mark.parametrize("dt", [popxl.float16, popxl.float32, popxl.float64, popxl.int8, popxl.int32,
                                popxl.int64, popxl.uint8, popxl.bool])
def test_constant_variable_dtypes(dt):
    ir = popxl.Ir()
    with ir.main_graph:
        data = np.arange(6).reshape(2, 3).astype(dt.as_numpy())
        c = popxl.constant(data, name="c")
        v = popxl.variable(data, dtype=dt, name="v")
    assert c.dtype is dt and v.dtype is dt and c.shape == (2, 3)
    assert isinstance(c, popxl.Constant) and isinstance(v, popxl.Variable)
    assert ir.main_graph.variables == (v,) and ir.main_graph.constants == (c,)
    stored = np.frombuffer(v._pb_tensor.dataBytes(), dtype=dt.as_numpy()).reshape(2, 3)
    np.testing.assert_array_equal(stored, data)


def test_dtype_mapping_and_python_defaults():
    assert popxl.dtype.as_dtype(np.float16) is popxl.float16
    assert popxl.float32.as_numpy() == np.float32 and popxl.float32.is_floating_point
    assert popxl.int8.is_int and popxl.int8.is_signed and not popxl.uint8.is_signed
    ir = popxl.Ir()
    with ir.main_graph:
        assert popxl.constant(1.5).dtype is popxl.float32
        assert popxl.constant(3).dtype is popxl.int32
    with pytest.raises(ValueError, match="not a type"):
        popxl.dtype.as_dtype("nonsense")


@pytest.mark.parametrize("dt", [popxl.float16, popxl.float32])
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((4, 1), (3,)), ((2, 3, 4), (4, 5))])
def test_operator_shapes_and_types(dt, shapes):
    ir = popxl.Ir()
    a_s, b_s = shapes
    with ir.main_graph:
        a = popxl.variable(np.ones(a_s, dt.as_numpy()), name="a")
        b = popxl.variable(np.ones(b_s, dt.as_numpy()), name="b")
        if len(a_s) == 3:
            y = a @ b
            want = np.matmul(np.ones(a_s), np.ones(b_s)).shape
            assert y._pb_tensor.getProducer().opType() == "MatMul"
        else:
            y = (a + b) * b - a / b
            want = np.broadcast_shapes(a_s, b_s)
        assert y.shape == want and y.dtype is dt
        n = -y
        assert n._pb_tensor.getProducer().opType() == "Neg"
        assert y.T.shape == tuple(reversed(want))
        assert y.reshape((-1,)).shape == (int(np.prod(want)),)


def test_python_scalar_operand_takes_tensor_dtype():
    ir = popxl.Ir()
    with ir.main_graph:
        a = popxl.variable(np.ones(3, np.float16))
        y = a + 1
    assert y.dtype is popxl.float16


def test_tensor_from_other_graph_is_refused_naming_it():
    ir = popxl.Ir()
    with ir.main_graph:
        a = popxl.variable(np.ones(2, np.float32), name="outer_a")
    g = ir.create_empty_graph("sub")
    with g:
        x = popxl.graph_input((2,), popxl.float32, "x")
        with pytest.raises(ValueError, match="outer_a.*main"):
            ops.add(x, a)


def test_variable_in_subgraph_is_refused():
    ir = popxl.Ir()
    g = ir.create_empty_graph("sub")
    with g:
        with pytest.raises(ValueError, match="sub"):
            popxl.variable(np.ones(2, np.float32), name="w")


def test_no_current_graph_is_an_error():
    with pytest.raises(RuntimeError, match="no current graph"):
        popxl.gcg()


def test_create_graph_and_call():
    ir = popxl.Ir()

    def increment(x: popxl.Tensor):
        return x + np.ones(x.shape, x.dtype.as_numpy())

    with ir.main_graph:
        s = popxl.h2d_stream([2, 2], popxl.float32, name="in_stream")
        x = ops.host_load(s, "x")
        assert x._pb_tensor.getProducer().opType() == "HostLoad"
        g = ir.create_graph(increment, x)
        assert len(g.inputs) == 1 and g.inputs[0].shape == (2, 2) and len(g.outputs) == 1
        (o1,) = ops.call(g, x)
        (o2,) = ops.call(g, o1)
        assert popxl.gcg() == ir.main_graph
        out = popxl.d2h_stream(o2.shape, o2.dtype, name="out_stream")
        ops.host_store(out, o2)
    sched = [op.opType() for op in ir.main_graph._pb_graph.getOpSchedule()]
    assert sched.count("Call") == 2 and sched[-1] == "HostStore"
    assert o2.shape == (2, 2) and o2.dtype is popxl.float32


def test_call_input_errors_name_graph_and_tensor():
    ir = popxl.Ir()
    with ir.main_graph:
        g = ir.create_graph(lambda a, b: a + b, popxl.TensorSpec((2,), popxl.float32),
                            popxl.TensorSpec((2,), popxl.float32))
        x = popxl.variable(np.ones(2, np.float32), name="x")
        bad = popxl.variable(np.ones(3, np.float32), name="bad")
        with pytest.raises(ValueError, match="2 inputs"):
            ops.call(g, x)
        with pytest.raises(ValueError, match="'bad'"):
            ops.call(g, x, bad)
        xh = popxl.variable(np.ones(2, np.float16), name="xh")
        with pytest.raises(ValueError, match="float16"):
            ops.call(g, x, xh)


def test_module_graph_and_inputs_dict():
    class Linear(popxl.Module):
        def build(self, x, n):
            self.W = popxl.graph_input((x.shape[-1], n), popxl.float32, "W")
            return x @ self.W

    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.variable(np.ones((2, 3), np.float32))
        W = popxl.variable(np.ones((3, 4), np.float32))
        lin = Linear()
        g = ir.create_graph(lin, x, n=4)
        info = ops.call_with_info(g, x, inputs_dict={lin.W: W})
    assert info.outputs[0].shape == (2, 4)
    assert info.graph_to_parent(lin.W) == W
    assert info.called_graph == g


def test_in_sequence_adds_order_and_name_scope():
    ir = popxl.Ir()
    with ir.main_graph:
        a = popxl.variable(np.ones(2, np.float32))
        with popxl.in_sequence():
            b = ops.relu(a)
            c = ops.negate(a)
        with popxl.name_scope("blk"):
            d = popxl.constant(np.ones(2, np.float32), name="k")
    assert d.id.startswith("blk/k")
    cons = ir.main_graph._pb_graph.getTopoCons()
    by_id = {op.id: op.opType() for op in ir.main_graph._pb_graph.getOps()}
    assert [(by_id[a], by_id[b]) for a, b in cons] == [("Relu", "Neg")]
    sched = [op.opType() for op in ir.main_graph._pb_graph.getOpSchedule()]
    assert sched.index("Relu") < sched.index("Neg")
    assert b.shape == c.shape == (2,)


def test_host_store_shape_mismatch_names_both():
    ir = popxl.Ir()
    with ir.main_graph:
        a = popxl.variable(np.ones(2, np.float32), name="a")
        s = popxl.d2h_stream((3,), popxl.float32, name="outs")
        with pytest.raises(ValueError, match="'a'.*'outs'"):
            ops.host_store(s, a)


@pytest.mark.parametrize("dt", [popxl.float16, popxl.float32])
def test_unary_reduce_softmax_shapes(dt):
    ir = popxl.Ir()
    with ir.main_graph:
        a = popxl.variable(np.ones((2, 3, 4), dt.as_numpy()))
        for f, want in [(ops.exp, "Exp"), (ops.log, "Log"), (ops.sqrt, "Sqrt"), (ops.tanh, "Tanh"),
                        (ops.sigmoid, "Sigmoid"), (ops.abs, "Abs")]:
            y = f(a)
            assert y.shape == a.shape and y.dtype is dt and y._pb_tensor.getProducer().opType() == want
        assert ops.sum(a).shape == ()
        assert ops.mean(a, axis=1).shape == (2, 4)
        assert ops.max(a, axis=(0, 2), keepdims=True).shape == (1, 3, 1)
        s = ops.softmax(a, axis=-1)
        assert s.shape == a.shape and s._pb_tensor.getProducer().opType() == "Softmax"
        e = ops.equal(a, a)
        assert e.dtype is popxl.bool and ops.maximum(a, 0.5).dtype is dt
