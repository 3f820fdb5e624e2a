"""Split: attribute/input sizes, equal parts, num_outputs (opset 18), every axis."""
import numpy as np
import pytest

import popart


def data(shape, dtype=np.float32):
    x = np.arange(int(np.prod(shape))).reshape(shape)
    return (x % 3 == 1) if dtype == np.bool_ else x.astype(dtype)


def np_split(sizes, axis):
    return lambda x, *rest: tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("opset", [2, 11])
def test_split_attribute(op_tester, axis, opset):
    x = data((6, 6, 6))
    op_tester.check("Split", [x], reference=np_split([1, 2, 3], axis), attrs={"axis": axis, "split": [1, 2, 3]},
                    num_outputs=3, opset=opset)


@pytest.mark.parametrize("opset", [1, 2, 11, 13, 18])
def test_split_equal(op_tester, opset):
    x = data((4, 6))
    op_tester.check("Split", [x], reference=np_split([2, 2, 2], 1), attrs={"axis": 1}, num_outputs=3,
                    opset=opset)


@pytest.mark.parametrize("opset", [1, 13, 18])
def test_split_input(op_tester, opset):
    x = data((7, 3))
    sizes = op_tester.const(np.array([4, 0, 3], np.int64))
    op_tester.check("Split", [x, sizes], reference=np_split([4, 0, 3], 0), num_outputs=3, opset=opset)


@pytest.mark.parametrize("dim,n,sizes", [(7, 3, [3, 3, 1]), (8, 4, [2, 2, 2, 2]), (5, 2, [3, 2])])
def test_split_num_outputs(op_tester, dim, n, sizes):
    x = data((2, dim))
    op_tester.check("Split", [x], reference=np_split(sizes, 1), attrs={"axis": -1, "num_outputs": n},
                    num_outputs=n, opset=18)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.int32, np.int64, np.bool_])
def test_split_dtypes(op_tester, dtype):
    op_tester.check("Split", [data((5, 4), dtype)], reference=np_split([1, 3], 1), attrs={"axis": 1, "split": [1, 3]},
                    num_outputs=2)


def test_split_large(op_tester):
    x = np.random.RandomState(0).randn(256, 600).astype(np.float32)
    op_tester.check("Split", [x], reference=np_split([100, 300, 200], 1), attrs={"axis": 1, "split": [100, 300, 200]},
                    num_outputs=3)
    op_tester.check("Split", [x], reference=np_split([128, 128], 0), attrs={"axis": 0}, num_outputs=2)


def test_split_errors(op_tester):
    with pytest.raises(popart.popart_exception, match="cannot split axis 0 of size 5 into 2 equal parts"):
        op_tester.run("Split", [data((5,))], num_outputs=2)
    with pytest.raises(popart.popart_exception, match=r"split \[1,2\] sums to 3, axis 0 has size 5"):
        op_tester.run("Split", [data((5,))], attrs={"split": [1, 2]}, num_outputs=2)
    with pytest.raises(popart.popart_exception, match="gives 1 parts but the node has 2 outputs"):
        op_tester.run("Split", [data((5,))], attrs={"split": [5]}, num_outputs=2)
    with pytest.raises(popart.popart_exception, match="input 1 since opset 13"):
        op_tester.run("Split", [data((4,))], attrs={"split": [2, 2]}, num_outputs=2, opset=13)
    with pytest.raises(popart.popart_exception, match="not both"):
        op_tester.run("Split", [data((4,)), op_tester.const(np.array([2, 2], np.int64))],
                      attrs={"num_outputs": 2}, num_outputs=2, opset=18)
    with pytest.raises(popart.popart_exception, match="axis 1 out of range for rank 1"):
        op_tester.run("Split", [data((4,))], attrs={"axis": 1}, num_outputs=2)
