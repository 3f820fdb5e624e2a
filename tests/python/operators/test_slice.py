"""Slice: opset 1 attributes and opset 10+ inputs; negative indices, clamping, steps."""
import numpy as np
import pytest

import popart

BIG = np.iinfo(np.int64).max
SMALL = np.iinfo(np.int64).min


def data(shape, dtype=np.float32):
    x = np.arange(int(np.prod(shape))).reshape(shape)
    return (x % 3 == 1) if dtype == np.bool_ else x.astype(dtype)


def np_slice(starts, ends, axes=None, steps=None):
    axes = list(range(len(starts))) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps

    def ref(x, *unused):
        idx = [slice(None)] * x.ndim
        for s, e, a, st in zip(starts, ends, axes, steps):
            idx[a] = slice(s, e, st)  # numpy clamps exactly as ONNX does
        return x[tuple(idx)]
    return ref


def consts(op_tester, *arrays):
    return [None if a is None else op_tester.const(np.array(a, np.int64)) for a in arrays]


CASES = [  # starts, ends, axes, steps
    ([1, 0], [2, 3], [0, 1], None),
    ([0, 1], [-1, 1000], None, None),
    ([-3], [BIG], [2], None),
    ([0, 0, 3], [20, 10, 4], [0, 1, 2], None),
    ([-100], [100], [1], None),
    ([2], [1], [1], None),                      # empty
    ([0, 1], [3, 5], [0, 1], [2, 3]),
    ([-1], [SMALL], [2], [-1]),                 # full reverse
    ([4, -2], [0, -100], [2, 1], [-2, -1]),
    ([10], [-10], [2], [-3]),
    ([1], [BIG], [-1], [2]),                    # negative axis
    ([5], [0], [2], [1]),                       # empty
]


@pytest.mark.parametrize("starts,ends,axes,steps", CASES)
@pytest.mark.parametrize("opset", [10, 11, 13])
def test_slice_inputs(op_tester, starts, ends, axes, steps, opset):
    x = data((3, 4, 5))
    ins = [x] + consts(op_tester, starts, ends, axes, steps)
    while ins[-1] is None:
        ins.pop()
    op_tester.check("Slice", ins, reference=np_slice(starts, ends, axes, steps), opset=opset)


@pytest.mark.parametrize("starts,ends,axes,steps", [c for c in CASES if c[3] is None and c[1][0] != BIG])
def test_slice_opset1(op_tester, starts, ends, axes, steps):
    attrs = {"starts": starts, "ends": ends}
    if axes is not None:
        attrs["axes"] = axes
    op_tester.check("Slice", [data((3, 4, 5))], reference=np_slice(starts, ends, axes), attrs=attrs, opset=1)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.int32, np.int64, np.bool_])
def test_slice_dtypes(op_tester, dtype):
    ins = [data((6, 7), dtype)] + consts(op_tester, [1, -1], [5, 0], [0, 1], [2, -2])
    op_tester.check("Slice", ins, reference=np_slice([1, -1], [5, 0], [0, 1], [2, -2]))


def test_slice_int32_indices(op_tester):
    ins = [data((6, 7)), op_tester.const(np.array([1], np.int32)), op_tester.const(np.array([4], np.int32)),
           op_tester.const(np.array([1], np.int32))]
    op_tester.check("Slice", ins, reference=lambda x, *r: x[:, 1:4])


def test_slice_large(op_tester):
    x = np.random.RandomState(0).randn(64, 128, 33).astype(np.float32)
    ins = [x] + consts(op_tester, [3, 100, 0], [60, 1, 33], [0, 1, 2], [1, -1, 1])
    op_tester.check("Slice", ins, reference=lambda x, *r: x[3:60, 100:1:-1, :])


def test_slice_errors(op_tester):
    x = data((3, 4))
    with pytest.raises(popart.popart_exception, match="contain 0"):
        op_tester.run("Slice", [x] + consts(op_tester, [0], [2], [0], [0]))
    with pytest.raises(popart.popart_exception, match="same length"):
        op_tester.run("Slice", [x] + consts(op_tester, [0, 1], [2], None, None)[:2])
    with pytest.raises(popart.popart_exception, match="out of range for rank 2"):
        op_tester.run("Slice", [x] + consts(op_tester, [0], [2], [2]))
    with pytest.raises(popart.popart_exception, match="more than once"):
        op_tester.run("Slice", [x] + consts(op_tester, [0, 0], [2, 2], [1, -1]))
    with pytest.raises(popart.popart_exception, match="(?i)constant"):
        op_tester.run("Slice", [x, np.array([0], np.int64), np.array([1], np.int64)])
    with pytest.raises(popart.popart_exception, match="input since opset 10"):
        op_tester.run("Slice", [x] + consts(op_tester, [0], [2]), attrs={"axes": [0]})
