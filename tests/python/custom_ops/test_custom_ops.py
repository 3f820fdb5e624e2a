"""Custom ops built from examples/custom_op with CMake and loaded with ctypes:
LeakyRelu (op, grad op, opxs, definition), a two-output op, an op with an
in-place variant; registry hygiene (loading twice, collisions, unregistered
ops, definition checks); and the C++ embedding example."""
import ctypes
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart

EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[3] / "examples"


def run(proto, feeds, outputs):
    session = popart.InferenceSession(proto, popart.DataFlow(1, outputs),
                                      popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    session.run(popart.PyStepIO(feeds, anchors))
    return anchors, session


def custom_model(op_name, inputs, attributes=None, num_outputs=1, version=1, dtype="FLOAT"):
    """One custom.ops node over new inputs of the given shapes; returns (proto, ins, outs)."""
    b = popart.Builder()
    ins = [b.addInputTensor(popart.TensorInfo(dtype, list(s))) for s in inputs]
    outs = b.customOp(opName=op_name, opVersion=version, domain="custom.ops", inputs=ins,
                      attributes=attributes or {}, numOutputs=num_outputs)
    for o in outs:
        b.addOutputTensor(o)
    return b.getModelProto(), ins, outs


def leaky_relu(x, alpha=0.01):
    return np.where(x < 0, alpha * x, x)


def in_subprocess(code):
    """Runs `code` in a fresh interpreter (for libraries that poison the registry)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=os.environ.copy(), timeout=120)


# ---------------------------------------------------------------- LeakyRelu


@pytest.mark.parametrize("shape", [[1], [7], [3, 4], [2, 3, 5, 7], [64, 1031]])
@pytest.mark.parametrize("alpha", [None, 0.02, 0.5, 3.0])
def test_leaky_relu_matches_numpy(leaky_relu_lib, shape, alpha):
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    proto, [xi], [y] = custom_model("LeakyRelu", [shape], {} if alpha is None else {"alpha": alpha},
                                    version=6)
    out, _ = run(proto, {xi: x}, [y])
    np.testing.assert_allclose(out[y], leaky_relu(x, 0.01 if alpha is None else alpha), rtol=1e-6)


def test_leaky_relu_float16_and_integer_alpha(leaky_relu_lib):
    x = np.linspace(-4, 4, 33).astype(np.float16)
    proto, [xi], [y] = custom_model("LeakyRelu", [x.shape], {"alpha": 2}, version=6, dtype="FLOAT16")
    out, _ = run(proto, {xi: x}, [y])
    assert out[y].dtype == np.float16
    np.testing.assert_allclose(out[y], leaky_relu(x.astype(np.float32), 2.0), rtol=1e-3)


def test_leaky_relu_grad_opx(leaky_relu_lib):
    # The grad op is made by getGradOps() in training; here it runs on its own.
    rng = np.random.default_rng(1)
    dy, x = (rng.standard_normal((4, 9)).astype(np.float32) for _ in range(2))
    proto, [dyi, xi], [dx] = custom_model("LeakyReluGrad", [dy.shape, x.shape], {"alpha": 0.3},
                                          version=6)
    out, _ = run(proto, {dyi: dy, xi: x}, [dx])
    np.testing.assert_allclose(out[dx], dy * np.where(x < 0, 0.3, 1.0), rtol=1e-6)


def onnx_file(path, node, inputs, outputs, custom_opset=6):
    graph = oh.make_graph([node], "g", inputs, outputs)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11),
                                                oh.make_opsetid("custom.ops", custom_opset)])
    onnx.save(model, str(path))
    return str(path)


@pytest.mark.parametrize("opset", [6, 9])  # the newest registered version <= the model's opset
def test_leaky_relu_from_onnx_file(leaky_relu_lib, tmp_path, opset):
    f = onnx.TensorProto.FLOAT
    path = onnx_file(tmp_path / "m.onnx",
                     oh.make_node("LeakyRelu", ["x"], ["y"], domain="custom.ops", alpha=0.25),
                     [oh.make_tensor_value_info("x", f, [3, 5])],
                     [oh.make_tensor_value_info("y", f, [3, 5])], opset)
    x = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)
    out, _ = run(path, {"x": x}, ["y"])
    np.testing.assert_allclose(out["y"], leaky_relu(x, 0.25), rtol=1e-6)


def test_run_leaky_relu_script(built):
    script = EXAMPLES / "custom_op" / "leaky_relu" / "run_leaky_relu.py"
    r = subprocess.run([sys.executable, str(script), str(built.leaky_relu)], capture_output=True,
                       text=True, env=os.environ.copy(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert "builder.customOp: matches numpy" in r.stdout and "ONNX file: matches numpy" in r.stdout
    assert "training with SGD: matches numpy" in r.stdout
    losses = [float(line.split()[-1]) for line in r.stdout.splitlines() if line.startswith("step ")]
    assert len(losses) == 5 and all(b < a for a, b in zip(losses, losses[1:])), losses


# ---------------------------------------------------------------- registry hygiene


def test_loading_library_twice_is_harmless(leaky_relu_lib, tmp_path):
    ctypes.cdll.LoadLibrary(str(leaky_relu_lib))
    copy = tmp_path / "libleaky_relu_copy.so"  # a second copy runs its registrars again
    shutil.copy(leaky_relu_lib, copy)
    ctypes.cdll.LoadLibrary(str(copy))
    x = np.array([-2.0, 3.0], dtype=np.float32)
    proto, [xi], [y] = custom_model("LeakyRelu", [x.shape], {"alpha": 0.5}, version=6)
    out, _ = run(proto, {xi: x}, [y])
    np.testing.assert_allclose(out[y], [-1.0, 3.0])


def test_collision_with_builtin_op_is_a_clear_error(built):
    code = f"""
import ctypes, numpy as np, popart
ctypes.cdll.LoadLibrary({str(built.collide_relu)!r})
print("loaded")
b = popart.Builder()
x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]))
y = b.aiOnnx.relu([x])
b.addOutputTensor(y)
try:
    popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]),
                            popart.DeviceManager().createCpuDevice())
