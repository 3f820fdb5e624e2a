"""Streaming memory in popxl: remote buffers, remote_load/remote_load_/remote_store with int and tensor
offsets, remote variables, replica-sharded variables (remote or not, with groupings and shard_over) and
Session reading and writing them; checked against numpy."""
import numpy as np
import pytest

import popart
import popxl
import popxl.ops as ops
from popxl.ops import collectives as C

DTYPES = [np.float32, np.float16, np.int32]


def test_remote_buffer_properties_and_bad_arguments():
    ir = popxl.Ir()
    with ir.main_graph:
        a = popxl.remote_buffer((2, 3), popxl.float16, 4)
        b = popxl.RemoteBuffer((5,), popxl.int32)
        assert (a.tensor_shape, a.tensor_dtype, a.entries, a.remote_buffer_id) == ((2, 3), popxl.float16, 4, 0)
        assert (b.tensor_shape, b.tensor_dtype, b.entries, b.remote_buffer_id, b.meta_shape) == ((5,), popxl.int32,
                                                                                                  1, 1, ())
        b.entries = 3
        assert b.entries == 3
        rts = popxl.replica_sharded_buffer((3, 3), popxl.float32)  # replication 1: one shard
        assert rts.tensor_shape == (9,) and rts.meta_shape == (3, 3)
        with pytest.raises(ValueError, match="entries must be a positive int"):
            popxl.remote_buffer((2,), popxl.float32, 0)
        with pytest.raises(ValueError, match="negative dimension"):
            popxl.remote_buffer((-1,), popxl.float32)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 4)])
def test_store_and_load_entries_with_int_and_tensor_offsets(dt, shape):
    vals = [np.arange(np.prod(shape, dtype=int)).reshape(shape).astype(dt) + 10 * k for k in range(3)]
    ir = popxl.Ir()
    with ir.main_graph, popxl.in_sequence():
        buf = popxl.remote_buffer(shape, popxl.dtype.as_dtype(dt), 3)
        for k, v in enumerate(vals):
            ops.remote_store(buf, k, popxl.variable(v, name=f"v{k}"))
        first = ops.remote_load(buf, 2)  # entries loaded in reverse
        middle = ops.remote_load(buf, popxl.variable(np.int32(1), name="i"))
        last = ops.remote_load(buf, popxl.constant(np.int64(0)))
        streams = []
        for t in (first, middle, last):
            streams.append(popxl.d2h_stream(t.shape, t.dtype))
            ops.host_store(streams[-1], t)
    with popxl.Session(ir, "cpu") as s:
        out = s.run()
    for stream, want in zip(streams, reversed(vals)):
        assert out[stream].dtype == dt
        np.testing.assert_array_equal(out[stream], want)


@pytest.mark.parametrize("dt", DTYPES)
def test_remote_variable_updates_across_runs_and_host_writes(dt):
    x = np.array([[1, 2], [3, 4]], dt)
    y = np.array([[5, 6], [7, 8]], dt)
    ir = popxl.Ir()
    with ir.main_graph, popxl.in_sequence():
        buf = popxl.remote_buffer(x.shape, popxl.dtype.as_dtype(dt), 2)
        other = popxl.remote_variable(np.zeros_like(x), buf, 0, name="other")
        rx = popxl.remote_variable(x, buf, 1, name="rx")
        loaded = ops.remote_load(buf, 1)
        ops.var_updates.accumulate_(loaded, popxl.constant(y))
        ops.remote_store(buf, 1, loaded)
    assert isinstance(rx, popxl.Variable) and rx.shape == x.shape and rx.dtype == popxl.dtype.as_dtype(dt)
    assert rx.location_info.storage == popxl.TensorStorage.OffChip
    s = popxl.Session(ir, "cpu")
    np.testing.assert_array_equal(s.get_tensor_data(rx), x)
    with s:
        for _ in range(3):
            s.run()
        got = s.get_tensor_data(rx)
        assert got.dtype == dt
        np.testing.assert_array_equal(got, x + 3 * y)
        s.write_variable_data(rx, x * 2)
        s.run()
        np.testing.assert_array_equal(s.get_tensor_data(rx), x * 2 + y)
        np.testing.assert_array_equal(s.get_tensor_data(other), np.zeros_like(x))
    np.testing.assert_array_equal(s.get_tensor_data(rx), x * 2 + y)
    with s:  # weights_from_host on entry: the host value goes back to the buffer
        s.run()
    np.testing.assert_array_equal(s.get_tensor_data(rx), x * 2 + 2 * y)


