"""GemmFusion pattern: Gemm / MatMul (2-D right operand) + bias Add + Relu chains become one GemmFused op in
inference sessions, computed as a oneDNN matmul with post-ops."""
import json
import re

import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch

import popart
from core._training_graph import loss_model, train_step

TYPES = {np.float32: onnx.TensorProto.FLOAT, np.float16: onnx.TensorProto.FLOAT16, np.float64: onnx.TensorProto.DOUBLE}
TOL = {np.float32: (1e-4, 1e-4), np.float16: (1e-2, 3e-2), np.float64: (1e-10, 1e-10)}


def product_model(dtype, kind, chain, x_shape, w, b, anchors=("y",), gemm_attrs=None):
    """x -> kind ("gemm" with C = b, "gemm_noc", "matmul") -> chain ("relu", "add", "radd": b + p,
    "add_relu", "add_gelu": torch's erf GELU, "gelu_div": GELU with x / sqrt 2) -> y."""
    t = TYPES[dtype]
    inits = [onnx.numpy_helper.from_array(w, "w"), onnx.numpy_helper.from_array(b, "b")]
    consts = [oh.make_node("Constant", [], [name], value=onnx.numpy_helper.from_array(np.array(v, dtype), name))
              for name, v in (("half", 0.5), ("rsqrt2", 1 / np.sqrt(2)), ("sqrt2", np.sqrt(2)),
                              ("one", 1.0))]
    if kind == "gemm":
        nodes = [oh.make_node("Gemm", ["x", "w", "b"], ["p"], **(gemm_attrs or {}))]
    elif kind == "gemm_noc":
        nodes = [oh.make_node("Gemm", ["x", "w"], ["p"], **(gemm_attrs or {}))]
    else:
        nodes = [oh.make_node("MatMul", ["x", "w"], ["p"])]
    last = "p"
    if "gelu" in chain:
        nodes = consts + nodes
    if "add" in chain:
        nodes.append(oh.make_node("Add", ["b", "p"] if chain == "radd" else ["p", "b"], ["s"]))
        last = "s"
    if "relu" in chain:
        nodes.append(oh.make_node("Relu", [last], ["r"]))
        last = "r"
    if "gelu" in chain:
        scale = oh.make_node("Div", [last, "sqrt2"], ["g1"]) if chain == "gelu_div" else \
            oh.make_node("Mul", [last, "rsqrt2"], ["g1"])
        nodes += [oh.make_node("Mul", [last, "half"], ["g0"]), scale, oh.make_node("Erf", ["g1"], ["g2"]),
                  oh.make_node("Add", ["g2", "one"], ["g3"]), oh.make_node("Mul", ["g0", "g3"], ["g4"])]
        last = "g4"
    nodes.append(oh.make_node("Identity", [last], ["y"]))
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", t, list(x_shape))],
                          [oh.make_tensor_value_info(a, t, None) for a in anchors], initializer=inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)]).SerializeToString()


def run(model, x, anchors, patterns):
    s = popart.InferenceSession(model, popart.DataFlow(1, list(anchors)), popart.DeviceManager().createCpuDevice(),
                                patterns=patterns)
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, out))
    # op types without the in-place variants' suffixes (AddLhsInplace -> Add)
    types = [re.sub(r"(Lhs|Rhs)?Inplace$", "", op["type"]) for op in json.loads(s.getSerializedGraph())["maingraph"]]
    return out, types


def reference(kind, chain, x, w, b, alpha=1.0, beta=1.0, trans_b=False):
    t = lambda a: torch.from_numpy(np.asarray(a, dtype=np.float64))
    y = alpha * (t(x) @ (t(w).T if trans_b else t(w)))
    if kind == "gemm":
        y = y + beta * t(b)
    if "add" in chain:
        y = y + t(b)
    if "relu" in chain:
        y = torch.relu(y)
    if "gelu" in chain:
        y = torch.nn.functional.gelu(y)
    return y.numpy()


def no_fusion():
    p = popart.Patterns()
    p.enablePattern("GemmFusion", False)
    return p


