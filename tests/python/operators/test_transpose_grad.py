"""Transpose gradient: dx = Transpose(dy, inverse perm)."""
import numpy as np
import pytest

from _grad_util import tol


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("shape,perm", [((3, 4), None), ((2, 3, 4), [1, 2, 0]), ((2, 3, 4), [2, 0, 1]),
                                        ((2, 1, 3, 5), [3, 1, 0, 2]), ((5, 6, 2), [0, 2, 1]), ((7,), [0])])
def test_transpose_grad(op_tester, dtype, shape, perm):
    x = np.random.RandomState(0).randn(*shape).astype(dtype)
    op_tester.check_grad("Transpose", [x], reference=lambda x: np.transpose(x, perm),
                         attrs={} if perm is None else {"perm": perm}, **tol(dtype))


def test_transpose_grad_large_tiles(op_tester):
    # big enough for the tiled kernel's SSE 4x4 path on both the forward and the inverse
    x = np.random.RandomState(1).randn(9, 37, 6).astype(np.float32)
    op_tester.check_grad("Transpose", [x[:, :, :2]], reference=lambda x: np.transpose(x, [2, 0, 1]),
                         attrs={"perm": [2, 0, 1]})
