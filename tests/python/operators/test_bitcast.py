"""BitCast (opset 26): the bytes of x read as another type of the same width,
against numpy's view()."""
import numpy as np
import pytest

import popart

PAIRS = [(np.float32, np.int32), (np.int32, np.float32), (np.float64, np.int64), (np.int64, np.float64),
         (np.float16, np.int16), (np.uint16, np.float16), (np.bool_, np.uint8), (np.uint8, np.int8),
         (np.uint32, np.int32), (np.uint64, np.float64)]


@pytest.mark.parametrize("src,dst", PAIRS)
@pytest.mark.parametrize("shape", [(), (5,), (2, 3, 4)])
def test_bitcast(op_tester, src, dst, shape):
    raw = np.random.RandomState(0).randint(0, 2 if src == np.bool_ else 120, size=shape).astype(np.uint8)
    x = raw.astype(src) if src != np.bool_ else raw.astype(np.bool_)
    if np.issubdtype(src, np.floating):
        x = np.asarray(np.random.RandomState(1).randn(*shape)).astype(src)
    to = oh_type(dst)
    op_tester.check("BitCast", [x], reference=lambda x: x.view(dst), attrs={"to": to}, opset=26)


def oh_type(dtype):
    import onnx.helper as oh
    return oh.np_dtype_to_tensor_dtype(np.dtype(dtype))


def test_bitcast_width_mismatch(op_tester):
    with pytest.raises(popart.popart_exception, match="BitCast from FLOAT to DOUBLE .*same bit width"):
        op_tester.run("BitCast", [np.zeros(3, np.float32)], attrs={"to": oh_type(np.float64)}, opset=26)