except popart.popart_exception as e:
    print("ERROR:", e)
"""
    r = in_subprocess(code)
    assert r.returncode == 0, r.stderr  # loading did not abort the process
    assert "loaded" in r.stdout
    error = r.stdout.split("ERROR:", 1)[1]
    assert "ai.onnx.Relu is registered twice" in error
    assert "ReluOp" in error and "CollidingReluOp" in error and "libcollide_relu.so" in error
    assert "own domain" in error


def test_opx_collision_is_reported_when_lowering(built):
    # The library also registers an Opx (only) for the built-in ai.onnx Sigmoid.
    code = f"""
import ctypes, popart
ctypes.cdll.LoadLibrary({str(built.collide_relu)!r})
b = popart.Builder()
x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]))
y = b.aiOnnx.sigmoid([x])
b.addOutputTensor(y)
s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]),
                            popart.DeviceManager().createCpuDevice())
try:
    s.prepareDevice()
except popart.popart_exception as e:
    print("ERROR:", e)
"""
    r = in_subprocess(code)
    assert r.returncode == 0, r.stderr
    error = r.stdout.split("ERROR:", 1)[1]
    assert "Opx) of ai.onnx.Sigmoid is registered twice" in error
    assert "CollidingSigmoidOpx" in error and "libcollide_relu.so" in error


def test_unregistered_custom_op_names_op_and_library_hint():
    proto, [xi], [y] = custom_model("NotLoaded", [[2]], version=3)
    with pytest.raises(popart.popart_exception, match=r"custom\.ops\.NotLoaded.*LoadLibrary"):
        run(proto, {xi: np.zeros(2, np.float32)}, [y])


def test_definition_rejects_input_type(leaky_relu_lib):
    proto, [xi], [y] = custom_model("LeakyRelu", [[3]], version=6, dtype="INT32")
    with pytest.raises(popart.popart_exception, match=r"input 0 \('input'\) has type INT32"):
        run(proto, {xi: np.zeros(3, np.int32)}, [y])


def test_definition_rejects_attribute_value(moments_lib):
    proto, [xi], outs = custom_model("Moments", [[2, 3]], {"unbiased": 2}, num_outputs=2)
    with pytest.raises(popart.popart_exception, match=r"attribute 'unbiased' has value 2.*'0\|1'"):
        run(proto, {xi: np.zeros((2, 3), np.float32)}, outs)


# ---------------------------------------------------------------- two outputs


@pytest.mark.parametrize("shape,axis", [([5], 0), ([3, 4], -1), ([3, 4], 0), ([2, 3, 4], 1),
                                        ([4, 300, 5], 1)])
@pytest.mark.parametrize("unbiased", [0, 1])
def test_moments_two_outputs(moments_lib, shape, axis, unbiased):
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32) * 3 + 1
    proto, [xi], [mean, var] = custom_model("Moments", [shape], {"axis": axis, "unbiased": unbiased},
                                            num_outputs=2)
    out, session = run(proto, {xi: x}, [mean, var])
    np.testing.assert_allclose(out[mean], x.mean(axis=axis), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[var], x.var(axis=axis, ddof=unbiased), rtol=1e-5)
    assert session.getInfo(var).shape() == list(np.delete(shape, axis))


def test_moments_axis_out_of_range(moments_lib):
    proto, [xi], outs = custom_model("Moments", [[2, 3]], {"axis": 2}, num_outputs=2)
    with pytest.raises(popart.popart_exception, match="axis 2 out of range for rank 2"):
        run(proto, {xi: np.zeros((2, 3), np.float32)}, outs)


# ---------------------------------------------------------------- in-place variant


def scale_shift_model(anchor_middle=False, second_consumer=False):
    """t = x * 2 (an activation); y = ScaleShift(t) [; z = t + 1]."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 6]))
    two = b.aiOnnx.constant(np.array(2.0, dtype=np.float32))
    t = b.aiOnnx.mul([x, two])
    y = b.customOp(opName="ScaleShift", opVersion=1, domain="custom.ops", inputs=[t],
                   attributes={"scale": 3.0, "shift": -1.0})[0]
    outs = [y]
    if second_consumer:
        outs.append(b.aiOnnx.add([t, two]))
    for o in outs:
        b.addOutputTensor(o)
    return b.getModelProto(), x, t, outs + ([t] if anchor_middle else [])