def test_remote_load_in_place_and_dynamic_offset():
    ir = popxl.Ir()
    with ir.main_graph, popxl.in_sequence():
        buf = popxl.remote_buffer((2,), popxl.float32, 3)
        vs = [popxl.remote_variable(np.full(2, k, np.float32), buf, k, name=f"r{k}") for k in range(3)]
        i = popxl.variable(np.int32(0), name="i")
        t = popxl.variable(np.zeros(2, np.float32), name="t")
        ops.remote_load_(buf, i, t)  # t := entry i
        ops.add_(t, popxl.constant(np.array([1.0, 2.0], np.float32)))
        ops.remote_store(buf, i, t)
        ops.var_updates.accumulate_(i, popxl.constant(np.int32(1)))
    with popxl.Session(ir, "cpu") as s:
        s.run()
        s.run()
        data = s.get_tensors_data(vs + [i, t])
    np.testing.assert_array_equal(data[vs[0]], [1, 2])
    np.testing.assert_array_equal(data[vs[1]], [2, 3])
    np.testing.assert_array_equal(data[vs[2]], [2, 2])
    assert data[i] == 2
    np.testing.assert_array_equal(data[t], [2, 3])


def test_bad_offsets_shapes_and_types_name_the_buffer_and_tensor():
    ir = popxl.Ir()
    with ir.main_graph:
        buf = popxl.remote_buffer((2,), popxl.float32, 2)
        with pytest.raises(ValueError, match="offset 2 is out of range for remote_buffer_0, which has 2 entries"):
            ops.remote_load(buf, 2)
        with pytest.raises(ValueError, match="offset -1 is out of range for remote_buffer_0"):
            ops.remote_store(buf, -1, popxl.variable(np.zeros(2, np.float32)))
        with pytest.raises(ValueError, match=r"tensor 'wide' is float32 \(3,\), but the slots of remote_buffer_0 "
                                             r"are float32 \(2,\)"):
            ops.remote_store(buf, 0, popxl.variable(np.zeros(3, np.float32), name="wide"))
        with pytest.raises(ValueError, match=r"tensor 'ints' is int32 \(2,\), but the slots of remote_buffer_0"):
            ops.remote_store(buf, 0, popxl.variable(np.zeros(2, np.int32), name="ints"))
        with pytest.raises(ValueError, match="tensor 'ints' is int32"):
            ops.remote_load_(buf, 0, ir.main_graph.get_tensor("ints"))
        with pytest.raises(ValueError, match="offset tensor 'f' into remote_buffer_0 must hold one int32"):
            ops.remote_load(buf, popxl.variable(np.float32(0), name="f"))
        with pytest.raises(TypeError, match="expected a popxl.RemoteBuffer"):
            ops.remote_load("buffer", 0)
        with pytest.raises(ValueError, match=r"'w': data float32 \(3,\) does not fit the slots of remote_buffer_0"):
            popxl.remote_variable(np.zeros(3, np.float32), buf, 0, name="w")
        with pytest.raises(ValueError, match="offset 5 is out of range for remote_buffer_0"):
            popxl.remote_variable(np.zeros(2, np.float32), buf, 5)
        with pytest.raises(ValueError, match=r"'i': data int32 \(2,\) does not fit the slots of remote_buffer_0 "
                                             r"\(float32 \(2,\)\)"):
            popxl.remote_variable(np.zeros(2, np.int32), buf, 0, name="i")
        popxl.remote_variable(np.zeros(2, np.float64), buf, 1, name="a")  # 64-bit data is downcast
        with pytest.raises(ValueError, match=r"'d': data float64 \(2,\) does not fit"):
            popxl.remote_variable(np.zeros(2, np.float64), buf, 0, name="d", downcast=False)
        with pytest.raises(ValueError, match="variables are kept in it .a.; its slots can grow"):
            buf.entries = 1
        buf.entries = 4
        assert buf.entries == 4
        with pytest.raises(ValueError, match="entry 1 of remote_buffer_0 already holds variable 'a'"):
            popxl.remote_variable(np.zeros(2, np.float32), buf, 1, name="b")
    with popxl.Ir().main_graph:
        with pytest.raises(ValueError, match="belongs to another Ir"):
            ops.remote_load(buf, 0)


