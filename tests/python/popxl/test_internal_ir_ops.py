"""popart._internal.ir.op: one class per op type; ops of a graph are instances of their class."""
import numpy as np
import pytest

import popart._internal.ir as _ir
import popxl
import popxl.ops as ops


def test_classes_cover_the_registry():
    types = {i.type for i in _ir.supportedOperations(True)}
    assert {c[:-2] for c in _ir.op.__all__ if c.endswith("Op")} <= types
    assert all(getattr(_ir.op, t + "Op").op_type == t for t in types)  # later registrations too
    with pytest.raises(AttributeError, match="NoSuchThingOp"):
        _ir.op.NoSuchThingOp
    for name in ["AddOp", "MatMulOp", "ReluInplaceOp", "CallOp", "LoopOp", "IfOp", "HostLoadOp"]:
        assert hasattr(_ir.op, name), name
    assert _ir.op.collectives.ReplicatedAllGatherOp is _ir.op.ReplicatedAllGatherOp
    assert _ir.op.exchange.RemoteStoreOp is _ir.op.RemoteStoreOp
    assert _ir.op.dynamic.DynamicSliceOp is _ir.op.DynamicSliceOp
    assert not hasattr(_ir.op.collectives, "AddOp")


def test_graph_ops_are_instances_of_their_class():
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.variable(np.ones((2, 2), np.float32))
        y = ops.relu(x @ x)
        g = ir.create_graph(lambda a: a + 1, y)
        ops.call(g, y)
    by_type = {op.opType(): op for op in ir.main_graph._pb_graph.getOps()}
    assert isinstance(by_type["MatMul"], _ir.op.MatMulOp) and not isinstance(by_type["MatMul"], _ir.op.AddOp)
    assert isinstance(by_type["Relu"], _ir.op.ReluOp)
    assert isinstance(by_type["Call"], _ir.op.CallOp)
    assert not isinstance("Relu", _ir.op.ReluOp)


def test_create_connected_op_by_class():
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.variable(np.arange(4, dtype=np.float32), name="x")
    pb = ir.main_graph._pb_graph
    op = pb.createConnectedOp_MulOp({0: "x", 1: "x"}, {0: "sq"})
    assert isinstance(op, _ir.op.MulOp) and pb.getTensor("sq").info().shape() == [4]
    t = pb.createConnectedOp_TransposeOp({0: "x"}, {0: "t"}, {"perm": [0]}, "my_transpose")
    assert t.name() == "my_transpose" and t.getAttribute("perm") == [0]
    with pytest.raises(Exception, match="x_missing"):
        pb.createConnectedOp_ReluOp({0: "x_missing"}, {0: "r"})


@pytest.mark.parametrize("stride,size", [(1, 2), (1, 4), (2, 4), (4, 2), (1, 8), (2, 1)])
def test_ir_replica_grouping_matches_popxl(stride, size):
    rg = _ir.ReplicaGrouping(8, stride, size)
    ref = popxl.Ir(replication=8).replica_grouping(stride, size)
    assert [rg.getGroupAt(r) for r in range(8)] == ref.assignment
    assert rg.getNumGroups() == ref.num_groups and rg.getGroupSize() == size
    for g in range(rg.getNumGroups()):
        members = rg.getReplicasAt(g)
        assert [rg.getGroupAt(r) for r in members] == [g] * size
        assert [rg.getIndexInGroupAt(r) for r in members] == list(range(size))
    t = rg.getTranspose() if stride == 1 or stride * size == 8 else None
    if t is not None:
        assert t.getGroupSize() == rg.getNumGroups()
        assert all(len({rg.getGroupAt(r) for r in t.getReplicasAt(g)}) == t.getGroupSize()
                   for g in range(t.getNumGroups()))
    with pytest.raises(IndexError, match="replica 8"):
        rg.getGroupAt(8)
    with pytest.raises(ValueError, match="does not divide"):
        _ir.ReplicaGrouping(8, 3, 2)


def test_graph_id_and_scope():
    assert _ir.GraphId("g").str() == "g" and _ir.GraphId("g") == _ir.GraphId("g")
    s = _ir.Scope() / "layer" / "matmul"
    assert s.str() == "layer/matmul" and not s.empty() and _ir.Scope().empty()
    assert s.getCommonParent(_ir.Scope() / "layer" / "add").str() == "layer"
    with pytest.raises(ValueError, match="contain no '/'"):
        _ir.Scope() / "a/b"
