"""Runs the LeakyRelu custom op forward and backward in a PopXL session and prints the results:
python run_example.py [--alpha A]"""
import argparse

import numpy as np

import popxl
import popxl.ops as ops
from leaky_relu import leaky_relu


def run(x: np.ndarray, alpha: float):
    """Returns (y, dx) for y = leaky_relu(x) and the gradient dx of sum(y * dy) with dy = 1 + arange."""
    ir = popxl.Ir()
    with ir.main_graph:
        x_stream = popxl.h2d_stream(x.shape, popxl.dtype.as_dtype(x.dtype), name="x")
        dy_stream = popxl.h2d_stream(x.shape, popxl.dtype.as_dtype(x.dtype), name="dy")
        fwd = ir.create_graph(lambda t: leaky_relu(t, alpha=alpha), popxl.TensorSpec(x.shape, x_stream.dtype))
        bwd_info = popxl.transforms.autodiff(fwd)
        xt = ops.host_load(x_stream, "x")
        info = ops.call_with_info(fwd, xt)
        y = info.outputs[0]
        dx, = ops.call(bwd_info.graph, ops.host_load(dy_stream, "dy"), inputs_dict=bwd_info.inputs_dict(info))
        y_out, dx_out = popxl.d2h_stream(y.shape, y.dtype, "y"), popxl.d2h_stream(dx.shape, dx.dtype, "dx")
        ops.host_store(y_out, y)
        ops.host_store(dx_out, dx)
    dy = (1 + np.arange(x.size, dtype=x.dtype)).reshape(x.shape)
    with popxl.Session(ir, "ipu_model") as session:
        out = session.run({x_stream: x, dy_stream: dy})
    return out[y_out], out[dx_out], dy


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--alpha", type=float, default=0.02)
    a = p.parse_args()
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    y, dx, _ = run(x, a.alpha)
    print("x ", x)
    print("y ", y)
    print("dx", dx)
