"""popxl.ops.collectives: group conversion, argument checks, single-replica results and a two-replica
all-reduce of a variable."""
import numpy as np
import pytest

import popart
import popxl
import popxl.ops as ops
from popxl.ops import collectives as C


def run_one_replica(fn, x_np):
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.variable(x_np, name="x")
        y = fn(x)
        d2h = popxl.d2h_stream(y.shape, y.dtype, name="y")
        ops.host_store(d2h, y)
    with popxl.Session(ir, "cpu") as s:
        return s.run()[d2h]


@pytest.mark.parametrize("dt", [np.float32, np.float16, np.int32])
def test_single_replica_results(dt):
    x = np.arange(6).reshape(2, 3).astype(dt)
    np.testing.assert_array_equal(run_one_replica(C.replicated_all_reduce, x), x)
    for op in ["mean", "max", "min", "mul"]:
        got = run_one_replica(lambda t: C.replicated_all_reduce(t, op=op), x)
        assert got.dtype == dt
        np.testing.assert_array_equal(got, x)
    np.testing.assert_array_equal(run_one_replica(C.replicated_all_gather, x), x[None])
    np.testing.assert_array_equal(run_one_replica(C.replicated_reduce_scatter, x), x.reshape(-1))
    np.testing.assert_array_equal(run_one_replica(lambda t: C.replicated_slice(t, axis=1), x), x)


def test_all_reduce_across_ipus_and_identical_inputs():
    a, b = np.array([1.0, 5.0], np.float32), np.array([3.0, 2.0], np.float32)
    ir = popxl.Ir()
    with ir.main_graph:
        ta, tb = popxl.variable(a), popxl.variable(b)
        outs = {op: C.all_reduce([ta, tb], ipus=[0, 1], op=op) for op in ["add", "mean", "max", "min", "mul"]}
        ident = C.all_reduce_identical_inputs([ta, tb])
        streams = {}
        for op, (o0, o1) in outs.items():
            streams[op] = popxl.d2h_stream(o0.shape, o0.dtype, name=op)
            ops.host_store(streams[op], o1)
        sid = popxl.d2h_stream(ident[1].shape, ident[1].dtype, name="ident")
        ops.host_store(sid, ident[1])
    with popxl.Session(ir, "cpu") as s:
        out = s.run()
    ref = {"add": a + b, "mean": (a + b) / 2, "max": np.maximum(a, b), "min": np.minimum(a, b), "mul": a * b}
    for op, r in ref.items():
        np.testing.assert_allclose(out[streams[op]], r)
    np.testing.assert_array_equal(out[sid], b)
    with popxl.Ir().main_graph:
        with pytest.raises(ValueError, match="no tensors"):
            C.all_reduce([])


def test_groupings_map_to_comm_groups():
    ir = popxl.Ir(replication=8)
    with ir.main_graph:
        cases = [(None, [0, 8]), (ir.replica_grouping(1, 2), [1, 2]), (ir.replica_grouping(4, 2), [2, 2]),
                 (ir.replica_grouping(1, 1), [3, 1]), (ir.replica_grouping(1, 8), [0, 8])]
        for grouping, want in cases:
            assert C._comm_group(grouping, "t") == want
        with pytest.raises(ValueError, match="has no collective group"):
            C._comm_group(ir.replica_grouping(2, 2), "t")
        with pytest.raises(ValueError, match="op 'sum' is not one of"):
            C.replicated_all_reduce(popxl.variable(np.ones(2, np.float32)), op="sum")
    cg = C.CommGroup(popart.CommGroupType.Orthogonal, 2)
    assert cg.toReplicaGrouping(8).assignment == ir.replica_grouping(4, 2).assignment
    assert C.CommGroup(popart.CommGroupType.Consecutive, 4).toReplicaGrouping(8).assignment == [0] * 4 + [1] * 4


def test_two_replicas_all_reduce_a_variable():
    ir = popxl.Ir(replication=2)
    with ir.main_graph:
        v = popxl.variable(np.array([1.0, 2.0], np.float32), name="v")
        ops.var_updates.copy_var_update_(v, C.replicated_all_reduce(v))
    with popxl.Session(ir, "ipu_model") as s:
        s.run()
        np.testing.assert_array_equal(s.get_tensor_data(v), [2.0, 4.0])
        s.run()
        np.testing.assert_array_equal(s.get_tensor_data(v), [4.0, 8.0])
