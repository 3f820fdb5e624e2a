"""TensorInfo, DataType, versions, reserved names, exceptions and logging."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import popart


def test_version():
    assert popart.versionString() == popart.__version__
    assert len(popart.versionNumber()) == 3


def test_datatype_members():
    names = ["UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "UINT32", "UINT64", "BOOL",
             "FLOAT", "FLOAT16", "BFLOAT16", "FLOAT8_143", "FLOAT8_152", "DOUBLE", "COMPLEX64",
             "COMPLEX128", "STRING", "UNDEFINED"]
    for n in names:
        assert getattr(popart.DataType, n).name == n


@pytest.mark.parametrize("dtype,name,size", [(np.float32, "FLOAT", 4), (np.float16, "FLOAT16", 2),
                                             (np.int64, "INT64", 8), (np.bool_, "BOOL", 1),
                                             (np.uint8, "UINT8", 1), (np.float64, "DOUBLE", 8)])
def test_tensorinfo_from_numpy(dtype, name, size):
    a = np.zeros((2, 3, 4), dtype=dtype)
    ti = popart.TensorInfo(a)
    assert ti.data_type() == name
    assert ti.data_type_lcase() == name.lower()
    assert ti.shape() == [2, 3, 4]
    assert ti.rank() == 3 and ti.nelms() == 24 and ti.nbytes() == 24 * size
    assert ti.numpy_data_type() == np.dtype(dtype)
    assert popart.TensorInfo(dtype, [2, 3, 4]) == ti
    assert popart.TensorInfo(name, (2, 3, 4)) == ti
    assert popart.TensorInfo(getattr(popart.DataType, name), [2, 3, 4]).dataType() == getattr(popart.DataType, name)


def test_tensorinfo_errors():
    with pytest.raises(popart.popart_exception, match="unknown data type string 'FOO'"):
        popart.TensorInfo("FOO", [1])
    with pytest.raises(TypeError):
        popart.TensorInfo(np.complex256 if hasattr(np, "complex256") else object, [1])
    with pytest.raises(TypeError):
        popart.TensorInfo("FLOAT", 3)
    with pytest.raises(popart.popart_exception, match="non-negative"):
        popart.TensorInfo("FLOAT", [-1, 2])


def test_reserved_prefixes():
    assert popart.reservedGradientPrefix() == "Gradient___"
    assert popart.reservedGradientPrefix() in popart.reservedPrefixes()
    assert popart.reservedAccumPrefix() == "Accum___"


def test_exception_hierarchy():
    assert issubclass(popart.popart_internal_exception, popart.popart_exception)
    assert issubclass(popart.popart_runtime_error, popart.popart_exception)
    assert issubclass(popart.OutOfMemoryException, popart.popart_exception)
    e = popart.OutOfMemoryException(popart.popart_exception("too big"))
    assert "too big" in e.getSummaryReport() and e.getProfilePath() == ""


def run_python(code, env_extra):
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=60)


LOG_SNIPPET = """
import popart
popart.getLogger("ir")._log("info", "hello-ir")
popart.getLogger("session")._log("debug", "hello-session")
"""


def test_log_level_env_and_format():
    r = run_python(LOG_SNIPPET, {"POPART_LOG_LEVEL": "INFO"})
    assert r.returncode == 0, r.stderr
    assert "[popart:ir] [info] hello-ir" in r.stderr
    assert "hello-session" not in r.stderr  # debug < info


def test_log_dest_file(tmp_path):
    dest = tmp_path / "log.txt"
    r = run_python(LOG_SNIPPET, {"POPART_LOG_LEVEL": "TRACE", "POPART_LOG_DEST": str(dest)})
    assert r.returncode == 0, r.stderr
    text = dest.read_text()
    assert "hello-ir" in text and "hello-session" in text


def test_log_config_json(tmp_path):
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"session": "DEBUG"}))
    r = run_python(LOG_SNIPPET, {"POPART_LOG_CONFIG": str(cfg), "POPART_LOG_DEST": "stdout"})
    assert r.returncode == 0, r.stderr
    assert "hello-session" in r.stdout and "hello-ir" not in r.stdout


def test_get_logger_set_level():
    log = popart.getLogger("pattern")
    log.setLevel("WARN")
    assert log.getLevel() == "WARN"
    popart.getLogger().setLevel("OFF")
    assert popart.getLogger("ir").getLevel() == "OFF"
    with pytest.raises(popart.popart_exception, match="unknown log level"):
        log.setLevel("LOUD")
    with pytest.raises(popart.popart_exception, match="unknown log module"):
        popart.getLogger("nonsense")
