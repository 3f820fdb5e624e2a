"""Shared by the fusion tests: an ONNX graph made a training model (loss = sum of one tensor) and one
training step of it, with the op types of the prepared graph."""
import json

import onnx
import onnx.helper as oh

import popart


def loss_model(nodes, x, last, initializers):
    """The model of `nodes` (input "x" shaped like array `x`) with loss "loss" = sum of tensor `last`."""
    nodes = list(nodes) + [oh.make_node("ReduceSum", [last], ["s"], keepdims=0),
                           oh.make_node("IdentityLoss", ["s"], ["loss"], domain="ai.graphcore", reduction=0)]
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, list(x.shape))],
                          [oh.make_tensor_value_info("loss", onnx.TensorProto.FLOAT, [])], initializer=initializers)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11), oh.make_opsetid("ai.graphcore", 1)])


def train_step(model, anchors, x):
    """One step (learning rate 0) of `model` on input "x"; returns (anchor values, op types)."""
    s = popart.TrainingSession(model.SerializeToString(), popart.DataFlow(1, anchors), "loss", popart.ConstSGD(0.0),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, out))
    return out, [op["type"] for op in json.loads(s.getSerializedGraph())["maingraph"]]
