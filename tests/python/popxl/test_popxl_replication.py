"""PopXL replication (guide 11.5, 13): replicas that load and store host streams while exchanging data
through collectives, each reading its own slice [num_host_transfers, replication_factor, ...] of the host
data; variables with replica groupings and retrieval modes; collectives over groupings. All against numpy."""
import numpy as np
import pytest

import popxl
import popxl.ops as ops
from popxl.ops import collectives as C


def run_streams(R, T, x, build, dtype=np.float32):
    """Runs T x (load the host stream, build(loaded) -> store it) with replication R and T host transfers."""
    ir = popxl.Ir(replication=R)
    ir.num_host_transfers = T
    shape = x.shape[(1 if T > 1 else 0) + (1 if R > 1 else 0):]
    with ir.main_graph:
        h2d = popxl.h2d_stream(shape, popxl.dtypes.dtype.as_dtype(dtype), name="x")
        d2h = None
        for _ in range(T):
            y = build(ops.host_load(h2d, "x"))
            d2h = d2h or popxl.d2h_stream(y.shape, y.dtype, name="y")
            ops.host_store(d2h, y)
    with popxl.Session(ir, "ipu_model") as s:
        return s.run({h2d: x})[d2h]


def as_rtd(a, R, T):
    """[T, R, ...] view of the host data whatever dimensions the run dropped."""
    return a.reshape((T, R) + a.shape[(1 if T > 1 else 0) + (1 if R > 1 else 0):])


