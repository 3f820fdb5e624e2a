"""Transpose: every permutation of small tensors, size-1 axes, all element sizes."""
import itertools

import numpy as np
import pytest

import popart


def data(shape, dtype=np.float32):
    x = np.arange(int(np.prod(shape))).reshape(shape)
    return (x % 3 == 1) if dtype == np.bool_ else x.astype(dtype)


@pytest.mark.parametrize("perm", list(itertools.permutations(range(4))))
def test_transpose_rank4(op_tester, perm):
    x = data((2, 3, 4, 5))
    op_tester.check("Transpose", [x], reference=lambda x: np.transpose(x, perm), attrs={"perm": list(perm)})


@pytest.mark.parametrize("shape", [(5,), (3, 7), (2, 3, 4), (1, 6, 1, 3), (33, 1, 65), (2, 1, 2, 1, 2, 1)])
@pytest.mark.parametrize("opset", [1, 13])
def test_transpose_default_reverses(op_tester, shape, opset):
    x = data(shape)
    op_tester.check("Transpose", [x], reference=lambda x: np.transpose(x), opset=opset)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.uint8, np.int16, np.int32, np.int64,
                                   np.bool_])
@pytest.mark.parametrize("perm", [(1, 0, 2), (2, 0, 1), (0, 2, 1)])
def test_transpose_dtypes(op_tester, dtype, perm):
    x = data((17, 9, 31), dtype)
    op_tester.check("Transpose", [x], reference=lambda x: np.transpose(x, perm), attrs={"perm": list(perm)})


@pytest.mark.parametrize("shape,perm", [
    ((300, 257), (1, 0)),               # tiled, several tiles and ragged edges
    ((4, 130, 70), (2, 0, 1)),
    ((8, 64, 3, 3), (2, 3, 1, 0)),
    ((512, 384), (1, 0)),               # large enough to run on several threads
    ((16, 1024, 16), (0, 2, 1)),
])
def test_transpose_large(op_tester, shape, perm):
    x = np.random.RandomState(0).randn(*shape).astype(np.float32)
    op_tester.check("Transpose", [x], reference=lambda x: np.transpose(x, perm), attrs={"perm": list(perm)})


def test_transpose_scalar_and_identity(op_tester):
    op_tester.check("Transpose", [np.array(3.5, np.float32)], reference=lambda x: x)
    x = data((3, 4))
    op_tester.check("Transpose", [x], reference=lambda x: x, attrs={"perm": [0, 1]})


def test_transpose_zero_sized(op_tester):
    x = op_tester.const(np.zeros((2, 0, 3), np.int64))
    op_tester.check("Transpose", [x], reference=lambda x: np.transpose(x, (2, 0, 1)), attrs={"perm": [2, 0, 1]})


@pytest.mark.parametrize("perm", [[0, 0, 1], [0, 1], [0, 1, 3], [2, 1, 0, 3]])
def test_transpose_bad_perm(op_tester, perm):
    with pytest.raises(popart.popart_exception, match=r"perm \[.*\] is not a permutation of the 3 input axes"):
        op_tester.run("Transpose", [data((2, 3, 4))], attrs={"perm": perm})
