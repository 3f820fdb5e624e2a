"""Custom-op libraries as a hostile user treats them: a library dlclose'd while
its op is registered stays usable (popart keeps it resident), and exceptions a
custom op's code throws (std::exception or anything else) from its
constructor, setup(), Opx or kernel become popart errors naming the op, never
a terminated process. Each case runs in a fresh interpreter, so that a
regression shows as a failed test rather than a dead test run."""
import os
import subprocess
import sys

import pytest


def in_subprocess(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=os.environ.copy(), timeout=120)


MODEL = """
import numpy as np, popart
def run_custom(op, attributes, x):
    b = popart.Builder()
    xi = b.addInputTensor(popart.TensorInfo("FLOAT", list(x.shape)))
    [y] = b.customOp(opName=op, opVersion=1, domain="custom.ops", inputs=[xi],
                     attributes=attributes, numOutputs=1, name="my" + op)
    b.addOutputTensor(y)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({xi: x}, anchors))
    return anchors[y]
"""


def mapped(path):
    return f"any({str(path)!r} in line for line in open('/proc/self/maps'))"


def test_dlclosed_library_keeps_its_ops_working(built):
    code = MODEL + f"""
import ctypes, _ctypes
lib = ctypes.CDLL({str(built.unload_op)!r})
assert {mapped(built.unload_op)}
_ctypes.dlclose(lib._handle)
print("still mapped:", {mapped(built.unload_op)})
x = np.arange(-3, 9, dtype=np.float32).reshape(3, 4)
y = run_custom("Triple", {{}}, x)
np.testing.assert_array_equal(y, 3 * x)
print("ok")
"""
    r = in_subprocess(code)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "still mapped: True" in r.stdout and "ok" in r.stdout


def test_library_loaded_and_closed_twice_stays_resident(built, tmp_path):
    # A second copy (another file) registers nothing new but is also kept; closing both handles
    # of the first copy many times never unmaps it.
    code = MODEL + f"""
import ctypes, _ctypes
for _ in range(3):
    lib = ctypes.CDLL({str(built.unload_op)!r})
    _ctypes.dlclose(lib._handle)
assert {mapped(built.unload_op)}
x = np.float32([1.5, -2.0])
np.testing.assert_array_equal(run_custom("Triple", {{}}, x), 3 * x)
print("ok")
"""
    r = in_subprocess(code)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "ok" in r.stdout


PLACES = ["constructor", "setup", "pattern", "opx", "grow", "run", "parallel"]


@pytest.mark.parametrize("what", ["std", "int"])
@pytest.mark.parametrize("where", PLACES)
def test_custom_op_exceptions_become_popart_errors(built, where, what):
    code = MODEL + f"""
import ctypes
ctypes.cdll.LoadLibrary({str(built.throwing_op)!r})
x = np.ones(50000, np.float32)
try:
    run_custom("Thrower", {{"where": {where!r}, "what": {what!r}}}, x)
    print("NO ERROR")
except popart.popart_exception as e:
    print("ERROR", type(e).__name__, e)
# the process is still usable afterwards
np.testing.assert_array_equal(run_custom("Thrower", {{"where": "nowhere", "what": "std"}}, x), x)
print("alive")
"""
    r = in_subprocess(code)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "alive" in r.stdout, r.stdout
    error = r.stdout.split("ERROR", 1)[1]
    assert "myThrower" in error and "custom.ops.Thrower" in error, error
    if what == "std":
        assert f"std::runtime_error: user code failed in {where}" in error, error
    else:
        assert "an exception of type int (not a std::exception)" in error, error
    if where in ("run", "parallel"):
        assert error.split()[0] == "popart_runtime_error", error
