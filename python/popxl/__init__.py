"""popxl: PopXL's Python API on the CPU: build IR graphs op by op from Python.

Build an Ir (graphs, tensors, ops), then compile and run it with popxl.Session."""
import popart  # noqa: F401  (loads the native libraries)
from popxl.context import (  # noqa: F401
    gcg, get_current_graph, get_main_graph, gmg, in_sequence, name_scope,
)
from popxl.dtypes import (  # noqa: F401
    bfloat16, bool, complex64, complex128, double, dtype, float, float8_143, float8_152, float16, float32,
    float64, half, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
)
from popxl.context import io_tiles, ipu, op_debug_context  # noqa: F401
from popxl.graph import Graph  # noqa: F401
from popxl.replica_grouping import ReplicaGrouping  # noqa: F401
from popxl.tensor_location import (  # noqa: F401
    ExecutionContext, ReplicatedTensorSharding, TensorLocation, TensorStorage, TileSet,
)
from popxl.ir import Ir  # noqa: F401
from popxl.module import Module  # noqa: F401
from popxl.session import Session  # noqa: F401
from popxl.streams import DeviceToHostStream, HostToDeviceStream, d2h_stream, h2d_stream  # noqa: F401
from popxl.tensor import Constant, Tensor, Variable, constant, graph_input, graph_output, variable  # noqa: F401
from popxl.tensor_spec import TensorSpec  # noqa: F401
from popxl.remote import (  # noqa: F401
    RemoteBuffer, remote_buffer, remote_replica_sharded_variable, remote_variable, replica_sharded_buffer,
    replica_sharded_variable,
)
from popxl import fp8_utils, ops, transforms, utils  # noqa: F401,E402
from popxl import random_seed  # noqa: F401,E402