CASES = [("gemm", "relu", (6, 20)), ("gemm_noc", "add_relu", (6, 20)), ("gemm_noc", "radd", (6, 20)),
         ("matmul", "relu", (3, 5, 20)), ("matmul", "add", (3, 5, 20)), ("matmul", "radd", (2, 3, 4, 20)),
         ("matmul", "add_relu", (7, 20)), ("matmul", "add_gelu", (2, 5, 20)), ("gemm", "gelu_div", (6, 20))]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("kind,chain,x_shape", CASES)
def test_fused_matches_reference_and_unfused(dtype, kind, chain, x_shape):
    rs = np.random.RandomState(0)
    x = rs.randn(*x_shape).astype(dtype)
    w = (rs.randn(20, 12) * 0.3).astype(dtype)
    b = rs.randn(12).astype(dtype)
    model = product_model(dtype, kind, chain, x.shape, w, b)
    fused, types = run(model, x, ["y"], popart.Patterns())
    assert types.count("GemmFused") == 1
    assert not {"Gemm", "MatMul", "Relu", "Add", "Mul", "Div", "Erf"} & set(types), types
    plain, plain_types = run(model, x, ["y"], no_fusion())
    assert "GemmFused" not in plain_types
    assert fused["y"].dtype == dtype and fused["y"].shape == x_shape[:-1] + (12,)
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(fused["y"].astype(np.float64), reference(kind, chain, x, w, b), rtol=rtol, atol=atol)
    np.testing.assert_allclose(fused["y"], plain["y"], rtol=rtol, atol=atol)


@pytest.mark.parametrize("b_shape", [(1, 12), (6, 12), (6, 1), (1,)])
def test_gemm_alpha_beta_trans_and_broadcast_c(b_shape):
    rs = np.random.RandomState(1)
    x, w = rs.randn(6, 20).astype(np.float32), rs.randn(12, 20).astype(np.float32)
    b = rs.randn(*b_shape).astype(np.float32)
    model = product_model(np.float32, "gemm", "relu", x.shape, w, b,
                          gemm_attrs={"alpha": 0.5, "beta": -2.0, "transB": 1})
    out, types = run(model, x, ["y"], popart.Patterns())
    assert types.count("GemmFused") == 1 and "Relu" not in types
    ref = reference("gemm", "relu", x, w, b, alpha=0.5, beta=-2.0, trans_b=True)
    np.testing.assert_allclose(out["y"], ref, rtol=1e-4, atol=1e-4)


def test_mlp_layers_each_become_one_op():
    rs = np.random.RandomState(2)
    x = rs.randn(64, 784).astype(np.float32)
    ws = [(rs.randn(o, i) * 0.05).astype(np.float32) for i, o in ((784, 512), (512, 512), (512, 10))]
    bs = [rs.randn(o).astype(np.float32) for o in (512, 512, 10)]
    inits, nodes, last = [], [], "x"
    for i, (w, b) in enumerate(zip(ws, bs)):
        inits += [onnx.numpy_helper.from_array(w, f"w{i}"), onnx.numpy_helper.from_array(b, f"b{i}")]
        nodes.append(oh.make_node("Gemm", [last, f"w{i}", f"b{i}"], [f"g{i}"], transB=1))
        last = f"g{i}"
        if i < 2:
            nodes.append(oh.make_node("Relu", [last], [f"r{i}"]))
            last = f"r{i}"
    graph = oh.make_graph(nodes, "mlp", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [64, 784])],
                          [oh.make_tensor_value_info(last, onnx.TensorProto.FLOAT, None)], initializer=inits)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)]).SerializeToString()
    out, types = run(model, x, [last], popart.Patterns())
    assert types.count("GemmFused") == 2 and types.count("Gemm") == 1 and "Relu" not in types
    ref = x.astype(np.float64)
    for i, (w, b) in enumerate(zip(ws, bs)):
        ref = ref @ w.T.astype(np.float64) + b
        if i < 2:
            ref = np.maximum(ref, 0)
    np.testing.assert_allclose(out[last], ref, rtol=1e-4, atol=1e-4)


