"""Gather gradient: dy scatter-added into zeros of the data shape (repeated indices accumulate)."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest

from _grad_util import tol, weight_grads, weighted_loss


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("shape,indices,axis", [
    ((5, 3), [0, 2, 2, -1], 0),
    ((5, 3), [[1, -3], [1, 4]], 0),
    ((2, 5, 3), [4, 0, 4, 4], 1),
    ((2, 5, 3), [[2]], -2),
    ((3, 4), [3, -4, 0], -1),
    ((6,), 2, 0),
    ((4, 3), [], 0),
])
def test_gather_grad(op_tester, dtype, itype, shape, indices, axis):
    x = np.random.RandomState(0).randn(*shape).astype(dtype)
    idx = np.array(indices, dtype=itype)
    op_tester.check_grad("Gather", [x, idx], reference=lambda x, i: np.take(x, i, axis=axis), attrs={"axis": axis},
                         opset=13, **tol(dtype))


def test_gather_grad_wide_rows():
    # rows longer than one column block of the parallel scatter-add
    x = np.random.RandomState(1).randn(3, 1100).astype(np.float32)
    idx = np.array([2, 0, 2, 2], np.int64)
    cot = np.random.RandomState(2).randn(4, 1100).astype(np.float32)
    nodes = [oh.make_node("Constant", [], ["idx"], value=onnx.numpy_helper.from_array(idx, "idx")),
             oh.make_node("Gather", ["w", "idx"], ["y"], axis=0)] + weighted_loss("y", cot)
    got = weight_grads(nodes, {"w": x}, "loss")["w"]
    want = np.zeros_like(x)
    np.add.at(want, idx, cot)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
