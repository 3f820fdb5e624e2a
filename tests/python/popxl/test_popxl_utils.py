"""popxl.utils and popxl.fp8_utils: host conversions checked against the float8 formats' definition."""
import numpy as np
import pytest

import popxl
import popxl.ops as ops
from popxl import fp8_utils, utils

FORMATS = {popxl.float8_143: (4, 3, 8), popxl.float8_152: (5, 2, 16)}


def decode(bits, exp_bits, man_bits, bias):
    """The value of each 8-bit pattern from the format's definition (0x80 is NaN; no infinities)."""
    out = np.empty(len(bits))
    for k, b in enumerate(int(v) for v in bits):
        if b == 0x80:
            out[k] = np.nan
            continue
        sign = -1.0 if b & 0x80 else 1.0
        e = (b >> man_bits) & ((1 << exp_bits) - 1)
        m = b & ((1 << man_bits) - 1)
        if e == 0:
            out[k] = sign * m / (1 << man_bits) * 2.0 ** (1 - bias)
        else:
            out[k] = sign * (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
    return out


@pytest.mark.parametrize("dt", list(FORMATS))
def test_decode_every_pattern(dt):
    bits = np.arange(256, dtype=np.uint8)
    ref = decode(bits, *FORMATS[dt])
    got = fp8_utils.host_pow2scale_cast_from_fp8(bits, dt, 0, np.float64)
    np.testing.assert_array_equal(got, ref)
    assert np.nanmax(ref) == {popxl.float8_143: 240.0, popxl.float8_152: 57344.0}[dt]
    assert np.nanmin(ref[ref > 0]) == {popxl.float8_143: 2.0 ** -10, popxl.float8_152: 2.0 ** -17}[dt]


@pytest.mark.parametrize("dt", list(FORMATS))
@pytest.mark.parametrize("src_dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("log2_scale", [-3, 0, 2])
def test_encode_rounds_to_nearest(dt, src_dtype, log2_scale):
    values = decode(np.arange(256, dtype=np.uint8), *FORMATS[dt])
    finite = np.sort(np.unique(values[np.isfinite(values)]))
    rng = np.random.default_rng(1)
    top = min(finite.max(), 0.9 * float(np.finfo(src_dtype).max) * 2.0 ** log2_scale)
    x = rng.uniform(-top, top, 500) / 2.0 ** log2_scale
    x = x.astype(src_dtype)
    bits = fp8_utils.host_pow2scale_cast_to_fp8(x, dt, log2_scale)
    assert bits.dtype == np.uint8 and bits.shape == x.shape
    got = decode(bits, *FORMATS[dt])
    scaled = x.astype(np.float64) * 2.0 ** log2_scale
    nearest = finite[np.abs(finite[None, :] - scaled[:, None]).argmin(axis=1)]
    err = np.abs(got - scaled)
    assert np.all(err <= np.abs(nearest - scaled) + 1e-12)


@pytest.mark.parametrize("dt", list(FORMATS))
def test_overflow_nan_or_saturate(dt):
    big = np.array([1e6, -1e6, np.nan], np.float32)
    as_nan = fp8_utils.host_pow2scale_cast_to_fp8(big, dt, 0, True)
    assert list(as_nan) == [0x80, 0x80, 0x80]
    sat = fp8_utils.host_pow2scale_cast_to_fp8(big, dt, 0, False)
    top = {popxl.float8_143: 240.0, popxl.float8_152: 57344.0}[dt]
    np.testing.assert_array_equal(decode(sat[:2], *FORMATS[dt]), [top, -top])
    assert sat[2] == 0x80


def test_conversion_argument_errors():
    with pytest.raises(ValueError, match="outside"):
        utils.host_pow2scale_then_cast(np.ones(2, np.float32), popxl.float8_143, 32)
    with pytest.raises(TypeError, match="not a float8 dtype"):
        utils.host_pow2scale_then_cast(np.ones(2, np.float32), popxl.float16)
    with pytest.raises(TypeError, match="floating point"):
        utils.host_pow2scale_then_cast(np.ones(2, np.int32))
    with pytest.raises(TypeError, match="uint8"):
        utils.host_cast_then_pow2scale(np.ones(2, np.float32))


def test_to_numpy():
    import torch
    assert utils.to_numpy([1.5, 2.0]).dtype == np.float32
    assert utils.to_numpy([1, 2]).dtype == np.int32
    assert utils.to_numpy(np.arange(3, dtype=np.int64), downcast=False).dtype == np.int64
    t = torch.arange(4, dtype=torch.float16)
    np.testing.assert_array_equal(utils.to_numpy(t), np.arange(4, dtype=np.float16))
    assert utils.to_numpy([1, 2], popxl.float16).dtype == np.float16
    fp8 = utils.to_numpy([1.0, 3.0], popxl.float8_143, log2_scale=1)
    np.testing.assert_array_equal(utils.host_cast_then_pow2scale(fp8, popxl.float8_143, -1), [1.0, 3.0])
    with pytest.raises(ValueError, match="float8 dtypes only"):
        utils.to_numpy([1.0], log2_scale=1)


def test_table_to_string():
    s = utils.table_to_string([["op", "ms"], ["MatMul", 1.25], ["Relu", 0.5]])
    lines = s.splitlines()
    assert lines[0].split("|")[0].strip() == "op" and set(lines[1]) == {"-"} and "MatMul | 1.25" in lines[2]


def test_float8_variable_round_trip_through_a_session():
    data = fp8_utils.host_pow2scale_cast_to_fp8(np.array([0.5, -2.0, 100.0], np.float32), popxl.float8_143)
    ir = popxl.Ir()
    with ir.main_graph:
        v = popxl.variable(data, popxl.float8_143, name="w8")
        d2h = popxl.d2h_stream(v.shape, v.dtype, name="w8_out")
        ops.host_store(d2h, v)
    assert v.dtype == popxl.float8_143
    with popxl.Session(ir, "cpu") as s:
        out = s.run()[d2h]
        got = s.get_tensor_data(v)
    assert out.dtype == np.uint8 and got.dtype == np.uint8
    np.testing.assert_array_equal(out, data)
    np.testing.assert_array_equal(fp8_utils.host_pow2scale_cast_from_fp8(got, popxl.float8_143), [0.5, -2.0, 96.0])