def test_anchored_intermediate_is_not_fused():
    rs = np.random.RandomState(3)
    x, w, b = rs.randn(4, 20).astype(np.float32), rs.randn(20, 12).astype(np.float32), rs.randn(12).astype(np.float32)
    model = product_model(np.float32, "matmul", "add_relu", x.shape, w, b, anchors=("y", "p"))
    out, types = run(model, x, ["y", "p"], popart.Patterns())
    assert "GemmFused" not in types and "MatMul" in types
    np.testing.assert_allclose(out["p"], x @ w, rtol=1e-4, atol=1e-4)
    model = product_model(np.float32, "matmul", "add_relu", x.shape, w, b, anchors=("y", "s"))
    out, types = run(model, x, ["y", "s"], popart.Patterns())
    assert "GemmFused" in types and "Relu" in types and "Add" not in types  # MatMul + Add fused, Relu kept
    np.testing.assert_allclose(out["s"], x @ w + b, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out["y"], np.maximum(x @ w + b, 0), rtol=1e-4, atol=1e-4)


def test_row_varying_add_on_batched_matmul_is_not_fused():
    rs = np.random.RandomState(4)
    x, w = rs.randn(3, 5, 20).astype(np.float32), rs.randn(20, 12).astype(np.float32)
    b = rs.randn(5, 12).astype(np.float32)  # varies along the rows of one batch element: not a bias
    out, types = run(product_model(np.float32, "matmul", "add", x.shape, w, b), x, ["y"], popart.Patterns())
    assert "GemmFused" not in types and "Add" in types
    np.testing.assert_allclose(out["y"], x @ w + b, rtol=1e-4, atol=1e-4)


def test_training_keeps_gemm_and_relu():
    rs = np.random.RandomState(5)
    x, w = rs.randn(4, 6).astype(np.float32), rs.randn(6, 3).astype(np.float32)
    nodes = [oh.make_node("Gemm", ["x", "w"], ["p"]), oh.make_node("Relu", ["p"], ["r"])]
    model = loss_model(nodes, x, "r", [onnx.numpy_helper.from_array(w, "w")])
    out, types = train_step(model, ["r", "Gradient___w"], x)
    assert "GemmFused" not in types and "Gemm" in types
    np.testing.assert_allclose(out["r"], np.maximum(x @ w, 0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out["Gradient___w"], x.T @ (x @ w > 0).astype(np.float32), rtol=1e-4, atol=1e-4)


def test_gelu_input_read_elsewhere_keeps_the_gelu_ops():
    rs = np.random.RandomState(6)
    x, w, b = rs.randn(3, 4, 20).astype(np.float32), rs.randn(20, 12).astype(np.float32), rs.randn(12).astype(np.float32)
    model = product_model(np.float32, "matmul", "add_gelu", x.shape, w, b, anchors=("y", "s"))
    out, types = run(model, x, ["y", "s"], popart.Patterns())
    assert types.count("GemmFused") == 1 and "Erf" in types  # MatMul + bias fused, the GELU kept
    np.testing.assert_allclose(out["y"], reference("matmul", "add_gelu", x, w, b), rtol=1e-4, atol=1e-4)


def test_encoder_ffn_is_one_op_per_linear_layer():
    """A BERT feed-forward block as torch exports it: Linear, erf GELU, Linear."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 32)).eval()
    x = torch.randn(2, 8, 32)
    import io
    f = io.BytesIO()
    torch.onnx.export(model, (x,), f, opset_version=11, dynamo=False, input_names=["x"], output_names=["y"])
    out, types = run(f.getvalue(), x.numpy(), ["y"], popart.Patterns())
    assert types.count("GemmFused") == 2 and "Erf" not in types and "MatMul" not in types, types
    with torch.no_grad():
        np.testing.assert_allclose(out["y"], model(x).numpy(), rtol=1e-4, atol=1e-5)
