"""Anchors: buffer shapes from initAnchorArrays and values for each return type
(All, Final, EveryN, Sum) over batchesPerStep x accumulation micro-batches."""
import numpy as np
import pytest

import popart
from _session_models import relu, relu_add_model, relu_model, run, session

BPS = 4


def step_input(bps=BPS, shape=(2, 3), seed=0):
    return np.random.default_rng(seed).standard_normal((bps, *shape)).astype(np.float32)


@pytest.mark.parametrize("name", ["All", "ALL", "all"])
def test_all_returns_every_batch(name):
    s = session(relu_model(), ["out"], bps=BPS, art=popart.AnchorReturnType(name))
    anchors = s.initAnchorArrays()
    assert anchors["out"].shape == (BPS, 2, 3)
    assert anchors["out"].dtype == np.float32
    x = step_input()
    s.run(popart.PyStepIO({"x": x}, anchors))
    np.testing.assert_array_equal(anchors["out"], relu(x))


def test_final_returns_last_batch():
    s = session(relu_model(), ["out"], bps=BPS, art=popart.AnchorReturnType("Final"))
    assert s.initAnchorArrays()["out"].shape == (2, 3)
    x = step_input()
    np.testing.assert_array_equal(run(s, {"x": x})["out"], relu(x[-1]))


@pytest.mark.parametrize("n", [1, 2, 4])
def test_every_n_returns_every_nth_batch(n):
    s = session(relu_model(), ["out"], bps=BPS, art=popart.AnchorReturnType("EveryN", n))
    expected_shape = (BPS // n, 2, 3) if BPS // n > 1 else (2, 3)
    assert s.initAnchorArrays()["out"].shape == expected_shape
    x = step_input()
    want = relu(x)[n - 1::n].reshape(expected_shape)
    np.testing.assert_array_equal(run(s, {"x": x})["out"], want)


def test_sum_reduces_over_batches():
    s = session(relu_model(), ["out"], bps=BPS, art=popart.AnchorReturnType("Sum"))
    assert s.initAnchorArrays()["out"].shape == (2, 3)
    x = step_input()
    np.testing.assert_allclose(run(s, {"x": x})["out"], relu(x).sum(0), rtol=1e-6)
    # A second run starts a new sum.
    x2 = step_input(seed=1)
    np.testing.assert_allclose(run(s, {"x": x2})["out"], relu(x2).sum(0), rtol=1e-6)


def test_mixed_return_types_in_one_dataflow():
    model, w = relu_add_model()
    anchors = {"r": popart.AnchorReturnType("All"), "y": popart.AnchorReturnType("EveryN", 2),
               "z": popart.AnchorReturnType("Final")}
    s = session(model, anchors, bps=BPS)
    arrays = s.initAnchorArrays()
    assert {k: v.shape for k, v in arrays.items()} == {"r": (4, 2, 3), "y": (2, 2, 3), "z": (2, 3)}
    x = step_input()
    s.run(popart.PyStepIO({"x": x}, arrays))
    np.testing.assert_array_equal(arrays["r"], relu(x))
    np.testing.assert_allclose(arrays["y"], (relu(x) + w)[1::2], rtol=1e-6)
    np.testing.assert_allclose(arrays["z"], relu(relu(x[-1]) + w), rtol=1e-6)


def test_intermediate_tensor_can_be_anchored():
    """Anchors need not be model outputs; outputs need not be anchored."""
    model, w = relu_add_model()
    s = session(model, ["y"], bps=2)
    arrays = s.initAnchorArrays()
    assert list(arrays) == ["y"]
    x = step_input(bps=2)
    s.run(popart.PyStepIO({"x": x}, arrays))
    np.testing.assert_allclose(arrays["y"], relu(x) + w, rtol=1e-6)


def test_size_one_dims_of_the_tensor_are_kept():
    """Only the leading [batchesPerStep, accumulation, replication] dims of size 1 go."""
    s = session(relu_model(shape=(1, 3)), ["out"], bps=1)
    assert s.initAnchorArrays()["out"].shape == (1, 3)
    s = session(relu_model(shape=(1, 3)), ["out"], bps=3)
    assert s.initAnchorArrays()["out"].shape == (3, 1, 3)


@pytest.mark.parametrize("art,shape", [(("All",), (3, 2, 2, 3)), (("Final",), (2, 3)),
                                       (("EveryN", 3), (2, 2, 3)), (("Sum",), (2, 3))])
def test_gradient_accumulation_micro_batches(art, shape):
    """accumulationFactor micro-batches per batch: anchors [bps, accum, *shape]."""
    opts = popart.SessionOptions()
    opts.enableGradientAccumulation = True
    opts.accumulationFactor = 2
    s = session(relu_model(), ["out"], bps=3, art=popart.AnchorReturnType(*art), options=opts)
    assert s.accumulationFactor == 2
    arrays = s.initAnchorArrays()
    assert arrays["out"].shape == shape
    x = np.random.default_rng(3).standard_normal((3, 2, 2, 3)).astype(np.float32)
    s.run(popart.PyStepIO({"x": x}, arrays))
    y = relu(x)
    want = {"All": y, "Final": y[-1, -1], "EveryN": y[2], "Sum": y.sum((0, 1))}[art[0]]
    np.testing.assert_allclose(arrays["out"], want, rtol=1e-6)


def test_anchor_dtypes_follow_the_tensor():
    s = session(relu_model(dtype=popart_onnx_type(np.float16)), ["out"], bps=2)
    arrays = s.initAnchorArrays()
    assert arrays["out"].dtype == np.float16
    x = step_input(bps=2).astype(np.float16)
    s.run(popart.PyStepIO({"x": x}, arrays))
    np.testing.assert_array_equal(arrays["out"], relu(x))


def popart_onnx_type(dtype):
    import onnx.helper
    return onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def test_dataflow_api():
    df = popart.DataFlow(4, {"a": popart.AnchorReturnType("EveryN", 2), "b": popart.AnchorReturnType("Sum")})
    assert df.batchesPerStep() == 4 and df.nAnchors() == 2
    assert sorted(df.anchors()) == ["a", "b"]
    assert df.isAnchored("a") and not df.isAnchored("c")
    assert df.art("a").id() == popart.AnchorReturnTypeId.EveryN and df.art("a").rp() == 2
    assert df.art("b").id() == popart.AnchorReturnTypeId.Sum
    with pytest.raises(popart.popart_exception, match="'c'"):
        df.art("c")
    df2 = popart.DataFlow(2, ["a", "b"])
    assert df2.art("b").id() == popart.AnchorReturnTypeId.All
    df2.setBatchesPerStep(6)
    assert df2.batchesPerStep() == 6


@pytest.mark.parametrize("make,match", [
    (lambda: popart.AnchorReturnType("Often"), "Often"),
    (lambda: popart.AnchorReturnType("EveryN"), "return period"),
    (lambda: popart.AnchorReturnType("EveryN", 0), "positive"),
    (lambda: popart.DataFlow(4, {"a": popart.AnchorReturnType("EveryN", 3)}), "divide"),
    (lambda: popart.DataFlow(0, ["a"]), "batchesPerStep"),
])
def test_dataflow_errors(make, match):
    with pytest.raises(popart.popart_exception, match=match):
        make()


def test_unknown_anchor_is_named():
    with pytest.raises(popart.popart_exception, match="'nothere'"):
        session(relu_model(), ["nothere"], prepare=False)
