"""Float8 device ops (guide 4.1, 4.2): pow2-scaled casts, matmul_pow2scaled, conv_pow2scaled and
conv_transpose_pow2scaled, against references built from ml_dtypes' float8 formats, numpy and torch."""
import ml_dtypes
import numpy as np
import pytest
import torch

import popart
import popxl
import popxl.fp8_utils
import popxl.ops as ops

FORMATS = {popxl.float8_143: ml_dtypes.float8_e4m3fnuz, popxl.float8_152: ml_dtypes.float8_e5m2fnuz}
F16_EPS = 2.0 ** -10


def to_fp8_bits(x, fmt, saturate=True):
    """x (float64) as float8 bit patterns of popxl format `fmt` (ml_dtypes: nearest even; out of range: NaN
    unless `saturate` clips to the largest finite value first)."""
    np_fmt = FORMATS[fmt]
    x = np.asarray(x, np.float64)
    if saturate:
        big = float(ml_dtypes.finfo(np_fmt).max)
        x = np.clip(x, -big, big)
    return x.astype(np_fmt).view(np.uint8)


def from_fp8(bits, fmt):
    return np.asarray(bits, np.uint8).view(FORMATS[fmt]).astype(np.float64)


def run_graph(build, feeds):
    """build() in a new main graph returns {name: tensor} to read back; feeds {name: array} become h2d
    streams passed to build as keyword arguments."""
    ir = popxl.Ir()
    with ir.main_graph:
        streams = {}
        for k, v in feeds.items():
            arr, dt = v if isinstance(v, tuple) else (v, popxl.dtype.as_dtype(v.dtype))
            streams[k] = popxl.h2d_stream(arr.shape, dt, name=k)
        loaded = {k: ops.host_load(s, k) for k, s in streams.items()}
        outs = build(**loaded)
        d2h = {k: popxl.d2h_stream(t.shape, t.dtype, name=f"out_{k}") for k, t in outs.items()}
        for k, t in outs.items():
            ops.host_store(d2h[k], t)
    data = {streams[k]: (v[0] if isinstance(v, tuple) else v) for k, v in feeds.items()}
    with popxl.Session(ir, "cpu") as session:
        res = session.run(data)
    return {k: res[s] for k, s in d2h.items()}, {k: t.dtype for k, t in outs.items()}


def fp8_feed(bits, fmt):
    return (np.asarray(bits, np.uint8), fmt)


def test_formats_as_in_the_guide():
    for fmt, (tiny, big) in {popxl.float8_143: (2.0 ** -10, 240.0), popxl.float8_152: (2.0 ** -17, 57344.0)}.items():
        vals = from_fp8(np.arange(256, dtype=np.uint8), fmt)
        finite = vals[np.isfinite(vals)]
        assert finite.max() == big and finite[finite > 0].min() == tiny


@pytest.mark.parametrize("fmt", [popxl.float8_143, popxl.float8_152])
@pytest.mark.parametrize("src", [np.float16, np.float32])
@pytest.mark.parametrize("log2_scale", [-4, 0, 3])
@pytest.mark.parametrize("nan_on_overflow", [False, True])
def test_pow2scale_then_cast(fmt, src, log2_scale, nan_on_overflow):
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(0, 4, 200), rng.normal(0, 3e-3, 50), [0.0, -0.0, 1e9 if src == np.float32 else
                        6e4, -7e3, 3e-9, np.inf, -np.inf, np.nan]]).astype(src)

    def build(x):
        return {"y": ops.pow2scale_then_cast(x, popxl.constant(np.int32(log2_scale), popxl.int32), fmt,
                                             nan_on_overflow=nan_on_overflow)}
    out, types = run_graph(build, {"x": x})
    assert types["y"] == fmt and out["y"].dtype == np.uint8
    ref = to_fp8_bits(x.astype(np.float64) * 2.0 ** log2_scale, fmt, saturate=not nan_on_overflow)
    # NaN stays NaN (0x80, the formats' only NaN); inf saturates unless nan_on_overflow
    ref = np.where(np.isnan(x), np.uint8(0x80), ref)
    np.testing.assert_array_equal(out["y"], ref)
    if nan_on_overflow:
        assert out["y"][np.isinf(x)].tolist() == [0x80, 0x80]


