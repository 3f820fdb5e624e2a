import numpy as np
import pytest

import popart


def _lse(x, axis, keepdims):
    m = np.max(x, axis=axis, keepdims=True)
    r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis=axis)


REFS = {
    "ReduceSum": lambda x, a, k: np.sum(x, axis=a, keepdims=k),
    "ReduceMean": lambda x, a, k: np.mean(x, axis=a, keepdims=k),
    "ReduceMax": lambda x, a, k: np.max(x, axis=a, keepdims=k),
    "ReduceMin": lambda x, a, k: np.min(x, axis=a, keepdims=k),
    "ReduceProd": lambda x, a, k: np.prod(x, axis=a, keepdims=k),
    "ReduceL1": lambda x, a, k: np.sum(np.abs(x), axis=a, keepdims=k),
    "ReduceL2": lambda x, a, k: np.sqrt(np.sum(x * x, axis=a, keepdims=k)),
    "ReduceSumSquare": lambda x, a, k: np.sum(x * x, axis=a, keepdims=k),
    "ReduceLogSum": lambda x, a, k: np.log(np.sum(x, axis=a, keepdims=k)),
    "ReduceLogSumExp": _lse,
}
AXES = [None, (0,), (1,), (2,), (-1,), (0, 2), (1, 2), (0, 1, 2), (0, 1)]


def ref_of(op, axes, keepdims, dtype):
    a = None if axes is None else tuple(axes)
    return lambda x: np.asarray(REFS[op](x.astype(np.float64), a, bool(keepdims))).astype(dtype)


def data(op, shape, dtype=np.float32, seed=0):
    r = np.random.RandomState(seed)
    x = r.rand(*shape) + 0.5 if op in ("ReduceLogSum", "ReduceProd") else r.randn(*shape)
    return x.astype(dtype)


@pytest.mark.parametrize("op", sorted(REFS))
@pytest.mark.parametrize("axes", AXES)
@pytest.mark.parametrize("keepdims", [0, 1])
def test_reduce_attr_axes(op_tester, op, axes, keepdims):
    x = data(op, (3, 4, 5))
    attrs = {"keepdims": keepdims}
    if axes is not None:
        attrs["axes"] = list(axes)
    op_tester.check(op, [x], reference=ref_of(op, axes, keepdims, np.float32), attrs=attrs, opset=11)


@pytest.mark.parametrize("op", sorted(REFS))
@pytest.mark.parametrize("axes", [(1,), (0, 2), (-1,)])
def test_reduce_axes_input(op_tester, op, axes):
    opset = 13 if op == "ReduceSum" else 18
    x = data(op, (2, 3, 4, 5))
    op_tester.check(op, [x, op_tester.const(np.array(axes, np.int64))],
                    reference=lambda x, a: ref_of(op, axes, 1, np.float32)(x), opset=opset)


@pytest.mark.parametrize("op,opset", [("ReduceSum", 13), ("ReduceMean", 18), ("ReduceMax", 18)])
def test_empty_axes_input(op_tester, op, opset):
    x = data(op, (2, 3))
    op_tester.check(op, [x], reference=ref_of(op, None, 0, np.float32), attrs={"keepdims": 0}, opset=opset)
    op_tester.check(op, [x, op_tester.const(np.array([], np.int64))],
                    reference=lambda x, a: ref_of(op, None, 1, np.float32)(x), opset=opset)
    op_tester.check(op, [x, None], reference=lambda x, a: x, attrs={"noop_with_empty_axes": 1}, opset=opset)


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float16, np.float64])
def test_reduce_dtypes(op_tester, op, dtype):
    x = (np.random.RandomState(0).randint(1, 4, size=(3, 4, 6)) * (1 if op == "ReduceProd" else 7)).astype(dtype)
    ref = REFS[op]
    want = lambda x: np.asarray(ref(x.astype(np.float64), (1,), True)).astype(dtype)
    if op == "ReduceMean" and np.issubdtype(dtype, np.integer):
        want = lambda x: np.trunc(np.mean(x.astype(np.float64), axis=1, keepdims=True)).astype(dtype)
    op_tester.check(op, [x], reference=want, attrs={"axes": [1]}, opset=11)


def test_reduce_max_bool(op_tester):
    x = np.array([[True, False], [False, False]])
    op_tester.check("ReduceMax", [x], reference=lambda x: np.max(x, axis=1, keepdims=True),
                    attrs={"axes": [1]}, opset=13)


@pytest.mark.parametrize("shape,axes", [((64, 768), (-1,)), ((2, 64, 56, 56), (2, 3)), ((1000, 17), (0,)),
                                        ((5, 3000, 7), (1,)), ((4, 1, 5), (1,)), ((6,), (0,))])
def test_reduce_mean_shapes(op_tester, shape, axes):
    x = data("ReduceMean", shape)
    op_tester.check("ReduceMean", [x], reference=ref_of("ReduceMean", axes, 1, np.float32),
                    attrs={"axes": list(axes)}, opset=11, rtol=1e-4, atol=1e-5)


def test_logsumexp_large_values(op_tester):
    x = np.array([[1000.0, 1000.0], [-1000.0, -1001.0]], np.float32)
    op_tester.check("ReduceLogSumExp", [x], reference=ref_of("ReduceLogSumExp", (1,), 0, np.float32),
                    attrs={"axes": [1], "keepdims": 0}, opset=11)
    op_tester.check("ReduceLogSumExp", [x], reference=ref_of("ReduceLogSumExp", (0,), 0, np.float32),
                    attrs={"axes": [0], "keepdims": 0}, opset=11)


def test_reduce_empty_axis(op_tester):
    x = op_tester.const(np.zeros((2, 0), np.float32))
    got = op_tester.run("ReduceSum", [x], attrs={"axes": [1], "keepdims": 0}, opset=11)[0]
    assert got.tolist() == [0.0, 0.0]
    got = op_tester.run("ReduceMax", [x], attrs={"axes": [1], "keepdims": 0}, opset=11)[0]
    assert got.tolist() == [-np.inf, -np.inf]


def test_bad_axis(op_tester):
    with pytest.raises(popart.popart_exception, match="axis 3 out of range for rank 3"):
        op_tester.run("ReduceSum", [data("ReduceSum", (2, 3, 4))], attrs={"axes": [3]}, opset=11)


def test_repeated_axis(op_tester):
    with pytest.raises(popart.popart_exception, match="repeated"):
        op_tester.run("ReduceMean", [data("ReduceMean", (2, 3, 4))], attrs={"axes": [1, -2]}, opset=11)


def test_axes_input_must_be_constant(op_tester):
    with pytest.raises(popart.popart_exception, match="constant"):
        op_tester.run("ReduceSum", [data("ReduceSum", (2, 3)), np.array([1], np.int64)], opset=13)


def test_bool_sum_rejected(op_tester):
    with pytest.raises(popart.popart_exception, match="type BOOL"):
        op_tester.run("ReduceSum", [np.array([True, False])], opset=11)


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceLogSumExp"])
@pytest.mark.parametrize("axes", [(-1,), (0,)])
def test_reduce_float16_long_runs(op_tester, op, axes):
    # Runs longer than the float16 staging chunk, reduced contiguously and by columns.
    x = (np.random.RandomState(0).rand(3, 2500) - 0.5).astype(np.float16)
    op_tester.check(op, [x], reference=ref_of(op, axes, 1, np.float16), attrs={"axes": list(axes)}, opset=11,
                    rtol=2e-3, atol=2e-3)
