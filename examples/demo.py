"""popart-cpu demo: build a small model with popart.Builder, save it as ONNX,
inspect it, and run it with an InferenceSession on the CPU."""
import os
import tempfile

import numpy as np
import onnx

import popart


def build_model():
    builder = popart.Builder()
    x = builder.addInputTensor(popart.TensorInfo("FLOAT", [2, 4]), "x")
    w = builder.addInitializedInputTensor(np.arange(12, dtype=np.float32).reshape(4, 3) / 10, "w")
    b = builder.addInitializedInputTensor(np.array([0.5, -2.0, 0.1], dtype=np.float32), "b")
    y = builder.aiOnnx.add([builder.aiOnnx.matmul([x, w]), b])
    out = builder.aiOnnx.relu([y])
    builder.addOutputTensor(out)
    return builder.getModelProto(), out


def main():
    proto, out = build_model()
    path = os.path.join(tempfile.mkdtemp(), "demo.onnx")
    with open(path, "wb") as f:
        f.write(proto)
    model = onnx.load(path)
    onnx.checker.check_model(model)
    print(f"saved {path}: opset {model.opset_import[0].version}, "
          f"nodes {[n.op_type for n in model.graph.node]}, "
          f"initializers {[i.name for i in model.graph.initializer]}")

    session = popart.InferenceSession(
        fnModel=path,
        dataFlow=popart.DataFlow(1, {out: popart.AnchorReturnType("All")}),
        deviceInfo=popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    x = np.array([[1, 2, 3, 4], [-1, -2, -3, -4]], dtype=np.float32)
    session.run(popart.PyStepIO({"x": x}, anchors))
    w = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    expected = np.maximum(x @ w + np.array([0.5, -2.0, 0.1], dtype=np.float32), 0)
    print("output:\n", anchors[out])
    assert np.allclose(anchors[out], expected), "demo output does not match numpy"
    print("matches numpy: yes")


if __name__ == "__main__":
    main()
