"""NaN and +-Inf propagate as numpy/ONNX specify, kernel family by kernel family."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest

from _reliability_models import model, run, vinfo

X = np.array([[np.nan, 1, -np.inf, 2], [3, np.inf, -1, np.nan], [0.5, -2, 4, 1]], np.float32)


def _softmax(a):
    e = np.exp(a - np.max(a, 1, keepdims=True))
    return e / e.sum(1, keepdims=True)


UNARY = [
    ("Relu", {}, 13, lambda a: np.where(np.isnan(a), np.nan, np.maximum(a, 0))),
    ("ReduceMax", {"keepdims": 0, "axes": [1]}, 11, lambda a: np.max(a, axis=1)),
    ("ReduceMin", {"keepdims": 0, "axes": [1]}, 11, lambda a: np.min(a, axis=1)),
    ("ReduceMax", {"keepdims": 0, "axes": [0]}, 11, lambda a: np.max(a, axis=0)),
    ("ReduceMin", {"keepdims": 0, "axes": [0]}, 11, lambda a: np.min(a, axis=0)),
    ("ReduceSum", {"keepdims": 0, "axes": [1]}, 11, lambda a: np.sum(a, axis=1)),
    ("ReduceMean", {"keepdims": 0, "axes": [0]}, 11, lambda a: np.mean(a, axis=0)),
    ("ReduceProd", {"keepdims": 0, "axes": [1]}, 11, lambda a: np.prod(a, axis=1)),
    ("Softmax", {"axis": 1}, 13, _softmax),
    ("Abs", {}, 13, np.abs),
    ("Neg", {}, 13, np.negative),
    ("Sigmoid", {}, 13, lambda a: 1 / (1 + np.exp(-a))),
    ("LeakyRelu", {}, 13, lambda a: np.where(a >= 0, a, 0.01 * a)),
    ("Clip", {}, 13, lambda a: a),
    ("Sqrt", {}, 13, np.sqrt),
    ("Exp", {}, 13, np.exp),
    ("Log", {}, 13, np.log),
]


@pytest.mark.parametrize("op,attrs,opset,ref", UNARY, ids=[f"{u[0]}{u[1].get('axes', '')}" for u in UNARY])
def test_unary_and_reductions(op, attrs, opset, ref):
    y = run(model([oh.make_node(op, ["x"], ["y"], **attrs)], [vinfo("x", shape=X.shape)], [vinfo("y", shape=())],
                  opset=opset), {"x": X}, ["y"])["y"]
    with np.errstate(all="ignore"):
        expected = ref(X.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(y, expected, rtol=1e-6, equal_nan=True)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(expected))


BINARY = [("Max", np.maximum), ("Min", np.minimum), ("Add", np.add), ("Mul", np.multiply), ("Div", np.divide),
          ("Greater", np.greater), ("Less", np.less), ("Equal", np.equal), ("GreaterOrEqual", np.greater_equal),
          ("LessOrEqual", np.less_equal)]


@pytest.mark.parametrize("op,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_and_comparisons(op, ref):
    other = X[::-1].copy()
    r = oh.make_tensor("r", onnx.TensorProto.FLOAT, X.shape, other.flatten())
    y = run(model([oh.make_node(op, ["x", "r"], ["y"])], [vinfo("x", shape=X.shape)], [vinfo("y", shape=())], [r],
                  opset=13), {"x": X}, ["y"])["y"]
    with np.errstate(all="ignore"):
        expected = ref(X, other)
    assert y.dtype == expected.dtype
    np.testing.assert_array_equal(y, expected)


def test_clip_with_nan_bounds_input():
    lo = oh.make_tensor("lo", onnx.TensorProto.FLOAT, [], [-1.0])
    hi = oh.make_tensor("hi", onnx.TensorProto.FLOAT, [], [1.5])
    y = run(model([oh.make_node("Clip", ["x", "lo", "hi"], ["y"])], [vinfo("x", shape=X.shape)],
                  [vinfo("y", shape=())], [lo, hi]), {"x": X}, ["y"])["y"]
    np.testing.assert_array_equal(y, np.clip(X, -1.0, 1.5))


def test_average_pool_propagates_nan_and_inf():
    x = X.reshape(1, 1, 3, 4)
    y = run(model([oh.make_node("AveragePool", ["x"], ["y"], kernel_shape=[1, 2], strides=[1, 2])],
                  [vinfo("x", shape=x.shape)], [vinfo("y", shape=())]), {"x": x}, ["y"])["y"]
    with np.errstate(all="ignore"):
        expected = np.mean(x.reshape(1, 1, 3, 2, 2), axis=-1)
    np.testing.assert_array_equal(y, expected)
