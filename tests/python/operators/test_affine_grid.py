"""AffineGrid (opset 20) against torch.nn.functional.affine_grid, 2-D and 3-D,
align_corners, float32/float16/float64, and its gradient by finite differences."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import popart


def torch_ref(size, align):
    def ref(theta, _size=None):
        out = F.affine_grid(torch.from_numpy(theta.astype(np.float64)), list(size), align_corners=bool(align))
        return out.numpy().astype(theta.dtype)
    return ref


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 1, 6), (2, 1, 3, 2, 4)])
@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_affine_grid(op_tester, size, align, dtype):
    nd = len(size) - 2
    theta = np.random.RandomState(0).randn(size[0], nd, nd + 1).astype(dtype)
    tol = 1e-2 if dtype == np.float16 else 1e-6
    op_tester.check("AffineGrid", [theta, op_tester.const(np.array(size, np.int64))], reference=torch_ref(size, align),
                    attrs={"align_corners": align}, opset=20, rtol=tol, atol=tol)


@pytest.mark.parametrize("size,align", [((2, 1, 3, 4), 0), ((1, 1, 2, 3, 2), 1)])
def test_affine_grid_grad(op_tester, size, align):
    nd = len(size) - 2
    theta = np.random.RandomState(1).randn(size[0], nd, nd + 1)
    op_tester.check_grad("AffineGrid", [theta, op_tester.const(np.array(size, np.int64))],
                         reference=torch_ref(size, align), wrt=[0], attrs={"align_corners": align}, opset=20)


def test_affine_grid_errors(op_tester):
    theta = np.zeros((2, 2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="input 0 \\(theta\\) must be \\[2, 3, 4\\]"):
        op_tester.run("AffineGrid", [theta, op_tester.const(np.array([2, 1, 3, 3, 3], np.int64))], opset=20)
    with pytest.raises(popart.popart_exception, match="input 1 \\(size\\) must have 4 or 5 values"):
        op_tester.run("AffineGrid", [theta, op_tester.const(np.array([2, 1, 3], np.int64))], opset=20)
    with pytest.raises(popart.popart_exception, match="must be a constant"):
        op_tester.run("AffineGrid", [theta, np.array([2, 1, 3, 3], np.int64)], opset=20)
