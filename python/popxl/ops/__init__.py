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
from popxl.ops._float8 import (  # noqa: F401,E402
    cast_then_pow2scale, conv_pow2scaled, conv_transpose_pow2scaled, matmul_pow2scaled, pow2scale_cast_from_fp8,
    pow2scale_cast_to_fp8, pow2scale_then_cast,
)
from popxl.ops._code_loading import remote_code_load  # noqa: F401,E402
from popxl.ops._remote import remote_load, remote_load_, remote_store  # noqa: F401,E402
from popxl.ops import var_updates  # noqa: F401,E402
from popxl.ops._math import (  # noqa: F401,E402
    cast, exp_, fmod, gelu, gelu_, increment_mod, increment_mod_, logical_and, logical_or, relu_, scaled_add,
    scaled_add_, swish, swish_, where,
)
from popxl.ops._shape import (  # noqa: F401,E402
    concat, detach_, dynamic_slice, dynamic_update, dynamic_update_, flatten, flatten_, gather, io_tile_copy,
    ipu_copy, onehot, reshape_, scatter, scatter_reduce, slice, split, squeeze, subsample, tied_gather,
)
from popxl.ops._reduce import (  # noqa: F401,E402
    argmax, argmin, cumsum, histogram, l1, l2, logsum, logsumexp, median, sumsquare, topk,
)
from popxl.ops._nn import (  # noqa: F401,E402
    average_pool, batch_norm_inference, conv, conv_transpose, group_norm, interpolate, layer_norm, max_pool,
    nll_loss, nll_loss_with_softmax_grad, print_tensor, roi_align,
)
from popxl.ops._random import (  # noqa: F401,E402
    dropout, random_normal, random_uniform, shaped_dropout, split_random_seed,
)
from popxl.ops._views import concat_, slice_, transpose_  # noqa: F401,E402
from popxl.ops.var_updates import lamb_square  # noqa: F401,E402
from popxl.ops._conditional import ConditionalSiteInfo, conditional, conditional_with_info  # noqa: F401,E402
import importlib as _importlib  # noqa: E402
_importlib.import_module("popxl.ops.call")  # loaded now, so the function below keeps the name ops.call
from popxl.ops._call import call  # noqa: F811,E402
from popxl.ops import collectives  # noqa: F401,E402


def __getattr__(name):
    """A missing op: for `x_` where ops.x exists, say that PopXL has no in-place form of it."""
    base = name[:-1]
    if name.endswith("_") and not name.startswith("_") and callable(globals().get(base)):
        raise AttributeError(f"module 'popxl.ops' has no attribute '{name}': PopXL has no in-place form of "
                             f"ops.{base} (its output need not fit its first input); use ops.{base}, which "
                             "returns a new tensor")
    raise AttributeError(f"module 'popxl.ops' has no attribute '{name}'")
