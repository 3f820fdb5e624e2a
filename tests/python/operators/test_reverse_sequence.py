import numpy as np
import pytest

import popart


def reverse_sequence(x, lens, batch_axis, time_axis):
    y = x.copy()
    for b, n in enumerate(lens):
        src = [slice(None)] * x.ndim
        src[batch_axis], src[time_axis] = b, slice(n - 1, None, -1) if n > 0 else slice(0, 0)
        dst = [slice(None)] * x.ndim
        dst[batch_axis], dst[time_axis] = b, slice(0, n)
        y[tuple(dst)] = x[tuple(src)]
    return y


@pytest.mark.parametrize("batch_axis,time_axis", [(0, 1), (1, 0)])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 2), (5, 3, 2, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.bool_])
def test_reverse_sequence(op_tester, batch_axis, time_axis, shape, dtype):
    rng = np.random.default_rng(0)
    x = (rng.integers(0, 9, shape)).astype(dtype)
    lens = rng.integers(0, shape[time_axis] + 1, shape[batch_axis]).astype(np.int64)
    op_tester.check("ReverseSequence", [x, lens], reference=lambda x, l: reverse_sequence(x, l, batch_axis, time_axis),
                    attrs={"batch_axis": batch_axis, "time_axis": time_axis}, opset=10)


def test_reverse_sequence_errors(op_tester):
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(popart.popart_exception, match="batch_axis=0 and time_axis=0"):
        op_tester.run("ReverseSequence", [x, np.ones(3, np.int64)], attrs={"batch_axis": 0, "time_axis": 0}, opset=10)
    with pytest.raises(popart.popart_exception, match="sequence_lens shape"):
        op_tester.run("ReverseSequence", [x, np.ones(3, np.int64)], opset=10)
    with pytest.raises(popart.popart_exception, match="out of range"):
        op_tester.run("ReverseSequence", [x, np.array([1, 5, 0], np.int64)], attrs={"batch_axis": 0, "time_axis": 1},
                      opset=10)
