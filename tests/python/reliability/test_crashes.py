# Hostile inputs that used to kill the process (SIGFPE, segfault): each case runs
# in a child process so a regression shows as a failed test, not a dead pytest.
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import popart

_ENV = dict(os.environ)


def _run_child(code):
    """Run `code` in a fresh interpreter; return (returncode, stdout+stderr)."""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=_ENV, timeout=120)
    return p.returncode, p.stdout + p.stderr


_PRELUDE = """
    import numpy as np, onnx, popart
    from onnx import helper, TensorProto
"""

_SESSION_WITH = """
    g = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("y", {ytype}, None)],
                          initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    try:
        popart.InferenceSession(fnModel=m.SerializeToString(),
                                dataFlow=popart.DataFlow(1, {{"y": popart.AnchorReturnType("All")}}),
                                deviceInfo=popart.DeviceManager().createCpuDevice())
        print("NO-ERROR")
    except popart.popart_exception as e:
        print("POPART-ERROR", type(e).__name__, str(e)[:300])
"""


def _check_popart_error(make, ytype="TensorProto.FLOAT", expect=""):
    code = textwrap.dedent(_PRELUDE) + textwrap.dedent(make) + textwrap.dedent(_SESSION_WITH.format(ytype=ytype))
    rc, out = _run_child(code)
    assert rc == 0, f"child died with {rc}: {out[-2000:]}"
    assert "POPART-ERROR" in out, out[-2000:]
    assert expect in out, out[-2000:]


@pytest.mark.parametrize("kind", ["initializer", "constant"])
def test_string_tensor_is_popart_error(kind):
    make = f"""
    t = helper.make_tensor("s", TensorProto.STRING, [2], [b"ab", b"cd"])
    if "{kind}" == "initializer":
        inits, nodes = [t], [helper.make_node("Identity", ["s"], ["y"])]
    else:
        inits, nodes = [], [helper.make_node("Constant", [], ["y"], value=t)]
    inputs = []
    """
    _check_popart_error(make, ytype="TensorProto.STRING", expect="STRING")


def test_undefined_tensor_is_popart_error():
    make = """
    t = onnx.TensorProto(name="u", data_type=0, dims=[2], raw_data=b"ab")
    inits, nodes, inputs = [t], [helper.make_node("Identity", ["u"], ["y"])], []
    """
    _check_popart_error(make)


def test_overflowing_initializer_dims_is_popart_error():
    # 2**62 * 4 elements wraps int64 to 0: the empty data used to pass the size
    # check and Gather read arbitrary memory.
    make = """
    t = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2**62, 4], raw_data=b"")
    idx = helper.make_tensor("i", TensorProto.INT64, [1], [3])
    inits = [t, idx]
    nodes = [helper.make_node("Gather", ["w", "i"], ["y"])]
    inputs = []
    """
    _check_popart_error(make, expect="overflow")


@pytest.mark.parametrize("shape", [[2**62, 4], [2**31, 2**31, 4], [2**61, 2]])
def test_tensor_info_overflow_from_python(shape):
    with pytest.raises(popart.popart_exception, match="overflow"):
        popart.TensorInfo("FLOAT", shape)


def test_tensor_info_byte_size_overflow_from_python():
    # 2**61 elements fit int64, their 8-byte size does not.
    with pytest.raises(popart.popart_exception, match="overflow"):
        popart.TensorInfo("INT64", [2**61])
    assert popart.TensorInfo("INT8", [2**61]).nelms() == 2**61


def test_tensor_info_large_but_valid():
    info = popart.TensorInfo("FLOAT", [2**20, 2**20])
    assert info.nelms() == 2**40
    assert info.nbytes() == 2**42
