import math

import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart


def run_graph(nodes, feeds, output, opset):
    """Runs a multi-node float32 model (inputs = feeds) and returns `output`."""
    ins = [oh.make_tensor_value_info(k, onnx.TensorProto.FLOAT, v.shape) for k, v in feeds.items()]
    g = oh.make_graph(nodes, "g", ins, [oh.make_tensor_value_info(output, onnx.TensorProto.FLOAT, None)])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", opset)])
    m.ir_version = min(m.ir_version, 10)
    df = popart.DataFlow(1, {output: popart.AnchorReturnType("All")})
    s = popart.InferenceSession(m.SerializeToString(), df, popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, out))
    return out[output]


_erf = np.vectorize(math.erf)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x.astype(np.float64)))


REFS = {
    "Exp": np.exp, "Sigmoid": _sigmoid, "Tanh": np.tanh, "Erf": _erf,
    "Neg": np.negative, "Abs": np.abs, "Reciprocal": lambda x: 1 / x.astype(np.float64),
}


def grid(dtype, lo=-12.0, hi=12.0, n=4000):
    return np.linspace(lo, hi, n).astype(dtype)


@pytest.mark.parametrize("op", sorted(REFS))
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_float_ops(op_tester, op, dtype):
    x = grid(dtype)
    if op == "Exp":
        x = grid(dtype, -80, 80) if dtype != np.float16 else grid(dtype, -15, 11)
    op_tester.check(op, [x], reference=lambda x: REFS[op](x.astype(np.float64)).astype(dtype))


@pytest.mark.parametrize("op", ["Exp", "Sigmoid", "Tanh", "Erf"])
def test_float32_accuracy_near_zero_and_tails(op_tester, op):
    x = np.concatenate([np.geomspace(1e-8, 1, 400), -np.geomspace(1e-8, 1, 400),
                        np.linspace(-6, 6, 2401), [0.0, 0.29999, 0.3, 0.8999, 0.9, 3.9199, 3.92]]).astype(np.float32)
    ref = lambda x: REFS[op](x.astype(np.float64))
    op_tester.check(op, [x], reference=ref, rtol=1e-6, atol=1e-30)


@pytest.mark.parametrize("op", ["Exp", "Sigmoid", "Tanh", "Erf"])
def test_float32_special_values(op_tester, op):
    x = np.array([np.inf, -np.inf, np.nan, 100.0, -100.0, -90.0, 88.0, 89.0], np.float32)
    (y,) = op_tester.run(op, [x])
    with np.errstate(all="ignore"):
        want = REFS[op](x.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-44)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_sqrt_log(op_tester, dtype):
    x = np.linspace(0.01, 100, 1000).astype(dtype)
    op_tester.check("Sqrt", [x], reference=lambda x: np.sqrt(x.astype(np.float64)).astype(dtype))
    op_tester.check("Log", [x], reference=lambda x: np.log(x.astype(np.float64)).astype(dtype))


def test_large_tensor_uses_threads(op_tester):
    x = np.random.RandomState(0).randn(3, 50000).astype(np.float32)
    op_tester.check("Tanh", [x], reference=np.tanh)
    op_tester.check("Sqrt", [np.abs(x)], reference=np.sqrt)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_int_neg_abs(op_tester, dtype):
    x = np.array([-5, 0, 3, -1, 7], dtype=dtype)
    op_tester.check("Neg", [x], reference=np.negative)
    op_tester.check("Abs", [x], reference=np.abs)


def test_abs_unsigned(op_tester):
    x = np.array([0, 5, 250], dtype=np.uint8)
    op_tester.check("Abs", [x], reference=np.abs)


def test_erf_int(op_tester):
    x = np.array([-3, 0, 2], dtype=np.int32)
    op_tester.check("Erf", [x], reference=lambda x: _erf(x).astype(np.int32), opset=13)


@pytest.mark.parametrize("alpha", [None, 0.2])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_leaky_relu(op_tester, alpha, dtype):
    x = grid(dtype, -5, 5, 101)
    a = 0.01 if alpha is None else alpha
    attrs = {} if alpha is None else {"alpha": alpha}
    op_tester.check("LeakyRelu", [x], reference=lambda x: np.where(x < 0, np.float64(a) * x, x).astype(dtype),
                    attrs=attrs, opset=16)


@pytest.mark.parametrize("op", ["Sqrt", "Exp", "Log", "Reciprocal", "Sigmoid", "Tanh"])
def test_int_rejected(op_tester, op):
    with pytest.raises(popart.popart_exception, match="type INT32"):
        op_tester.run(op, [np.array([1, 2], np.int32)])


def test_neg_unsigned_rejected(op_tester):
    with pytest.raises(popart.popart_exception, match="type UINT8"):
        op_tester.run("Neg", [np.array([1], np.uint8)])


@pytest.mark.parametrize("opset", [6, 13])
def test_inplace_chain(opset):
    # Sigmoid(Exp(Neg(Abs(x)))): every op after the first can run in place.
    nodes = [oh.make_node("Abs", ["x"], ["a"]), oh.make_node("Neg", ["a"], ["b"]),
             oh.make_node("Exp", ["b"], ["c"]), oh.make_node("Sigmoid", ["c"], ["y"])]
    x = np.linspace(-3, 3, 64).astype(np.float32)
    y = run_graph(nodes, {"x": x}, "y", opset)
    np.testing.assert_allclose(y, _sigmoid(np.exp(-np.abs(x))), rtol=1e-6)


GRAD_REFS = {
    "Sqrt": (np.sqrt, True), "Exp": (np.exp, False), "Log": (np.log, True), "Neg": (np.negative, False),
    "Abs": (np.abs, False), "Reciprocal": (lambda x: 1 / x, True), "Sigmoid": (_sigmoid, False),
    "Tanh": (np.tanh, False), "Erf": (_erf, False),
}


@pytest.mark.parametrize("op", sorted(GRAD_REFS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grad(op_tester, op, dtype):
    fn, positive = GRAD_REFS[op]
    x = np.random.RandomState(0).uniform(0.3 if positive else -2, 2, (3, 5)).astype(dtype)
    op_tester.check_grad(op, [x], reference=fn, opset=13)


def test_leaky_relu_grad(op_tester):
    x = np.array([-2.0, -0.5, 0.3, 1.5], np.float32)
    op_tester.check_grad("LeakyRelu", [x], reference=lambda x: np.where(x < 0, 0.2 * x, x), attrs={"alpha": 0.2})
