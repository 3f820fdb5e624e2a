"""Retrieval mode "all_replicas" (guide 13.4) for remote variables, remote replica-sharded variables and
replica_sharded_variable: the host reads one value per replica, shaped (replication_factor, *shape), and
may write that shape too. Each replica adds its own host data to its value (or shard) every run, so the
replicas differ; the expected values are computed with numpy from the replicas' groups."""
import numpy as np
import pytest

import popxl
import popxl.ops as ops

GROUPINGS = [(2, {}), (2, {"group_size": 1}), (4, {}), (4, {"group_size": 2}), (4, {"stride": 2}),
             (4, {"group_size": 1})]


def groups_of(assignment):
    return [[r for r, a in enumerate(assignment) if a == g] for g in range(max(assignment) + 1)]


def copy_of(assignment, shard_over, r):
    """The replicas whose shards make up the copy replica r holds part of: consecutive runs of
    `shard_over` members of r's group."""
    members = groups_of(assignment)[assignment[r]]
    i = members.index(r) // shard_over * shard_over
    return members[i:i + shard_over]


def after_run(start, assignment, shard_over, x):
    """Each replica's full value after one run in which every replica adds x[r] to its shard; `start` is
    each replica's full value before it."""
    out = []
    for r, value in enumerate(start):
        added = np.concatenate([x[q] for q in copy_of(assignment, shard_over, r)])
        out.append(value + added[:value.size].reshape(value.shape))
    return np.stack(out)


def host_shape(data, R):
    return data if R > 1 else data[0]