@pytest.mark.parametrize("fmt", [popxl.float8_143, popxl.float8_152])
@pytest.mark.parametrize("dst", [popxl.float16, popxl.float32])
@pytest.mark.parametrize("log2_scale", [-31, -3, 0, 4])
def test_cast_then_pow2scale_every_bit_pattern(fmt, dst, log2_scale):
    bits = np.arange(256, dtype=np.uint8).reshape(16, 16)

    def build(x):
        return {"y": ops.cast_then_pow2scale(x, popxl.constant(np.int32(log2_scale), popxl.int32), dst)}
    out, types = run_graph(build, {"x": fp8_feed(bits, fmt)})
    assert types["y"] == dst and out["y"].dtype == dst.as_numpy()
    ref = (from_fp8(bits, fmt) * 2.0 ** log2_scale).astype(dst.as_numpy())
    np.testing.assert_array_equal(out["y"], ref)  # NaN in the same places, values equal


def test_fp8_utils_device_casts_round_trip():
    """fp8_utils.pow2scale_cast_to_fp8 / _from_fp8 are the ops; to and back with opposite scales keeps the
    values the format can hold."""
    assert popxl.fp8_utils.pow2scale_cast_to_fp8 is ops.pow2scale_cast_to_fp8
    assert popxl.fp8_utils.pow2scale_cast_from_fp8 is ops.pow2scale_cast_from_fp8
    x = from_fp8(np.arange(256, dtype=np.uint8), popxl.float8_143)
    x = x[np.isfinite(x)].astype(np.float16) * np.float16(4)

    def build(x):
        f8 = ops.pow2scale_cast_to_fp8(x, popxl.float8_143, popxl.constant(np.int32(-2), popxl.int32))
        return {"f8": f8, "back": ops.pow2scale_cast_from_fp8(f8, popxl.float16,
                                                              popxl.constant(np.int32(2), popxl.int32))}
    out, _ = run_graph(build, {"x": x})
    np.testing.assert_array_equal(out["back"], x)
    np.testing.assert_array_equal(out["f8"], popxl.fp8_utils.host_pow2scale_cast_to_fp8(x, popxl.float8_143, -2))


def matmul_ref(a_bits, a_fmt, b_bits, b_fmt, s, out_dtype):
    return (np.matmul(from_fp8(a_bits, a_fmt), from_fp8(b_bits, b_fmt)) * 2.0 ** s).astype(out_dtype)


def assert_close_rounded(dev, ref):
    """Equal up to one unit in the last place of the output type (float accumulation vs float64)."""
    assert dev.dtype == ref.dtype and dev.shape == ref.shape
    f16 = dev.dtype == np.float16
    atol = 2.0 ** -24 if f16 else 1e-7 * max(1.0, float(np.abs(ref).max()))
    np.testing.assert_allclose(dev.astype(np.float64), ref.astype(np.float64), rtol=F16_EPS if f16 else 2.0 ** -22,
                               atol=atol)


@pytest.mark.parametrize("shapes", [((4, 8), (8, 3)), ((2, 1, 3, 5), (4, 5, 2)), ((5,), (5, 3)), ((2, 6), (6,)),
                                    ((3, 7, 16), (16, 9))])
@pytest.mark.parametrize("fmts", [(popxl.float8_143, popxl.float8_143), (popxl.float8_143, popxl.float8_152)])
@pytest.mark.parametrize("log2_scale", [-2, 0, 3])
@pytest.mark.parametrize("output_type", [None, popxl.float32])
def test_matmul_pow2scaled(shapes, fmts, log2_scale, output_type):
    rng = np.random.default_rng(sum(shapes[0]) + log2_scale)
    a = to_fp8_bits(rng.normal(0, 2, shapes[0]), fmts[0])
    b = to_fp8_bits(rng.normal(0, 2, shapes[1]), fmts[1])

    def build(a, b, s):
        return {"y": ops.matmul_pow2scaled(a, b, s, output_type=output_type)}
    out, types = run_graph(build, {"a": fp8_feed(a, fmts[0]), "b": fp8_feed(b, fmts[1]),
                                   "s": np.array(log2_scale, np.int32)})
    dt = output_type or popxl.float16
    assert types["y"] == dt
    assert_close_rounded(out["y"], matmul_ref(a, fmts[0], b, fmts[1], log2_scale, dt.as_numpy()))


def torch_conv(x, w, transpose, **kw):
    f = {(False, 3): torch.nn.functional.conv1d, (False, 4): torch.nn.functional.conv2d,
         (True, 3): torch.nn.functional.conv_transpose1d, (True, 4): torch.nn.functional.conv_transpose2d}
    return f[(transpose, x.ndim)](torch.from_numpy(x), torch.from_numpy(w), **kw).numpy()


