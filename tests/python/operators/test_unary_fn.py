"""Element-wise unary ops of ops/unary_fn.cpp: rounding, trigonometric/hyperbolic and
activations (ai.onnx, including Swish and Mish, and ai.graphcore), against numpy and onnxruntime."""
import math
import os
import sys

import numpy as np
import pytest

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import ort_run  # noqa: E402

GC = "ai.graphcore"
FLOATS = [np.float32, np.float16, np.float64]
SHAPES = [(7,), (3, 4), (2, 3, 5), (), (1000,)]
erf = np.vectorize(math.erf)


def rand(shape, dtype, scale=3.0, seed=0):
    return np.asarray(np.random.RandomState(seed).randn(*shape) * scale).astype(dtype)


def tol(dtype):
    return {"rtol": 1e-2, "atol": 1e-2} if dtype == np.float16 else {"rtol": 2e-5, "atol": 1e-6}


def in_dtype(fn):
    """Reference computed in float64, returned in the input's dtype."""
    return lambda x: fn(x.astype(np.float64)).astype(x.dtype)


# ---- rounding ----

ROUNDING = {"Floor": np.floor, "Ceil": np.ceil, "Round": np.round}


@pytest.mark.parametrize("op", sorted(ROUNDING))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_rounding(op_tester, op, dtype, shape):
    x = rand(shape, dtype)
    op_tester.check(op, [x], reference=ROUNDING[op], opset=13 if op != "Round" else 11)


@pytest.mark.parametrize("op", ["Floor", "Ceil", "Round"])
def test_rounding_edges(op_tester, op):
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -0.0, 0.0, 1e10, -1e10, 8388607.5, 4194304.5,
                  np.inf, -np.inf, np.nan, 0.49999997, -0.49999997, 1e-30], np.float32)
    op_tester.check(op, [x], reference=ROUNDING[op], opset=11)
    xd = np.array([2.5, -3.5, 4503599627370495.5, 1e300, -0.2, np.nan], np.float64)
    op_tester.check(op, [xd], reference=ROUNDING[op], opset=11)


@pytest.mark.parametrize("opset", [1, 6])
def test_floor_ceil_old_opsets(op_tester, opset):
    x = rand((4, 5), np.float32)
    op_tester.check("Floor", [x], reference=np.floor, opset=opset)
    op_tester.check("Ceil", [x], reference=np.ceil, opset=opset)


@pytest.mark.parametrize("op", ["Round", "NearbyInt"])
def test_graphcore_round(op_tester, op):
    x = np.array([[-2.5, -1.5, 0.5, 1.5], [2.4, 2.6, -7.5, 100.5]], np.float32)
    op_tester.check(op, [x], reference=np.round, domain=GC)
    op_tester.check(op, [x.astype(np.float16)], reference=np.round, domain=GC)


@pytest.mark.parametrize("dtype", FLOATS + [np.int8, np.int32, np.int64, np.uint8, np.uint32])
def test_sign(op_tester, dtype):
    x = np.array([[-3, 0, 5, 1], [2, -1, 0, 7]]).astype(dtype) if np.issubdtype(dtype, np.signedinteger) or \
        np.issubdtype(dtype, np.floating) else np.array([[3, 0, 5, 1], [2, 1, 0, 200]]).astype(dtype)
    op_tester.check("Sign", [x], reference=np.sign, opset=13)
    op_tester.check("Sign", [x], reference=np.sign, opset=9)


def test_sign_nan(op_tester):
    x = np.array([np.nan, -np.inf, np.inf, -0.5], np.float32)
    op_tester.check("Sign", [x], reference=np.sign, opset=13)


def test_rounding_rejects_integers(op_tester):
    with pytest.raises(popart.popart_exception, match="Floor.*INT32"):
        op_tester.run("Floor", [np.array([1, 2], np.int32)])


# ---- trigonometric and hyperbolic ----

TRIG = {  # op: (numpy function, input range)
    "Sin": (np.sin, (-10, 10)), "Cos": (np.cos, (-10, 10)), "Tan": (np.tan, (-1.5, 1.5)),
    "Asin": (np.arcsin, (-1, 1)), "Acos": (np.arccos, (-1, 1)), "Atan": (np.arctan, (-20, 20)),
    "Sinh": (np.sinh, (-5, 5)), "Cosh": (np.cosh, (-5, 5)), "Asinh": (np.arcsinh, (-50, 50)),
    "Acosh": (np.arccosh, (1, 50)), "Atanh": (np.arctanh, (-0.99, 0.99)),
}