def test_tensor_offset_out_of_range_fails_at_run_naming_the_buffer():
    ir = popxl.Ir()
    with ir.main_graph, popxl.in_sequence():
        buf = popxl.remote_buffer((2,), popxl.float32, 2)
        popxl.remote_variable(np.ones(2, np.float32), buf, 0)
        i = popxl.variable(np.int32(0), name="i")
        y = ops.remote_load(buf, i)
        d2h = popxl.d2h_stream(y.shape, y.dtype)
        ops.host_store(d2h, y)
    with popxl.Session(ir, "cpu") as s:
        np.testing.assert_array_equal(s.run()[d2h], [1, 1])
        s.write_variable_data(i, np.int32(1))  # never stored: zeros
        np.testing.assert_array_equal(s.run()[d2h], [0, 0])
        s.write_variable_data(i, np.int32(7))
        with pytest.raises(popart.popart_exception,
                           match=r"remote buffer 'remote_buffer_0'\): offset 7 is out of range for a buffer of 2"):
            s.run()


def rts_program(x, replicas, op_on_full, **kw):
    """x as a remote replica-sharded variable: load the shard, gather, op_on_full, slice the shard back,
    store."""
    ir = popxl.Ir(replication=replicas)
    with ir.main_graph, popxl.in_sequence():
        buf = popxl.replica_sharded_buffer(x.shape, popxl.dtype.as_dtype(x.dtype), **kw)
        v = popxl.remote_replica_sharded_variable(x, buf, 0, name="v", **kw)
        shard = ops.remote_load(buf, 0)
        full = C.replicated_all_gather(shard)
        new = op_on_full(full)
        ops.remote_store(buf, 0, C.replica_sharded_slice(new))
    return ir, v, shard, full


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape,replicas", [((2, 3), 2), ((5,), 2), ((3, 3), 4), ((7,), 1)])
def test_remote_replica_sharded_variable(dt, shape, replicas):
    x = (np.arange(np.prod(shape)).reshape(shape) + 1).astype(dt)
    ir, v, shard, full = rts_program(x, replicas, lambda f: ops.add(f, popxl.constant(np.ones(shape, dt))))
    n = -(-x.size // replicas)
    assert v.shape == shard.shape == (n,) and v.meta_shape == shard.meta_shape == shape
    assert v.shape_on_host == shape and v.shape_on_replica == (n,)
    assert full.shape == shape  # the gather puts the full tensor back, without padding
    assert v.location_info.replicated_tensor_sharding == popxl.ReplicatedTensorSharding.On
    with popxl.Session(ir, "ipu_model") as s:
        np.testing.assert_array_equal(s.get_tensor_data(v), x)
        s.run()
        s.run()
        got = s.get_tensor_data(v)
    assert got.dtype == dt and got.shape == shape
    np.testing.assert_array_equal(got, x + 2)


def test_each_replica_holds_only_its_shard():
    """The shards differ per replica: gathering them with an all-reduce of the shard's sum shows each
    replica's part; the remote slots hold a quarter of the elements each."""
    x = np.arange(8, dtype=np.float32)
    ir = popxl.Ir(replication=4)
    with ir.main_graph, popxl.in_sequence():
        buf = popxl.replica_sharded_buffer(x.shape, popxl.float32)
        v = popxl.remote_replica_sharded_variable(x, buf, 0)
        shard = ops.remote_load(buf, 0)
        # shard * (1, 2) and the replicas' sums: replica r holds x[2r:2r+2]
        ops.remote_store(buf, 0, ops.mul(shard, popxl.constant(np.array([1.0, 2.0], np.float32))))
    assert buf.tensor_shape == (2,)
    with popxl.Session(ir, "ipu_model") as s:
        s.run()
        np.testing.assert_array_equal(s.get_tensor_data(v), x * np.tile([1, 2], 4))
        for r in range(4):
            out = np.empty(2, np.float32)
            s._pb_session._readRemoteEntry(buf.remote_buffer_id, 0, r, buf._entry_info(), out)
            np.testing.assert_array_equal(out, x[2 * r:2 * r + 2] * [1, 2])


@pytest.mark.parametrize("replicas,group_size,shard_over", [(2, 2, None), (4, 2, None), (4, 4, 2), (4, 1, 1)])
def test_replica_sharded_variable_with_groupings(replicas, group_size, shard_over):
    ir = popxl.Ir(replication=replicas)
    rg = ir.replica_grouping(group_size=group_size)
    groups = rg.num_groups
    x = np.arange(groups * 6, dtype=np.float32).reshape((groups, 6) if groups > 1 else (6,))
    n_shard = shard_over or group_size
    with ir.main_graph, popxl.in_sequence():
        v, shard = popxl.replica_sharded_variable(x, popxl.float32, name="v", replica_grouping=rg,
                                                  shard_over=shard_over)
        gather_group = ir.replica_grouping(group_size=n_shard)
        full = C.replicated_all_gather(shard, gather_group)
        doubled = ops.mul(full, popxl.constant(np.float32(2)))
        ops.var_updates.copy_var_update_(shard, C.replica_sharded_slice(doubled, gather_group))
    assert shard.shape == (6 // n_shard,) and full.shape == (6,)
    assert v.shape_on_host == x.shape
    with popxl.Session(ir, "ipu_model") as s:
        s.run()
        np.testing.assert_array_equal(s.get_tensor_data(v), x * 2)
        s.write_variable_data(v, x + 1)
        s.run()
        np.testing.assert_array_equal(s.get_tensor_data(v), (x + 1) * 2)


def test_replica_sharded_variable_updates_shards_in_place():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    ir = popxl.Ir(replication=2)
    with ir.main_graph, popxl.in_sequence():
        v, shard = popxl.replica_sharded_variable(x)
        y = popxl.variable(np.array([10.0, 20.0, 30.0], np.float32))
        ops.var_updates.accumulate_(shard, C.replica_sharded_slice(y))
    assert shard.shape == (2,) and shard.meta_shape == (3,) and not isinstance(shard, popxl.Variable)
    with popxl.Session(ir, "ipu_model") as s:
        for _ in range(3):
            s.run()
    np.testing.assert_array_equal(s.get_tensor_data(v), x + 30 * np.array([1, 2, 3], np.float32))


def test_reduce_scatter_for_rts_and_remote_grouped_variable():
    ir = popxl.Ir(replication=4)
    rg = ir.replica_grouping(group_size=2)  # replicas (0, 1) and (2, 3)
    x = np.arange(8, dtype=np.int32).reshape(2, 4)
    with ir.main_graph, popxl.in_sequence():
        buf = popxl.remote_buffer((4,), popxl.int32)
        v = popxl.remote_variable(x, buf, replica_grouping=rg)
        t = ops.remote_load(buf, 0)
        ops.remote_store(buf, 0, ops.add(t, popxl.constant(np.int32(1))))
        g = C.replicated_reduce_scatter(popxl.constant(np.ones(6, np.float32)),
                                        configure_output_for_replicated_tensor_sharding=True)
    assert g.shape == (2,) and g.meta_shape == (6,)
    assert v.shape_on_host == (2, 4) and v.replica_grouping == rg
    with popxl.Session(ir, "ipu_model") as s:
        s.run()
        np.testing.assert_array_equal(s.get_tensor_data(v), x + 1)
    ir = popxl.Ir(replication=4)
    with ir.main_graph, pytest.raises(ValueError, match=r"needs host data shaped \(groups, ...\) with 2 first"):
        popxl.remote_variable(np.zeros(4, np.int32), popxl.remote_buffer((4,), popxl.int32),
                              replica_grouping=ir.replica_grouping(group_size=2))


def test_sharding_arguments_are_checked():
    ir = popxl.Ir(replication=4)
    with ir.main_graph:
        with pytest.raises(ValueError, match="shard_over 3 does not divide the replica group size 4"):
            popxl.replica_sharded_variable(np.zeros(6, np.float32), shard_over=3)
        buf = popxl.remote_buffer((3,), popxl.float32)
        with pytest.raises(ValueError, match=r"split into 4 shards of \(2,\) does not fit the slots"):
            popxl.remote_replica_sharded_variable(np.zeros(6, np.float32), buf)
        with pytest.raises(ValueError, match="'v': retrieval_mode 'all' is not 'one_per_group' or 'all_replicas'"):
            popxl.replica_sharded_variable(np.zeros(8, np.float32), name="v", retrieval_mode="all")
        with pytest.raises(ValueError, match="the replica grouping is for 2 replicas, the Ir has 4"):
            popxl.replica_sharded_variable(np.zeros(8, np.float32),
                                           replica_grouping=popxl.Ir(replication=2).replica_grouping())


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.uint8])
def test_integer_accumulate_adds_exactly(dt):
    """var_updates.accumulate_ on integers (the guide's remote examples accumulate int32 values)."""
    x, y = np.array([1, 2, 250], dt), np.array([3, 4, 5], dt)
    ir = popxl.Ir()
    with ir.main_graph:
        v = popxl.variable(x)
        out = ops.var_updates.accumulate_(v, popxl.constant(y))
        with pytest.raises(ValueError, match="must match"):
            ops.var_updates.accumulate_(v, popxl.constant(np.ones(2, dt)))
    assert out.dtype == popxl.dtype.as_dtype(dt)
    with popxl.Session(ir, "cpu") as s:
        s.run()
    np.testing.assert_array_equal(s.get_tensor_data(v), (x + y).astype(dt))


