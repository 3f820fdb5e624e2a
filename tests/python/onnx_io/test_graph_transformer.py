"""popart.GraphTransformer: each model rewrite checked with the onnx package, and the
rewritten models run to the same (or half-precision) results; the SessionOptions
buffering-depth names of PopART 3."""
import os

import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper as onh
import pytest

import popart

F32 = onnx.TensorProto.FLOAT
W = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
IDX = np.array([2, 0], np.int64)


def model():
    nodes = [oh.make_node("Add", ["x", "w"], ["a"]), oh.make_node("Gather", ["a", "idx"], ["y"], axis=1)]
    g = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", F32, [2, 3]),
                                   oh.make_tensor_value_info("unused", F32, [4])],
                      [oh.make_tensor_value_info("y", F32, [2, 2])],
                      initializer=[onh.from_array(W, "w"), onh.from_array(IDX, "idx")])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 11)])
    m.ir_version = 6
    return m.SerializeToString()


def run(proto, x):
    s = popart.InferenceSession(proto, popart.DataFlow(1, ["y"]), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    out = s.initAnchorArrays()
    feeds = {"x": x}
    if "unused" in [i.name for i in onnx.load_from_string(proto).graph.input]:
        feeds["unused"] = np.zeros(4, x.dtype)
    s.run(popart.PyStepIO(feeds, out))
    return out["y"]


X = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
REF = (X + W)[:, IDX]


def test_round_trip_and_remove_unused_inputs():
    gt = popart.GraphTransformer(model())
    assert onnx.load_from_string(gt.getModelProto()) == onnx.load_from_string(model())
    gt.removeUnusedInputs()
    m = onnx.load_from_string(gt.getModelProto())
    assert [i.name for i in m.graph.input] == ["x"]
    np.testing.assert_array_equal(run(gt.getModelProto(), X), REF)


def test_convert_initializers_to_constants():
    gt = popart.GraphTransformer(model())
    gt.convertInitializersToConstants(["w"])
    m = onnx.load_from_string(gt.getModelProto())
    assert [t.name for t in m.graph.initializer] == ["idx"]
    const = next(n for n in m.graph.node if n.op_type == "Constant")
    np.testing.assert_array_equal(onh.to_array(const.attribute[0].t), W)
    np.testing.assert_array_equal(run(gt.getModelProto(), X), REF)
    with pytest.raises(popart.popart_exception, match="'nope' is not an initializer"):
        gt.convertInitializersToConstants(["nope"])


def test_convert_fixed_point_initializers_to_constants():
    gt = popart.GraphTransformer(model())
    gt.convertAllFixedPointInitializersToConstants()
    m = onnx.load_from_string(gt.getModelProto())
    assert [t.name for t in m.graph.initializer] == ["w"]
    assert [n.output[0] for n in m.graph.node if n.op_type == "Constant"] == ["idx"]
    np.testing.assert_array_equal(run(gt.getModelProto(), X), REF)


def test_convert_floats_to_halfs():
    gt = popart.GraphTransformer(model())
    gt.convertFloatsToHalfs()
    m = onnx.load_from_string(gt.getModelProto())
    assert m.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT16
    w = next(t for t in m.graph.initializer if t.name == "w")
    assert onh.to_array(w).dtype == np.float16
    np.testing.assert_array_equal(onh.to_array(w), W.astype(np.float16))
    y = run(gt.getModelProto(), X.astype(np.float16))
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y, (X.astype(np.float16) + W.astype(np.float16))[:, IDX])


def test_prepare_nodes_for_training():
    nodes = [oh.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn")]
    g = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", F32, [2, 3, 4, 4])],
                      [oh.make_tensor_value_info("y", F32, [2, 3, 4, 4])],
                      initializer=[onh.from_array(np.ones(3, np.float32), n) for n in "sbmv"])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 7)])
    gt = popart.GraphTransformer(m.SerializeToString())
    gt.prepareNodesForTraining()
    out = onnx.load_from_string(gt.getModelProto())
    assert len(out.graph.node[0].output) == 5 and out.graph.node[0].output[0] == "y"


def test_save_initializers_externally_and_load_from_file(tmp_path):
    os.chdir(tmp_path)
    gt = popart.GraphTransformer(model())
    gt.saveInitializersExternally(["w"], "w.bin")
    with open("w.bin", "rb") as f:
        assert f.read() == W.tobytes()
    with open("m.onnx", "wb") as f:
        f.write(gt.getModelProto())
    m = onnx.load("m.onnx")
    np.testing.assert_array_equal(onh.to_array(next(t for t in m.graph.initializer if t.name == "w")), W)
    again = popart.GraphTransformer(str(tmp_path / "m.onnx"))
    np.testing.assert_array_equal(run(again.getModelProto(), X), REF)


def test_buffering_depth_option_names():
    o = popart.SessionOptions()
    assert o.defaultBufferingDepth == o.defaultPrefetchBufferingDepth == 1
    o.defaultBufferingDepth = 3
    o.bufferingDepthMap = {"x": 2}
    assert o.defaultPrefetchBufferingDepth == 3 and o.prefetchBufferingDepthMap == {"x": 2}
    assert o.getPrefetchBufferingDepth("x", 1) == 2