def op_types(session):
    return [op["type"] for op in json.loads(session.getSerializedGraph())["maingraph"]]


@pytest.mark.parametrize("anchor_middle,second_consumer,inplace", [
    (False, False, True), (True, False, False), (False, True, False)])
def test_scale_shift_inplace_variant(scale_shift_lib, anchor_middle, second_consumer, inplace):
    proto, x, t, anchors = scale_shift_model(anchor_middle, second_consumer)
    xv = np.random.default_rng(4).standard_normal((4, 6)).astype(np.float32)
    out, session = run(proto, {x: xv}, anchors)
    types = op_types(session)
    assert ("ScaleShiftInplace" in types) == inplace and ("ScaleShift" in types) != inplace
    np.testing.assert_allclose(out[anchors[0]], 3.0 * (2 * xv) - 1.0, rtol=1e-6)
    if second_consumer:
        np.testing.assert_allclose(out[anchors[1]], 2 * xv + 2, rtol=1e-6)
    if anchor_middle:
        np.testing.assert_allclose(out[t], 2 * xv, rtol=1e-6)


# ---------------------------------------------------------------- packaging and C++ embedding


def test_cmakedir_has_package():
    r = subprocess.run([sys.executable, "-m", "popart", "--cmakedir"], capture_output=True, text=True,
                       env=os.environ.copy(), check=True)
    d = r.stdout.strip()
    assert os.path.isfile(os.path.join(d, "popartConfig.cmake"))
    assert os.path.isfile(os.path.join(d, "popartTargets.cmake"))


