import numpy as np
import pytest

import popart


def gather_nd(x, ind, b=0):
    ind = np.asarray(ind)
    batch = int(np.prod(x.shape[:b]))
    xs, ins = x.reshape((batch,) + x.shape[b:]), ind.reshape((batch,) + ind.shape[b:])
    out = []
    for n in range(batch):
        for t in np.ndindex(*ins.shape[1:-1]):
            out.append(xs[n][tuple(ins[n][t])])
    return np.array(out, x.dtype).reshape(ind.shape[:-1] + x.shape[b + ind.shape[-1]:])


def scatter_nd(x, ind, upd, reduction="none"):
    y = x.copy()
    for t in np.ndindex(*ind.shape[:-1]):
        k = tuple(ind[t])
        y[k] = {"none": upd[t], "add": y[k] + upd[t], "mul": y[k] * upd[t],
                "max": np.maximum(y[k], upd[t]), "min": np.minimum(y[k], upd[t])}[reduction]
    return y


@pytest.mark.parametrize("dshape,ind,b", [
    ((2, 2), [[0, 0], [1, 1]], 0),
    ((2, 2), [[1], [0]], 0),
    ((2, 2, 2), [[0, 1], [1, 0]], 0),
    ((2, 2, 2), [[[0, 1]], [[1, 0]]], 0),
    ((2, 2, 2), [[1], [0]], 1),
    ((2, 3, 4, 5), [[[1, -1], [0, 2]], [[2, 0], [0, 0]]], 1),
    ((2, 3, 4, 5), [[[1], [0], [3]], [[3], [2], [-1]]], 2),
])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_gather_nd(op_tester, dshape, ind, b, itype):
    x = np.random.default_rng(0).standard_normal(dshape).astype(np.float32)
    ind = np.array(ind, itype)
    op_tester.check("GatherND", [x, ind], reference=lambda x, i: gather_nd(x, i, b), attrs={"batch_dims": b},
                    opset=13)


@pytest.mark.parametrize("dtype", [np.float16, np.int32, np.bool_])
@pytest.mark.parametrize("opset", [11, 12])
def test_gather_nd_dtypes(op_tester, dtype, opset):
    x = (np.arange(24).reshape(2, 3, 4) % 5).astype(dtype)
    ind = np.array([[0, 2], [1, 1], [1, 0]], np.int64)
    op_tester.check("GatherND", [x, ind], reference=lambda x, i: gather_nd(x, i), opset=opset)


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize("ind", [[[0], [2]], [[0, 1], [3, 2], [1, 1]], [[[1, 2, 3]], [[0, 0, 0]]]])
def test_scatter_nd(op_tester, reduction, ind):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 4, 4)).astype(np.float32)
    ind = np.array(ind, np.int64)
    upd = rng.standard_normal(ind.shape[:-1] + x.shape[ind.shape[-1]:]).astype(np.float32)
    op_tester.check("ScatterND", [x, ind, upd], reference=lambda x, i, u: scatter_nd(x, i, u, reduction),
                    attrs={"reduction": reduction}, opset=18)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint8])
@pytest.mark.parametrize("opset", [11, 13, 16])
def test_scatter_nd_versions(op_tester, dtype, opset):
    x = np.arange(8, dtype=dtype)
    ind = np.array([[4], [3], [1], [7]], np.int64)
    upd = np.array([9, 10, 11, 12], dtype)
    op_tester.check("ScatterND", [x, ind, upd], reference=lambda x, i, u: scatter_nd(x, i, u), opset=opset)


def test_scatter_nd_duplicate_add(op_tester):
    x = np.zeros(4, np.float32)
    ind = np.array([[1], [1], [2]], np.int64)
    upd = np.array([1, 2, 4], np.float32)
    got = op_tester.run("ScatterND", [x, ind, upd], attrs={"reduction": "add"}, opset=16)[0]
    np.testing.assert_array_equal(got, [0, 3, 4, 0])


def test_gather_scatter_nd_errors(op_tester):
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="out of range"):
        op_tester.run("GatherND", [x, np.array([[0, 3]], np.int64)], opset=13)
    with pytest.raises(popart.popart_exception, match=r"indices.shape\[-1\] = 3"):
        op_tester.run("GatherND", [x, np.zeros((1, 3), np.int64)], opset=13)
    with pytest.raises(popart.popart_exception, match="batch_dims 2"):
        op_tester.run("GatherND", [x, np.zeros((2, 1), np.int64)], attrs={"batch_dims": 2}, opset=13)
    with pytest.raises(popart.popart_exception, match="updates shape"):
        op_tester.run("ScatterND", [x, np.zeros((1, 1), np.int64), np.zeros((2,), np.float32)], opset=13)
    with pytest.raises(popart.popart_exception, match="reduction='min' is not supported at opset 16"):
        op_tester.run("ScatterND", [x, np.zeros((1, 1), np.int64), np.zeros((1, 3), np.float32)],
                      attrs={"reduction": "min"}, opset=16)
