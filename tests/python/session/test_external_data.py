"""Weights kept in external files (ONNX external data), as PopART handles them:
Builder.saveInitializersExternally writes the file at once, sessions read it
(relative locations: from the working directory for a model given as bytes,
from the model's folder for a model file), modelToHost writes trained weights
back into the same file at the same offsets (atomically: a new file renamed
over the old one), and updateExternallySavedTensorLocations moves tensors to a
new file."""
import os

import numpy as np
import onnx
import pytest

import popart

SHAPE = (4, 4)
NBYTES = 16 * 4


def _model(tmp_path, location=None, optimizer_state=False):
    """x -> MatMul(W0) -> MatMul(W1) -> l1 loss; W0, W1 saved to `location` (default: absolute path)."""
    rng = np.random.RandomState(0)
    w = [rng.uniform(-1, 1, SHAPE).astype(np.float32) for _ in range(2)]
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", list(SHAPE)), "x")
    ids = [b.addInitializedInputTensor(v, f"W{i}") for i, v in enumerate(w)]
    y = b.aiOnnx.matmul([b.aiOnnx.matmul([x, ids[0]]), ids[1]])
    loss = b.aiGraphcore.l1loss([y], 0.1)
    location = location or str(tmp_path / "weights.bin")
    b.saveInitializersExternally(ids, location)
    return b, w, ids, y, loss, location


def _train(proto, loss, optimizer=None, steps=2):
    s = popart.TrainingSession(fnModel=proto, dataFlow=popart.DataFlow(1, {loss: popart.AnchorReturnType("All")}),
                               loss=loss, optimizer=optimizer or popart.ConstSGD(0.5),
                               deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    x = np.random.RandomState(1).uniform(-1, 1, SHAPE).astype(np.float32)
    for _ in range(steps):
        s.run(popart.PyStepIO({"x": x}, anchors))
    return s


def _weights(session):
    out = {f"W{i}": np.zeros(SHAPE, np.float32) for i in range(2)}
    session.weightsToHost()
    session.readWeights(popart.PyWeightsIO(out))
    return out


def _file_weights(path):
    return [np.fromfile(path, np.float32, count=16, offset=i * NBYTES).reshape(SHAPE) for i in range(2)]


def test_builder_writes_the_file_at_once(tmp_path):
    b, w, ids, _, _, location = _model(tmp_path)
    assert os.path.getsize(location) == 2 * NBYTES
    for got, want in zip(_file_weights(location), w):
        np.testing.assert_array_equal(got, want)
    m = onnx.load_from_string(b.getModelProto())
    for init in m.graph.initializer:
        assert init.data_location == onnx.TensorProto.EXTERNAL and not init.raw_data
    with pytest.raises(popart.popart_exception, match="'W0' already has an external data location"):
        b.saveInitializersExternally([ids[0]], str(tmp_path / "again.bin"))


def test_inference_from_bytes_and_from_file(tmp_path, monkeypatch):
    """Absolute location in bytes; relative location beside the model file (working directory elsewhere)."""
    b, w, _, y, _, _ = _model(tmp_path)
    x = np.eye(4, dtype=np.float32) * 2
    want = x @ w[0] @ w[1]

    def infer(model):
        s = popart.InferenceSession(fnModel=model, dataFlow=popart.DataFlow(1, {y: popart.AnchorReturnType("All")}),
                                    deviceInfo=popart.DeviceManager().createCpuDevice())
        s.prepareDevice()
        anchors = s.initAnchorArrays()
        s.run(popart.PyStepIO({"x": x}, anchors))
        return anchors[y]

    np.testing.assert_allclose(infer(b.getModelProto()), want, rtol=1e-6)
    folder = tmp_path / "m"
    folder.mkdir()
    monkeypatch.chdir(folder)
    b2, w2, _, y2, _, _ = _model(tmp_path, location="rel.bin")  # relative to the working directory
    assert (folder / "rel.bin").exists()
    b2.saveModelProto("model.onnx")
    monkeypatch.chdir(tmp_path)
    y = y2
    np.testing.assert_allclose(infer(str(folder / "model.onnx")), x @ w2[0] @ w2[1], rtol=1e-6)


def test_training_writes_weights_back_to_the_external_file(tmp_path):
    b, w, _, _, loss, location = _model(tmp_path)
    inode = os.stat(location).st_ino
    s = _train(b.getModelProto(), loss)
    trained = _weights(s)
    assert not np.allclose(trained["W0"], w[0])
    np.testing.assert_array_equal(_file_weights(location)[0], w[0])  # untouched until modelToHost
    out = str(tmp_path / "trained.onnx")
    s.modelToHost(out)
    assert os.path.getsize(location) == 2 * NBYTES
    for i, got in enumerate(_file_weights(location)):
        np.testing.assert_array_equal(got, trained[f"W{i}"])
    assert os.stat(location).st_ino != inode, "the file was rewritten in place, not replaced atomically"
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".") or f.endswith(".tmp")]
    saved = onnx.load(out, load_external_data=False)
    refs = {t.name: {e.key: e.value for e in t.external_data} for t in saved.graph.initializer}
    assert refs["W0"] == {"location": location, "offset": "0", "length": str(NBYTES)}
    assert refs["W1"]["offset"] == str(NBYTES)
    # The saved model loads with the trained weights (onnx.load refuses absolute locations).
    again = _train(out, loss, steps=0)
    np.testing.assert_array_equal(_weights(again)["W1"], trained["W1"])


