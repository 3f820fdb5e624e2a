"""Runs the LeakyRelu custom op from Python and checks it against numpy.

    cmake -S . -B build -Dpopart_DIR=$(python -m popart --cmakedir) && cmake --build build
    python run_leaky_relu.py build/libleaky_relu.so

1. loads the library with ctypes (its OpCreator/OpxCreator register the op),
2. builds a model with builder.customOp and runs it for inference,
3. runs an ONNX file written with onnx.helper that names the op by domain/name/version,
4. trains a weight through the op with popart.TrainingSession and SGD (the op's
   LeakyReluGrad op computes the gradient) and checks every step against numpy.
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


def build_training_model(w_init, alpha, l1_lambda):
    """loss = l1_lambda * sum(|LeakyRelu(w)|) for a weight w; returns (proto, w, loss)."""
    builder = popart.Builder()
    w = builder.addInitializedInputTensor(w_init, "w")
    y = builder.customOp(opName=OP_NAME, opVersion=OP_VERSION, domain=DOMAIN, inputs=[w],
                         attributes={"alpha": alpha})[0]
    loss = builder.aiGraphcore.l1loss([y], l1_lambda, reduction=popart.ReductionType.Sum)
    return builder.getModelProto(), w, loss


def train(w_init, alpha, l1_lambda=0.5, learning_rate=0.1, steps=5):
    """Trains w with SGD; returns [(loss, dLoss/dw, w after the step)] per step."""
    proto, w, loss = build_training_model(w_init, alpha, l1_lambda)
    grad_w = popart.reservedGradientPrefix() + w  # "Gradient___w" can be anchored
    session = popart.TrainingSession(
        fnModel=proto,
        dataFlow=popart.DataFlow(1, [loss, grad_w]),
        loss=loss,
        optimizer=popart.SGD({"defaultLearningRate": (learning_rate, False)}),
        deviceInfo=popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    history = []
    for _ in range(steps):
        session.run(popart.PyStepIO({}, anchors))  # forward, backward, SGD update
        session.weightsToHost()
        weights = {w: np.empty_like(w_init)}
        session.readWeights(popart.PyWeightsIO(weights))
        history.append((float(anchors[loss]), anchors[grad_w].copy(), weights[w]))
    return history


def reference_training(w_init, alpha, l1_lambda=0.5, learning_rate=0.1, steps=5):
    """The same steps in numpy: d|y|/dw = sign(y) * (w < 0 ? alpha : 1)."""
    w, history = w_init.copy(), []
    for _ in range(steps):
        y = reference(w, alpha)
        grad = (l1_lambda * np.sign(y) * np.where(w < 0, alpha, 1.0)).astype(w.dtype)
        w = w - np.float32(learning_rate) * grad
        history.append((l1_lambda * np.abs(y).sum(), grad, w))
    return history


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

    w_init = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
    history = train(w_init, alpha)
    for step, (got, ref) in enumerate(zip(history, reference_training(w_init, alpha))):
        print(f"step {step}: loss {got[0]:.6f}")
        np.testing.assert_allclose(got[0], ref[0], rtol=1e-5)
        np.testing.assert_allclose(got[1], ref[1], rtol=1e-6)  # Gradient___w
        np.testing.assert_allclose(got[2], ref[2], rtol=1e-6, atol=1e-7)  # w after the step
    print("training with SGD: matches numpy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