def test_streaming_weights_through_a_called_graph():
    """The streaming pattern: a sub-graph loads the weights of layer k from entry k (a tensor offset) and
    stores the updated weights back; the main graph calls it once per layer."""
    w = [np.full((2, 2), k + 1, np.float32) for k in range(3)]
    x = np.array([[1.0, 2.0]], np.float32)
    ir = popxl.Ir()
    with ir.main_graph, popxl.in_sequence():
        buf = popxl.remote_buffer((2, 2), popxl.float32, 3)
        ws = [popxl.remote_variable(v, buf, k, name=f"w{k}") for k, v in enumerate(w)]

        def layer(h, k):
            weights = ops.remote_load(buf, k)
            ops.remote_store(buf, k, ops.mul(weights, popxl.constant(np.float32(0.5))))
            return ops.matmul(h, weights)
        g = ir.create_graph(layer, popxl.TensorSpec((1, 2), popxl.float32), popxl.TensorSpec((), popxl.int32))
        h = popxl.constant(x)
        for k in range(3):
            h, = ops.call(g, h, popxl.constant(np.int32(k)))
        d2h = popxl.d2h_stream(h.shape, h.dtype)
        ops.host_store(d2h, h)
    with popxl.Session(ir, "cpu") as s:
        out = s.run()[d2h]
    np.testing.assert_allclose(out, x @ w[0] @ w[1] @ w[2])
    for k, v in enumerate(ws):
        np.testing.assert_array_equal(s.get_tensor_data(v), w[k] * 0.5)


