"""popxl.transforms.merge_exchange / io_tile_exchange: grouping and ordering of exchanges, overlap check."""
import numpy as np
import pytest

import popxl
import popxl.ops as ops
from popxl.transforms import io_tile_exchange, merge_exchange


def _build(ctx):
    ir = popxl.Ir()
    with ir.main_graph:
        a_h2d = popxl.h2d_stream((2,), popxl.float32, name="a")
        b_h2d = popxl.h2d_stream((2,), popxl.float32, name="b")
        o_d2h = popxl.d2h_stream((2,), popxl.float32, name="o")
        v = popxl.variable(np.ones(2, np.float32), name="v")
        with ctx():
            a = ops.host_load(a_h2d, "a_in")
            ops.host_store(o_d2h, v)
            b = ops.host_load(b_h2d, "b_in")
        ops.var_updates.copy_var_update_(v, a + b)
    return ir, a_h2d, b_h2d, o_d2h, v


def _order(ir):
    return [op.opType() for op in ir.main_graph._pb_graph.getOpSchedule()
            if op.opType() in ("HostLoad", "HostStore")]


@pytest.mark.parametrize("ctx", [merge_exchange, io_tile_exchange])
def test_exchanges_run_in_creation_order_and_compute_the_same(ctx):
    ir, a_h2d, b_h2d, o_d2h, v = _build(ctx)
    assert _order(ir) == ["HostLoad", "HostStore", "HostLoad"]
    loads = [op for op in ir.main_graph._pb_graph.getOps() if op.opType() == "HostLoad"]
    with popxl.Session(ir, "cpu") as s:
        out1 = s.run({a_h2d: np.array([1, 2], np.float32), b_h2d: np.array([3, 4], np.float32)})[o_d2h]
        out2 = s.run({a_h2d: np.array([0, 0], np.float32), b_h2d: np.array([1, 1], np.float32)})[o_d2h]
    np.testing.assert_array_equal(out1, [1, 1])
    np.testing.assert_array_equal(out2, [4, 6])
    assert len(loads) == 2


def test_merge_exchange_adds_order_constraints():
    without_ir = _build(lambda: popxl.in_sequence(False))[0]
    with_ir = _build(merge_exchange)[0]
    n_without = len(without_ir.main_graph._pb_graph.getTopoCons())
    n_with = len(with_ir.main_graph._pb_graph.getTopoCons())
    assert n_with == n_without + 2  # load -> store -> load


def test_io_tile_exchange_places_ops_on_io_tiles_and_checks_overlap():
    ir = popxl.Ir()
    with ir.main_graph:
        a_h2d = popxl.h2d_stream((2,), popxl.float32, name="a")
        with io_tile_exchange():
            a = ops.host_load(a_h2d, "a_in")
        assert a.tile_set == "io"
        with pytest.raises(ValueError, match="cannot overlap compute"):
            with io_tile_exchange():
                b = ops.host_load(a_h2d, "b_in")
                ops.relu(b)
        with io_tile_exchange(verify_overlap=False):
            c = ops.host_load(a_h2d, "c_in")
            ops.relu(c)
