"""popxl.transforms.decompose_sum: wide Sums become chains of Adds with the same results."""
import numpy as np
import pytest

import popxl
import popxl.ops as ops
from popxl.ops._core import _op
from popxl.transforms import autodiff, decompose_sum


def op_types(g):
    return [op.opType() for op in g._pb_graph.getOps()]


@pytest.mark.parametrize("n", [3, 5])
@pytest.mark.parametrize("dt", [np.float32, np.float16, np.float64])
def test_sum_becomes_adds_with_same_result(n, dt):
    data = [(np.arange(6).reshape(2, 3) * (i + 1)).astype(dt) for i in range(n)]
    ir = popxl.Ir()
    with ir.main_graph as main:
        ts = [popxl.variable(d) for d in data]
        y = _op("Sum", ts)[0]
        d2h = popxl.d2h_stream(y.shape, y.dtype, name="y")
        ops.host_store(d2h, y)
        two = _op("Sum", ts[:2])[0]  # two inputs: left alone
    assert op_types(main).count("Sum") == 2
    decompose_sum(main)
    assert op_types(main).count("Sum") == 1 and op_types(main).count("Add") == n - 1
    assert two.shape == (2, 3)
    with popxl.Session(ir, "cpu") as s:
        out = s.run()[d2h]
    assert out.dtype == dt
    np.testing.assert_array_equal(out, sum(d.astype(np.float64) for d in data).astype(dt))


def test_gradient_sums_of_autodiff_are_decomposed():
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.variable(np.array([1.0, 2.0], np.float32), name="x")
        g = ir.create_graph(lambda t: t * 2 + t * 3 + ops.exp(t), x)
        info = ops.call_with_info(g, x)
        bwd = autodiff(g)
        wide = [op for op in bwd.graph._pb_graph.getOps() if op.opType() == "Sum" and len(op.getInputIds()) > 2]
        assert wide, "autodiff should sum three gradient contributions"
        decompose_sum(bwd.graph)
        assert not [op for op in bwd.graph._pb_graph.getOps() if op.opType() == "Sum" and len(op.getInputIds()) > 2]
        seed = popxl.constant(np.ones(2, np.float32))
        (gx,) = ops.call(bwd.graph, seed, inputs_dict=bwd.inputs_dict(info))
        d2h = popxl.d2h_stream(gx.shape, gx.dtype, name="gx")
        ops.host_store(d2h, gx)
    with popxl.Session(ir, "cpu") as s:
        got = s.run()[d2h]
    np.testing.assert_allclose(got, 5 + np.exp([1.0, 2.0]), rtol=1e-6)


def test_decompose_sum_errors():
    with pytest.raises(TypeError, match="popxl.Graph"):
        decompose_sum("main")
