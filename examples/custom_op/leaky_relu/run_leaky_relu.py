"""Runs the LeakyRelu custom op from Python and checks it against numpy.

    cmake -S . -B build -Dpopart_DIR=$(python -m popart --cmakedir) && cmake --build build
    python run_leaky_relu.py build/libleaky_relu.so

1. loads the library with ctypes (its OpCreator/OpxCreator register the op),
2. builds a model with builder.customOp and runs it for inference,
3. runs an ONNX file written with onnx.helper that names the op by domain/name/version.
(Training with SGD comes with TrainingSession: TODO(#5).)
"""
import argparse
import ctypes
import os
import sys
import tempfile

import numpy as np

import popart

DOMAIN, OP_NAME, OP_VERSION = "custom.ops", "LeakyRelu", 6


def load_library(so_path):
    """Registers the op; loading the same library again is harmless."""
    if not os.path.isfile(so_path):
        raise FileNotFoundError(f"{so_path} not found: build the example with CMake first")
    ctypes.cdll.LoadLibrary(so_path)


def reference(x, alpha=0.01):
    return np.where(x < 0, alpha * x, x).astype(x.dtype)


def build_with_builder(shape, alpha=None, dtype="FLOAT"):
    """A model y = LeakyRelu(x) made with builder.customOp; returns (proto, x, y)."""
    builder = popart.Builder()
    x = builder.addInputTensor(popart.TensorInfo(dtype, list(shape)))
    attributes = {} if alpha is None else {"alpha": alpha}
    y = builder.customOp(opName=OP_NAME, opVersion=OP_VERSION, domain=DOMAIN, inputs=[x],
                         attributes=attributes)[0]
    builder.addOutputTensor(y)
    return builder.getModelProto(), x, y


def build_onnx_file(path, shape, alpha):
    """The same model written with onnx.helper, the node naming the custom op."""
    import onnx
    from onnx import helper

    node = helper.make_node(OP_NAME, ["x"], ["y"], domain=DOMAIN, alpha=alpha)
    graph = helper.make_graph(
        [node], "leaky_relu",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, list(shape))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11),
                                                    helper.make_opsetid(DOMAIN, OP_VERSION)])
    onnx.save(model, path)
    return "x", "y"


def run_inference(model, feeds, outputs):
    """Runs `model` (bytes or an ONNX file path) once; returns {output: array}."""
    session = popart.InferenceSession(
        fnModel=model,
        dataFlow=popart.DataFlow(1, outputs),
        deviceInfo=popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    session.run(popart.PyStepIO(feeds, anchors))
    return anchors


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("so_path", nargs="?", default=os.path.join("build", "libleaky_relu.so"))
    args = parser.parse_args(argv)
    load_library(args.so_path)

    x_value = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    alpha = 0.02
    proto, x, y = build_with_builder(x_value.shape, alpha)
    result = run_inference(proto, {x: x_value}, [y])[y]
    np.testing.assert_allclose(result, reference(x_value, alpha), rtol=1e-6)
    print("builder.customOp: matches numpy")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "leaky_relu.onnx")
        x, y = build_onnx_file(path, x_value.shape, alpha)
        result = run_inference(path, {x: x_value}, [y])[y]
    np.testing.assert_allclose(result, reference(x_value, alpha), rtol=1e-6)
    print("ONNX file: matches numpy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