def test_write_variable_data_checks_the_full_shape_of_sharded_variables():
    ir = popxl.Ir(replication=2)
    with ir.main_graph:
        v, shard = popxl.replica_sharded_variable(np.zeros((2, 3), np.float32), name="v")
        ops.var_updates.accumulate_(shard, popxl.constant(np.ones(3, np.float32)))
    s = popxl.Session(ir, "ipu_model")
    with pytest.raises(ValueError, match=r"data for 'v' has shape \(3,\), the variable needs \(2, 3\)"):
        s.write_variable_data(v, np.zeros(3, np.float32))
    s.write_variable_data(v, np.full((2, 3), 4.0, np.float32))
    with s:
        s.run()
    np.testing.assert_array_equal(s.get_tensor_data(v), np.full((2, 3), 5.0, np.float32))


def test_sharding_over_strided_groups():
    """Groups (0, 2) and (1, 3): each group's value is split over its two replicas, gathered over the
    same strided grouping."""
    ir = popxl.Ir(replication=4)
    rg = ir.replica_grouping(stride=2, group_size=2)
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    with ir.main_graph, popxl.in_sequence():
        v, shard = popxl.replica_sharded_variable(x, name="v", replica_grouping=rg)
        full = C.replicated_all_gather(shard, rg)
        ops.var_updates.copy_var_update_(shard, C.replica_sharded_slice(ops.mul(full, full), rg))
    assert shard.shape == (3,) and full.shape == (5,)
    with popxl.Session(ir, "ipu_model") as s:
        s.run()
        np.testing.assert_array_equal(s.get_tensor_data(v), x * x)


