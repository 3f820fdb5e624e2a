"""popart._internal.ir: the IR classes (Ir, Graph, Tensor, Op, ...) bound from C++.

PopXL is a thin layer over this module; code reaching below PopXL's public API
uses it as in PopART."""
import popart  # noqa: F401  (loads the native libraries first)
import popart_core as _core

globals().update({k: v for k, v in vars(_core._ir).items() if not k.startswith("__")})
from popart._internal.ir._py_types import GraphId, ReplicaGrouping, Scope  # noqa: F401,E402
from popart._internal.ir import op  # noqa: F401,E402  (one class per op type)
