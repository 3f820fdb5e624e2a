"""popxl API surface beyond ops: replica groupings, locations, contexts, graph/Ir/dtype/variable helpers."""
import os

import numpy as np
import pytest

import popart
import popxl
import popxl.ops as ops


@pytest.mark.parametrize("stride,group_size,expected", [
    (1, 2, [0, 0, 1, 1, 2, 2, 3, 3]),
    (1, 4, [0, 0, 0, 0, 1, 1, 1, 1]),
    (2, 4, [0, 1, 0, 1, 0, 1, 0, 1]),
    (4, 2, [0, 1, 2, 3, 0, 1, 2, 3]),
    (1, None, [0] * 8),
    (2, None, [0, 1, 0, 1, 0, 1, 0, 1]),
])
def test_replica_grouping_assignments(stride, group_size, expected):
    ir = popxl.Ir(replication=8)
    rg = ir.replica_grouping(stride, group_size)
    assert rg.assignment == expected
    assert rg.num_groups == len(set(expected)) and rg.group_size == expected.count(0) and rg.stride == stride
    assert rg.is_const


def test_replica_grouping_from_assignments_and_transpose():
    ir = popxl.Ir(replication=8)
    rg = ir.replica_grouping_from_assignments([0, 0, 1, 1, 0, 0, 1, 1])
    assert rg.assignment == [0, 0, 1, 1, 0, 0, 1, 1] and not rg.is_const and rg.group_size == 4
    with pytest.raises(ValueError, match="no constant stride"):
        rg.stride
    assert ir.replica_grouping(1, 2).transpose() == ir.replica_grouping(2, 4)
    with pytest.raises(ValueError, match="does not divide the replication factor 8"):
        ir.replica_grouping(3, 2)
    with pytest.raises(ValueError, match="3 assignments for 8 replicas"):
        ir.replica_grouping_from_assignments([0, 1, 0])
    with pytest.raises(ValueError, match="different sizes"):
        ir.replica_grouping_from_assignments([0, 0, 0, 1, 1, 1, 1, 1])


def test_ir_properties_and_stream_sets():
    a, b = popxl.Ir(), popxl.Ir(replication=2)
    assert a.id != b.id and b.instance_replication_factor == 2
    with pytest.raises(ValueError, match="positive int"):
        popxl.Ir(replication=0)
    with a.main_graph:
        x_h2d = popxl.h2d_stream((2,), popxl.float32, name="x")
        unused = popxl.h2d_stream((2,), popxl.float32, name="unused")
        y_d2h = popxl.d2h_stream((2,), popxl.float32, name="y")
        ops.host_store(y_d2h, ops.host_load(x_h2d))
    assert a.get_all_h2d_streams() == {x_h2d} and a.get_all_d2h_streams() == {y_d2h}
    s = popxl.Session(a, "cpu")
    assert s.expected_inputs() == [x_h2d] and unused not in s.expected_inputs()


def test_ir_is_frozen_once_a_session_owns_it():
    ir = popxl.Ir()
    with ir.main_graph:
        v = popxl.variable(np.zeros(2, np.float32), name="v")
    popxl.Session(ir, "cpu")
    with ir.main_graph:
        with pytest.raises(popart.popart_exception, match="belongs to a Session"):
            ops.relu(v)
        with pytest.raises(popart.popart_exception, match="belongs to a Session"):
            popxl.constant(1.0)


def test_ipu_context_places_ops_and_io_tiles_labels_them():
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.variable(np.ones(3, np.float32))
        with popxl.ipu(1):
            y = ops.relu(x)
        with popxl.io_tiles():
            z = ops.negate(y)
        w = ops.exp(z)
        with pytest.raises(ValueError, match="non-negative int"):
            with popxl.ipu(-1):
                pass
    assert y.ipu == 1 and z.ipu == 0 and w.ipu == 0
    assert z.tile_set == "io" and y.tile_set == "compute"


def test_graph_helpers_and_hooks():
    ir = popxl.Ir()
    created = []
    with ir.main_graph as main:
        handle = main.register_op_created_hook(lambda op: created.append(op.opType()))
        x = popxl.variable(np.ones(2, np.float32), name="x")
        g = ir.create_graph(lambda a, b: a * b, x, x)
        ops.call(g, x, x)
        ops.relu(x)
        main.remove_op_created_hook(handle)
        ops.exp(x)
        with pytest.raises(ValueError, match="no op-created hook"):
            main.remove_op_created_hook(handle)
    assert created == ["Call", "Relu"]
    assert main.called_graphs == (g,) and g.main_graph == main
    assert set(g.inputs_by_name) == {t.name for t in g.inputs} and len(g.inputs_by_name) == 2
    assert main.get_tensor("x") == x
    with pytest.raises(ValueError, match="has no tensor 'nope'"):
        main.get_tensor("nope")


