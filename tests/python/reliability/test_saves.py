"""Writers report I/O errors and never destroy the previous file; loads are checked before anything changes."""
import os
import resource
import signal

import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart
from _reliability_models import model, vinfo


def _training_session():
    w = oh.make_tensor("w", onnx.TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])
    nodes = [oh.make_node("Mul", ["x", "w"], ["y"]), oh.make_node("ReduceSum", ["y"], ["l"], keepdims=0)]
    proto = model(nodes, [vinfo("x", shape=(4,))], [vinfo("l", shape=())], [w])
    s = popart.TrainingSession(proto, popart.DataFlow(1, ["l"]), "l", popart.SGD({"defaultLearningRate": (0.1, False)}),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    return s


def _step(s):
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": np.ones(4, np.float32)}, res))


def _weights(s):
    out = {"w": np.zeros(4, np.float32)}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO(out))
    return out["w"]


@pytest.mark.parametrize("writer", ["modelToHost", "saveExecutable", "saveVariables"])
def test_full_disk_is_reported(writer):
    s = _training_session()
    with pytest.raises(popart.popart_exception, match="No space|write"):
        getattr(s, writer)("/dev/full")


@pytest.mark.parametrize("writer", ["modelToHost", "saveExecutable"])
def test_unwritable_folder_is_reported(writer):
    s = _training_session()
    with pytest.raises(popart.popart_exception):
        getattr(s, writer)("/proc/popart_reliability_test/file.bin")


def test_builder_save_to_full_disk_raises(tmp_path):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]))
    b.addOutputTensor(b.aiOnnx.relu([x]))
    with pytest.raises(OSError):
        b.saveModelProto("/dev/full")
    b.saveModelProto(str(tmp_path / "m.onnx"))
    assert onnx.load(str(tmp_path / "m.onnx")).graph.node
    assert os.listdir(tmp_path) == ["m.onnx"]  # no temporary file left behind


@pytest.mark.parametrize("writer", ["modelToHost", "saveExecutable"])
def test_failed_save_keeps_previous_file(tmp_path, writer):
    s = _training_session()
    path = str(tmp_path / "ckpt")
    getattr(s, writer)(path)
    before = open(path, "rb").read()
    _step(s)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    old_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) // 2, old_limit[1]))
    try:
        with pytest.raises(popart.popart_exception):
            getattr(s, writer)(path)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
        signal.signal(signal.SIGXFSZ, old_handler)
    assert open(path, "rb").read() == before
    assert os.listdir(tmp_path) == ["ckpt"]


def _saved_executable(tmp_path):
    s = _training_session()
    path = str(tmp_path / "exe")
    s.saveExecutable(path)
    return s, path


def _corruptions(data):
    n = len(data)
    yield "truncated", data[: n - 3]
    yield "trailing", data + b"\0junk"
    for pos in [20, 30, n // 2, n - 12, n - 1]:
        b = bytearray(data)
        b[pos] ^= 0x10
        yield f"flip{pos}", bytes(b)
    b = bytearray(data)
    b[23 + 8:23 + 16] = (2**62).to_bytes(8, "little")  # huge variable count / length field
    yield "huge-length", bytes(b)


def test_corrupt_executables_rejected_and_weights_untouched(tmp_path):
    s, path = _saved_executable(tmp_path)
    data = open(path, "rb").read()
    _step(s)
    trained = _weights(s)
    for name, bad in _corruptions(data):
        open(path, "wb").write(bad)
        with pytest.raises(popart.popart_exception):
            s.loadExecutable(path)
        np.testing.assert_array_equal(_weights(s), trained, err_msg=name)
    open(path, "wb").write(data)
    s.loadExecutable(path)
    np.testing.assert_array_equal(_weights(s), [1, 2, 3, 4])
