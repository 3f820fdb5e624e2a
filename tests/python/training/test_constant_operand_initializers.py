"""Initializers that feed operands the compiler must know (Dropout ratio and
training_mode, Clip bounds, Reshape shape, Pad pads, Resize scales, Slice
starts/ends, Reduce axes) are constants of any element type, as exporters
write them, never trainable weights; writing them is refused by name."""
import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import popart

F = onnx.TensorProto.FLOAT


def _model(nodes, inits, x_shape, y_shape, opset=18, out="y"):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, x_shape)],
                              [helper.make_tensor_value_info(out, F, y_shape)],
                              [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def clip_model():
    """y = Clip(x * w, lo, hi) with FLOAT initializers lo and hi (as torch's dynamo exporter writes clamp)."""
    nodes = [helper.make_node("Mul", ["x", "w"], ["xw"]), helper.make_node("Clip", ["xw", "lo", "hi"], ["y"])]
    inits = {"w": np.array([1.0, 2.0, -3.0], np.float32), "lo": np.array(-1.5, np.float32),
             "hi": np.array(2.5, np.float32)}
    return _model(nodes, inits, [2, 3], [2, 3])


def training_session(proto, out):
    b = popart.Builder(modelProtoOrFilename=proto)
    loss = b.aiGraphcore.l1loss([out], 1.0, reduction=popart.ReductionType.Sum)
    s = popart.TrainingSession(fnModel=b.getModelProto(), loss=loss, optimizer=popart.ConstSGD(0.1),
                               dataFlow=popart.DataFlow(1, {out: popart.AnchorReturnType("All")}),
                               deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    return s


def test_clip_bounds_are_constants_and_only_the_weight_trains():
    x = np.array([[1.0, 1.0, 1.0], [-2.0, 0.5, -0.25]], np.float32)
    s = training_session(clip_model(), "y")
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, anchors))
    w0 = np.array([1.0, 2.0, -3.0], np.float32)
    np.testing.assert_allclose(anchors["y"], np.clip(x * w0, -1.5, 2.5))
    # d|clip(xw)|/dw = sign(y) * x where the clip passes, 0 where it saturates
    xw = x * w0
    passes = (xw > -1.5) & (xw < 2.5)
    grad = (np.sign(np.clip(xw, -1.5, 2.5)) * x * passes).sum(0)
    got = {"w": np.empty(3, np.float32), "lo": np.empty((), np.float32)}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO({"w": got["w"]}))
    np.testing.assert_allclose(got["w"], w0 - 0.1 * grad, rtol=1e-6)
    # the bounds are not weights: writing them is refused by name, and nothing is written
    new_w = np.zeros(3, np.float32)
    with pytest.raises(popart.popart_exception, match="writeWeights: 'lo' is not a weight but a constant"):
        s.writeWeights(popart.PyWeightsIO({"w": new_w, "lo": np.array(0.0, np.float32)}))
    s.readWeights(popart.PyWeightsIO({"w": got["w"]}))
    np.testing.assert_allclose(got["w"], w0 - 0.1 * grad, rtol=1e-6)


def test_dropout_ratio_and_training_mode_initializers():
    """Dropout(x, ratio, training_mode) with a FLOAT ratio and a BOOL mode, as
    torch.onnx.export writes them: in inference (mode false) the op is identity."""
    nodes = [helper.make_node("Mul", ["x", "w"], ["xw"]),
             helper.make_node("Dropout", ["xw", "ratio", "mode"], ["y"])]
    inits = {"w": np.array([1.0, 2.0, 3.0], np.float32), "ratio": np.array(0.5, np.float32),
             "mode": np.array(False)}
    proto = _model(nodes, inits, [2, 3], [2, 3], opset=13)
    x = np.ones((2, 3), np.float32)
    s = popart.InferenceSession(proto, popart.DataFlow(1, {"y": popart.AnchorReturnType("All")}),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, anchors))
    np.testing.assert_allclose(anchors["y"], x * [1, 2, 3])
    with pytest.raises(popart.popart_exception, match="'ratio' is not a weight"):
        s.writeWeights(popart.PyWeightsIO({"ratio": np.array(0.1, np.float32)}))


