"""Slice gradient: dy scattered into zeros at the sliced positions (steps included)."""
import numpy as np
import pytest

from _grad_util import tol


def slice_ref(starts, ends, axes=None, steps=None):
    def ref(x, *unused):
        idx = [slice(None)] * x.ndim
        for k, (s, e) in enumerate(zip(starts, ends)):
            a = k if axes is None else axes[k]
            idx[a] = slice(s, e, 1 if steps is None else steps[k])
        return x[tuple(idx)]
    return ref


CASES = [  # shape, starts, ends, axes, steps
    ((6,), [1], [4], None, None),
    ((4, 5), [1, 0], [3, 5], None, None),
    ((4, 5), [-3], [-1], [1], None),
    ((4, 5), [0], [5], [-1], [2]),
    ((3, 4, 5), [2, 4], [0, -100], [0, 2], [-1, -2]),
    ((3, 4, 5), [0, 1, 0], [100, 3, 5], [0, 1, 2], [1, 1, 3]),
    ((4, 5), [0], [4], [0], [1]),  # every element: a plain copy
    ((4, 5), [3], [1], [0], [1]),  # empty slice: gradient all zeros
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("shape,starts,ends,axes,steps", CASES)
def test_slice_grad(op_tester, dtype, shape, starts, ends, axes, steps):
    x = np.random.RandomState(0).randn(*shape).astype(dtype)
    c = lambda v: op_tester.const(np.array(v, np.int64))
    inputs = [x, c(starts), c(ends), None if axes is None else c(axes), None if steps is None else c(steps)]
    while inputs[-1] is None:
        inputs.pop()
    op_tester.check_grad("Slice", inputs, reference=slice_ref(starts, ends, axes, steps), opset=13, **tol(dtype))


def test_slice_grad_opset1_attributes(op_tester):
    x = np.random.RandomState(1).randn(3, 6).astype(np.float32)
    op_tester.check_grad("Slice", [x], reference=slice_ref([1, -4], [3, -1]),
                         attrs={"starts": [1, -4], "ends": [3, -1]}, opset=1)
