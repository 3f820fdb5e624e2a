"""popart sets OMP_WAIT_POLICY=PASSIVE unless the user chose a policy, and warns
when the OpenMP runtime was already loaded (too late to set it)."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")


def _run(code, **env):
    full = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    full.pop("OMP_WAIT_POLICY", None)
    full.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=120)


def test_sets_passive_policy_without_warning():
    p = _run("import popart, os; print(os.environ['OMP_WAIT_POLICY'])")
    assert p.returncode == 0 and p.stdout.strip() == "PASSIVE" and "RuntimeWarning" not in p.stderr


def test_warns_when_openmp_was_loaded_first():
    p = _run("import torch, popart")
    assert p.returncode == 0 and "OMP_WAIT_POLICY=PASSIVE" in p.stderr


def test_user_policy_is_kept_and_silences_the_warning():
    p = _run("import torch, popart, os; print(os.environ['OMP_WAIT_POLICY'])", OMP_WAIT_POLICY="ACTIVE")
    assert p.returncode == 0 and p.stdout.strip() == "ACTIVE" and "RuntimeWarning" not in p.stderr
