"""popxl.ops: operations that add IR ops to the current graph."""
from popxl.ops._core import (  # noqa: F401
    add, add_, detach, div, greater, host_load, host_store, init, less, matmul,
    mul, negate, pow, relu, reshape, sub, transpose,
)
from popxl.ops._elementwise import (  # noqa: F401,E402
    abs, cos, equal, exp, log, log_softmax, logical_not, max, maximum, mean, min, minimum, prod, sigmoid, sin,
    softmax, sqrt, sum, tanh,
)
from popxl.ops._call import (  # noqa: F401,E402
    call, call_with_info, CallSiteInfo, repeat, repeat_with_info,
)
from popxl.ops import var_updates  # noqa: F401,E402
