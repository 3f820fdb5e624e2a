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


# Idle OpenMP workers sleep instead of spinning: on a few cores a spinning pool
# steals the core the caller (or another framework) needs after run() returns.
# The runtime reads this once, when it is loaded: if another library (torch
# ships the same libgomp.so.1) loaded it first, say how to get the same effect.
if "OMP_WAIT_POLICY" not in _os.environ and _openmp_loaded():
    _warnings.warn("the OpenMP runtime was loaded before popart (e.g. by 'import torch'): its idle threads will "
                   "spin; set OMP_WAIT_POLICY=PASSIVE in the environment, or import popart first",
                   RuntimeWarning, stacklevel=2)
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

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
