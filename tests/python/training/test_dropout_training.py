"""Dropout and ShapedDropout in a TrainingSession: masks are Bernoulli(1 - ratio),
kept values scaled by 1 / (1 - ratio), the gradient uses the forward's mask,
draws repeat for a given seed / RNG state and change between micro-batches."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart

_TYPES = {np.float32: onnx.TensorProto.FLOAT, np.float16: onnx.TensorProto.FLOAT16,
          np.float64: onnx.TensorProto.DOUBLE}


def _const(name, value):
    return oh.make_node("Constant", [], [name], value=onnx.numpy_helper.from_array(value, name))


def _session(x, ratio, dtype=np.float32, shape=None, bps=1, opset=13, train=True):
    """loss = sum(Dropout(w * x)); anchors y, the mask (Dropout) and dL/dw."""
    w = np.full(x.shape, 1.5, dtype)
    if shape is None:
        drop = oh.make_node("Dropout", ["h", "ratio"], ["y", "mask"]) if opset >= 12 else \
            oh.make_node("Dropout", ["h"], ["y", "mask"], ratio=ratio)
    else:
        drop = oh.make_node("ShapedDropout", ["h"], ["y"], domain="ai.graphcore", shape=shape, ratio=ratio)
    nodes = [_const("ratio", np.array(ratio, np.float32)), oh.make_node("Mul", ["w", "x"], ["h"]), drop,
             oh.make_node("IdentityLoss", ["y"], ["loss"], domain="ai.graphcore", reduction=0)]
    inits = [onnx.numpy_helper.from_array(w, "w")]
    graph = oh.make_graph(nodes, "drop", [oh.make_tensor_value_info("x", _TYPES[dtype], list(x.shape))],
                          [oh.make_tensor_value_info("loss", _TYPES[dtype], [])], initializer=inits)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset), oh.make_opsetid("ai.graphcore", 1)])
    model.ir_version = 8
    anchors = ["y", "Gradient___w"] + (["mask"] if shape is None else [])
    df = popart.DataFlow(bps, {a: popart.AnchorReturnType("All") for a in anchors})
    dev = popart.DeviceManager().createCpuDevice()
    if train:
        s = popart.TrainingSession(model.SerializeToString(), df, "loss", popart.ConstSGD(0.0), dev)
    else:
        s = popart.InferenceSession(model.SerializeToString(), popart.DataFlow(bps, ["y"]), dev)
    s.prepareDevice()
    s.weightsFromHost()
    return s


def _run(s, x):
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, res))
    return res


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("opset", [10, 13])
def test_mask_scale_and_gradient(dtype, opset):
    x = np.random.RandomState(0).uniform(1, 2, (64, 50)).astype(dtype)
    s = _session(x, 0.3, dtype, opset=opset)
    s.setRandomSeed(11)
    r = _run(s, x)
    keep = r["mask"].astype(bool)
    assert abs(1 - keep.mean() - 0.3) < 0.03
    tol = 2e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(r["y"].astype(np.float64), np.where(keep, 1.5 * x.astype(np.float64) / 0.7, 0),
                               rtol=tol, atol=tol)
    np.testing.assert_allclose(r["Gradient___w"].astype(np.float64), np.where(keep, x.astype(np.float64) / 0.7, 0),
                               rtol=tol, atol=tol)


def test_seed_reproduces_and_steps_differ():
    x = np.ones((8, 32), np.float32)
    s = _session(x, 0.5, bps=3)
    s.setRandomSeed(5)
    a = _run(s, np.ones((3, 8, 32), np.float32))["mask"]
    assert not np.array_equal(a[0], a[1]) and not np.array_equal(a[1], a[2])
    state = s.getRNGState()
    b = _run(s, np.ones((3, 8, 32), np.float32))["mask"]
    assert not np.array_equal(a, b)
    s.setRNGState(state)
    np.testing.assert_array_equal(_run(s, np.ones((3, 8, 32), np.float32))["mask"], b)
    s.setRandomSeed(5)
    np.testing.assert_array_equal(_run(s, np.ones((3, 8, 32), np.float32))["mask"], a)
    s.setRandomSeed(6)
    assert not np.array_equal(_run(s, np.ones((3, 8, 32), np.float32))["mask"], a)


def test_other_session_same_seed_same_masks():
    x = np.ones((4, 16), np.float32)
    masks = []
    for _ in range(2):
        s = _session(x, 0.5)
        s.setRandomSeed(99)
        masks.append(_run(s, x)["mask"])
    np.testing.assert_array_equal(masks[0], masks[1])


def test_inference_is_identity():
    x = np.random.RandomState(1).randn(4, 5).astype(np.float32)
    s = _session(x, 0.5, train=False)
    np.testing.assert_array_equal(_run(s, x)["y"], 1.5 * x)


def test_training_mode_false_input_disables():
    x = np.ones((4, 8), np.float32)
    nodes = [_const("ratio", np.array(0.5, np.float32)), _const("tm", np.array(False)),
             oh.make_node("Mul", ["w", "x"], ["h"]),
             oh.make_node("Dropout", ["h", "ratio", "tm"], ["y"]),
             oh.make_node("IdentityLoss", ["y"], ["loss"], domain="ai.graphcore", reduction=0)]
    inits = [onnx.numpy_helper.from_array(np.ones((4, 8), np.float32), "w")]
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [4, 8])],
                          [oh.make_tensor_value_info("loss", onnx.TensorProto.FLOAT, [])], initializer=inits)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13), oh.make_opsetid("ai.graphcore", 1)])
    s = popart.TrainingSession(model.SerializeToString(), popart.DataFlow(1, ["y", "Gradient___w"]), "loss",
                               popart.ConstSGD(0.0), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    r = _run(s, x)
    np.testing.assert_array_equal(r["y"], x)
    np.testing.assert_array_equal(r["Gradient___w"], x)


def test_shaped_dropout_broadcasts_mask():
    x = np.random.RandomState(2).uniform(1, 2, (6, 40)).astype(np.float32)
    s = _session(x, 0.5, shape=[1, 40])
    s.setRandomSeed(3)
    r = _run(s, x)
    keep = r["y"] != 0
    assert (keep == keep[0]).all() and 5 < keep[0].sum() < 35
    np.testing.assert_allclose(r["y"], np.where(keep, 3 * x, 0), rtol=1e-6)
    np.testing.assert_allclose(r["Gradient___w"], np.where(keep, 2 * x, 0), rtol=1e-6)


def test_shaped_dropout_bad_shape():
    x = np.ones((6, 40), np.float32)
    with pytest.raises(popart.popart_exception, match="'shape'"):
        _session(x, 0.5, shape=[3, 40])