CONVS = [  # x shape, w shape, popxl kwargs, torch kwargs
    ((2, 3, 7, 6), (4, 3, 3, 3), {}, {}),
    ((1, 4, 9, 8), (6, 2, 3, 2), dict(stride=[2, 1], padding=[1, 0, 1, 0], groups=2),
     dict(stride=(2, 1), padding=(1, 0), groups=2)),
    ((2, 2, 8, 8), (3, 2, 3, 3), dict(dilation=[2, 2], padding=[2, 2, 2, 2]), dict(dilation=2, padding=2)),
    ((3, 2, 11), (5, 2, 4), dict(stride=[3]), dict(stride=3)),
    ((1, 2, 6, 6), (3, 2, 4, 4), dict(pad_type="same_upper"), dict(padding="same")),  # end pad 2, begin 1
]


@pytest.mark.parametrize("xs,ws,kw,tkw", CONVS)
@pytest.mark.parametrize("log2_scale", [-3, 1])
def test_conv_pow2scaled(xs, ws, kw, tkw, log2_scale):
    rng = np.random.default_rng(xs[1] * 7 + log2_scale)
    fx, fw = popxl.float8_143, popxl.float8_152
    x, w = to_fp8_bits(rng.normal(0, 1, xs), fx), to_fp8_bits(rng.normal(0, 1, ws), fw)

    def build(x, w, s):
        return {"y": ops.conv_pow2scaled(x, w, s, **kw)}
    out, types = run_graph(build, {"x": fp8_feed(x, fx), "w": fp8_feed(w, fw), "s": np.array(log2_scale, np.int32)})
    assert types["y"] == popxl.float16
    ref = (torch_conv(from_fp8(x, fx), from_fp8(w, fw), False, **tkw) * 2.0 ** log2_scale).astype(np.float16)
    assert_close_rounded(out["y"], ref)


CONV_TRANSPOSES = [
    ((2, 3, 4, 5), (3, 2, 3, 3), {}, {}),
    ((1, 4, 5, 5), (4, 3, 3, 2), dict(stride=[2, 2], padding=[1, 0, 1, 0], output_padding=[1, 1], groups=2),
     dict(stride=2, padding=(1, 0), output_padding=1, groups=2)),
    ((2, 2, 6), (2, 3, 4), dict(stride=[2], dilation=[2]), dict(stride=2, dilation=2)),
]


@pytest.mark.parametrize("xs,ws,kw,tkw", CONV_TRANSPOSES)
def test_conv_transpose_pow2scaled(xs, ws, kw, tkw):
    rng = np.random.default_rng(xs[1])
    fmt = popxl.float8_143
    x, w = to_fp8_bits(rng.normal(0, 1, xs), fmt), to_fp8_bits(rng.normal(0, 1, ws), fmt)

    def build(x, w):
        return {"y": ops.conv_transpose_pow2scaled(x, w, popxl.constant(np.int32(-1), popxl.int32), **kw)}
    out, types = run_graph(build, {"x": fp8_feed(x, fmt), "w": fp8_feed(w, fmt)})
    assert types["y"] == popxl.float16
    ref = (torch_conv(from_fp8(x, fmt), from_fp8(w, fmt), True, **tkw) * 0.5).astype(np.float16)
    assert_close_rounded(out["y"], ref)


def scaled_cast_session(log2_scale_value):
    ir = popxl.Ir()
    with ir.main_graph:
        s = popxl.variable(np.int32(log2_scale_value), popxl.int32, name="log2_scale")
        x = popxl.constant(np.array([1.0, -3.0, 0.25], np.float16))
        y = ops.pow2scale_then_cast(x, s, popxl.float8_152)
        out = popxl.d2h_stream(y.shape, y.dtype, name="y")
        ops.host_store(out, y)
    return popxl.Session(ir, "cpu"), s, out


def test_log2_scale_is_read_at_run_time():
    session, s, out = scaled_cast_session(0)
    with session:
        first = session.run()[out]
        session.write_variable_data(s, np.int32(3))
        second = session.run()[out]
    np.testing.assert_array_equal(from_fp8(first, popxl.float8_152), [1.0, -3.0, 0.25])
    np.testing.assert_array_equal(from_fp8(second, popxl.float8_152), [8.0, -24.0, 2.0])


