"""Memory a process no longer needs is given back.

- Code pages only the libraries' start-up touched are released at import
  (cpu/startup_pages.cpp): the resident code of libdnnl must shrink against a
  process that keeps it (POPART_KEEP_STARTUP_PAGES=1), and sessions compute the same.
- The heap pages that building the IR freed (the model file's bytes, the
  parse's temporaries) are returned at prepareDevice (session.cpp).

Each case runs in a fresh interpreter: both happen once per process or session
and depend on what the process did before.
"""
import json
import os
import subprocess
import sys

import numpy as np

CHILD = r"""
import json, re, sys
import numpy as np

def text_kib(library):
    # Resident KiB of the library's executable mappings.
    total, current = 0, False
    with open("/proc/self/smaps") as f:
        for line in f:
            m = re.match(r"^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(\S*)$", line)
            if m:
                current = m.group(1) == "r-xp" and library in m.group(2)
            elif current and line.startswith("Rss:"):
                total += int(line.split()[1])
    return total

def status_kib(field):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(field + ":"))

import popart
result = {"import": text_kib("libdnnl"), "popart_import": text_kib("libpopart")}
if sys.argv[1] == "run":
    rng = np.random.RandomState(0)
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [8, 32]), "x")
    w = b.addInitializedInputTensor(rng.standard_normal((32, 16)).astype(np.float32))
    y = b.aiOnnx.relu([b.aiOnnx.matmul([x, w])])
    s = popart.InferenceSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, {y: popart.AnchorReturnType("All")}),
                                deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: rng.standard_normal((8, 32)).astype(np.float32)}, anchors))
    result["after_run"] = text_kib("libdnnl")
    result["rss"] = status_kib("VmRSS")
    result["y"] = anchors[y].tolist()
print(json.dumps(result))
"""


FROM_FILE = r"""
import json, os, sys, numpy as np
def rss_mib():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:")) / 1024
import popart
rng = np.random.RandomState(0)
b = popart.Builder()
x = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 1024]), "x")
h = x
for i in range(6):  # 6 x 4 MiB of weights
    w = b.addInitializedInputTensor(rng.standard_normal((1024, 1024)).astype(np.float32) * 0.03)
    h = b.aiOnnx.relu([b.aiOnnx.matmul([h, w])])
path = os.path.join(sys.argv[1], "model.onnx")
b.saveModelProto(path)
del b
base = rss_mib()
s = popart.InferenceSession(fnModel=path, dataFlow=popart.DataFlow(1, {h: popart.AnchorReturnType("All")}),
                            deviceInfo=popart.DeviceManager().createCpuDevice())
s.prepareDevice()
print(json.dumps({"growth": rss_mib() - base}))
"""


def child(mode, keep=None):
    env = dict(os.environ)
    env.pop("POPART_KEEP_STARTUP_PAGES", None)
    if keep is not None:
        env["POPART_KEEP_STARTUP_PAGES"] = keep
    p = subprocess.run([sys.executable, "-c", CHILD, mode], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_import_releases_the_start_up_code_of_libdnnl_and_popart():
    kept, released = child("import", keep="1"), child("import")
    assert kept["import"] > 2048, kept  # libdnnl's static initialisers fault in megabytes of its code
    assert released["import"] <= kept["import"] // 2, (released, kept)
    assert kept["import"] - released["import"] >= 2048, (released, kept)
    assert released["popart_import"] < kept["popart_import"], (released, kept)


def test_a_session_after_the_release_computes_the_same_with_less_resident_memory():
    kept, released = child("run", keep="1"), child("run")
    np.testing.assert_array_equal(np.array(released["y"]), np.array(kept["y"]))
    # The code a session runs comes back; what only start-up touched does not.
    assert released["after_run"] <= kept["after_run"] - 2048, (released, kept)
    assert released["rss"] <= kept["rss"] - 2048, (released, kept)


def test_keep_zero_still_releases():
    assert child("import", keep="0")["import"] <= child("import", keep="1")["import"] // 2


def test_prepare_device_returns_the_heap_pages_the_model_load_freed(tmp_path):
    # The weights are held twice after prepareDevice (the host copy and the matmuls' packed layout):
    # 48 MiB. Without the trim the freed file bytes and parse temporaries stayed resident (71 MiB measured).
    p = subprocess.run([sys.executable, "-c", FROM_FILE, str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    growth = json.loads(p.stdout.strip().splitlines()[-1])["growth"]
    assert growth < 2 * 24 + 10, growth
