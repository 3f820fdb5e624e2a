"""Pattern selection and the IdentityRemoval pattern."""
import json

import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart


def identity_chain_model():
    x = oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [3])
    y = oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [3])
    nodes = [oh.make_node("Relu", ["x"], ["a"]), oh.make_node("Identity", ["a"], ["b"]),
             oh.make_node("Relu", ["b"], ["y"])]
    return oh.make_model(oh.make_graph(nodes, "g", [x], [y]),
                         opset_imports=[oh.make_opsetid("", 11)]).SerializeToString()


def final_op_types(patterns):
    s = popart.InferenceSession(identity_chain_model(), popart.DataFlow(1, ["y"]),
                                popart.DeviceManager().createCpuDevice(), patterns=patterns)
    s.prepareDevice()
    out = s.initAnchorArrays()
    x = np.array([-1, 2, -3], np.float32)
    s.run(popart.PyStepIO({"x": x}, out))
    np.testing.assert_array_equal(out["y"], np.maximum(x, 0))
    graph = json.loads(s.getSerializedGraph())
    return [op["type"] for op in graph["maingraph"]]


def test_identity_removed_by_default():
    assert "Identity" not in final_op_types(popart.Patterns())


def test_identity_kept_without_patterns():
    assert "Identity" in final_op_types(popart.Patterns(popart.PatternsLevel.NoPatterns).enableRuntimeAsserts(False))


def test_identity_pattern_switch():
    p = popart.Patterns()
    p.enablePattern("IdentityRemoval", False)
    assert not p.isPatternEnabled("IdentityRemoval")
    assert "Identity" in final_op_types(p)


def test_inplace_switch():
    p = popart.Patterns(["InPlace"]).enableRuntimeAsserts(False)
    assert p.isInPlaceEnabled()
    assert "ReluInplace" in final_op_types(p)
    p.InPlace = False
    assert "ReluInplace" not in final_op_types(p)


def test_unknown_pattern():
    with pytest.raises(popart.popart_exception, match="unknown pattern 'NoSuchPattern'"):
        popart.Patterns().enablePattern("NoSuchPattern", True)
