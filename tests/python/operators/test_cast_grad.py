"""Cast gradient (between float types): dx = dy cast back to x's type."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart
from _grad_util import weight_grads, weighted_loss

FLOATS = [np.float32, np.float16, np.float64]
_ONNX = {np.float32: onnx.TensorProto.FLOAT, np.float16: onnx.TensorProto.FLOAT16, np.float64: onnx.TensorProto.DOUBLE}


@pytest.mark.parametrize("src", FLOATS)
@pytest.mark.parametrize("dst", FLOATS)
def test_cast_grad(src, dst):
    rng = np.random.RandomState(0)
    w = rng.randn(3, 5).astype(src)
    cot = rng.uniform(0.5, 1.5, (3, 5)).astype(dst)
    nodes = [oh.make_node("Cast", ["w"], ["y"], to=_ONNX[dst])] + weighted_loss("y", cot)
    got = weight_grads(nodes, {"w": w}, "loss")["w"]
    assert got.dtype == np.dtype(src)
    np.testing.assert_array_equal(got, cot.astype(src))


def test_cast_grad_through_integer_stops():
    # float -> int -> float: the integer tensor carries no gradient, so w gets none
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = np.ones((2, 3), np.float32)
    nodes = [oh.make_node("Cast", ["w"], ["i"], to=onnx.TensorProto.INT32),
             oh.make_node("Cast", ["i"], ["f"], to=onnx.TensorProto.FLOAT),
             oh.make_node("Add", ["f", "v"], ["y"])] + weighted_loss("y", np.full((2, 3), 2, np.float32))
    got = weight_grads(nodes, {"v": v, "w": w}, "loss", wrt=["v"])
    np.testing.assert_array_equal(got["v"], np.full((2, 3), 2, np.float32))
    with pytest.raises(popart.popart_exception, match="Gradient___w"):
        weight_grads(nodes, {"v": v, "w": w}, "loss", wrt=["w"])