def test_dtype_helpers():
    import torch
    assert popxl.dtype.from_name("half") is popxl.float16
    assert popxl.float32.as_torch() is torch.float32 and popxl.int64.as_torch() is torch.int64
    assert popxl.complex64.is_complex and not popxl.float32.is_complex
    with pytest.raises(TypeError, match="no torch equivalent"):
        popxl.float8_143.as_torch()
    with pytest.raises(ValueError, match="not the name of a popxl dtype"):
        popxl.dtype.from_name("float7")


def test_variable_grouping_properties():
    ir = popxl.Ir(replication=4)
    with ir.main_graph:
        v = popxl.variable(np.zeros((2, 3), np.float32), replica_grouping=ir.replica_grouping(1, 2),
                           retrieval_mode="all_replicas")
        w = popxl.variable(np.zeros(3, np.float32))
        with pytest.raises(ValueError, match="retrieval_mode 'some'"):
            popxl.variable(np.zeros(3, np.float32), retrieval_mode="some")
    assert v.replica_grouping.num_groups == 2 and v.shape_on_host == (2, 3) and v.shape_on_replica == (3,)
    assert v.retrieval_mode == "all_replicas"
    assert w.replica_grouping.num_groups == 1 and w.shape_on_host == (3,) and w.retrieval_mode == "one_per_group"


def test_tensor_location_types():
    loc = popxl.TensorLocation(popxl.TensorStorage.OffChip, popxl.ReplicatedTensorSharding.On)
    assert loc.storage == popxl.TensorStorage.OffChip
    assert loc.replicated_tensor_sharding == popxl.ReplicatedTensorSharding.On
    assert loc != popxl.TensorLocation()
    with pytest.raises(TypeError, match="TensorStorage"):
        popxl.TensorLocation("OffChip")
    assert popxl.ExecutionContext.Normal != popxl.ExecutionContext.Subgraph
    assert popxl.TileSet.IO != popxl.TileSet.Compute


def test_dot_checkpoint_writes_selected_checks(tmp_path, monkeypatch):
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.variable(np.ones(2, np.float32))
        ops.add(x, x)
    ir.dot_checkpoint("ADD", save_dir=tmp_path)
    text = (tmp_path / "ADD.dot").read_text()
    assert text.startswith("digraph ADD") and "Add" in text
    ir2 = popxl.Ir()
    monkeypatch.setenv("POPART_DOT_CHECKS", "KEEP")
    with ir2.main_graph:
        ops.relu(popxl.variable(np.ones(2, np.float32)))
    ir2.dot_checkpoint("DROP", save_dir=tmp_path / "b")
    ir2.dot_checkpoint("KEEP", save_dir=tmp_path / "b")
    assert sorted(os.listdir(tmp_path / "b")) == ["KEEP.dot"]


def test_op_debug_context_decorator():
    calls = []

    @popxl.op_debug_context
    def layer(t):
        calls.append(popxl.context._debug_prefix())
        return ops.relu(t)

    @popxl.op_debug_context("named")
    def other(t):
        calls.append(popxl.context._debug_prefix())
        return layer(t)

    ir = popxl.Ir()
    with ir.main_graph:
        other(popxl.variable(np.ones(2, np.float32)))
    assert calls == ["named", "named/layer"] and popxl.context._debug_prefix() == ""


def test_missing_in_place_op_names_the_op():
    """ops.x_ where only ops.x exists (the guide's distributed RTS examples call ops.matmul_, which no
    PopXL API index lists): an AttributeError naming both; other missing names stay plain."""
    with pytest.raises(AttributeError, match="no attribute 'matmul_': PopXL has no in-place form of ops.matmul"):
        popxl.ops.matmul_
    assert not hasattr(popxl.ops, "matmul_") and callable(popxl.ops.add_) and callable(popxl.ops.relu_)
    with pytest.raises(AttributeError, match=r"^module 'popxl.ops' has no attribute 'no_such_op'$"):
        popxl.ops.no_such_op
    with pytest.raises(AttributeError, match=r"^module 'popxl.ops' has no attribute 'no_such_op_'$"):
        popxl.ops.no_such_op_


def test_dtypes_int_is_an_alias_of_int32():
    """Not in the guide's dtype table; the guide's manual-remote-buffer RTS example names it for Python
    ints, which PopXL makes int32."""
    assert popxl.dtypes.int is popxl.int32
    with popxl.Ir().main_graph:
        assert popxl.constant([1, 1]).dtype == popxl.dtypes.int
    assert not hasattr(popxl, "int")
