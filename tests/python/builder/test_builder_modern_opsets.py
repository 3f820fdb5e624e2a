"""The Builder past PopART's opset 11: aiOnnxOpset12..21 from the same op
table, Builder(opsets={"ai.onnx": N}), continuing a loaded model at its own
opset, and the errors that explain misuse (unknown op names, missing model
files, custom ops in ONNX's own domains)."""
import math

import numpy as np
import onnx
import pytest
from onnx import helper

import popart


def run(proto, feeds, outputs):
    session = popart.InferenceSession(proto, popart.DataFlow(1, {o: popart.AnchorReturnType("All") for o in outputs}),
                                      popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    session.run(popart.PyStepIO(feeds, anchors))
    return anchors


@pytest.mark.parametrize("version", range(6, 22))
def test_every_opset_has_its_class(version):
    b = popart.Builder(opsets={"ai.onnx": version})
    opset = getattr(b, f"aiOnnxOpset{version}")
    assert type(opset).__name__ == f"AiOnnx{version}"
    assert b.aiOnnx is opset and b.aiOnnx.version == version
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]))
    b.addOutputTensor(b.aiOnnx.relu([x]))
    assert onnx.load_from_string(b.getModelProto()).opset_import[0].version == version


def test_unsupported_opset_names_the_range():
    with pytest.raises(ValueError, match="supported are 6 to 21"):
        popart.Builder(opsets={"ai.onnx": 22})


def test_signatures_follow_the_opset():
    b = popart.Builder(opsets={"ai.onnx": 20})
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 1, 3]))
    # opset 13+: Squeeze's axes are an input, no longer an attribute
    with pytest.raises(TypeError, match="unexpected argument 'axes'"):
        b.aiOnnxOpset13.squeeze([x], axes=[1])
    assert "axes" in popart.Builder(opsets={"ai.onnx": 11}).aiOnnxOpset11.squeeze.__doc__
    # Gelu first appears at opset 20
    assert hasattr(b.aiOnnxOpset20, "gelu")
    with pytest.raises(AttributeError, match="Gelu is not available in ai.onnx opset 19: it first appears in opset 20"):
        b.aiOnnxOpset19.gelu


def _gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / np.sqrt(2)))


def test_opset_20_ops_run_and_match_numpy():
    b = popart.Builder(opsets={"ai.onnx": 20})
    o = b.aiOnnx
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3, 4]), "x")
    scale = b.addInitializedInputTensor(np.linspace(0.5, 1.5, 4).astype(np.float32), "scale")
    bias = b.addInitializedInputTensor(np.linspace(-1, 1, 4).astype(np.float32), "bias")
    ln = o.layernormalization([x, scale, bias], 1, axis=-1, epsilon=1e-5)[0]
    g = o.gelu([ln])
    axes = o.constant(np.array([1], np.int64))
    mean = o.reducemean([g, axes], keepdims=0)  # opset 18+: axes are an input
    b.addOutputTensor(mean)
    assert b.getTensorShape(mean) == [2, 4]
    xv = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    mu, var = xv.mean(-1, keepdims=True), xv.var(-1, keepdims=True)
    ref_ln = (xv - mu) / np.sqrt(var + 1e-5) * np.linspace(0.5, 1.5, 4) + np.linspace(-1, 1, 4)
    expected = _gelu(ref_ln).mean(1)
    got = run(b.getModelProto(), {x: xv}, [mean])[mean]
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def _opset18_model():
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3])
    w = helper.make_tensor("w", onnx.TensorProto.FLOAT, [3], [0.5, -1.0, 2.0])
    graph = helper.make_graph([helper.make_node("Mul", ["x", "w"], ["y"])], "g", [x], [y], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()


def test_loaded_model_continues_at_its_own_opset():
    b = popart.Builder(modelProtoOrFilename=_opset18_model())
    assert b.aiOnnx.version == 18
    y = b.aiOnnx.reducesum(["y"], keepdims=0)  # opset 18 signature: no axes attribute
    b.addOutputTensor(y)
    m = onnx.load_from_string(b.getModelProto())
    assert [(o.domain, o.version) for o in m.opset_import if o.domain in ("", "ai.onnx")] == [("", 18)]
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = run(b.getModelProto(), {"x": xv}, [y])[y]
    np.testing.assert_allclose(got, (xv * [0.5, -1.0, 2.0]).sum(), rtol=1e-6)


def test_mixed_opsets_are_refused():
    b = popart.Builder(modelProtoOrFilename=_opset18_model())
    with pytest.raises(popart.popart_exception, match="Invalid opset version 11 for domain 'ai.onnx': "
                                                      "the model already uses version 18"):
        b.aiOnnxOpset11.relu(["y"])
    b2 = popart.Builder()
    x = b2.addInputTensor(popart.TensorInfo("FLOAT", [2]))
    b2.aiOnnxOpset10.relu([x])
    with pytest.raises(popart.popart_exception, match="already uses version 10"):
        b2.aiOnnxOpset9.relu([x])


def test_a_loss_added_to_an_opset_18_model_trains():
    b = popart.Builder(modelProtoOrFilename=_opset18_model())
    loss = b.aiGraphcore.identityloss([b.aiOnnx.reducesum(["y"], keepdims=0)])
    session = popart.TrainingSession(fnModel=b.getModelProto(), loss=loss, optimizer=popart.ConstSGD(0.1),
                                     dataFlow=popart.DataFlow(1, {loss: popart.AnchorReturnType("All")}),
                                     deviceInfo=popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    session.weightsFromHost()
    anchors = session.initAnchorArrays()
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    session.run(popart.PyStepIO({"x": xv}, anchors))
    w = np.empty(3, np.float32)
    session.weightsToHost()
    session.readWeights(popart.PyWeightsIO({"w": w}))
    np.testing.assert_allclose(w, np.array([0.5, -1.0, 2.0]) - 0.1 * xv.sum(0), rtol=1e-6)


# ---- errors that help ----

def test_unknown_op_suggests_the_closest():
    b = popart.Builder()
    with pytest.raises(AttributeError, match="no op 'reluu' — did you mean 'relu'\\?"):
        b.aiOnnx.reluu
    with pytest.raises(AttributeError, match="did you mean 'matmul'"):
        b.aiOnnx.matmull
    with pytest.raises(AttributeError, match="no op 'zzzqqq'$"):
        b.aiOnnx.zzzqqq


def test_unknown_op_type_through_add_op_suggests_the_closest():
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]))
    with pytest.raises(popart.popart_exception, match="no op 'Reluu' — did you mean 'Relu'\\?"):
        b._impl.addOp("ai.onnx", "Reluu", 11, [x], 1, {}, "")