@pytest.mark.parametrize("op", sorted(TRIG))
@pytest.mark.parametrize("dtype", FLOATS)
def test_trig(op_tester, op, dtype):
    fn, (lo, hi) = TRIG[op]
    x = np.random.RandomState(1).uniform(lo, hi, (3, 17)).astype(dtype)
    op_tester.check(op, [x], reference=in_dtype(fn), opset=9, **tol(dtype))


def test_trig_out_of_domain_is_nan(op_tester):
    (y,) = op_tester.run("Asin", [np.array([2.0, -3.0], np.float32)], opset=7)
    assert np.isnan(y).all()


@pytest.mark.parametrize("op,fn", [("Expm1", np.expm1), ("Log1p", np.log1p)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_expm1_log1p(op_tester, op, fn, dtype):
    x = np.concatenate([np.linspace(-0.99, 5, 300), [1e-7, -1e-7, 1e-3, -0.4999, 0.5001, 0.0]]).astype(dtype)
    op_tester.check(op, [x], reference=in_dtype(fn), domain=GC, **tol(dtype))


def test_trig_rejects_integers(op_tester):
    with pytest.raises(popart.popart_exception, match="Sin.*INT64"):
        op_tester.run("Sin", [np.array([1, 2], np.int64)])


# ---- activations (onnxruntime computes in float32: compare float32 results) ----

ACTIVATIONS = [  # op, attrs, opset
    ("Elu", {}, 6), ("Elu", {"alpha": 0.3}, 6), ("Elu", {"alpha": 2.0}, 1),
    ("Selu", {}, 6), ("Selu", {"alpha": 1.5, "gamma": 2.0}, 6),
    ("Celu", {}, 12), ("Celu", {"alpha": 0.5}, 12),
    ("HardSigmoid", {}, 6), ("HardSigmoid", {"alpha": 0.5, "beta": 0.1}, 6),
    ("HardSwish", {}, 14), ("Softsign", {}, 1), ("Softplus", {}, 1),
    ("ThresholdedRelu", {}, 10), ("ThresholdedRelu", {"alpha": 0.5}, 10),
    ("Shrink", {}, 9), ("Shrink", {"lambd": 1.5, "bias": 0.5}, 9),
    ("Gelu", {}, 20), ("Gelu", {"approximate": "tanh"}, 20), ("Gelu", {"approximate": "none"}, 20),
]


@pytest.mark.parametrize("op,attrs,opset", ACTIVATIONS)
@pytest.mark.parametrize("shape", [(5, 40), (2, 3, 4)])
def test_activation_vs_onnxruntime(op_tester, op, attrs, opset, shape):
    x = rand(shape, np.float32)
    x.flat[:4] = [0.0, -1e-4, 1e-4, 50.0]
    op_tester.check(op, [x], reference=lambda x: ort_run(op, [x], attrs, max(opset, 7))[0], attrs=attrs, opset=opset,
                    rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op,attrs,opset", ACTIVATIONS)
@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_activation_dtypes(op_tester, op, attrs, opset, dtype):
    x = rand((4, 9), dtype)
    ref = lambda x: ort_run(op, [x], attrs, max(opset, 7))[0].astype(dtype)  # noqa: E731
    op_tester.check(op, [x], reference=ref, attrs=attrs, opset=opset,
                    **({"rtol": 1e-2, "atol": 1e-2} if dtype == np.float16 else {"rtol": 1e-5, "atol": 1e-6}))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8])
def test_shrink_integers(op_tester, dtype):
    x = np.arange(-6, 6).astype(dtype)
    ref = lambda x: ort_run("Shrink", [x], {"lambd": 2.0, "bias": 1.0}, 9)[0]  # noqa: E731
    op_tester.check("Shrink", [x], reference=ref, attrs={"lambd": 2.0, "bias": 1.0}, opset=9)


def gelu_erf(x):
    return 0.5 * x * (1 + erf(x / np.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


GRAPHCORE_ACTIVATIONS = {
    "Gelu": (gelu_tanh, {}), "GeluErf": (gelu_erf, {}),
    "Swish": (lambda x: x / (1 + np.exp(-x)), {}),
    "Scale": (lambda x: x * 2.5, {"scale": 2.5}),
}


@pytest.mark.parametrize("op", sorted(GRAPHCORE_ACTIVATIONS))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3, 4), (1000,), ()])
def test_graphcore_activation(op_tester, op, dtype, shape):
    fn, attrs = GRAPHCORE_ACTIVATIONS[op]
    x = rand(shape, dtype)
    op_tester.check(op, [x], reference=in_dtype(fn), attrs=attrs, domain=GC, **tol(dtype))