def test_optimizer_state_stays_in_the_model(tmp_path):
    b, _, _, _, loss, location = _model(tmp_path)
    s = _train(b.getModelProto(), loss, popart.Adam({"defaultLearningRate": (0.01, False)}))
    out = str(tmp_path / "trained.onnx")
    s.modelToHost(out)
    assert os.path.getsize(location) == 2 * NBYTES
    saved = onnx.load(out, load_external_data=False)
    inline = {t.name for t in saved.graph.initializer if t.data_location != onnx.TensorProto.EXTERNAL}
    assert {"Accl1___W0", "Accl2___W1", "Step___W0"} <= inline


def test_update_externally_saved_tensor_locations(tmp_path):
    b, w, _, _, loss, location = _model(tmp_path)
    s = _train(b.getModelProto(), loss)
    trained = _weights(s)
    new = str(tmp_path / "moved.bin")
    s.updateExternallySavedTensorLocations(location, new)
    assert os.path.getsize(new) == 2 * NBYTES  # created at once, with the current weights
    for i, got in enumerate(_file_weights(new)):
        np.testing.assert_array_equal(got, trained[f"W{i}"])
    x = np.ones(SHAPE, np.float32)
    s.run(popart.PyStepIO({"x": x}, s.initAnchorArrays()))
    s.modelToHost(str(tmp_path / "trained.onnx"))
    now = _weights(s)
    for i, got in enumerate(_file_weights(new)):
        np.testing.assert_array_equal(got, now[f"W{i}"])
    for got, want in zip(_file_weights(location), w):  # the old file is left as it was
        np.testing.assert_array_equal(got, want)
    saved = onnx.load(str(tmp_path / "trained.onnx"), load_external_data=False)
    assert {e.value for t in saved.graph.initializer for e in t.external_data if e.key == "location"} == {new}


def test_update_locations_errors(tmp_path):
    b, _, _, y, loss, location = _model(tmp_path)
    s = _train(b.getModelProto(), loss, steps=0)
    taken = tmp_path / "taken.bin"
    taken.write_bytes(b"x")
    with pytest.raises(popart.popart_exception, match="'.*taken.bin' already exists"):
        s.updateExternallySavedTensorLocations(location, str(taken))
    with pytest.raises(popart.popart_exception, match="no tensor of the model is saved externally in 'nope.bin'.*weights.bin"):
        s.updateExternallySavedTensorLocations("nope.bin", str(tmp_path / "new.bin"))
    assert not (tmp_path / "new.bin").exists()
    inf = popart.InferenceSession(fnModel=b.getModelProto(),
                                  dataFlow=popart.DataFlow(1, {y: popart.AnchorReturnType("All")}),
                                  deviceInfo=popart.DeviceManager().createCpuDevice())
    inf.updateExternallySavedTensorLocations(location, str(tmp_path / "inf.bin"))
    assert os.path.getsize(tmp_path / "inf.bin") == 2 * NBYTES


def test_missing_external_file_is_named(tmp_path):
    b, _, _, _, loss, location = _model(tmp_path)
    proto = b.getModelProto()
    os.remove(location)
    with pytest.raises(popart.popart_exception, match="'W0' keeps its data in the external file '.*weights.bin'"):
        _train(proto, loss, steps=0)
    # The model can still be loaded and inspected without its data.
    assert popart.Builder(proto).getInputTensorIds() == ["x", "W0", "W1"]
