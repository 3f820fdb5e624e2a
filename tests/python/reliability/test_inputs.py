"""Hostile model files: symlinked external data, invalid UTF-8 names."""
import os

import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart
from _reliability_models import model, session, vinfo


def _external_model(folder, location):
    t = onnx.TensorProto()
    t.name, t.data_type = "w", onnx.TensorProto.FLOAT
    t.dims.extend([2])
    t.data_location = onnx.TensorProto.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", location
    path = os.path.join(folder, "m.onnx")
    with open(path, "wb") as f:
        f.write(model([oh.make_node("Identity", ["w"], ["y"])], [], [vinfo("y")], [t]))
    return path


def test_external_data_inside_folder_loads(tmp_path):
    np.array([1.5, 2.5], np.float32).tofile(tmp_path / "w.bin")
    s = session(_external_model(str(tmp_path), "w.bin"), ["y"])
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, res))
    np.testing.assert_array_equal(res["y"], [1.5, 2.5])


def test_external_data_symlink_out_of_folder_rejected(tmp_path):
    outside = tmp_path / "secret.bin"
    np.array([7, 8], np.float32).tofile(outside)
    folder = tmp_path / "model"
    folder.mkdir()
    os.symlink(outside, folder / "w.bin")
    with pytest.raises(popart.popart_exception, match="outside the model folder"):
        session(_external_model(str(folder), "w.bin"), ["y"])


def test_external_data_symlink_to_etc_passwd_rejected(tmp_path):
    os.symlink("/etc/passwd", tmp_path / "w.bin")
    with pytest.raises(popart.popart_exception, match="outside the model folder"):
        session(_external_model(str(tmp_path), "w.bin"), ["y"])


def test_invalid_utf8_names_give_popart_error():
    proto = onnx.load_from_string(model([oh.make_node("Relu", ["x"], ["y"])], [vinfo("x")], [vinfo("y")]))
    raw = proto.SerializeToString().replace(b"\x0a\x01x", b"\x0a\x01\xff", 1)  # Relu's input "x" -> b"\xff"
    assert raw != proto.SerializeToString()
    with pytest.raises(popart.popart_exception) as info:
        session(raw, ["y"])
    assert "\\xff" in str(info.value)
