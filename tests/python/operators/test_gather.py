"""Gather: every axis, negative indices, indices of any rank, int32/int64 indices."""
import numpy as np
import pytest

import popart


def data(shape, dtype=np.float32):
    x = np.arange(int(np.prod(shape))).reshape(shape)
    return (x % 3 == 1) if dtype == np.bool_ else x.astype(dtype)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
@pytest.mark.parametrize("ishape", [(), (4,), (2, 3)])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_gather(op_tester, axis, ishape, itype):
    x = data((3, 4, 5))
    d = x.shape[axis]
    idx = (np.arange(int(np.prod(ishape))) * 7 % (2 * d) - d).reshape(ishape).astype(itype)
    op_tester.check("Gather", [x, idx], reference=lambda x, i: np.take(x, i, axis=axis), attrs={"axis": axis})


@pytest.mark.parametrize("opset", [1, 11, 13])
def test_gather_constant_indices_default_axis(op_tester, opset):
    x = data((5, 3))
    idx = op_tester.const(np.array([[4, 0], [1, 1]], np.int64))
    op_tester.check("Gather", [x, idx], reference=lambda x, i: np.take(x, i, axis=0), opset=opset)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.int32, np.int64, np.uint8, np.bool_])
def test_gather_dtypes(op_tester, dtype):
    x = data((6, 7), dtype)
    idx = np.array([5, -1, 0, 2], np.int64)
    op_tester.check("Gather", [x, idx], reference=lambda x, i: np.take(x, i, axis=1), attrs={"axis": 1})


def test_gather_embedding_large(op_tester):
    rs = np.random.RandomState(0)
    table = rs.randn(1000, 256).astype(np.float32)
    idx = rs.randint(-1000, 1000, size=(16, 64)).astype(np.int32)
    op_tester.check("Gather", [table, idx], reference=lambda x, i: np.take(x, i, axis=0))


def test_gather_zero_sized_indices(op_tester):
    x = op_tester.const(np.arange(12, dtype=np.int64).reshape(3, 4))
    idx = op_tester.const(np.zeros((0,), np.int64))
    op_tester.check("Gather", [x, idx], reference=lambda x, i: np.take(x, i, axis=1), attrs={"axis": 1})


def test_gather_errors(op_tester):
    x = data((3, 4))
    with pytest.raises(popart.popart_exception, match="index 4 .* out of range for an axis of size 4"):
        op_tester.run("Gather", [x, np.array([0, 4], np.int64)], attrs={"axis": 1})
    with pytest.raises(popart.popart_exception, match="index -4 .* out of range for an axis of size 3"):
        op_tester.run("Gather", [x, np.array([-4], np.int32)])
    with pytest.raises(popart.popart_exception, match="indices have type FLOAT, expected INT32 or INT64"):
        op_tester.run("Gather", [x, np.array([0.0], np.float32)])
    with pytest.raises(popart.popart_exception, match="axis 2 out of range for rank 2"):
        op_tester.run("Gather", [x, np.array([0], np.int64)], attrs={"axis": 2})
