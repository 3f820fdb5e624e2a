"""Session methods beyond run(): host-weight sync flags, tensor ids, reports,
in-place checks, stream callbacks, executables and optimizer state in
modelToHost."""
import ctypes
import os

import numpy as np
import onnx
import pytest

import popart

ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
ctypes.pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def as_array(capsule, n, dtype=np.float32):
    ptr = ctypes.pythonapi.PyCapsule_GetPointer(capsule, None)
    return np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(np.ctypeslib.as_ctypes_type(dtype))), (n,))


def model(w0=None):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4]), "x")
    w = b.addInitializedInputTensor(np.arange(4, dtype=np.float32) if w0 is None else w0, "w")
    y = b.aiOnnx.mul([x, w], "y")
    loss = b.aiGraphcore.l1loss([y], 1.0, reduction=popart.ReductionType.Sum)
    return b.getModelProto(), y, loss


def training(proto, loss, optimizer=None, anchors=(), opts=None):
    opt = optimizer or popart.SGD({"defaultLearningRate": (0.1, False), "defaultMomentum": (0.9, True)})
    s = popart.TrainingSession(fnModel=proto, dataFlow=popart.DataFlow(1, list(anchors) or [loss]), loss=loss,
                               optimizer=opt, deviceInfo=popart.DeviceManager().createCpuDevice(),
                               userOptions=opts or popart.SessionOptions())
    s.prepareDevice()
    s.weightsFromHost()
    return s


def step(s, x=None):
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": np.ones(4, np.float32) if x is None else x}, a))
    return a


def weights(s):
    out = {"w": np.zeros(4, np.float32)}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO(out))
    return out["w"]


def test_host_weight_sync_flags():
    proto, y, loss = model()
    s = training(proto, loss)
    assert s.areHostWeightsInSync()
    step(s)
    assert not s.areHostWeightsInSync()
    s.copyDeviceWeightsToHost()
    assert s.areHostWeightsInSync()
    s.markHostWeightsOutOfSync()
    assert not s.areHostWeightsInSync()
    s.markHostWeightsInSync()
    assert s.areHostWeightsInSync()


def test_ids_report_and_inplace_check():
    proto, y, loss = model()
    s = training(proto, loss)
    step(s)
    ids = s.getAllTensorIds()
    assert {"x", "w", y, loss, "Gradient___w"} <= ids
    assert "memory" in s.getReport()
    s.checkInplacingAmbiguity()


def test_input_callback_changes_data():
    proto, y, loss = model()
    s = popart.InferenceSession(fnModel=proto, dataFlow=popart.DataFlow(1, [y]),
                                deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    seen = []

    def double(capsule):
        a = as_array(capsule, 4)
        seen.append(a.copy())
        a *= 2

    s.connectStreamToCallback("x", double, 0)
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": np.full(4, 3, np.float32)}, a))
    np.testing.assert_array_equal(seen[0], np.full(4, 3))
    np.testing.assert_array_equal(a[y], 6 * np.arange(4))


def test_gradient_callback_before_update():
    """Zeroing the gradient in its callback leaves the weight untouched (the
    all-reduce use case: gradients leave and come back before the update)."""
    proto, y, loss = model(np.arange(1, 5, dtype=np.float32))
    s = training(proto, loss, optimizer=popart.SGD({"defaultLearningRate": (0.1, False)}))
    grads = []

    def zero(capsule):
        g = as_array(capsule, 4)
        grads.append(g.copy())
        g[:] = 0

    s.connectStreamToCallback("Gradient___w", zero)
    step(s)
    np.testing.assert_array_equal(grads[0], np.ones(4))
    np.testing.assert_array_equal(weights(s), np.arange(1, 5))


def test_callback_errors():
    proto, y, loss = model()
    s = training(proto, loss)
    with pytest.raises(popart.popart_exception, match="no tensor 'nope'"):
        s.connectStreamToCallback("nope", lambda c: None)
    with pytest.raises(popart.popart_exception, match="replica index 3"):
        s.connectStreamToCallback("x", lambda c: None, 3)


def test_save_and_load_executable(tmp_path):
    proto, y, loss = model()
    s = training(proto, loss)
    step(s)
    trained = weights(s)
    path = str(tmp_path / "exe.bin")
    s.saveExecutable(path)
    fresh = training(proto, loss)
    fresh.loadExecutable(path)
    np.testing.assert_array_equal(weights(fresh), trained)
    # the same step from the same state gives the same weights
    step(s)
    step(fresh)
    np.testing.assert_array_equal(weights(fresh), weights(s))


def test_executable_directory_and_compile_and_export(tmp_path):
    proto, y, loss = model()
    s = popart.InferenceSession(fnModel=proto, dataFlow=popart.DataFlow(1, [y]),
                                deviceInfo=popart.DeviceManager().createCpuDevice(), name="mine")
    s.compileAndExport(str(tmp_path))
    assert os.path.exists(tmp_path / "mine.popart_cpu")
    s.loadExecutable(str(tmp_path / "mine.popart_cpu"))


def test_executable_errors(tmp_path):
    proto, y, loss = model()
    s = training(proto, loss)
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"not an executable")
    with pytest.raises(popart.popart_exception, match="not a popart-cpu executable"):
        s.loadExecutable(str(bad))
    other = popart.InferenceSession(fnModel=proto, dataFlow=popart.DataFlow(1, [y]),
                                    deviceInfo=popart.DeviceManager().createCpuDevice())
    other.prepareDevice()
    other.saveExecutable(str(tmp_path / "inf.bin"))
    with pytest.raises(popart.popart_exception, match="different model or options"):
        s.loadExecutable(str(tmp_path / "inf.bin"))


