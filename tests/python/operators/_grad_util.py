"""Helpers for the data-movement gradient tests: dtype tolerances and a
multi-node training model whose weight gradients are read back."""
import numpy as np
import onnx
import onnx.helper as oh

import popart

_ONNX = {np.dtype(np.float32): onnx.TensorProto.FLOAT, np.dtype(np.float16): onnx.TensorProto.FLOAT16,
         np.dtype(np.float64): onnx.TensorProto.DOUBLE}


def tol(dtype):
    """check_grad tolerances: float16 cotangents and sums round at ~1e-3."""
    return {"rtol": 5e-3, "atol": 5e-3} if np.dtype(dtype) == np.float16 else {}


def weight_grads(nodes, weights, loss, opset=13, wrt=None, anchors=()):
    """Trains `nodes` (ONNX nodes ending in scalar tensor `loss`) for one step
    with learning rate 0; returns {weight name: its gradient} for the weights
    in `wrt` (default: all), and {name: value} for the tensors in `anchors`."""
    dtype = next(iter(weights.values())).dtype
    inits = [onnx.numpy_helper.from_array(v, k) for k, v in weights.items()]
    graph = oh.make_graph(nodes, "grad_test", [], [oh.make_tensor_value_info(loss, _ONNX[dtype], [])],
                          initializer=inits)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset), oh.make_opsetid("ai.graphcore", 1)])
    model.ir_version = min(model.ir_version, 10)
    wrt = list(weights) if wrt is None else wrt
    names = [popart.reservedGradientPrefix() + k for k in wrt] + list(anchors)
    s = popart.TrainingSession(model.SerializeToString(), popart.DataFlow(1, names), loss, popart.ConstSGD(0.0),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, res))
    return {**{k: res[popart.reservedGradientPrefix() + k] for k in wrt}, **{k: res[k] for k in anchors}}


def weighted_loss(out, cot, loss="loss"):
    """Nodes computing loss = sum(out * cot) for a constant cotangent array."""
    return [oh.make_node("Constant", [], [out + "_cot"], value=onnx.numpy_helper.from_array(cot, out + "_cot")),
            oh.make_node("Mul", [out, out + "_cot"], [out + "_weighted"]),
            oh.make_node("IdentityLoss", [out + "_weighted"], [loss], domain="ai.graphcore", reduction=0)]
