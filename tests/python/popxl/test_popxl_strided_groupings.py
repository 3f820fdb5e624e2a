"""Collectives over general replica groupings (any stride and group size that divide the replicas, not
only the CommGroup forms): every replica's result against numpy over the members of its group."""
import numpy as np
import pytest

import popart
import popxl
import popxl.ops as ops
from popxl.ops import collectives as C
from popxl.ops._core import _GC, _op

R = 8


def members_of(stride, size):
    """Replica -> its group's replicas in group order: blocks of stride * size replicas, each holding
    `stride` groups r0, r0 + stride, ..."""
    out = {}
    for r in range(R):
        start = (r // (stride * size)) * stride * size + r % stride
        out[r] = [start + k * stride for k in range(size)]
    return out


def run(build, x):
    """x: [R, ...] per-replica data, loaded by each replica; returns [R, ...] of build(loaded)."""
    ir = popxl.Ir(replication=R)
    with ir.main_graph:
        h2d = popxl.h2d_stream(x.shape[1:], popxl.dtypes.dtype.as_dtype(x.dtype), name="x")
        y = build(ops.host_load(h2d, "x"))
        d2h = popxl.d2h_stream(y.shape, y.dtype, name="y")
        ops.host_store(d2h, y)
    with popxl.Session(ir, "ipu_model") as s:
        return s.run({h2d: x})[d2h]


@pytest.mark.parametrize("stride,size", [(2, 2), (4, 2), (1, 2), (2, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_collectives_over_strided_groupings(stride, size, dtype):
    rng = np.random.default_rng(stride * 10 + size)
    x = rng.integers(-4, 5, (R, 2, 3)).astype(dtype)
    group = members_of(stride, size)

    def grouping(t):
        return t.ir.replica_grouping(stride=stride, group_size=size)

    for op, ref in [("add", np.sum), ("max", np.max), ("mean", np.mean)]:
        got = run(lambda t: C.replicated_all_reduce(t, op=op, group=grouping(t)), x)
        assert got.dtype == dtype
        want = np.stack([ref(x[group[r]].astype(np.float64), axis=0) for r in range(R)])
        np.testing.assert_allclose(got.astype(np.float64), want.astype(dtype).astype(np.float64), rtol=1e-3)
    gathered = run(lambda t: C.replicated_all_gather(t, group=grouping(t)), x)
    assert gathered.dtype == dtype and gathered.shape == (R, size, 2, 3)
    for r in range(R):
        np.testing.assert_array_equal(gathered[r], x[group[r]])
    scattered = run(lambda t: C.replicated_reduce_scatter(t, group=grouping(t)), x)
    sliced = run(lambda t: C.replica_sharded_slice(t, group=grouping(t)), x)
    n = -(-6 // size)
    for r in range(R):
        k = group[r].index(r)
        total = np.zeros(n * size, np.float64)
        total[:6] = x[group[r]].astype(np.float64).sum(axis=0).reshape(-1)
        np.testing.assert_array_equal(scattered[r].astype(np.float64), total[k * n:(k + 1) * n])
        own = np.zeros(n * size, dtype)
        own[:6] = x[r].reshape(-1)
        np.testing.assert_array_equal(sliced[r], own[k * n:(k + 1) * n])


def test_gather_then_slice_round_trips_a_strided_grouping():
    x = np.arange(R * 4, dtype=np.float32).reshape(R, 4)

    def build(t):
        rg = t.ir.replica_grouping(stride=2, group_size=2)
        return C.replica_sharded_slice(C.replicated_all_gather(t, rg) + 1, rg)

    got = run(build, x)
    group = members_of(2, 2)
    for r in range(R):
        full = np.concatenate([x[m] for m in group[r]]) + 1
        k = group[r].index(r)
        np.testing.assert_array_equal(got[r], full[k * 4:(k + 1) * 4])


def test_groupings_without_a_comm_group_use_the_stride_attribute():
    ir = popxl.Ir(replication=R)
    with ir.main_graph:
        t = popxl.variable(np.ones(4, np.float32))
        assert C._group_attrs(ir.replica_grouping(stride=2, group_size=2), "t") == \
            {"__collectiveReplicaGrouping": [2, 2]}
        assert C._group_attrs(ir.replica_grouping(stride=4, group_size=2), "t") == \
            {"__collectiveCommGroup": [int(popart.CommGroupType.Orthogonal), 2]}
        assert C.replicated_all_gather(t, ir.replica_grouping(stride=2, group_size=2)).shape == (2, 4)


def test_bad_groupings_name_the_grouping():
    ir = popxl.Ir(replication=R)
    with pytest.raises(ValueError, match="stride 3 x group_size 2 does not divide the replication factor 8"):
        ir.replica_grouping(stride=3, group_size=2)
    other = popxl.Ir(replication=4).replica_grouping(stride=2, group_size=2)
    uneven = ir.replica_grouping_from_assignments([0, 1, 1, 0, 0, 1, 1, 0])
    with ir.main_graph:
        t = popxl.variable(np.ones(4, np.float32), name="t")
        with pytest.raises(ValueError, match=r"replicated_all_gather: the grouping .*stride=2.* is for 4 "
                                             "replicas, the Ir has 8"):
            C.replicated_all_gather(t, other)
        with pytest.raises(ValueError, match="replicated_all_reduce: the grouping .* has no constant stride"):
            C.replicated_all_reduce(t, group=uneven)
        with pytest.raises(popart.popart_exception,
                           match=r"replica grouping \(stride 3, group size 2\) does not divide the replication "
                                 "factor 8"):
            _op("ReplicatedAllGather", [t], {"__collectiveReplicaGrouping": [3, 2]}, domain=_GC)
        with pytest.raises(popart.popart_exception, match="__collectiveReplicaGrouping must be .stride, group size"):
            _op("ReplicatedAllGather", [t], {"__collectiveReplicaGrouping": [0, 2]}, domain=_GC)


@pytest.mark.parametrize("kind", ["gather", "reduce"])
def test_gradients_over_a_strided_grouping(kind):
    """d/dx of all_gather over groups (stride 2, size 2) is the group's sum of its gradient slices; of an
    add all-reduce, the group's sum of the gradients."""
    import popxl.transforms as transforms
    rng = np.random.default_rng(3)
    x = rng.integers(-4, 5, (R, 3)).astype(np.float32)
    dy = rng.integers(-4, 5, (R, 2, 3) if kind == "gather" else (R, 3)).astype(np.float32)
    ir = popxl.Ir(replication=R)
    rg = ir.replica_grouping(stride=2, group_size=2)
    with ir.main_graph:
        hx = popxl.h2d_stream((3,), popxl.float32, name="x")
        hdy = popxl.h2d_stream(dy.shape[1:], popxl.float32, name="dy")
        fn = (lambda t: C.replicated_all_gather(t, rg)) if kind == "gather" else \
            (lambda t: C.replicated_all_reduce(t, group=rg))
        g = ir.create_graph(fn, popxl.TensorSpec((3,), popxl.float32))
        info = transforms.autodiff(g)
        fwd = ops.call_with_info(g, ops.host_load(hx, "x"))
        gx = ops.call(info.graph, ops.host_load(hdy, "dy"), inputs_dict=info.inputs_dict(fwd))[0]
        d2h = popxl.d2h_stream(gx.shape, gx.dtype, name="gx")
        ops.host_store(d2h, gx)
    with popxl.Session(ir, "ipu_model") as s:
        got = s.run({hx: x, hdy: dy})[d2h]
    group = members_of(2, 2)
    for r in range(R):
        k = group[r].index(r)
        want = sum(dy[m][k] if kind == "gather" else dy[m] for m in group[r])
        np.testing.assert_array_equal(got[r], want)
