import numpy as np
import pytest

import popart


def softmax_axis(x, axis, log=False):
    x = x.astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    e = np.exp(x - m)
    s = e.sum(axis=axis, keepdims=True)
    return (x - m - np.log(s)) if log else e / s


def softmax_2d(x, axis, log=False):
    n = int(np.prod(x.shape[:axis], dtype=np.int64))
    return softmax_axis(x.reshape(n, -1), 1, log).reshape(x.shape)


def rand(shape, dtype=np.float32, scale=5.0):
    return (np.random.RandomState(0).randn(*shape) * scale).astype(dtype)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("shape,axis", [((2, 3, 4), 1), ((2, 3, 4), 2), ((2, 3, 4), 0), ((2, 3, 4), -1),
                                        ((5, 300), 1), ((7,), 0), ((2, 3, 4), -2)])
@pytest.mark.parametrize("opset", [11, 13])
def test_softmax(op_tester, op, shape, axis, opset):
    x = rand(shape)
    ref = softmax_axis if opset >= 13 else softmax_2d
    log = op == "LogSoftmax"
    op_tester.check(op, [x], reference=lambda x: ref(x, axis, log).astype(np.float32),
                    attrs={"axis": axis}, opset=opset)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("opset", [1, 11, 13])
def test_default_axis(op_tester, op, opset):
    x = rand((2, 3, 4))
    log = op == "LogSoftmax"
    want = softmax_axis(x, -1, log) if opset >= 13 else softmax_2d(x, 1, log)
    op_tester.check(op, [x], reference=lambda x: want.astype(np.float32), opset=opset)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("dtype", [np.float16, np.float64])
@pytest.mark.parametrize("axis", [1, 2])
def test_dtypes(op_tester, op, dtype, axis):
    x = rand((3, 4, 70), dtype, scale=3)
    log = op == "LogSoftmax"
    op_tester.check(op, [x], reference=lambda x: softmax_axis(x, axis, log).astype(dtype),
                    attrs={"axis": axis}, opset=13)


def test_large_values_stable(op_tester):
    x = np.array([[1000.0, 1000.0, -1000.0], [-1e30, 0.0, 1e30]], np.float32)
    op_tester.check("Softmax", [x], reference=lambda x: softmax_axis(x, 1).astype(np.float32), opset=13)
    op_tester.check("LogSoftmax", [x], reference=lambda x: softmax_axis(x, 1, True).astype(np.float32), opset=13)


def test_attention_sized(op_tester):
    x = rand((2, 4, 64, 64), scale=2)
    op_tester.check("Softmax", [x], reference=lambda x: softmax_axis(x, -1).astype(np.float32), opset=13)
    op_tester.check("Softmax", [x], reference=lambda x: softmax_axis(x, 2).astype(np.float32),
                    attrs={"axis": 2}, opset=13)


@pytest.mark.parametrize("axis,opset", [(3, 13), (-4, 13), (4, 11)])
def test_bad_axis(op_tester, axis, opset):
    with pytest.raises(popart.popart_exception, match=f"axis {axis} out of range for rank 3"):
        op_tester.run("Softmax", [rand((2, 3, 4))], attrs={"axis": axis}, opset=opset)


def test_int_rejected(op_tester):
    with pytest.raises(popart.popart_exception, match="type INT32"):
        op_tester.run("Softmax", [np.array([[1, 2]], np.int32)], opset=13)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("axis,opset", [(-1, 13), (1, 13), (0, 13), (1, 11), (2, 11)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grad(op_tester, op, axis, opset, dtype):
    x = rand((2, 3, 4), dtype, scale=1.0)
    ref = softmax_axis if opset >= 13 else softmax_2d
    op_tester.check_grad(op, [x], reference=lambda x: ref(x, axis, op == "LogSoftmax"), attrs={"axis": axis},
                         opset=opset)
