import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart

FLOAT = onnx.TensorProto.FLOAT


def random_model(op, attrs, like_input=None, consumer=None):
    """One random op (feeding `consumer`, e.g. Add with the input, when given)."""
    ins, inputs = [], []
    if like_input is not None:
        ins = [oh.make_tensor_value_info("x", oh.np_dtype_to_tensor_dtype(like_input.dtype), like_input.shape)]
        inputs = ["x"]
    nodes = [oh.make_node(op, inputs, ["r"], **attrs)]
    out = "r"
    if consumer:
        nodes.append(oh.make_node(consumer, ["r", "r"], ["y"]))
        out = "y"
    g = oh.make_graph(nodes, "g", ins, [oh.make_tensor_value_info(out, onnx.TensorProto.UNDEFINED, None)])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 13)])
    m.ir_version = 8
    return m.SerializeToString(), out


def session(model, out, seed=None):
    s = popart.InferenceSession(model, popart.DataFlow(1, {out: popart.AnchorReturnType("All")}),
                                popart.DeviceManager().createCpuDevice())
    if seed is not None:
        s.setRandomSeed(seed)
    s.prepareDevice()
    return s


def draw(s, out, feeds=None, runs=1):
    res = []
    for _ in range(runs):
        a = s.initAnchorArrays()
        s.run(popart.PyStepIO(feeds or {}, a))
        res.append(a[out].copy())
    return res


@pytest.mark.parametrize("dtype,onnx_dtype", [(np.float32, 1), (np.float16, 10), (np.float64, 11)])
def test_random_normal(dtype, onnx_dtype):
    model, out = random_model("RandomNormal", {"shape": [200, 300], "mean": 2.0, "scale": 3.0, "dtype": onnx_dtype})
    y = draw(session(model, out), out)[0]
    assert y.shape == (200, 300) and y.dtype == dtype
    y = y.astype(np.float64)
    assert abs(y.mean() - 2.0) < 0.05 and abs(y.std() - 3.0) < 0.05
    assert abs(((y - 2) / 3) ** 3).mean() - 2 * np.sqrt(2 / np.pi) < 0.05  # E|z|^3 of a normal
    assert abs(np.mean(np.abs(y - 2.0) < 3.0) - 0.6827) < 0.01


@pytest.mark.parametrize("dtype,onnx_dtype", [(np.float32, 1), (np.float16, 10), (np.float64, 11)])
def test_random_uniform(dtype, onnx_dtype):
    model, out = random_model("RandomUniform", {"shape": [100, 500], "low": -1.0, "high": 3.0, "dtype": onnx_dtype})
    y = draw(session(model, out), out)[0]
    assert y.shape == (100, 500) and y.dtype == dtype
    assert y.min() >= -1 and y.max() <= 3
    hist = np.histogram(y.astype(np.float64), bins=8, range=(-1, 3))[0] / y.size
    np.testing.assert_allclose(hist, 1 / 8, atol=0.01)


@pytest.mark.parametrize("op", ["RandomNormalLike", "RandomUniformLike"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_random_like(op, dtype):
    x = np.zeros((3, 40, 50), dtype)
    attrs = {} if dtype != np.int32 else {"dtype": 1}
    model, out = random_model(op, attrs, like_input=x)
    y = draw(session(model, out), out, {"x": x})[0]
    assert y.shape == x.shape
    assert y.dtype == (np.float32 if dtype == np.int32 else dtype)
    assert abs(y.mean() - (0 if "Normal" in op else 0.5)) < 0.05


def test_seed_attribute_is_reproducible():
    model, out = random_model("RandomNormal", {"shape": [64], "seed": 3.0})
    a = draw(session(model, out), out, runs=3)
    b = draw(session(model, out), out, runs=3)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], a[1]), "each run draws new values"
    other = draw(session(random_model("RandomNormal", {"shape": [64], "seed": 4.0})[0], out), out)[0]
    assert not np.array_equal(a[0], other)


def test_not_constant_folded():
    """A random op with no inputs is not folded into a constant: runs differ."""
    model, out = random_model("RandomUniform", {"shape": [16]}, consumer="Add")
    a, b = draw(session(model, out, seed=1), out, runs=2)
    assert not np.array_equal(a, b)
    assert a.min() >= 0 and a.max() <= 2


def test_two_ops_in_a_model_differ():
    nodes = [oh.make_node("RandomNormal", [], ["a"], shape=[32], seed=1.0),
             oh.make_node("RandomNormal", [], ["b"], shape=[32], seed=1.0)]
    g = oh.make_graph(nodes, "g", [], [oh.make_tensor_value_info(n, FLOAT, [32]) for n in "ab"])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 13)])
    m.ir_version = 8
    s = popart.InferenceSession(m.SerializeToString(),
                                popart.DataFlow(1, {n: popart.AnchorReturnType("All") for n in "ab"}),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, anchors))
    assert not np.array_equal(anchors["a"], anchors["b"])


def test_random_errors():
    for attrs, match in [({"shape": [2], "dtype": 6}, "output type INT32"),
                         ({"shape": [2, -1]}, "negative dimension")]:
        model, out = random_model("RandomNormal", attrs)
        with pytest.raises(popart.popart_exception, match=match):
            session(model, out)
    model, out = random_model("RandomUniform", {"shape": [2], "low": 2.0, "high": 1.0})
    with pytest.raises(popart.popart_exception, match="low 2 must not exceed high 1"):
        session(model, out)
    model, out = random_model("RandomNormal", {})
    with pytest.raises(popart.popart_exception, match="shape"):
        session(model, out)


def test_session_seed_reproducible():
    model, out = random_model("RandomUniform", {"shape": [32]})
    a = draw(session(model, out, seed=7), out, runs=2)
    b = draw(session(model, out, seed=7), out, runs=2)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_session_seed_changes_values():
    model, out = random_model("RandomUniform", {"shape": [32]})
    assert not np.array_equal(draw(session(model, out, seed=7), out)[0], draw(session(model, out, seed=8), out)[0])
