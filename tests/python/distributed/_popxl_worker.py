"""Run under mpiexec by test_popxl_instances.py: one instance of a PopXL program with
Ir(replication="popdist") (guide 14). Each instance feeds its local replicas' rows of the global data,
and writes what it got to OUT.<instance>.npz. Usage: _popxl_worker.py OUT [lonely]

lonely: only instance 0 reads the variables back (instance 1 leaves its session without
weights_to_host), so instance 0 must fail in bounded time instead of waiting for ever."""
import sys

import numpy as np

import popxl
import popxl.ops as ops
from popxl.ops import collectives as C

T = 2  # host transfers


def main(out):
    ir = popxl.Ir(replication="popdist")
    ir.num_host_transfers = T
    R, local = ir.replication_factor, ir.instance_replication_factor
    first = ir._instances.index * local
    x_all = np.arange(T * R * 3, dtype=np.float32).reshape(T, R, 3)
    with ir.main_graph:
        x_h2d = popxl.h2d_stream((3,), popxl.float32, name="x")
        own = ir.replica_grouping(group_size=1)
        across = ir.replica_grouping(stride=2, group_size=R // 2)  # replicas 0, 2 / 1, 3: both instances
        v = popxl.variable(np.arange(R * 3, dtype=np.float32).reshape(R, 3) * 100, name="v", replica_grouping=own)
        w = popxl.variable(np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], np.float32), name="w",
                           replica_grouping=across, retrieval_mode="all_replicas")
        u = popxl.variable(np.zeros(3, np.float32), name="u")
        streams = {k: popxl.d2h_stream(s, popxl.float32, name=k) for k, s in
                   [("sum", (3,)), ("across_max", (3,)), ("gather", (R, 3))]}
        for _ in range(T):
            x = ops.host_load(x_h2d, "x")
            total = C.replicated_all_reduce(x)
            ops.host_store(streams["sum"], total)
            ops.host_store(streams["across_max"], C.replicated_all_reduce(x, op="max", group=across))
            ops.host_store(streams["gather"], C.replicated_all_gather(x))
            v += x
            w += total
            u += total
    mine = x_all[:, first:first + local]
    feed = mine if local > 1 else mine[:, 0]
    with popxl.Session(ir, "ipu_hw") as s:
        outs = s.run({x_h2d: feed})
        got = {k: outs[st] for k, st in streams.items()}
        got.update(v=s.get_tensor_data(v), w=s.get_tensor_data(w), u=s.get_tensor_data(u))
        s.write_variable_data(v, np.full((R, 3), -1.0, np.float32))
        s.run({x_h2d: feed})
    got["v_after_write"] = s.get_tensor_data(v)
    np.savez(f"{out}.{ir._instances.index}.npz", replicas=R, local=local, **got)


def lonely():
    ir = popxl.Ir(replication="popdist")
    with ir.main_graph:
        v = popxl.variable(np.zeros(2, np.float32), name="v")
        v += 1.0
    first = ir._instances.index == 0
    with popxl.Session(ir, "ipu_hw", weights_to_host_on_exit=first) as s:
        s.run()
    print("instance", ir._instances.index, "done")


if __name__ == "__main__":
    lonely() if sys.argv[2:] == ["lonely"] else main(sys.argv[1])
