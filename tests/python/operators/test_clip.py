import numpy as np
import pytest

import popart


def data(dtype=np.float32):
    return np.linspace(-10, 10, 41).astype(dtype)


@pytest.mark.parametrize("opset", [1, 6])
def test_clip_attributes(op_tester, opset):
    op_tester.check("Clip", [data()], reference=lambda x: np.clip(x, -2.5, 3.0),
                    attrs={"min": -2.5, "max": 3.0}, opset=opset)
    op_tester.check("Clip", [data()], reference=lambda x: np.clip(x, None, 3.0), attrs={"max": 3.0}, opset=opset)
    op_tester.check("Clip", [data()], reference=lambda x: x, opset=opset)


@pytest.mark.parametrize("opset", [11, 12, 13])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_clip_inputs(op_tester, opset, dtype):
    lo, hi = np.array(-2.5, dtype), np.array(6.0, dtype)
    op_tester.check("Clip", [data(dtype), lo, hi], reference=lambda x, a, b: np.clip(x, a, b), opset=opset)
    op_tester.check("Clip", [data(dtype), op_tester.const(lo), op_tester.const(hi)],
                    reference=lambda x, a, b: np.clip(x, a, b), opset=opset)
    op_tester.check("Clip", [data(dtype), None, hi], reference=lambda x, a, b: np.minimum(x, b), opset=opset)
    op_tester.check("Clip", [data(dtype), lo], reference=lambda x, a: np.maximum(x, a), opset=opset)
    op_tester.check("Clip", [data(dtype)], reference=lambda x: x, opset=opset)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.int8])
def test_clip_ints(op_tester, dtype):
    x = np.arange(0, 40, dtype=dtype)
    lo, hi = np.array(3, dtype), np.array(17, dtype)
    op_tester.check("Clip", [x, lo, hi], reference=lambda x, a, b: np.clip(x, a, b), opset=13)
    op_tester.check("Clip", [x, None, hi], reference=lambda x, a, b: np.minimum(x, b), opset=13)


def test_clip_min_above_max_gives_max(op_tester):
    op_tester.check("Clip", [data(), np.array(5.0, np.float32), np.array(1.0, np.float32)],
                    reference=lambda x, a, b: np.full_like(x, 1.0), opset=13)


def test_clip_keeps_nan_and_inf(op_tester):
    x = np.array([np.nan, np.inf, -np.inf, 0.5], np.float32)
    (y,) = op_tester.run("Clip", [x], opset=13)
    np.testing.assert_array_equal(y, x)


def test_clip_large(op_tester):
    x = np.random.RandomState(0).randn(100000).astype(np.float32) * 10
    op_tester.check("Clip", [x, np.array(0, np.float32), np.array(6, np.float32)],
                    reference=lambda x, a, b: np.clip(x, a, b), opset=11)


def test_clip_bound_not_scalar(op_tester):
    with pytest.raises(popart.popart_exception, match="'min'.* must be a scalar"):
        op_tester.run("Clip", [data(), np.array([1.0, 2.0], np.float32)], opset=11)


def test_clip_bound_type(op_tester):
    with pytest.raises(popart.popart_exception, match="'max'.*type DOUBLE"):
        op_tester.run("Clip", [data(), None, np.array(1.0, np.float64)], opset=11)


def test_clip_float16_long(op_tester):
    x = np.linspace(-10, 10, 5001).astype(np.float16)
    op_tester.check("Clip", [x, np.array(-1.5, np.float16), np.array(2.25, np.float16)],
                    reference=lambda x, a, b: np.clip(x, a, b), opset=13)