def test_dropout_in_training_mode_drops_at_the_initializer_ratio():
    nodes = [helper.make_node("Mul", ["x", "w"], ["xw"]),
             helper.make_node("Dropout", ["xw", "ratio", "mode"], ["y"])]
    inits = {"w": np.ones(4096, np.float32), "ratio": np.array(0.25, np.float32), "mode": np.array(True)}
    proto = _model(nodes, inits, [4096], [4096], opset=13)
    s = training_session(proto, "y")
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": np.ones(4096, np.float32)}, anchors))
    y = anchors["y"]
    kept = y != 0
    assert abs(kept.mean() - 0.75) < 0.03
    np.testing.assert_allclose(y[kept], 1 / 0.75, rtol=1e-6)


@pytest.mark.parametrize("case", ["reshape", "pad", "resize", "slice", "reducesum", "expand"])
def test_float_or_int_operand_initializers_are_constants(case):
    """Shape-like operands stored as initializers (int64, or float for Resize
    scales and Pad's value): the model compiles and none of them is a weight."""
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    if case == "reshape":
        nodes, inits = [helper.make_node("Reshape", ["x", "s"], ["y"])], {"s": np.array([4, 2], np.int64)}
        expected = x.reshape(4, 2)
    elif case == "pad":
        nodes = [helper.make_node("Pad", ["x", "p", "v"], ["y"])]
        inits = {"p": np.array([0, 1, 0, 2], np.int64), "v": np.array(7.0, np.float32)}
        expected = np.pad(x, ((0, 0), (1, 2)), constant_values=7.0)
    elif case == "resize":
        nodes = [helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="nearest")]
        inits = {"sc": np.array([1.0, 2.0], np.float32)}
        expected = np.repeat(x, 2, axis=1)
    elif case == "slice":
        nodes = [helper.make_node("Slice", ["x", "st", "en", "ax"], ["y"])]
        inits = {"st": np.array([1], np.int64), "en": np.array([3], np.int64), "ax": np.array([1], np.int64)}
        expected = x[:, 1:3]
    elif case == "reducesum":
        nodes = [helper.make_node("ReduceSum", ["x", "ax"], ["y"], keepdims=0)]
        inits = {"ax": np.array([1], np.int64)}
        expected = x.sum(1)
    else:
        nodes, inits = [helper.make_node("Expand", ["x", "s"], ["y"])], {"s": np.array([3, 2, 4], np.int64)}
        expected = np.broadcast_to(x, (3, 2, 4))
    proto = _model(nodes, inits, [2, 4], list(expected.shape))
    s = popart.InferenceSession(proto, popart.DataFlow(1, {"y": popart.AnchorReturnType("All")}),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, anchors))
    np.testing.assert_allclose(anchors["y"], expected)
    name = next(iter(inits))
    with pytest.raises(popart.popart_exception, match=f"'{name}' is not a weight"):
        s.writeWeights(popart.PyWeightsIO({name: np.zeros_like(inits[name])}))


@pytest.mark.parametrize("how", ["specific", "clipnorm"])
def test_optimizer_naming_a_constant_operand_is_refused(how):
    b = popart.Builder(modelProtoOrFilename=clip_model())
    loss = b.aiGraphcore.l1loss(["y"], 1.0, reduction=popart.ReductionType.Sum)
    if how == "specific":
        opt = popart.SGD({"defaultLearningRate": (0.1, True)})
        opt.insertSpecific("hi", {"learningRate": (0.5, True)})
    else:
        opt = popart.SGD({"defaultLearningRate": (0.1, True)},
                         clip_norm_settings=[popart.ClipNormSettings.clipWeights(["w", "hi"], 1.0)])
    expected = ("optimizer .*'hi' is not a weight but a constant" if how == "specific"
                else "clip-norm group 0 names 'hi', which is not a trained weight")
    with pytest.raises(popart.popart_exception, match=expected):
        popart.TrainingSession(fnModel=b.getModelProto(), loss=loss, optimizer=opt,
                               dataFlow=popart.DataFlow(1, {}),
                               deviceInfo=popart.DeviceManager().createCpuDevice())