def test_engine_cache(tmp_path):
    proto, y, loss = model()
    opts = popart.SessionOptions()
    opts.enableEngineCaching = True
    opts.cachePath = str(tmp_path / "cache")
    s = training(proto, loss, opts=opts)
    s.updateEngineCache()
    assert len(os.listdir(tmp_path / "cache")) == 1


def test_model_to_host_resumes_optimizer_state(tmp_path):
    """modelToHost writes the momentum (Accl___w); a new session from that file
    continues exactly like the original."""
    proto, y, loss = model()
    s = training(proto, loss)
    rng = np.random.RandomState(0)
    xs = [rng.randn(4).astype(np.float32) for _ in range(3)]
    step(s, xs[0])
    step(s, xs[1])
    path = str(tmp_path / "trained.onnx")
    s.modelToHost(path)
    names = {t.name for t in onnx.load(path).graph.initializer}
    assert "w" in names and any(n.startswith("Accl___") for n in names)
    resumed = training(path, loss)
    step(s, xs[2])
    step(resumed, xs[2])
    np.testing.assert_allclose(weights(resumed), weights(s), rtol=1e-6)
    # resetHostWeights restores the state too
    reset = training(proto, loss)
    reset.resetHostWeights(path)
    step(reset, xs[2])
    np.testing.assert_allclose(weights(reset), weights(s), rtol=1e-6)
    # the trained weights alone (fresh momentum) give another result
    plain = training(proto, loss)
    saved = next(t for t in onnx.load(path).graph.initializer if t.name == "w")
    plain.writeWeights(popart.PyWeightsIO({"w": onnx.numpy_helper.to_array(saved).copy()}))
    plain.weightsFromHost()
    step(plain, xs[2])
    assert not np.allclose(weights(plain), weights(s))


@pytest.mark.parametrize("mode", ["Zeros", "RandomNormal", "RandomUniform"])
def test_synthetic_data(mode):
    proto, y, loss = model(np.ones(4, np.float32))
    opts = popart.SessionOptions()
    opts.syntheticDataMode = getattr(popart.SyntheticDataMode, mode)
    s = popart.InferenceSession(fnModel=proto, dataFlow=popart.DataFlow(200, [y]),
                                deviceInfo=popart.DeviceManager().createCpuDevice(), userOptions=opts)
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, a))  # no input data needed
    got = a[y]
    if mode == "Zeros":
        np.testing.assert_array_equal(got, 0)
    elif mode == "RandomNormal":
        assert abs(got.mean()) < 0.1 and abs(got.std() - 1) < 0.1
    else:
        assert got.min() >= -1 and got.max() < 1 and abs(got.mean()) < 0.1 and abs(got.std() - 0.577) < 0.05


def test_anchor_return_type_transfer_settings():
    art = popart.AnchorReturnType("All", popart.TileSet.IO, popart.ExchangeStrategy.OverlapInnerLoop)
    assert art.tileSet() == popart.TileSet.IO
    assert art.exchangeStrategy() == popart.ExchangeStrategy.OverlapInnerLoop
    art = popart.AnchorReturnType("EveryN", 2, popart.TileSet.Compute, popart.ExchangeStrategy.JustInTime)
    assert art.rp() == 2 and art.tileSet() == popart.TileSet.Compute
    plain = popart.AnchorReturnType("Final")
    assert plain.tileSet() == popart.TileSet.Compute
    assert plain.exchangeStrategy() == popart.ExchangeStrategy.JustInTime


@pytest.mark.parametrize("mode", ["Zeros", "RandomNormal"])
def test_synthetic_data_storage_types_are_zeros(mode):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("BFLOAT16", [3]), "x")
    y = b.aiOnnx.cast([x], "FLOAT")
    opts = popart.SessionOptions()
    opts.syntheticDataMode = getattr(popart.SyntheticDataMode, mode)
    s = popart.InferenceSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [y]),
                                deviceInfo=popart.DeviceManager().createCpuDevice(), userOptions=opts)
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, a))
    np.testing.assert_array_equal(a[y], np.zeros(3, np.float32))