def test_public_headers_have_no_internal_dependencies(built):
    # all_public_headers (built by the fixture) includes every public header
    # with only popart's include directory; none may name oneDNN/protobuf/pybind11.
    assert (built.dir / "all_public_headers").is_file()
    inc = subprocess.run([sys.executable, "-m", "popart", "--includedir"], capture_output=True,
                         text=True, check=True).stdout.strip()
    roots = [inc, str(EXAMPLES.parent / "cpp" / "include")]
    root = next(r for r in roots if os.path.isdir(os.path.join(r, "popart")))
    for dirpath, _, files in os.walk(os.path.join(root, "popart")):
        for name in files:
            text = open(os.path.join(dirpath, name)).read()
            for banned in ("dnnl", "google/protobuf", "pybind11", "onnx.pb"):
                assert f"#include <{banned}" not in text and f'#include "{banned}' not in text, name


def parse_cpp_output(stdout):
    """{id: (type, shape, values)} from popart_example's output."""
    lines = stdout.strip().splitlines()
    result = {}
    for header, values in zip(lines[0::2], lines[1::2]):
        _, tid, dtype, shape = header.split(" ")
        dims = [int(d) for d in shape.strip("[]").split(",") if d]
        result[tid] = (dtype, dims, np.array(values.split(), dtype=np.float32).reshape(dims))
    return result


def test_cpp_example_matches_onnxruntime(built, tmp_path):
    import onnxruntime as ort
    from onnx import numpy_helper
    rng = np.random.default_rng(5)
    w = rng.standard_normal((6, 4)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    f = onnx.TensorProto.FLOAT
    nodes = [oh.make_node("MatMul", ["x", "w"], ["h"]), oh.make_node("Add", ["h", "b"], ["a"]),
             oh.make_node("Relu", ["a"], ["r"]), oh.make_node("Softmax", ["r"], ["probs"], axis=1),
             oh.make_node("Tanh", ["a"], ["t"])]
    graph = oh.make_graph(nodes, "mlp", [oh.make_tensor_value_info("x", f, [3, 6])],
                          [oh.make_tensor_value_info("probs", f, [3, 4]),
                           oh.make_tensor_value_info("t", f, [3, 4])],
                          initializer=[numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "b")])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)])
    model.ir_version = 7
    path = tmp_path / "mlp.onnx"
    onnx.save(model, str(path))

    r = subprocess.run([str(built.cpp_example), str(path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    got = parse_cpp_output(r.stdout)

    x = ((np.arange(18) % 17 - 8) / 4).astype(np.float32).reshape(3, 6)
    expected = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        ["probs", "t"], {"x": x})
    assert set(got) == {"probs", "t"}
    for name, ref in zip(["probs", "t"], expected):
        dtype, dims, values = got[name]
        assert dtype == "FLOAT" and dims == [3, 4]
        np.testing.assert_allclose(values, ref, rtol=1e-5, atol=1e-6)


def test_cpp_example_reports_errors(built, tmp_path):
    r = subprocess.run([str(built.cpp_example), str(tmp_path / "missing.onnx")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1 and "popart error" in r.stderr
    r = subprocess.run([str(built.cpp_example)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "usage" in r.stderr


@pytest.mark.parametrize("shape,axis", [([3, 4], -1), ([2, 3, 4], 1)])
def test_builder_knows_custom_op_output_shapes(moments_lib, shape, axis):
    """getTensorShape/getTensorDtypeString after a custom op come from the op's own setup()."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", shape))
    mean, var = b.customOp(opName="Moments", opVersion=1, domain="custom.ops", inputs=[x],
                           attributes={"axis": axis}, numOutputs=2)
    expected = list(np.delete(shape, axis))
    assert b.getTensorShape(mean) == expected and b.getTensorShape(var) == expected
    assert b.getTensorDtypeString(var) == "float32"
    # and a following built-in op is typed through it
    y = b.aiOnnx.add([mean, var])
    assert b.getTensorShape(y) == expected