@pytest.mark.parametrize("bad", [32, -33, 1000])
def test_log2_scale_out_of_range_at_run_time(bad):
    session, s, out = scaled_cast_session(bad)
    with pytest.raises(popart.popart_exception, match=rf"Pow2ScaleThenCast.*log2_scale is {bad}, outside the "
                                                      r"supported range \[-32, 32\)"):
        with session:
            session.run()


def test_log2_scale_limits_are_accepted():
    for ok, expect in ((-32, 0.0), (31, 57344.0)):  # 1 * 2^-32 underflows to 0; 2^31 clips to the largest value
        session, s, out = scaled_cast_session(ok)
        with session:
            y = session.run()[out]
        assert from_fp8(y, popxl.float8_152)[0] == expect


def test_bad_arguments_name_the_op_and_tensor():
    ir = popxl.Ir()
    with ir.main_graph:
        x16 = popxl.constant(np.ones((2, 3), np.float16), name="x16")
        xi = popxl.constant(np.ones((2, 3), np.int32), name="xi")
        f8 = popxl.constant(np.ones((2, 3), np.uint8), popxl.float8_143, name="f8")
        s = popxl.constant(np.int32(0), popxl.int32, name="s")
        s_vec = popxl.constant(np.zeros(2, np.int32), name="s_vec")
        s_f = popxl.constant(np.float32(0), name="s_f")
        with pytest.raises(TypeError, match="pow2scale_then_cast: tensor 'xi' is int32"):
            ops.pow2scale_then_cast(xi, s, popxl.float8_143)
        with pytest.raises(TypeError, match="data_type float16 is not one of"):
            ops.pow2scale_then_cast(x16, s, popxl.float16)
        with pytest.raises(TypeError, match="log2_scale 's_vec' must be a scalar int32"):
            ops.pow2scale_then_cast(x16, s_vec, popxl.float8_143)
        with pytest.raises(TypeError, match="log2_scale 's_f' must be a scalar int32"):
            ops.cast_then_pow2scale(f8, s_f)
        with pytest.raises(ValueError, match="log2_scale 32 is outside"):
            ops.pow2scale_then_cast(x16, 32, popxl.float8_143)
        with pytest.raises(TypeError, match="cast_then_pow2scale: tensor 'x16' \\(t\\) is float16, expected float8"):
            ops.cast_then_pow2scale(x16, s)
        with pytest.raises(TypeError, match="matmul_pow2scaled: tensor 'x16' \\(rhs\\)"):
            ops.matmul_pow2scaled(f8, x16, s)
        with pytest.raises(popart.popart_exception, match="MatMul contraction dimensions differ"):
            ops.matmul_pow2scaled(f8, f8, s)
        with pytest.raises(TypeError, match="output_type int32"):
            ops.matmul_pow2scaled(f8, f8, s, output_type=popxl.int32)
        x4 = popxl.constant(np.ones((1, 4, 5, 5), np.uint8), popxl.float8_143, name="x4")
        w4 = popxl.constant(np.ones((2, 4, 3, 3), np.uint8), popxl.float8_143, name="w4")
        with pytest.raises(ValueError, match="conv_pow2scaled: groups=3"):
            ops.conv_pow2scaled(x4, w4, s, groups=3)
        with pytest.raises(ValueError, match="'stride' \\[1\\] of tensor 'x4' needs 2 entries"):
            ops.conv_pow2scaled(x4, w4, s, stride=[1])
        with pytest.raises(ValueError, match="weight 'w4' .* must have 4 rows"):
            ops.conv_transpose_pow2scaled(x4, w4, s)


def test_python_int_log2_scale_is_a_constant():
    def build(x):
        return {"y": ops.pow2scale_then_cast(x, -1, popxl.float8_143)}
    out, _ = run_graph(build, {"x": np.array([3.0, 100.0], np.float32)})
    np.testing.assert_array_equal(from_fp8(out["y"], popxl.float8_143), [1.5, 48.0])


class ConvFp8(popxl.Module):
    """A float8 convolution layer: weights as a graph input, scaled by 2**log2_scale."""

    def build(self, x: popxl.Tensor, log2_scale: popxl.Tensor, w_shape) -> popxl.Tensor:
        self.W = popxl.graph_input(w_shape, popxl.float8_143, "W")
        return ops.relu(ops.conv_pow2scaled(x, self.W, log2_scale))