def test_graph_input_shards_gather_to_their_meta_shape():
    ir = popxl.Ir(replication=2)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with ir.main_graph:
        v, shard = popxl.replica_sharded_variable(x, name="v")
        sub = ir.create_empty_graph("gather")
        with sub:
            t = popxl.graph_input(shard.shape, shard.dtype, "t", meta_shape=shard.meta_shape)
            assert t.meta_shape == (2, 3)
            popxl.graph_output(C.replicated_all_gather(t))
        full, = ops.call(sub, shard)
        ops.var_updates.copy_var_update_(shard, C.replica_sharded_slice(ops.add(full, full)))
    assert full.shape == (2, 3)
    with popxl.Session(ir, "ipu_model") as s:
        s.run()
    np.testing.assert_array_equal(s.get_tensor_data(v), 2 * x)


def persistent_mb(session) -> float:
    """The persistent (weights, inputs, constants) memory of one replica, from the summary report."""
    import re
    report = session._pb_session.getSummaryReport()
    return float(re.search(r"persistent \(weights, inputs, constants\) ([0-9.]+) MB", report).group(1))


def test_sharding_divides_each_replicas_weight_memory():
    """RTS is for memory: with 4 replicas each keeps a quarter of the variable (the entry of a remote
    variable is its device buffer, not a second copy)."""
    x = np.arange(1 << 16, dtype=np.float32)
    one = np.ones((), np.float32)

    def run(build):
        ir = popxl.Ir(replication=4)
        with ir.main_graph, popxl.in_sequence():
            v = build(ir)
        with popxl.Session(ir, "ipu_model") as s:
            s.run()
            return persistent_mb(s), s.get_tensor_data(v)

    def plain(ir):
        v = popxl.variable(x, name="v")
        ops.var_updates.accumulate_(v, popxl.constant(np.ones_like(x)))
        return v

    def sharded(ir):
        buf = popxl.replica_sharded_buffer(x.shape, popxl.float32)
        v = popxl.remote_replica_sharded_variable(x, buf, 0, name="v")
        ops.remote_store(buf, 0, ops.add(ops.remote_load(buf, 0), popxl.constant(one)))
        return v
    full_mb, full_value = run(plain)
    shard_mb, shard_value = run(sharded)
    np.testing.assert_array_equal(full_value, x + 1)
    np.testing.assert_array_equal(shard_value, x + 1)
    assert full_mb >= 0.5 and shard_mb <= full_mb / 3, (full_mb, shard_mb)


def test_replica_sharded_variable_holds_one_shard_per_replica():
    """The variable and the shard replica_sharded_variable returns are one device tensor: a replica's
    persistent memory is one shard (a quarter of the variable with 4 replicas), as much as a remote
    replica-sharded variable's, not a shard beside a second copy of it."""
    x = np.arange(1 << 16, dtype=np.float32)
    shard_mb = x.nbytes / 4 / 1e6

    def run(build):
        ir = popxl.Ir(replication=4)
        with ir.main_graph, popxl.in_sequence():
            v = build()
        with popxl.Session(ir, "ipu_model") as s:
            s.run()
            return persistent_mb(s), s.get_tensor_data(v)

    def replica_sharded():
        v, shard = popxl.replica_sharded_variable(x, name="v")
        ops.var_updates.copy_var_update_(shard, ops.add(shard, popxl.constant(np.float32(1))))
        return v

    def remote_sharded():
        buf = popxl.replica_sharded_buffer(x.shape, popxl.float32)
        v = popxl.remote_replica_sharded_variable(x, buf, 0, name="v")
        ops.remote_store(buf, 0, ops.add(ops.remote_load(buf, 0), popxl.constant(np.float32(1))))
        return v
    mb, value = run(replica_sharded)
    remote_mb, remote_value = run(remote_sharded)
    np.testing.assert_array_equal(value, x + 1)
    np.testing.assert_array_equal(remote_value, x + 1)
    assert shard_mb <= mb < 1.25 * shard_mb, (mb, shard_mb)
    assert abs(mb - remote_mb) < 0.01, (mb, remote_mb)


