import numpy as np
import pytest

import popart

MODES = ["constant", "reflect", "edge"]


def np_pad(x, pads, mode, value=0, axes=None):
    axes = list(range(x.ndim)) if axes is None else [a % x.ndim for a in axes]
    width = [(0, 0)] * x.ndim
    for i, a in enumerate(axes):
        width[a] = (pads[i], pads[i + len(axes)])
    # negative pads crop first, then the mode pads the cropped tensor
    crop = tuple(slice(max(0, -b), x.shape[k] - max(0, -e)) for k, (b, e) in enumerate(width))
    width = [(max(0, b), max(0, e)) for b, e in width]
    if mode == "constant":
        return np.pad(x[crop], width, mode, constant_values=value)
    return np.pad(x[crop], width, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,pads", [((3, 4), [1, 2, 0, 3]), ((2, 3, 5), [0, 1, 2, 1, 0, 2]),
                                        ((5,), [3, 4]), ((2, 3, 4, 5), [0, 0, 1, 2, 0, 0, 2, 1])])
def test_pad_11(op_tester, mode, shape, pads):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    op_tester.check("Pad", [x, op_tester.const(np.array(pads, np.int64)), np.array(1.5, np.float32)],
                    reference=lambda x, p, v: np_pad(x, pads, mode, v), attrs={"mode": mode}, opset=11)


@pytest.mark.parametrize("mode", MODES)
def test_pad_2_attributes(op_tester, mode):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    pads = [2, 1, 1, 2]
    op_tester.check("Pad", [x], reference=lambda x: np_pad(x, pads, mode, -2.0),
                    attrs={"mode": mode, "pads": pads, "value": -2.0}, opset=2)


def test_pad_default_constant_is_zero(op_tester):
    x = np.ones((2, 2), np.int32)
    op_tester.check("Pad", [x, op_tester.const(np.array([1, 1, 1, 1], np.int64))],
                    reference=lambda x, p: np.pad(x, 1), opset=13)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.int64, np.uint8, np.bool_])
@pytest.mark.parametrize("mode", MODES)
def test_pad_dtypes(op_tester, dtype, mode):
    x = (np.arange(24).reshape(2, 3, 4) % 3).astype(dtype)
    pads = np.array([1, 0, 2, 0, 2, 1], np.int64)
    op_tester.check("Pad", [x, op_tester.const(pads)], reference=lambda x, p: np_pad(x, list(p), mode),
                    attrs={"mode": mode}, opset=13)


@pytest.mark.parametrize("mode", MODES + ["wrap"])
def test_pad_18_axes_and_19_wrap(op_tester, mode):
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 5)).astype(np.float32)
    pads, axes = [1, 3, 2, 4], [-1, 1]
    op_tester.check("Pad", [x, op_tester.const(np.array(pads, np.int64)), None,
                            op_tester.const(np.array(axes, np.int64))],
                    reference=lambda x, *_: np_pad(x, pads, mode, 0, axes), attrs={"mode": mode}, opset=19)


@pytest.mark.parametrize("mode", MODES + ["wrap"])
def test_pad_negative_pads_crop(op_tester, mode):
    x = np.arange(30, dtype=np.float32).reshape(5, 6)
    pads = [-1, 2, 1, -2]
    op_tester.check("Pad", [x, op_tester.const(np.array(pads, np.int64))],
                    reference=lambda x, p: np_pad(x, pads, mode), attrs={"mode": mode}, opset=19)


@pytest.mark.parametrize("mode", ["reflect", "wrap"])
def test_pad_wider_than_input(op_tester, mode):
    """reflect and wrap repeat periodically when a pad is larger than the axis."""
    x = np.array([1, 2, 3], np.float32)
    op_tester.check("Pad", [x, op_tester.const(np.array([7, 5], np.int64))],
                    reference=lambda x, p: np.pad(x, (7, 5), mode), attrs={"mode": mode}, opset=19)


def test_pad_runtime_constant_value(op_tester):
    """constant_value is read at run time: it may be an ordinary input."""
    x = np.zeros((2, 2), np.float32)
    for v in [3.0, -1.0]:
        got = op_tester.run("Pad", [x, op_tester.const(np.array([0, 1, 0, 1], np.int64)), np.array(v, np.float32)],
                            opset=11)[0]
        np.testing.assert_array_equal(got, np.pad(x, ((0, 0), (1, 1)), constant_values=v))


def test_pad_errors(op_tester):
    x = np.zeros((2, 3), np.float32)
    pads = op_tester.const(np.array([0, 1, 0, 1], np.int64))
    with pytest.raises(popart.popart_exception, match="mode='wrap' is not supported at opset 11"):
        op_tester.run("Pad", [x, pads], attrs={"mode": "wrap"}, opset=11)
    with pytest.raises(popart.popart_exception, match="mode='symmetric'"):
        op_tester.run("Pad", [x, pads], attrs={"mode": "symmetric"}, opset=19)
    with pytest.raises(popart.popart_exception, match="2 values per padded axis"):
        op_tester.run("Pad", [x, op_tester.const(np.array([1, 1], np.int64))], opset=13)
    with pytest.raises(popart.popart_exception, match="must be a constant"):
        op_tester.run("Pad", [x, np.array([0, 1, 0, 1], np.int64)], opset=13)
    with pytest.raises(popart.popart_exception, match="below zero"):
        op_tester.run("Pad", [x, op_tester.const(np.array([0, -2, 0, -2], np.int64))], opset=13)
    with pytest.raises(popart.popart_exception, match="empty after cropping"):
        op_tester.run("Pad", [x, op_tester.const(np.array([-2, 0, 1, 0], np.int64))], attrs={"mode": "edge"},
                      opset=13)
