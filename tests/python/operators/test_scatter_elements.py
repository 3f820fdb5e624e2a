import numpy as np
import pytest

import popart


def gather_elements(x, ind, axis):
    axis %= x.ndim  # indices may be smaller than x on the other axes (no broadcasting)
    x = x[tuple(slice(0, n) if a != axis else slice(None) for a, n in enumerate(ind.shape))]
    return np.take_along_axis(x, np.where(ind < 0, ind + x.shape[axis], ind), axis)


def scatter_elements(x, ind, upd, axis, reduction="none"):
    y = x.copy()
    ind = np.where(ind < 0, ind + x.shape[axis], ind)
    for pos in np.ndindex(*ind.shape):
        tgt = list(pos)
        tgt[axis] = ind[pos]
        tgt = tuple(tgt)
        v = upd[pos]
        y[tgt] = {"none": v, "add": y[tgt] + v, "mul": y[tgt] * v, "max": max(y[tgt], v),
                  "min": min(y[tgt], v)}[reduction]
    return y


def rand_indices(rng, shape, dim, dtype=np.int64):
    return rng.integers(-dim, dim, shape).astype(dtype)


CASES = [((3, 4), (2, 4), 0), ((3, 4), (3, 2), 1), ((2, 3, 5), (2, 3, 4), -1), ((2, 3, 5), (1, 2, 5), 1),
         ((6,), (9,), 0)]


@pytest.mark.parametrize("dshape,ishape,axis", CASES)
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_gather_elements(op_tester, dshape, ishape, axis, itype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(dshape).astype(np.float32)
    ind = rand_indices(rng, ishape, dshape[axis], itype)
    op_tester.check("GatherElements", [x, ind], reference=lambda x, i: gather_elements(x, i, axis),
                    attrs={"axis": axis}, opset=13)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.bool_])
def test_gather_elements_dtypes(op_tester, dtype):
    rng = np.random.default_rng(1)
    x = (rng.integers(0, 5, (4, 5))).astype(dtype)
    ind = rand_indices(rng, (4, 3), 5)
    op_tester.check("GatherElements", [x, ind], reference=lambda x, i: gather_elements(x, i, 1),
                    attrs={"axis": 1}, opset=11)


@pytest.mark.parametrize("reduction,dshape,ishape,axis", [  # "none" needs unique targets on the axis
    (r, *case) for r in ("none", "add", "mul", "max", "min") for case in CASES
    if r != "none" or case[1][case[2]] <= case[0][case[2]]])
def test_scatter_elements(op_tester, dshape, ishape, axis, reduction):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(dshape).astype(np.float32)
    ind = rand_indices(rng, ishape, dshape[axis])
    if reduction == "none":  # unique targets: the result does not depend on the order
        ax = axis % len(dshape)
        lanes = np.moveaxis(np.zeros(ishape, np.int64), ax, -1)
        for pos in np.ndindex(*lanes.shape[:-1]):
            lanes[pos] = rng.permutation(dshape[ax])[:ishape[ax]]
        ind = np.ascontiguousarray(np.moveaxis(lanes, -1, ax))
    upd = rng.standard_normal(ishape).astype(np.float32)
    op_tester.check("ScatterElements", [x, ind, upd],
                    reference=lambda x, i, u: scatter_elements(x, i, u, axis, reduction),
                    attrs={"axis": axis, "reduction": reduction}, opset=18)


def test_scatter_elements_duplicates_last_wins(op_tester):
    x = np.zeros((1, 5), np.float32)
    ind = np.array([[1, 3, 1]], np.int64)
    upd = np.array([[1, 2, 3]], np.float32)
    got = op_tester.run("ScatterElements", [x, ind, upd], attrs={"axis": 1}, opset=13)[0]
    np.testing.assert_array_equal(got, [[0, 3, 0, 2, 0]])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float16, np.uint8])
@pytest.mark.parametrize("reduction", ["add", "mul", "max"])
def test_scatter_elements_dtypes(op_tester, dtype, reduction):
    rng = np.random.default_rng(3)
    x = rng.integers(1, 4, (3, 4)).astype(dtype)
    ind = rand_indices(rng, (3, 4), 3)
    upd = rng.integers(1, 4, (3, 4)).astype(dtype)
    op_tester.check("ScatterElements", [x, ind, upd],
                    reference=lambda x, i, u: scatter_elements(x, i, u, 0, reduction),
                    attrs={"axis": 0, "reduction": reduction}, opset=18)


@pytest.mark.parametrize("opset", [9, 11])
def test_scatter_deprecated(op_tester, opset):
    x = np.zeros((3, 3), np.float32)
    ind = np.array([[1, 0, 2], [0, 2, 1]], np.int64)
    upd = np.array([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]], np.float32)
    op_tester.check("Scatter", [x, ind, upd], reference=lambda x, i, u: scatter_elements(x, i, u, 0), opset=opset)


def test_scatter_elements_empty_indices(op_tester):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    op_tester.check("ScatterElements", [x, np.zeros((2, 0), np.int64), np.zeros((2, 0), np.float32)],
                    reference=lambda x, i, u: x, attrs={"axis": 1}, opset=13)


def test_gather_scatter_elements_errors(op_tester):
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="out of range"):
        op_tester.run("GatherElements", [x, np.array([[0, 3]], np.int64)], attrs={"axis": 1}, opset=13)
    with pytest.raises(popart.popart_exception, match="indices have type FLOAT"):
        op_tester.run("GatherElements", [x, np.zeros((2, 3), np.float32)], opset=13)
    with pytest.raises(popart.popart_exception, match="rank"):
        op_tester.run("GatherElements", [x, np.zeros((2,), np.int64)], opset=13)
    with pytest.raises(popart.popart_exception, match="axis 2 out of range"):
        op_tester.run("GatherElements", [x, np.zeros((2, 3), np.int64)], attrs={"axis": 2}, opset=13)
    ind, upd = np.zeros((1, 2), np.int64), np.zeros((1, 2), np.float32)
    with pytest.raises(popart.popart_exception, match="reduction='add' is not supported at opset 13"):
        op_tester.run("ScatterElements", [x, ind, upd], attrs={"reduction": "add"}, opset=13)
    with pytest.raises(popart.popart_exception, match="reduction='max' is not supported at opset 16"):
        op_tester.run("ScatterElements", [x, ind, upd], attrs={"reduction": "max"}, opset=16)
    with pytest.raises(popart.popart_exception, match="updates shape"):
        op_tester.run("ScatterElements", [x, ind, np.zeros((2, 2), np.float32)], opset=13)
    with pytest.raises(popart.popart_exception, match="out of range"):
        op_tester.run("ScatterElements", [x, np.array([[0, -4]], np.int64), upd], attrs={"axis": 1}, opset=13)
