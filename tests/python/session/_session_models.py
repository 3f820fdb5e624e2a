"""Small ONNX models and session helpers shared by the session tests."""
import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper as onh

import popart

F32 = onnx.TensorProto.FLOAT


def make_model(nodes, inputs, outputs, initializers=(), opset=11):
    """Serialised ModelProto. inputs/outputs: [(name, elem_type, shape or None)]."""
    graph = oh.make_graph(
        nodes, "session_test",
        [oh.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [oh.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=[onh.from_array(v, n) for n, v in initializers])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset)])
    model.ir_version = min(model.ir_version, 10)
    return model.SerializeToString()


def relu_model(shape=(2, 3), dtype=F32):
    """out = Relu(x)."""
    return make_model([oh.make_node("Relu", ["x"], ["out"])], [("x", dtype, list(shape))],
                      [("out", dtype, list(shape))])


def relu_add_model(shape=(2, 3), weight=None):
    """r = Relu(x); y = r + w (w a float weight); z = Relu(y). Intermediates: r, y."""
    w = weight if weight is not None else np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 10
    nodes = [oh.make_node("Relu", ["x"], ["r"], name="relu0"),
             oh.make_node("Add", ["r", "w"], ["y"], name="add0"),
             oh.make_node("Relu", ["y"], ["z"], name="relu1")]
    return make_model(nodes, [("x", F32, list(shape))], [("z", F32, list(shape))], [("w", w)]), w


def session(model, anchors, bps=1, art=None, options=None, device=None, patterns=None,
            input_shape_info=None, prepare=True):
    """InferenceSession on a CPU device; anchors: list (with `art`, default All) or dict."""
    if not isinstance(anchors, dict):
        anchors = {a: art or popart.AnchorReturnType("All") for a in anchors}
    s = popart.InferenceSession(model, popart.DataFlow(bps, anchors),
                                device or popart.DeviceManager().createCpuDevice(),
                                inputShapeInfo=input_shape_info, patterns=patterns,
                                userOptions=options)
    if prepare:
        s.prepareDevice()
    return s


def run(s, inputs):
    """One step; returns the anchor arrays."""
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO(inputs, out))
    return out


def relu(x):
    return np.maximum(x, 0)
