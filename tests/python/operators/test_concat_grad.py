"""Concat gradient: each input gets the slice of dy it filled."""
import numpy as np
import onnx.helper as oh
import pytest

from _grad_util import tol, weight_grads, weighted_loss


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("shapes,axis", [([(2, 3), (2, 4)], 1), ([(2, 3), (2, 4)], -1), ([(1, 3), (4, 3), (2, 3)], 0),
                                         ([(2, 1, 3), (2, 2, 3), (2, 3, 3)], -2), ([(5,)], 0),
                                         ([(2, 3), (0, 3), (1, 3)], 0)])
def test_concat_grad(op_tester, dtype, shapes, axis):
    rng = np.random.RandomState(0)
    xs = [rng.randn(*s).astype(dtype) for s in shapes]
    wrt = [i for i, s in enumerate(shapes) if np.prod(s) > 0]
    op_tester.check_grad("Concat", xs, reference=lambda *xs: np.concatenate(xs, axis=axis), wrt=wrt,
                         attrs={"axis": axis}, **tol(dtype))


def test_concat_grad_constant_input(op_tester):
    # only the weight input needs a gradient; the constant's grad op is pruned
    x = np.random.RandomState(1).randn(3, 2).astype(np.float32)
    c = np.arange(6, dtype=np.float32).reshape(3, 2)
    op_tester.check_grad("Concat", [x, op_tester.const(c), x[:, :1].copy()],
                         reference=lambda *xs: np.concatenate(xs, axis=1), wrt=[0, 2], attrs={"axis": 1})


def test_concat_grad_same_tensor_twice():
    # y = Concat(w, w): partial gradients of w are summed
    w = np.random.RandomState(2).randn(2, 3).astype(np.float32)
    cot = np.random.RandomState(3).randn(2, 6).astype(np.float32)
    nodes = [oh.make_node("Concat", ["w", "w"], ["y"], axis=1)] + weighted_loss("y", cot)
    got = weight_grads(nodes, {"w": w}, "loss")["w"]
    np.testing.assert_allclose(got, cot[:, :3] + cot[:, 3:], rtol=1e-6)
