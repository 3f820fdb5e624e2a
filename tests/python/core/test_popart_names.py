"""PopART names the user guide and API reference list: the poplar error hierarchy with
RecoveryAction, DebugInfo and the debug-info file, popart.writer.NetWriter,
OperatorIdentifier/OpDefinition and the supported-operation queries, TensorRemapType,
CommGroup.toReplicaGrouping and ReplicaGrouping."""
import json

import numpy as np
import onnx.defs
import pytest

import popart


def test_poplar_error_hierarchy_as_the_user_guide_draws_it():
    assert issubclass(popart.poplar_runtime_error, popart.poplar_exception)
    for sub in (popart.poplar_application_runtime_error, popart.poplar_system_runtime_error,
                popart.poplar_unknown_runtime_error):
        assert issubclass(sub, popart.poplar_runtime_error)
    for sub in (popart.poplar_recoverable_runtime_error, popart.poplar_unrecoverable_runtime_error):
        assert issubclass(sub, popart.poplar_system_runtime_error)
    assert not issubclass(popart.poplibs_exception, popart.poplar_exception)
    assert not issubclass(popart.poplar_exception, popart.popart_exception)
    assert {"IPU_RESET", "PARTITION_RESET", "POWER_CYCLE"} <= set(popart.RecoveryAction.__members__)


def test_host_out_of_memory_raises_recoverable_error_with_recovery_action():
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [1]))
    start, limit, delta = (b.aiOnnx.constant(np.array(v, np.float32)) for v in (0, 2.0 ** 42, 1))
    out = b.aiOnnx.add([b.aiOnnx.range([start, limit, delta]), x])  # 16 TB of floats
    b.addOutputTensor(out)
    with pytest.raises(popart.poplar_recoverable_runtime_error, match="out of memory") as e:
        s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [out]),
                                    popart.DeviceManager().createCpuDevice())
        s.prepareDevice()
    assert e.value.recoveryAction == popart.RecoveryAction.IPU_RESET


def test_debug_info_file(tmp_path):
    path = str(tmp_path / "debug.json")
    popart.initializePoplarDebugInfo(path, "json")
    di = popart.DebugInfo(popart.DebugContext("layer1"), "popart")
    assert di.setValue("shape", [2, 3]) and not di.setValue("shape", [4])
    assert di.getPathName() == "layer1"
    other = popart.DebugInfo(popart.DebugContext("b"), "popart")
    assert other.getId() != di.getId()
    popart.closePoplarDebugInfo()
    with open(path) as f:
        contexts = json.load(f)["contexts"]
    assert [c["name"] for c in contexts] == ["layer1", "b"]
    assert contexts[0]["values"] == {"shape": [2, 3]} and contexts[0]["layer"] == "popart"
    popart.DebugInfo(popart.DebugContext("after"), "popart")  # not recorded once closed
    with open(path) as f:
        assert len(json.load(f)["contexts"]) == 2
    with pytest.raises(popart.popart_exception, match="format 'xml'"):
        popart.initializePoplarDebugInfo(path, "xml")


def test_net_writer_is_a_base_class():
    df = popart.DataFlow(1, ["y"])

    class Writer(popart.writer.NetWriter):
        def infer(self, inMap):
            return {"y": inMap["x"] * 2}

    w = Writer(["x"], ["y"], None, df, popart.InputShapeInfo())
    assert w.inNames == ["x"] and w.outNames == ["y"] and not w.trainMode and w.dataFlow is df
    np.testing.assert_array_equal(w.step({"x": np.ones(2)})["y"], [2, 2])
    with pytest.raises(NotImplementedError, match="saveModel"):
        w.saveModel("m.onnx")
    assert Writer(["x"], ["y"], popart.ConstSGD(0.1), df, popart.InputShapeInfo()).trainMode


def test_supported_operations():
    public = popart.getSupportedOperations(False)
    everything = popart.getSupportedOperations(True)
    assert all(isinstance(o, popart.OperatorIdentifier) for o in public)
    assert set(public) < set(everything)
    relu = popart.OperatorIdentifier("ai.onnx", "Relu", 6)
    assert relu in public and str(relu) == "ai.onnx.Relu:6"
    assert (relu.domain, relu.type, relu.version) == ("ai.onnx", "Relu", 6)
    defs = popart.getSupportedOperationsDefinition(False)
    assert set(defs) == set(public)
    d = defs[relu]
    assert isinstance(d, popart.OpDefinition) and len(d.inputs) == 1
    assert popart.DataType.FLOAT in d.inputs[0].supportedTensors
    assert popart.defaultAiOnnxOpset == 11


def test_unsupported_operations_against_onnx_schemas():
    unsupported = popart.getUnsupportedOperations(11)
    supported = {o.type for o in popart.getSupportedOperations(False) if o.domain == "ai.onnx"}
    onnx_ops = {s.name for s in onnx.defs.get_all_schemas_with_history()
                if s.domain == "" and s.since_version <= 11}
    assert set(unsupported) <= onnx_ops
    assert not set(unsupported) & {"Relu", "Conv", "MatMul", "Add"}
    for op in unsupported:
        assert op not in supported or all(o.version > 11 for o in popart.getSupportedOperations(False)
                                          if o.type == op and o.domain == "ai.onnx")
    with pytest.raises(popart.popart_exception, match="opset version 0"):
        popart.getUnsupportedOperations(0)


def test_tensor_remap_type():
    assert {"Fwd", "FwdBwd", "FwdBwdReverse"} == set(popart.TensorRemapType.__members__)


def reference_groups(n, stride, size):
    """Brute force: group g holds start + k*stride, groups in order of their first replica."""
    seen, groups = set(), []
    for r in range(n):
        if r not in seen:
            g = [r + k * stride for k in range(size)]
            seen.update(g)
            groups.append(g)
    return groups


@pytest.mark.parametrize("group,n,stride,size", [
    (popart.CommGroup(popart.CommGroupType.All, 0), 8, 1, 8),
    (popart.CommGroup(popart.CommGroupType.Consecutive, 2), 8, 1, 2),
    (popart.CommGroup(popart.CommGroupType.Orthogonal, 2), 8, 4, 2),
    (popart.CommGroup(popart.CommGroupType.Ungrouped, 0), 4, 1, 1),
])
def test_comm_group_to_replica_grouping(group, n, stride, size):
    rg = group.toReplicaGrouping(n)
    assert isinstance(rg, popart.ReplicaGrouping)
    assert (rg.getNumReplicas(), rg.getStride(), rg.getGroupSize()) == (n, stride, size)
    groups = reference_groups(n, stride, size)
    assert rg.getNumGroups() == len(groups)
    for gi, g in enumerate(groups):
        assert rg.getReplicasAt(gi) == g
        for idx, r in enumerate(g):
            assert rg.getGroupAt(r) == gi and rg.getIndexInGroupAt(r) == idx and rg.getReplicaAt(gi, idx) == r
    t = rg.getTranspose()
    assert sorted(map(tuple, (t.getReplicasAt(i) for i in range(t.getNumGroups())))) == \
        sorted(map(tuple, zip(*groups)))


def test_replica_grouping_errors():
    with pytest.raises(popart.popart_exception, match="must divide"):
        popart.ReplicaGrouping(6, 4, 2)
    with pytest.raises(popart.popart_exception, match="replica 8 is out of range"):
        popart.ReplicaGrouping(8, 1, 2).getGroupAt(8)
    with pytest.raises(popart.popart_exception, match="does not divide"):
        popart.CommGroup(popart.CommGroupType.Orthogonal, 3).toReplicaGrouping(8)
