"""Run under mpiexec by test_popxl_rts_instances.py: replica-sharded variables (guide 12.3, 14.5) in a
program of several instances. Every instance passes the full host data and reads the full values back,
though each holds only its replicas' shards. Usage: _popxl_rts_worker.py OUT"""
import sys

import numpy as np

import popxl
import popxl.ops as ops
from popxl.ops import collectives as C


def main(out):
    ir = popxl.Ir(replication="popdist")
    R = ir.replication_factor
    a_h = np.arange(2 * R + 1, dtype=np.float32)  # not a multiple of R: the last shard is padded
    b_h = np.arange(3 * R, dtype=np.int32).reshape(3, R)
    with ir.main_graph, popxl.in_sequence():
        a, a_shard = popxl.replica_sharded_variable(a_h, name="a")
        full = C.replicated_all_gather(a_shard)  # the whole of a on every replica
        # each replica's shard += its slice of (full * 2) summed over the replicas
        grad = C.replicated_reduce_scatter(ops.mul(full, popxl.constant(np.float32(2))))
        ops.var_updates.accumulate_(a_shard, grad)
        buf = popxl.replica_sharded_buffer(b_h.shape, popxl.int32)
        b = popxl.remote_replica_sharded_variable(b_h, buf, 0, name="b")
        b_shard = ops.remote_load(buf, 0)
        ops.remote_store(buf, 0, ops.add(b_shard, popxl.constant(np.int32(1))))
        # retrieval mode "all_replicas": groups of 2 replicas in different instances (stride 2 when R = 4)
        rg = ir.replica_grouping(stride=2, group_size=2) if R == 4 else ir.replica_grouping(group_size=2)
        c, c_shard = popxl.replica_sharded_variable(c_host(rg.num_groups), name="c", replica_grouping=rg,
                                                    retrieval_mode="all_replicas")
        d = popxl.variable(np.arange(R * 2, dtype=np.float32).reshape(R, 2) * 10, name="d",
                           replica_grouping=ir.replica_grouping(group_size=1))
        ops.var_updates.accumulate_(c_shard, d)  # each replica adds its own d to its shard
    with popxl.Session(ir, "ipu_hw") as s:
        s.run()
        got = s.get_tensors_data([a, b])
        got_c = s.get_tensor_data(c)
        s.write_variable_data(b, -b_h)
        s.write_variable_data(c, -np.stack([np.full(3, rg.assignment[r] + 1, np.float32) for r in range(R)]))
        s.run()
    np.savez(f"{out}.{ir._instances.index}.npz", replicas=R, local=ir.instance_replication_factor, a=got[a],
             b=got[b], b_after_write=s.get_tensor_data(b), a_shard_shape=np.array(a_shard.shape), c=got_c,
             c_after_write=s.get_tensor_data(c), c_assignment=np.array(rg.assignment))


def c_host(groups):
    """The host data of variable c: one value of 3 elements per group."""
    data = np.arange(groups * 3, dtype=np.float32).reshape(groups, 3) + 1
    return data if groups > 1 else data[0]


if __name__ == "__main__":
    main(sys.argv[1])