@pytest.mark.parametrize("dt", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("R,grouping", GROUPINGS)
def test_remote_variable_reads_and_writes_one_value_per_replica(R, grouping, dt):
    ir = popxl.Ir(replication=R)
    with ir.main_graph, popxl.in_sequence():
        rg = ir.replica_grouping(**grouping)
        G = rg.num_groups
        init = (np.arange(G * 6).reshape(G, 2, 3) + 1).astype(dt)
        buf = popxl.remote_buffer((2, 3), dt, entries=2)
        v = popxl.remote_variable(init if G > 1 else init[0], buf, 1, name="v", replica_grouping=rg,
                                  retrieval_mode="all_replicas")
        h2d = popxl.h2d_stream((2, 3), dt, name="x")
        ops.remote_store(buf, 1, ops.add(ops.remote_load(buf, 1), ops.host_load(h2d)))
    assert v.retrieval_mode == "all_replicas" and v.shape_on_host == ((G,) if G > 1 else ()) + (2, 3)
    assignment = rg.assignment
    x = (np.arange(R * 6).reshape(R, 2, 3) * 10).astype(dt)
    with popxl.Session(ir, "ipu_model") as s:
        np.testing.assert_array_equal(s.get_tensor_data(v), host_shape(init[assignment], R))
        s.run({h2d: host_shape(x, R)})
        got = s.get_tensor_data(v)
        assert got.dtype == dt and got.shape == (R, 2, 3)
        np.testing.assert_array_equal(got, init[assignment] + x)
        # one value per replica in, each replica continues from its own
        mine = (-np.arange(R * 6).reshape(R, 2, 3)).astype(dt)
        s.write_variable_data(v, mine)
        s.run({h2d: host_shape(x, R)})
        np.testing.assert_array_equal(s.get_tensor_data(v), mine + x)
        if G not in (1, R):  # one value per group in: every replica of the group starts from it
            s.write_variable_data(v, init)
            s.run({h2d: host_shape(x, R)})
            np.testing.assert_array_equal(s.get_tensor_data(v), init[assignment] + x)
    np.testing.assert_array_equal(s.get_tensor_data(v), init[assignment] + x if G not in (1, R) else mine + x)


SHARDINGS = [(2, {}, None), (4, {}, None), (4, {}, 2), (4, {"group_size": 2}, None), (4, {"stride": 2}, None),
             (4, {"group_size": 1}, None)]


@pytest.mark.parametrize("kind", ["remote", "replica_sharded_variable"])
@pytest.mark.parametrize("R,grouping,shard_over", SHARDINGS)
def test_sharded_variable_reads_each_replicas_copy(R, grouping, shard_over, kind):
    """With shard_over < group size a group holds several copies, each split over shard_over replicas;
    a replica reads back the copy it holds a shard of."""
    ir = popxl.Ir(replication=R)
    with ir.main_graph, popxl.in_sequence():
        rg = ir.replica_grouping(**grouping)
        G, k = rg.num_groups, shard_over or rg.group_size
        init = np.arange(G * 5, dtype=np.float32).reshape(G, 5) + 1
        data = init if G > 1 else init[0]
        if kind == "remote":
            buf = popxl.replica_sharded_buffer((5,), popxl.float32, rg, shard_over)
            v = popxl.remote_replica_sharded_variable(data, buf, 0, name="v", replica_grouping=rg,
                                                      retrieval_mode="all_replicas", shard_over=shard_over)
            shard = ops.remote_load(buf, 0)
        else:
            v, shard = popxl.replica_sharded_variable(data, name="v", replica_grouping=rg,
                                                      retrieval_mode="all_replicas", shard_over=shard_over)
        h2d = popxl.h2d_stream(shard.shape, popxl.float32, name="x")
        updated = ops.add(shard, ops.host_load(h2d))
        if kind == "remote":
            ops.remote_store(buf, 0, updated)
        else:
            ops.var_updates.copy_var_update_(shard, updated)
    n = -(-5 // k)
    assert shard.shape == (n,) and v.shape_on_host == data.shape
    x = np.arange(R * n, dtype=np.float32).reshape(R, n) * 100
    assignment = rg.assignment
    with popxl.Session(ir, "ipu_model") as s:
        np.testing.assert_array_equal(s.get_tensor_data(v), init[assignment])
        s.run({h2d: x})
        got = s.get_tensor_data(v)
        assert got.shape == (R, 5) and got.dtype == np.float32
        np.testing.assert_array_equal(got, after_run(init[assignment], assignment, k, x))
        # a value per copy: the replicas of one copy get the same value, copies differ
        mine = np.stack([np.full(5, -10.0 * copy_of(assignment, k, r)[0], np.float32) for r in range(R)])
        s.write_variable_data(v, mine)
        s.run({h2d: x})
        np.testing.assert_array_equal(s.get_tensor_data(v), after_run(mine, assignment, k, x))


def test_one_replica_reads_without_a_replica_axis():
    ir = popxl.Ir()
    with ir.main_graph:
        buf = popxl.remote_buffer((3,), popxl.int32)
        v = popxl.remote_variable(np.array([1, 2, 3], np.int32), buf, name="v", retrieval_mode="all_replicas")
    with popxl.Session(ir, "ipu_model") as s:
        np.testing.assert_array_equal(s.get_tensor_data(v), [1, 2, 3])
        s.write_variable_data(v, np.array([4, 5, 6], np.int32))
        np.testing.assert_array_equal(s.get_tensor_data(v), [4, 5, 6])


def test_bad_per_replica_writes_name_the_variable():
    ir = popxl.Ir(replication=4)
    with ir.main_graph:
        rg = ir.replica_grouping(group_size=2)
        v, shard = popxl.replica_sharded_variable(np.zeros((2, 4), np.float32), name="v", replica_grouping=rg,
                                                  retrieval_mode="all_replicas")
        buf = popxl.remote_buffer((4,), popxl.float32)
        w = popxl.remote_variable(np.zeros(4, np.float32), buf, name="w")
    s = popxl.Session(ir, "ipu_model")
    with pytest.raises(ValueError, match=r"'v' has shape \(3, 4\), the variable needs \(2, 4\) \(its shape on the "
                                         r"host\) or \(4, 4\) \(one value per replica\)"):
        s.write_variable_data(v, np.zeros((3, 4), np.float32))
    bad = np.zeros((4, 4), np.float32)
    bad[1] = 1  # replicas 0 and 1 hold the two shards of group 0's copy
    with pytest.raises(ValueError, match=r"variable 'v': replicas \[0, 1\] hold the shards of one copy of it, so "
                                         r"they need the same value; replica 1 differs from replica 0"):
        s.write_variable_data(v, bad)
    with pytest.raises(ValueError, match=r"'w' has shape \(4, 4\), the variable needs \(4,\) \(its shape on the "
                                         r"host\)$"):
        s.write_variable_data(w, np.zeros((4, 4), np.float32))  # one_per_group: no per-replica writes
    with s:
        np.testing.assert_array_equal(s.get_tensor_data(v), np.zeros((4, 4), np.float32))


@pytest.mark.parametrize("R,grouping", [(2, {}), (4, {"group_size": 2}), (4, {"stride": 2})])
def test_plain_variable_takes_one_value_per_replica_too(R, grouping):
    """Ordinary variables of mode "all_replicas" accept the shape they are read in."""
    ir = popxl.Ir(replication=R)
    with ir.main_graph:
        rg = ir.replica_grouping(**grouping)
        G = rg.num_groups
        v = popxl.variable(np.zeros((G, 3) if G > 1 else (3,), np.float32), name="v", replica_grouping=rg,
                           retrieval_mode="all_replicas")
        h2d = popxl.h2d_stream((3,), popxl.float32, name="x")
        ops.var_updates.accumulate_(v, ops.host_load(h2d))
    x = np.arange(R * 3, dtype=np.float32).reshape(R, 3)
    mine = -np.arange(R * 3, dtype=np.float32).reshape(R, 3) * 7
    with popxl.Session(ir, "ipu_model") as s:
        s.write_variable_data(v, mine)
        s.run({h2d: x})
        np.testing.assert_array_equal(s.get_tensor_data(v), mine + x)
        s.weights_from_host()  # the host copy is each replica's own value
        s.run({h2d: x})
        np.testing.assert_array_equal(s.get_tensor_data(v), mine + 2 * x)