@pytest.mark.parametrize("R,T", [(2, 1), (2, 3), (4, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_all_reduce_between_replicas_that_do_host_io(R, T, dtype):
    rng = np.random.default_rng(R * 10 + T)
    full = rng.standard_normal((T, R, 3, 2)).astype(dtype)
    x = full.reshape(((T,) if T > 1 else ()) + (R, 3, 2))
    got = as_rtd(run_streams(R, T, x, lambda t: C.replicated_all_reduce(t) * 2, dtype), R, T)
    assert got.dtype == dtype
    want = np.broadcast_to(full.astype(np.float32).sum(axis=1, keepdims=True) * 2, full.shape)
    tol = 1e-2 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("R", [2, 4])
def test_each_replica_gets_its_own_slice(R):
    T = 3
    full = np.arange(T * R * 4, dtype=np.float32).reshape(T, R, 4)
    got = run_streams(R, T, full, lambda t: t + 1)
    np.testing.assert_array_equal(got, full + 1)


@pytest.mark.parametrize("grouping,members", [((1, 2), [[0, 1], [2, 3]]), ((2, 2), [[0, 2], [1, 3]]),
                                              ((1, 1), [[0], [1], [2], [3]]), ((1, 4), [[0, 1, 2, 3]])])
def test_grouped_collectives_with_host_io(grouping, members):
    R, T = 4, 2
    stride, size = grouping
    rng = np.random.default_rng(size * 7 + stride)
    full = rng.integers(-5, 5, (T, R, 2, 3)).astype(np.float32)
    group_of = {r: m for m in members for r in m}

    def reduce_ref(op):
        out = np.empty_like(full)
        for r in range(R):
            out[:, r] = op(full[:, group_of[r]], axis=1)
        return out

    def build(kind):
        def f(t):
            ir = t.ir
            rg = ir.replica_grouping(stride=stride, group_size=size)
            if kind == "add":
                return C.replicated_all_reduce(t, group=rg)
            if kind == "max":
                return C.replicated_all_reduce(t, op="max", group=rg)
            if kind == "inplace":
                return C.replicated_all_reduce_(t + 0, group=rg)
            if kind == "gather":
                return C.replicated_all_gather(t, group=rg)
            return C.replicated_reduce_scatter(t, group=rg)
        return f

    np.testing.assert_array_equal(run_streams(R, T, full, build("add")), reduce_ref(np.sum))
    np.testing.assert_array_equal(run_streams(R, T, full, build("max")), reduce_ref(np.max))
    np.testing.assert_array_equal(run_streams(R, T, full, build("inplace")), reduce_ref(np.sum))
    gathered = run_streams(R, T, full, build("gather"))
    for r in range(R):
        np.testing.assert_array_equal(gathered[:, r], full[:, group_of[r]])
    scattered = run_streams(R, T, full, build("scatter"))
    summed = reduce_ref(np.sum).reshape(T, R, -1)
    for r in range(R):
        k = group_of[r].index(r)
        n = -(-6 // size)
        part = np.zeros((T, n * size), np.float32)
        part[:, :6] = summed[:, r]
        np.testing.assert_array_equal(scattered[:, r].reshape(T, -1), part[:, k * n:(k + 1) * n])


# ---- variables with replica groupings (guide 13.4) ----

def grouped_program(R, grouping_args, mode, data):
    """v (grouped) += the replica's host data each run; returns (ir, v, h2d)."""
    ir = popxl.Ir(replication=R)
    with ir.main_graph:
        rg = ir.replica_grouping(**grouping_args)
        v = popxl.variable(data, popxl.float32, name="v", replica_grouping=rg, retrieval_mode=mode)
        h2d = popxl.h2d_stream(v.shape, popxl.float32, name="x")
        ops.var_updates.accumulate_(v, ops.host_load(h2d))
    return ir, v, h2d


@pytest.mark.parametrize("grouping_args,assignment", [({"group_size": 2}, [0, 0, 1, 1]),
                                                      ({"stride": 2}, [0, 1, 0, 1]),
                                                      ({"group_size": 1}, [0, 1, 2, 3]),
                                                      ({}, [0, 0, 0, 0])])
@pytest.mark.parametrize("mode", ["one_per_group", "all_replicas"])
def test_grouped_variable_per_replica_values(grouping_args, assignment, mode):
    R = 4
    G = max(assignment) + 1
    init = (np.arange(G * 3, dtype=np.float32).reshape(G, 3) + 1) * 10
    ir, v, h2d = grouped_program(R, grouping_args, mode, init if G > 1 else init[0])
    assert v.shape == (3,) and v.replica_grouping.assignment == assignment
    assert v.shape_on_host == ((G, 3) if G > 1 else (3,))
    x = np.arange(R * 3, dtype=np.float32).reshape(R, 3)
    per_replica = init[assignment] + x
    first = [assignment.index(g) for g in range(G)]
    with popxl.Session(ir, "ipu_model") as s:
        s.run({h2d: x})
        got = s.get_tensor_data(v)
        if mode == "all_replicas":
            np.testing.assert_array_equal(got, per_replica)
        else:
            want = per_replica[first]
            np.testing.assert_array_equal(got, want if G > 1 else want[0])
        # write one value per group: every replica starts again from its group's value
        new = -init if G > 1 else -init[0]
        s.write_variable_data(v, new)
        s.run({h2d: x})
        again = (-init)[assignment] + x
        got = s.get_tensor_data(v)
        if mode == "all_replicas":
            np.testing.assert_array_equal(got, again)
        else:
            np.testing.assert_array_equal(got, again[first] if G > 1 else again[first][0])
    # after the session: the host copy stays readable
    assert s.get_tensor_data(v).shape == got.shape


def test_weights_to_and_from_host_per_group():
    R = 2
    init = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    ir, v, h2d = grouped_program(R, {"group_size": 1}, None, init)
    x = np.array([[10.0, 10.0], [20.0, 20.0]], np.float32)
    with popxl.Session(ir, "ipu_model") as s:
        s.run({h2d: x})
        s.weights_to_host()
        np.testing.assert_array_equal(s.get_tensor_data(v), init + x)
        s.weights_from_host()  # back to the same per-group values
        s.run({h2d: x})
        np.testing.assert_array_equal(s.get_tensor_data(v), init + 2 * x)


def test_guide_replication_groupings_shapes():
    ir = popxl.Ir(replication=8)
    with ir.main_graph:
        for args, groups in [({"group_size": 1}, 8), ({"group_size": 2}, 4), ({"stride": 4}, 4), ({}, 1)]:
            rg = ir.replica_grouping(**args)
            assert rg.num_groups == groups
            data = np.zeros(((groups,) if groups > 1 else ()) + (3, 3), np.float32)
            v = popxl.variable(data, replica_grouping=rg, retrieval_mode="all_replicas")
            assert v.shape == (3, 3)
    assert ir.replica_grouping(stride=4).assignment == [0, 1, 2, 3, 0, 1, 2, 3]


def test_grouping_errors_name_the_problem():
    ir = popxl.Ir(replication=4)
    with pytest.raises(ValueError, match="group_size 3 does not divide the replication factor 4"):
        ir.replica_grouping(group_size=3)
    with pytest.raises(ValueError, match="stride 3 does not divide the replication factor 4"):
        ir.replica_grouping(stride=3)
    other = popxl.Ir(replication=2).replica_grouping(group_size=1)
    with ir.main_graph:
        rg = ir.replica_grouping(group_size=2)
        with pytest.raises(ValueError, match=r"variable 'w'.*2 groups.*shape \(2, \.\.\.\)"):
            popxl.variable(np.zeros((3, 4), np.float32), name="w", replica_grouping=rg)
        with pytest.raises(ValueError, match="variable 'u'.*for 2 replicas.*replication_factor is 4"):
            popxl.variable(np.zeros((2, 4), np.float32), name="u", replica_grouping=other)
        with pytest.raises(TypeError, match="variable 'z'.*popxl.ReplicaGrouping"):
            popxl.variable(np.zeros(4, np.float32), name="z", replica_grouping=2)
        v = popxl.variable(np.zeros((2, 4), np.float32), name="v", replica_grouping=rg)
        ops.var_updates.accumulate_(v, popxl.constant(np.ones(4, np.float32)))
    with popxl.Session(ir, "ipu_model") as s:
        with pytest.raises(ValueError, match=r"data for 'v' has shape \(4,\), the variable needs \(2, 4\)"):
            s.write_variable_data(v, np.zeros(4, np.float32))


def test_stream_data_shape_uses_the_replication_factor():
    ir = popxl.Ir(replication=2)
    with ir.main_graph:
        h2d = popxl.h2d_stream((3,), popxl.float32, name="x")
        d2h = popxl.d2h_stream((3,), popxl.float32, name="y")
        ops.host_store(d2h, ops.host_load(h2d))
    with popxl.Session(ir, "ipu_model") as s:
        with pytest.raises(ValueError, match=r"shape \(3,\), expected \(2, 3\)"):
            s.run({h2d: np.zeros(3, np.float32)})
        out = s.run({h2d: np.array([[1, 2, 3], [4, 5, 6]], np.float32)})
    np.testing.assert_array_equal(out[d2h], [[1, 2, 3], [4, 5, 6]])


def test_host_io_inside_a_repeated_graph_with_collectives():
    """host_load / host_store in the body of a repeat: each replica's cursor moves through its own slots."""
    R, T = 2, 3
    ir = popxl.Ir(replication=R)
    ir.num_host_transfers = T
    with ir.main_graph:
        h2d = popxl.h2d_stream((2,), popxl.float32, name="x")
        d2h = popxl.d2h_stream((2,), popxl.float32, name="y")

        def body():
            x = ops.host_load(h2d, "x")
            ops.host_store(d2h, C.replicated_all_reduce(x, op="max") - x)

        ops.repeat(ir.create_graph(body), T)
    full = np.random.default_rng(5).standard_normal((T, R, 2)).astype(np.float32)
    with popxl.Session(ir, "ipu_model") as s:
        got = s.run({h2d: full})[d2h]
    np.testing.assert_array_equal(got, full.max(axis=1, keepdims=True) - full)


@pytest.mark.parametrize("dtype", [np.float16, np.int32])
def test_grouped_variables_keep_their_dtype(dtype):
    R = 2
    ir = popxl.Ir(replication=R)
    init = np.array([[1, 2], [3, 4]], dtype)
    with ir.main_graph:
        v = popxl.variable(init, name="v", replica_grouping=ir.replica_grouping(group_size=1))
        w = popxl.variable(init, name="w", replica_grouping=ir.replica_grouping(group_size=1),
                           retrieval_mode="all_replicas")
        one = popxl.constant(np.ones(2, dtype))
        v += one
        w += C.replicated_all_reduce(one)
    with popxl.Session(ir, "ipu_model") as s:
        s.run()
        got_v, got_w = s.get_tensor_data(v), s.get_tensor_data(w)
    assert v.dtype == popxl.dtypes.dtype.as_dtype(dtype) and v.shape == (2,)
    assert got_v.dtype == dtype and got_w.dtype == dtype
    np.testing.assert_array_equal(got_v, init + 1)
    np.testing.assert_array_equal(got_w, init + 2)