def test_swish_extremes(op_tester):
    x = np.array([-200.0, -80.0, 0.0, 80.0, 200.0], np.float32)
    op_tester.check("Swish", [x], reference=lambda x: (x / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype), domain=GC)


def swish(alpha):
    return lambda x: x / (1 + np.exp(-np.float32(alpha) * x))


def mish(x):
    return x * np.tanh(np.logaddexp(0, x))


@pytest.mark.parametrize("op,fn,attrs,opset", [("Swish", swish(1.0), {}, 24), ("Swish", swish(0.5), {"alpha": 0.5}, 24),
                                               ("Swish", swish(-2.0), {"alpha": -2.0}, 24),
                                               ("Mish", mish, {}, 18), ("Mish", mish, {}, 22)])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3, 4), (1000,), ()])
def test_swish_mish(op_tester, op, fn, attrs, opset, dtype, shape):
    x = rand(shape, dtype)
    op_tester.check(op, [x], reference=in_dtype(fn), attrs=attrs, opset=opset, **tol(dtype))


def test_swish_mish_extremes_vs_onnxruntime(op_tester):
    x = np.array([-200.0, -80.0, -20.0, -1e-4, 0.0, 1e-4, 20.0, 80.0, 200.0], np.float32)
    op_tester.check("Swish", [x], reference=in_dtype(swish(1.5)), attrs={"alpha": 1.5}, opset=24)
    op_tester.check("Mish", [x], reference=lambda x: ort_run("Mish", [x], {}, 18)[0], opset=18, rtol=1e-5, atol=1e-6)


def test_swish_mish_reject_integers(op_tester):
    with pytest.raises(popart.popart_exception, match="Swish.*INT32"):
        op_tester.run("Swish", [np.array([1, -2], np.int32)], opset=24)
    with pytest.raises(popart.popart_exception, match="Mish.*INT64"):
        op_tester.run("Mish", [np.array([1, -2], np.int64)], opset=18)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_scale_integers(op_tester, dtype):
    x = np.arange(-5, 5).astype(dtype)
    op_tester.check("Scale", [x], reference=lambda x: (x * 3.0).astype(dtype), attrs={"scale": 3.0}, domain=GC)


def test_gelu_bad_approximate(op_tester):
    with pytest.raises(popart.popart_exception, match="approximate='fast'"):
        op_tester.run("Gelu", [rand((3,), np.float32)], attrs={"approximate": "fast"}, opset=20)


def test_celu_zero_alpha(op_tester):
    with pytest.raises(popart.popart_exception, match="alpha must not be 0"):
        op_tester.run("Celu", [rand((3,), np.float32)], attrs={"alpha": 0.0}, opset=12)


def test_activation_rejects_integers(op_tester):
    with pytest.raises(popart.popart_exception, match="Elu.*INT32"):
        op_tester.run("Elu", [np.array([1, -2], np.int32)], opset=6)


def test_inplace_chain(op_tester):
    """Floor(Sin(x)) becomes a chain of in-place ops; results must not change."""
    import onnx
    import onnx.helper as oh
    x = rand((64,), np.float32)
    nodes = [oh.make_node("Sin", ["x"], ["s"]), oh.make_node("Elu", ["s"], ["e"], alpha=0.5),
             oh.make_node("Floor", ["e"], ["y"])]
    g = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [64])],
                      [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [64])])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 13)])
    m.ir_version = 8
    s = popart.InferenceSession(m.SerializeToString(), popart.DataFlow(1, {"y": popart.AnchorReturnType("All")}),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, out))
    y = out["y"]
    v = np.sin(x.astype(np.float64))
    np.testing.assert_allclose(y, np.floor(np.where(v > 0, v, 0.5 * np.expm1(v))), atol=1e-6)