def test_buffer_and_offset_in_swapped_positions_are_taken_by_type():
    """remote_variable / remote_replica_sharded_variable(data, offset, buffer) and remote_store(t, buffer,
    offset), as the guide's manual-remote-buffer RTS example writes them: a RemoteBuffer cannot be an
    offset, nor a Tensor a buffer, so the arguments have one meaning."""
    x = np.arange(6, dtype=np.int32) + 1
    ir = popxl.Ir(replication=2)
    with ir.main_graph, popxl.in_sequence():
        buf = popxl.replica_sharded_buffer((6,), popxl.dtypes.int, entries=2)
        v = popxl.remote_replica_sharded_variable(x, 1, buf, name="v")
        plain = popxl.remote_buffer((2,), popxl.int32)
        w = popxl.remote_variable(np.array([5, 6], np.int32), 0, plain, name="w")
        shard = ops.remote_load(buf, 1)
        ops.remote_store(ops.add(shard, popxl.constant(np.int32(10))), buf, 1)
        ops.remote_store(ops.negate(ops.remote_load(plain, 0)), plain, 0)
        with pytest.raises(TypeError, match="expected a popxl.RemoteBuffer, got int"):
            popxl.remote_variable(x, 0, 1)
        with pytest.raises(TypeError, match="remote_store: expected a popxl.Tensor, got int"):
            ops.remote_store(buf, shard, 0)  # a Tensor as the offset: not a swap
    assert popxl.dtypes.int is popxl.int32 and buf.tensor_dtype == popxl.int32
    with popxl.Session(ir, "ipu_model") as s:
        s.run()
        np.testing.assert_array_equal(s.get_tensor_data(v), x + 10)
        np.testing.assert_array_equal(s.get_tensor_data(w), [-5, -6])


def test_bad_groupings_of_remote_and_sharded_variables_name_the_variable():
    """A grouping that does not fit the Ir's replicas, a shard_over that does not divide the group, and
    host data not shaped per group: each error names the variable."""
    ir = popxl.Ir(replication=4)
    other = popxl.Ir(replication=2).replica_grouping(group_size=1)
    with ir.main_graph:
        buf = popxl.remote_buffer((4,), popxl.float32, entries=2)
        with pytest.raises(ValueError, match="remote_variable 'v': the replica grouping is for 2 replicas, the Ir "
                                             "has 4"):
            popxl.remote_variable(np.zeros((2, 4), np.float32), buf, 0, name="v", replica_grouping=other)
        with pytest.raises(ValueError, match="remote_replica_sharded_variable 's': shard_over 3 does not divide the "
                                             "replica group size 4"):
            popxl.remote_replica_sharded_variable(np.zeros(16, np.float32), buf, 1, name="s", shard_over=3)
        with pytest.raises(ValueError, match=r"replica_sharded_variable 'r': a variable of 2 replica groups needs host "
                                             r"data shaped \(groups, ...\)"):
            popxl.replica_sharded_variable(np.zeros(4, np.float32), name="r",
                                           replica_grouping=ir.replica_grouping(group_size=2))
        with pytest.raises(ValueError, match="replica_sharded_variable 'q': the replica grouping is for 2 replicas"):
            popxl.replica_sharded_variable(np.zeros((2, 4), np.float32), name="q", replica_grouping=other)
    with pytest.raises(ValueError, match="group_size 3 does not divide the replication factor 4"):
        ir.replica_grouping(group_size=3)