def test_missing_model_file_says_it_does_not_exist(tmp_path):
    missing = str(tmp_path / "nothing_here.onnx")
    with pytest.raises(popart.popart_exception, match="model file '.*nothing_here.onnx' does not exist"):
        popart.Builder(modelProtoOrFilename=missing)
    with pytest.raises(popart.popart_exception, match="does not exist"):
        popart.InferenceSession(missing, popart.DataFlow(1, {}), popart.DeviceManager().createCpuDevice())


def test_model_file_by_name_loads(tmp_path):
    path = tmp_path / "m.onnx"
    path.write_bytes(_opset18_model())
    assert popart.Builder(modelProtoOrFilename=str(path)).aiOnnx.version == 18


def test_custom_op_in_an_onnx_domain_says_the_domain_pins_the_opset():
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]))
    with pytest.raises(popart.popart_exception,
                       match="customOp 'Cube': domain 'ai.onnx' pins the model's opset to version 11, "
                             "so an op of version 1 cannot be added there"):
        b.customOp(opName="Cube", opVersion=1, domain="ai.onnx", inputs=[x])
    # In its own domain the same op is fine.
    out = b.customOp(opName="Cube", opVersion=1, domain="com.acme", inputs=[x])
    assert len(out) == 1


# ---- PopART's per-opset signatures ----

def _run_one(b, x, y, xv):
    b.addOutputTensor(y)
    return run(b.getModelProto(), {x: xv}, [y])[y]


def test_opset6_clip_takes_max_then_min_attributes():
    b = popart.Builder(opsets={"ai.onnx": 6})
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [5]))
    y = b.aiOnnxOpset6.clip([x], 0.5, -0.25)  # positional: max, then min
    xv = np.linspace(-1, 1, 5).astype(np.float32)
    np.testing.assert_allclose(_run_one(b, x, y, xv), np.clip(xv, -0.25, 0.5))
    assert b.getTensorShape(y) == [5]


def test_opset6_pad_takes_pads_mode_value():
    b = popart.Builder(opsets={"ai.onnx": 6})
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3]))
    y = b.aiOnnxOpset6.pad([x], [0, 1, 1, 0], "constant", 9.0)
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(_run_one(b, x, y, xv), np.pad(xv, ((0, 1), (1, 0)), constant_values=9.0))
    assert b.getTensorShape(y) == [3, 4]


def test_opset10_resize_takes_two_inputs_and_mode():
    b = popart.Builder(opsets={"ai.onnx": 10})
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [1, 1, 2, 2]))
    scales = b.aiOnnxOpset10.constant(np.array([1, 1, 2, 2], np.float32))
    y = b.aiOnnxOpset10.resize([x, scales], "nearest")
    xv = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    np.testing.assert_allclose(_run_one(b, x, y, xv), xv.repeat(2, 2).repeat(2, 3))
    assert b.getTensorShape(y) == [1, 1, 4, 4]
    with pytest.raises(popart.popart_exception, match="expects 2 to 2 inputs, got 3"):
        b.aiOnnxOpset10.resize([x, scales, scales], "nearest")


def test_model_with_a_misspelt_op_suggests_the_closest():
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])
    graph = helper.make_graph([helper.make_node("Reluu", ["x"], ["y"])], "g", [x], [y])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    with pytest.raises(popart.popart_exception, match="op ai.onnx.Reluu \\(opset 13\\) is not registered "
                                                      "— did you mean 'Relu'\\?"):
        popart.InferenceSession(proto, popart.DataFlow(1, {"y": popart.AnchorReturnType("All")}),
                                popart.DeviceManager().createCpuDevice())
