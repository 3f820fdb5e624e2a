"""PopXL wrapper of the LeakyRelu custom op of leaky_relu_op_impl.cpp.

Importing this module imports the compiled binding `leaky_relu_op_impl`: a module built by CMake
(CMakeLists.txt) when one is on the path, else cppimport compiles leaky_relu_op_impl.cpp beside this file
on first use (and again whenever the source changes). Loading it registers the op and its kernels."""
import os
import sys

import cppimport.import_hook  # noqa: F401  (lets `import leaky_relu_op_impl` compile the .cpp)

import popxl
from popxl.context import get_current_context, op_debug_context
from popxl.ops.utils import check_in_graph
from popxl.tensor import Tensor

sys.path.append(os.path.dirname(os.path.abspath(__file__)))
import leaky_relu_op_impl  # noqa: E402


@op_debug_context
def leaky_relu(x: Tensor, alpha: float = 0.01) -> Tensor:
    """x where x >= 0, alpha * x elsewhere, elementwise (float32 or float16). Differentiable with
    popxl.transforms.autodiff: the gradient is dy where x >= 0, alpha * dy elsewhere."""
    ctx = get_current_context()
    graph = ctx.graph
    check_in_graph(graph, x=x)
    if x.dtype not in (popxl.float32, popxl.float16):
        raise TypeError(f"leaky_relu: tensor '{x.id}' is {x.dtype.name}, expected float32 or float16")
    op = leaky_relu_op_impl.LeakyRelu.create_op_in_graph(
        graph=graph._pb_graph,
        inputs={0: x.id},
        outputs={0: graph._create_tensor_id("leaky_relu_out")},
        params=leaky_relu_op_impl.LeakyReluParams(alpha=float(alpha)),
        settings=ctx._get_op_settings("leaky_relu"),
    )
    ctx._op_created(op)  # placement, hooks and in_sequence ordering, as for popxl's own ops
    return Tensor._from_pb_tensor(op.outTensor(0))
