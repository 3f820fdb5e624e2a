"""Small helpers shared by the reliability tests: build ONNX models and run them in-process."""
import numpy as np
import onnx
import onnx.helper as oh

import popart


def model(nodes, inputs, outputs, initializers=(), opset=13):
    """Serialised ONNX model from helper-made nodes and value infos."""
    g = oh.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return oh.make_model(g, opset_imports=[oh.make_opsetid("", opset)]).SerializeToString()


def vinfo(name, dtype=onnx.TensorProto.FLOAT, shape=(2,)):
    """A value info of the given ONNX type and shape."""
    return oh.make_tensor_value_info(name, dtype, list(shape))


def session(proto, anchors, training=False):
    """A prepared InferenceSession on the CPU device."""
    s = popart.InferenceSession(proto, popart.DataFlow(1, list(anchors)), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    return s


def run(proto, feeds, anchors):
    """Build, prepare and run once; returns the anchor arrays."""
    s = session(proto, anchors)
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, res))
    return res
