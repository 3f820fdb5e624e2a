"""DFT (opset 17 and 20) against numpy.fft: real and complex signals, forward,
inverse, one-sided (rfft / irfft), dft_length padding and truncation, axes."""
import numpy as np
import pytest

import popart


def to_complex(x):
    return x[..., 0] + (1j * x[..., 1] if x.shape[-1] == 2 else 0)


def stack(c):
    return np.stack([c.real, c.imag], axis=-1)


def ref_fn(axis, inverse, onesided, length, dtype):
    def ref(x, *_):
        c, ax = to_complex(x.astype(np.float64)), axis % x.ndim  # axis counts the trailing component dim
        if inverse and onesided:
            return np.fft.irfft(c, n=length, axis=ax)[..., None].astype(dtype)
        if inverse:
            return stack(np.fft.ifft(c, n=length, axis=ax)).astype(dtype)
        out = np.fft.fft(c, n=length, axis=ax)
        if onesided:
            out = np.take(out, np.arange(out.shape[ax] // 2 + 1), axis=ax)
        return stack(out).astype(dtype)
    return ref


@pytest.mark.parametrize("shape", [(2, 8, 3, 1), (1, 7, 4, 2), (3, 5, 2)])
@pytest.mark.parametrize("axis", [1, -2])
@pytest.mark.parametrize("inverse,onesided", [(0, 0), (0, 1), (1, 0), (1, 1)])
@pytest.mark.parametrize("length", [None, 6, 11])
def test_dft_opset20(op_tester, shape, axis, inverse, onesided, length):
    x = np.random.RandomState(0).randn(*shape).astype(np.float32)
    if inverse and onesided and x.shape[-1] == 1:
        x = np.concatenate([x, np.zeros_like(x)], axis=-1)
    ax = axis % len(shape)
    n = length if length is not None else (2 * (shape[ax] - 1) if inverse and onesided else shape[ax])
    ins = [x, None if length is None else op_tester.const(np.array(length, np.int64)), op_tester.const(np.array(axis, np.int64))]
    op_tester.check("DFT", ins, reference=ref_fn(axis, inverse, onesided, n, np.float32),
                    attrs={"inverse": inverse, "onesided": onesided}, opset=20, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("axis", [1, 2])
def test_dft_opset17_attribute_axis(op_tester, dtype, axis):
    x = np.random.RandomState(1).randn(2, 6, 5, 2).astype(dtype)
    tol = 2e-2 if dtype == np.float16 else 1e-4
    op_tester.check("DFT", [x], reference=ref_fn(axis, 0, 0, x.shape[axis], dtype), attrs={"axis": axis}, opset=17,
                    rtol=tol, atol=tol)


def test_dft_errors(op_tester):
    with pytest.raises(popart.popart_exception, match="real or complex"):
        op_tester.run("DFT", [np.zeros((2, 4, 3), np.float32)], opset=17)
    with pytest.raises(popart.popart_exception, match="axis 3 is out of range"):
        op_tester.run("DFT", [np.zeros((2, 4, 1), np.float32)], attrs={"axis": 3}, opset=17)
    with pytest.raises(popart.popart_exception, match="must be a constant"):
        op_tester.run("DFT", [np.zeros((2, 4, 1), np.float32), None, np.array(1, np.int64)], opset=20)
