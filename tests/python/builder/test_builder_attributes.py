# Builder node attributes, current attributes, context managers and PopART
# annotations (virtual graph, pipeline stage, recompute, ...).
import numpy as np
import onnx
import popart
import pytest


def node_attrs(model, output):
    node = next(n for n in model.graph.node if output in n.output)
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


@pytest.fixture
def built():
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2, 2])
    return b, x, b.aiOnnx.relu([x])


@pytest.mark.parametrize("value,getter", [
    (3, "getInt64NodeAttribute"), ([1, 2], "getInt64VectorNodeAttribute"),
    (0.5, "getFloatNodeAttribute"), ([0.5, 1.5], "getFloatVectorNodeAttribute"),
    ("s", "getStringNodeAttribute"), (["a", "b"], "getStringVectorNodeAttribute"),
])
def test_node_attribute_types(built, value, getter):
    b, _, y = built
    b.addNodeAttribute("attr", value, {y})
    assert b.nodeHasAttribute("attr", {y})
    assert getattr(b, getter)("attr", {y}) == value
    assert b.getNodeAttribute("attr", {y}) == value
    assert "attr" in b.getAllNodeAttributeNames({y})
    b.removeNodeAttribute("attr", {y})
    assert not b.nodeHasAttribute("attr", {y})


def test_node_attribute_errors(built):
    b, x, y = built
    b.addNodeAttribute("i", 1, {y})
    with pytest.raises(popart.popart_exception, match="already has attribute"):
        b.addNodeAttribute("i", 2, {y})
    with pytest.raises(popart.popart_exception, match="not of type FLOAT"):
        b.getFloatNodeAttribute("i", {y})
    with pytest.raises(popart.popart_exception, match="no attribute 'missing'"):
        b.getInt64NodeAttribute("missing", {y})
    with pytest.raises(popart.popart_exception, match="no node"):
        b.getAllNodeAttributeNames({"nope"})
    with pytest.raises(popart.popart_exception):
        b.removeNodeAttribute("missing", {y})


def test_current_attributes(built, to_onnx):
    b, x, _ = built
    b.setAttribute("__custom", 7)
    assert b.hasAttribute("__custom") and b.getAttribute("__custom") == 7
    z = b.aiOnnx.neg([x])
    b.clearAttribute("__custom")
    assert not b.hasAttribute("__custom")
    w = b.aiOnnx.neg([x])
    m = to_onnx(b)
    assert node_attrs(m, z)["__custom"] == 7
    assert "__custom" not in node_attrs(m, w)


def test_context_managers(to_onnx):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2])
    with b.virtualGraph(1), b.pipelineStage(2), b.executionPhase(3):
        assert b.hasVirtualGraph() and b.getVirtualGraph() == 1
        assert b.getPipelineStage() == 2 and b.getExecutionPhase() == 3
        with b.virtualGraph(5):
            inner = b.aiOnnx.abs([x])
        outer = b.aiOnnx.abs([x])
    assert not b.hasVirtualGraph() and not b.hasPipelineStage() and not b.hasExecutionPhase()
    with b.schedulePriority(2.5), b.recomputeOutput(popart.RecomputeType.Recompute):
        prio = b.aiOnnx.abs([x])
    with b.outputTensorLocation(popart.TensorLocation(popart.TensorStorage.OffChip)):
        loc = b.aiOnnx.abs([x])
    with b.outlineAttributes({"a": 1}):
        with b.outlineAttributes({"b": "x"}):
            outl = b.aiOnnx.abs([x])
    with b.commGroup(1, 4):
        comm = b.aiOnnx.abs([x])
    plain = b.aiOnnx.abs([x])
    m = to_onnx(b)
    assert node_attrs(m, inner)["__ipu_number"] == 5
    assert (node_attrs(m, outer)["__ipu_number"], node_attrs(m, outer)["__pipeline_stage"],
            node_attrs(m, outer)["__execution_phase"]) == (1, 2, 3)
    assert node_attrs(m, prio)["__schedule_priority"] == 2.5
    assert node_attrs(m, prio)["__recompute_output_in_backward_pass"] == int(popart.RecomputeType.Recompute)
    assert node_attrs(m, loc)["__output_tensor_location"][0] == int(popart.TensorStorage.OffChip)
    assert node_attrs(m, outl)["__outline"] == [b"a", b"1", b"b", b"x"]
    assert node_attrs(m, comm)["__collectiveCommGroup"] == [1, 4]
    assert node_attrs(m, plain) == {}
    with pytest.raises(popart.popart_exception):
        b.getVirtualGraph()


def test_annotation_setters(built, to_onnx):
    b, x, y = built
    b.virtualGraph(y, 2)
    assert b.getVirtualGraph(y) == 2
    b.virtualGraph({y}, 3)
    assert b.getVirtualGraph([y]) == 3
    b.pipelineStage(y, 1)
    b.executionPhase(y, 4)
    b.setAvailableMemoryProportion(y, 0.3)
    b.setPartialsType(y, "HALF")
    assert b.getPartialsType(y) == "HALF"
    b.setEnableConvDithering(y, 1)
    b.setInplacePreferences(y, {"ReluInplace": 10.0})
    b.setSerializeMatMul({y}, "output_channels", 4, True)
    b.excludePatterns(y, ["InPlace"])
    b.recomputeOutputInBackwardPass(y)
    assert b.getRecomputeOutputInBackwardPass(y)
    b.setExecutionContext(y, popart.ExecutionContext.Subgraph)
    a = node_attrs(to_onnx(b), y)
    assert a["__pipeline_stage"] == 1 and a["__execution_phase"] == 4
    assert abs(a["__available_memory_proportion"] - 0.3) < 1e-7
    assert a["__partials_type"] == b"HALF" and a["__enable_conv_dithering"] == 1
    assert a["__inplace_op_names"] == [b"ReluInplace"] and a["__inplace_op_priorities"] == [10.0]
    assert a["__serialize_matmul_mode"] == b"output_channels" and a["__serialize_matmul_factor"] == 4
    assert a["__serialize_matmul_precision"] == 1
    assert a["__exclude_patterns"] == [b"InPlace"]
    assert a["__execution_context"] == int(popart.ExecutionContext.Subgraph)
    cp = b.checkpointOutput([y])
    assert b.getInt64NodeAttribute("__recompute_output_in_backward_pass", {cp[0]}) == 1
    with pytest.raises(popart.popart_exception):
        b.setAvailableMemoryProportion(y, 1.5)
    with pytest.raises(popart.popart_exception):
        b.setSerializeMatMul({y}, "diagonal")
    with pytest.raises(popart.popart_exception):
        b.setPartialsType(y, "INT8")


def test_settings_types():
    loc = popart.TensorLocation(popart.TensorStorage.OffChip, popart.TileSet.IO, popart.TileSet.Compute,
                                popart.ReplicatedTensorSharding.On)
    assert loc.serialize()[:4] == [1, 1, 0, 1]
    s = popart.InputSettings(popart.TileSet.IO, popart.ExchangeStrategy.OverlapLoops)
    assert s.tileSet() == popart.TileSet.IO
    assert popart.CommGroup(popart.CommGroupType.Orthogonal, 2).replicaGroupSize == 2
    assert popart.VariableSettings().getGroupCount(8) == 1
    assert int(popart.RecomputeType.Checkpoint) == 1
