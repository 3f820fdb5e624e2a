"""PopART names around sessions: session.getIr() on both session cores,
popart.builder._BuilderCore, and gradient sums serialised as PopART's ai.onnx
Sum ops (named GradSum_<tensor>)."""
import json

import numpy as np
import pytest

import popart
import popart._internal.ir  # noqa: F401  (the class session.getIr() returns)


def _model():
    """x -> Relu -> (r*w, r+w) -> Add -> l1 loss: w and r both have two consumers."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3]), "x")
    w = b.addInitializedInputTensor(np.full((2, 3), 0.5, np.float32), "w")
    r = b.aiOnnx.relu([x])
    y = b.aiOnnx.add([b.aiOnnx.mul([r, w]), b.aiOnnx.add([r, w])])
    loss = b.aiGraphcore.l1loss([y], 1.0, reduction=popart.ReductionType.Sum)
    return b, x, w, loss


def _training(patterns=None):
    b, x, w, loss = _model()
    kw = {"patterns": patterns} if patterns is not None else {}
    s = popart.TrainingSession(fnModel=b.getModelProto(),
                               dataFlow=popart.DataFlow(1, {loss: popart.AnchorReturnType("All"),
                                                            popart.reservedGradientPrefix() + w:
                                                                popart.AnchorReturnType("All")}),
                               loss=loss, optimizer=popart.ConstSGD(0.1),
                               deviceInfo=popart.DeviceManager().createCpuDevice(), **kw)
    return s, x, w


def test_get_ir_on_both_session_cores():
    s, x, w = _training()
    ir = s.getIr()
    assert isinstance(ir, popart._internal.ir.Ir)
    ids = ir.getMainGraph().getTensorIds()
    assert w in ids and popart.reservedGradientPrefix() + w in ids
    b, x, w, loss = _model()
    inf = popart.InferenceSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [loss]),
                                  deviceInfo=popart.DeviceManager().createCpuDevice())
    inf_ids = inf.getIr().getMainGraph().getTensorIds()
    assert loss in inf_ids and popart.reservedGradientPrefix() + w not in inf_ids
    del inf
    assert s.getIr().getMainGraph().getTensorIds() == ids  # the same IR each call


def test_builder_core_import_path():
    from popart.builder import _BuilderCore
    assert _BuilderCore is popart.popart_core._BuilderCore
    assert isinstance(popart.Builder()._impl, _BuilderCore)


def test_gradient_sums_are_onnx_sums():
    s, x, w = _training()
    ops = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))["maingraph"]
    sums = [op for op in ops if op["type"] == "Sum"]
    assert sums and all(op["domain"] == "ai.onnx" for op in sums)
    assert {op["name"] for op in sums} >= {"GradSum_" + w}
    assert not [op for op in ops if op["type"] == "GradSum"]
    # SumToAdd (an All-level pattern) turns the two-input gradient sums into Adds.
    s2, _, _ = _training(popart.Patterns(popart.PatternsLevel.Default).enablePattern("SumToAdd", True))
    types = [op["type"] for op in json.loads(s2._serializeIr(popart.IrSerializationFormat.JSON))["maingraph"]]
    assert "Sum" not in types
    # Same gradient either way: d/dw sum(|r*w + r + w|) = r + 1 where everything is positive.
    xv = np.array([[1.0, 2.0, -1.0], [0.5, -3.0, 4.0]], np.float32)
    grads = []
    for sess in (s, s2):
        sess.prepareDevice()
        sess.weightsFromHost()
        anchors = sess.initAnchorArrays()
        sess.run(popart.PyStepIO({x: xv}, anchors))
        grads.append(anchors[popart.reservedGradientPrefix() + w])
    np.testing.assert_allclose(grads[0], np.maximum(xv, 0) + 1, rtol=1e-6)
    np.testing.assert_array_equal(grads[0], grads[1])


def test_experimental_settings_custom_transforms():
    opts = popart.SessionOptions()
    assert opts.experimentalSettings.customTransformApplierSettings == {}
    b, x, w, loss = _model()

    def make(settings):
        o = popart.SessionOptions()
        o.experimentalSettings.customTransformApplierSettings = settings
        assert o.experimentalSettings.customTransformApplierSettings == settings
        return popart.InferenceSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [loss]),
                                       deviceInfo=popart.DeviceManager().createCpuDevice(), userOptions=o)

    s = make({"Fwd0": ["Prune"], "Final": ["Prune"]})  # PopART's Prune, registered by name
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    xv = np.ones((2, 3), np.float32)
    s.run(popart.PyStepIO({x: xv}, anchors))
    np.testing.assert_allclose(anchors[loss], np.sum(np.abs(0.5 + 1.5)) * 6, rtol=1e-6)
    with pytest.raises(popart.popart_exception, match="no transform named 'MyTransform'.*Prune"):
        make({"Fwd0": ["MyTransform"]})
    with pytest.raises(popart.popart_exception, match="unknown checkpoint 'Backward'"):
        make({"Backward": ["Prune"]})
