"""popart makes idle OpenMP workers sleep soon (GOMP_SPINCOUNT=30000) unless the
user chose a policy, and warns when the OpenMP runtime was already loaded (too
late to set it)."""
import os
import subprocess
import sys

import pytest

import torch  # noqa: F401  (loaded first, as users do)


def _run(code, **env):
    full = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT"):
        full.pop(k, None)
    full.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=120)


def test_sets_spin_count_without_warning():
    p = _run("import popart, os; print(os.environ['GOMP_SPINCOUNT'])")
    assert p.returncode == 0 and p.stdout.strip() == "30000" and "RuntimeWarning" not in p.stderr


def test_warns_when_openmp_was_loaded_first():
    p = _run("import torch, popart")
    assert p.returncode == 0 and "GOMP_SPINCOUNT=30000" in p.stderr


@pytest.mark.parametrize("var,value", [("OMP_WAIT_POLICY", "ACTIVE"), ("GOMP_SPINCOUNT", "1000")])
def test_user_setting_is_kept_and_silences_the_warning(var, value):
    p = _run("import torch, popart, os; print(os.environ.get('GOMP_SPINCOUNT', 'unset'))", **{var: value})
    assert p.returncode == 0 and "RuntimeWarning" not in p.stderr
    assert p.stdout.strip() == (value if var == "GOMP_SPINCOUNT" else "unset")


def test_workers_sleep_soon_after_run():
    """In a fresh process with 2 threads: after run() the pool burns well under
    the 20 ms the caller then idles (libgomp's own default burns all of it)."""
    code = """
import time, numpy as np, popart
b = popart.Builder()
x = b.addInputTensor(popart.TensorInfo("FLOAT", [256, 256]))
y = b.aiOnnx.matmul([x, x])
s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), popart.DeviceManager().createCpuDevice())
s.prepareDevice()
a = s.initAnchorArrays()
io = popart.PyStepIO({x: np.ones((256, 256), np.float32)}, a)
burn = []
for _ in range(10):
    s.run(io)
    c0 = time.process_time()
    time.sleep(0.02)
    burn.append(time.process_time() - c0)
print(sorted(burn)[5] * 1e3)
"""
    p = _run(code, OMP_NUM_THREADS="2")
    assert p.returncode == 0, p.stderr
    assert float(p.stdout.strip()) < 8.0
