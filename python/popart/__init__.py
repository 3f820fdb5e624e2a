"""popart-cpu: PopART's Python API running on the CPU.

The C++ core lives in libpopart.so and is reached through the popart_core
extension module; this package adds the conveniences PopART layers on top
(Builder, sessions, TensorInfo from numpy)."""
import os as _os
import warnings as _warnings


def _openmp_loaded() -> bool:
    try:
        with open("/proc/self/maps") as f:
            return "libgomp" in f.read()
    except OSError:
        return False


# Idle OpenMP workers spin briefly, then sleep: GOMP_SPINCOUNT=30000 keeps the
# hand-over between the parallel regions of one run() fast (sleeping workers
# cost a futex wake-up per region: 2x on a small MLP), and lets the workers
# sleep about 1 ms after run() returns (libgomp's default spins for ~10 ms, and
# a spinning pool steals the core the caller needs on a 2-core machine).
# The runtime reads this once, when it is loaded: if another library (torch
# ships the same libgomp.so.1) loaded it first, say how to get the same effect.
_SPINCOUNT = "30000"
if not {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"} & set(_os.environ):
    if _openmp_loaded():
        _warnings.warn("the OpenMP runtime was loaded before popart (e.g. by 'import torch'): its idle threads "
                       f"spin for long; set GOMP_SPINCOUNT={_SPINCOUNT} in the environment, or import popart first",
                       RuntimeWarning, stacklevel=2)
    _os.environ["GOMP_SPINCOUNT"] = _SPINCOUNT

from popart import _loader  # noqa: E402

_loader.preload()

import popart_core  # noqa: E402
from popart_core import (  # noqa: E402,F401
    DataType,
    popart_exception,
    popart_internal_exception,
    popart_runtime_error,
    packageHash,
    reservedAccl1Prefix,
    reservedAccl2Prefix,
    reservedAccl3Prefix,
    reservedAcclPrefix,
    reservedAccumPrefix,
    reservedDefaultScaledLearningRate0Prefix,
    reservedGradientPrefix,
    reservedLossScalingPrefix,
    reservedOptimizerPrefixes,
    reservedPrefixes,
    reservedRandomSeedPrefix,
    reservedSpecificScaledLearningRate0Prefix,
    reservedStepPrefix,
    reservedUpdatedVarPrefix,
    versionNumber,
    versionString,
)

from popart.errors import OutOfMemoryException  # noqa: E402,F401
from popart.debuginfo import DebugInfo, closePoplarDebugInfo, initializePoplarDebugInfo  # noqa: E402,F401
from popart import writer  # noqa: E402,F401
from popart.logger import getLogger  # noqa: E402,F401
from popart.tensorinfo import TensorInfo  # noqa: E402,F401

__version__ = versionString()


def _import_optional(name):
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _export_all(module):
    """Re-export public names of popart_core not already defined here."""
    g = globals()
    for name in dir(module):
        if not name.startswith("__") and name not in g:
            g[name] = getattr(module, name)


_export_all(popart_core)
for _mod in ("popart.builder", "popart.session"):
    _m = _import_optional(_mod)
    if _m is not None:
        for _name in getattr(_m, "__all__", []):
            globals()[_name] = getattr(_m, _name)