def test_float8_inference_model_against_float32():
    """Guide 4.2's model as a test: float16 input cast to float8 on the device, float8 weights cast on the
    host, conv and matmul in float8 with power-of-two scales; within the formats' error of float32."""
    rng = np.random.default_rng(0)
    x = rng.random((2, 10, 5, 5)).astype(np.float16)
    weight = rng.random((20, 10, 3, 3)).astype(np.float16)
    dense = rng.random((180, 4)).astype(np.float16)
    ir = popxl.Ir()
    with ir.main_graph:
        log2_scale = popxl.variable(1, dtype=popxl.int32, name="log2_scale")
        stream = popxl.h2d_stream(x.shape, popxl.float16, name="x")
        a = ops.host_load(stream, "a")
        a8 = ops.pow2scale_cast_to_fp8(a, data_type=popxl.float8_143, log2_scale=popxl.constant(0))
        w8 = popxl.variable(popxl.fp8_utils.host_pow2scale_cast_to_fp8(weight, popxl.float8_143, 0, False),
                            popxl.float8_143, name="W")
        conv = ConvFp8()
        g = ir.create_graph(conv, a8, log2_scale, weight.shape)
        y, = ops.call(g, a8, log2_scale, inputs_dict={conv.W: w8})
        y8 = ops.pow2scale_cast_to_fp8(ops.reshape(y, (2, 180)), popxl.float8_152,
                                       popxl.constant(np.int32(-4), popxl.int32))
        d8 = popxl.variable(popxl.fp8_utils.host_pow2scale_cast_to_fp8(dense, popxl.float8_143, 0, False),
                            popxl.float8_143, name="D")
        z = ops.matmul_pow2scaled(y8, d8, popxl.constant(np.int32(4), popxl.int32))
        outs = {"y": y, "z": z}
        d2h = {k: popxl.d2h_stream(t.shape, t.dtype, name=f"out_{k}") for k, t in outs.items()}
        for k, t in outs.items():
            ops.host_store(d2h[k], t)
    with popxl.Session(ir, "cpu") as session:
        res = session.run({stream: x})
    y_dev, z_dev = res[d2h["y"]], res[d2h["z"]]
    assert y_dev.dtype == np.float16 and z_dev.dtype == np.float16

    # float32 reference of the same model
    y32 = np.maximum(torch_conv(x.astype(np.float32), weight.astype(np.float32), False) * 2, 0)
    z32 = y32.reshape(2, 180) @ dense.astype(np.float32)
    # float8 143 keeps 3 mantissa bits (relative error <= 2**-4 per value), 152 keeps 2 (2**-3); all terms
    # are positive, so the errors of products add up without cancelling.
    e143, e152 = 2.0 ** -4, 2.0 ** -3
    y_bound = (1 + e143) ** 2 * (1 + F16_EPS) - 1
    z_bound = (1 + y_bound) * (1 + e152) * (1 + e143) * (1 + F16_EPS) - 1
    y_err = np.abs(y_dev - y32) / y32
    z_err = np.abs(z_dev - z32) / z32
    assert y_err.max() <= y_bound and z_err.max() <= z_bound
    assert y_err.max() > 1e-3 and z_err.max() > 1e-3  # the model really computed in float8

    # and exactly what float8 arithmetic gives (decoded operands, one rounding to float16 at the end)
    xq = from_fp8(to_fp8_bits(x, popxl.float8_143), popxl.float8_143)
    wq = from_fp8(to_fp8_bits(weight, popxl.float8_143), popxl.float8_143)
    y_ref = np.maximum(torch_conv(xq, wq, False) * 2, 0).astype(np.float16)
    assert_close_rounded(y_dev, y_ref)
    yq = from_fp8(to_fp8_bits(y_dev.astype(np.float64).reshape(2, 180) / 16, popxl.float8_152), popxl.float8_152)
    dq = from_fp8(to_fp8_bits(dense, popxl.float8_143), popxl.float8_143)
    assert_close_rounded(z_dev, (yq @ dq * 16).astype(np.float16))


def test_guide_float8_inference_program(tmp_path):
    FILES, NO_GUIDE, run_example = guide_examples()
    if FILES is None:
        pytest.skip(NO_GUIDE)
    r = run_example("float8_inference.py", tmp_path)
    assert r.returncode == 0, f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    assert "Result is" in r.stdout


def guide_examples():
    """FILES, NO_GUIDE and run_example of test_guide_examples.py (beside this file)."""
    import importlib.util
    import pathlib
    spec = importlib.util.spec_from_file_location("_popxl_guide_examples",
                                                  pathlib.Path(__file__).with_name("test_guide_examples.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.FILES, mod.NO_GUIDE, mod.run_example
