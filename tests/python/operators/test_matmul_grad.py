"""MatMul gradients (MatMulLhsGrad, MatMulRhsGrad) against torch autograd: 1-D operands,
batched products and batch dims broadcast on either side (the gradient sums over them)."""
import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _torch_grad import check_against_torch  # noqa: E402

SHAPES = [
    ((3, 4), (4, 5)),
    ((4,), (4, 5)),                # 1-D A
    ((3, 4), (4,)),                # 1-D B
    ((4,), (4,)),                  # dot product
    ((2, 3, 4), (4, 5)),           # batched A, 2-D B: dB sums over the batch
    ((3, 4), (2, 4, 5)),           # 2-D A broadcast over B's batch
    ((2, 1, 3, 4), (5, 4, 6)),     # both broadcast
    ((2, 3, 4), (2, 4, 6)),
    ((5,), (2, 5, 3)),
    ((2, 3, 5), (5,)),
    ((1, 1), (1, 1)),
    ((64, 128), (128, 96)),
    ((2, 8, 520), (520, 6)),       # dB = A^T dY over 520 rows: B (dY) packed
    ((520, 8), (8, 6)),            # 520-row product: B packed
    ((4, 6), (6, 1600)),           # wide B packed; dB = A^T dY [6, 1600] packed too
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("a_shape,b_shape", SHAPES)
def test_matmul_grad(op_tester, dtype, a_shape, b_shape):
    rs = np.random.RandomState(0)
    a, b = rs.randn(*a_shape).astype(dtype), rs.randn(*b_shape).astype(dtype)
    check_against_torch(op_tester, "MatMul", [a, b], torch.matmul)


@pytest.mark.parametrize("opset", [1, 9])
def test_matmul_grad_versions(op_tester, opset):
    rs = np.random.RandomState(1)
    a, b = rs.randn(2, 3, 7).astype(np.float32), rs.randn(2, 7, 2).astype(np.float32)
    check_against_torch(op_tester, "MatMul", [a, b], torch.matmul, opset=opset)


def test_matmul_grad_one_operand(op_tester):
    """Only B trains: A's gradient is not built."""
    rs = np.random.RandomState(2)
    a, b = rs.randn(4, 3, 5).astype(np.float32), rs.randn(5, 6).astype(np.float32)
    check_against_torch(op_tester, "MatMul", [a, b], torch.matmul, wrt=[1])
