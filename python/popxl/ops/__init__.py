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
from popxl.ops.var_updates import lamb_square  # noqa: F401,E402
from popxl.ops._conditional import ConditionalSiteInfo, conditional, conditional_with_info  # noqa: F401,E402
import importlib as _importlib  # noqa: E402
_importlib.import_module("popxl.ops.call")  # loaded now, so the function below keeps the name ops.call
from popxl.ops._call import call  # noqa: F811,E402
