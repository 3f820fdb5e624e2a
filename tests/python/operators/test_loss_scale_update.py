# LossScaleUpdate (ai.graphcore 1): the next loss-scale update factor from
# gradient statistics, against a numpy reference; errors; from customOp; and
# Histogram -> LossScaleUpdate end to end.
import numpy as np
import pytest

import popart

GC = {"domain": "ai.graphcore"}
ONNX_FLOAT, ONNX_FLOAT16, ONNX_INT64 = 1, 10, 7
DEFAULT_THRESHOLD = 1e-7


def reference(f, *stats, threshold=DEFAULT_THRESHOLD, out_dtype=None):
    counts = np.sum([s.astype(np.float64) for s in stats], axis=0)
    total = counts.sum()
    # the attribute is a float32, compared in double
    halve = total > 0 and counts[1] / total > float(np.float32(threshold))
    factor = np.float32(f) / 2 if halve else np.float32(f) * 2
    return factor.astype(out_dtype or f.dtype)


def stats_of(rng, k, dtype, upper_share):
    """k statistics [below, above], the upper counts a share of the total."""
    out = []
    for _ in range(k):
        total = int(rng.integers(500, 2000))
        upper = int(round(total * upper_share * rng.uniform(0.5, 1.5)))
        out.append(np.array([total - min(upper, total), min(upper, total)], dtype))
    return out


@pytest.mark.parametrize("f_dtype", [np.float32, np.float16])
@pytest.mark.parametrize("f_shape", [(), (1,)])
@pytest.mark.parametrize("s_dtype", [np.int32, np.uint32, np.float32, np.float16])
@pytest.mark.parametrize("k", [1, 2, 5])
def test_against_numpy(op_tester, f_dtype, f_shape, s_dtype, k):
    rng = np.random.default_rng(k * 7 + len(f_shape))
    f = np.full(f_shape, 128.0, f_dtype)
    for share in (0.0, 0.01, 0.3, 1.0):
        stats = stats_of(rng, k, s_dtype, share)
        got, = op_tester.check("LossScaleUpdate", [f] + stats, reference=reference, **GC)
        assert got.shape == f_shape and got.dtype == f_dtype
        assert got.item() == (64.0 if share > 0 else 256.0)


@pytest.mark.parametrize("threshold", [0.0, 1e-3, 0.1, 0.5, 1.0])
def test_thresholds(op_tester, threshold):
    """Proportions just around the threshold: halve above it, double at or below."""
    f = np.float32(3.0)
    for upper, below in [(0, 1000), (1, 999), (100, 900), (101, 899), (500, 500), (501, 499), (1000, 0)]:
        stats = [np.int32([below, upper])]
        want = reference(f, *stats, threshold=threshold)
        op_tester.check("LossScaleUpdate", [f] + stats, attrs={"thresholdUpperCountProportion": threshold},
                        reference=lambda *a: want, **GC)


def test_default_threshold_is_1e_minus_7(op_tester):
    f = np.float32(1.0)
    # 1 upper in 20 million: p = 5e-8 <= 1e-7 -> double; 1 in 5 million: 2e-7 -> halve
    for below, upper, want in [(20_000_000 - 1, 1, 2.0), (5_000_000 - 1, 1, 0.5), (0, 0, 2.0)]:
        got, = op_tester.run("LossScaleUpdate", [f, np.float32([below, upper])], **GC)
        assert got == want


def test_counts_are_summed_over_inputs(op_tester):
    """Each input alone would double; together the upper proportion exceeds 0.25."""
    f = np.float16(8)
    stats = [np.uint32([1000, 1]), np.uint32([0, 400])]
    op_tester.check("LossScaleUpdate", [f] + stats, attrs={"thresholdUpperCountProportion": 0.25},
                    reference=lambda *a: np.float16(4), **GC)


@pytest.mark.parametrize("f_dtype,onnx_type,out_dtype", [
    (np.float32, ONNX_FLOAT16, np.float16), (np.float16, ONNX_FLOAT, np.float32),
    (np.float16, ONNX_FLOAT16, np.float16)])
def test_update_factor_dtype(op_tester, f_dtype, onnx_type, out_dtype):
    f = np.array([0.75], f_dtype)
    for stats in ([np.int32([10, 0])], [np.int32([10, 10])]):
        got, = op_tester.check("LossScaleUpdate", [f] + stats, attrs={"updateFactorDType": onnx_type},
                               reference=lambda *a: reference(*a, out_dtype=out_dtype), **GC)
        assert got.dtype == out_dtype


@pytest.mark.parametrize("inputs,attrs,match", [
    ([np.float32(1)], {}, r"LossScaleUpdate.*needs the update factor \(input 0\) and at least one gradient "
                          r"statistics input, got 1 input"),
    ([np.float32([1, 2]), np.int32([1, 1])], {}, r"LossScaleUpdate.*update factor \(input 0, 'in0'\) is "
                                                 r"FLOAT \[2\], expected one value of shape \[\] or \[1\]"),
    ([np.float32([[1]]), np.int32([1, 1])], {}, r"LossScaleUpdate.*update factor .* is FLOAT \[1,1\]"),
    ([np.int32(1), np.int32([1, 1])], {}, r"LossScaleUpdate.*input 0 .* has type INT32, expected one of"),
    ([np.float64(1), np.int32([1, 1])], {}, r"LossScaleUpdate.*input 0 .* has type DOUBLE"),
    ([np.float32(1), np.int32([1, 1, 1])], {}, r"LossScaleUpdate.*gradient statistics input 1 \('in1'\) is "
                                               r"INT32 \[3\], expected \[count below, count above\] of shape \[2\]"),
    ([np.float32(1), np.int32([1, 1]), np.int64([1, 1])], {},
     r"LossScaleUpdate.*gradient statistics input 2 \('in2'\) is INT64 \[2\]"),
    ([np.float32(1), np.float64([1, 1])], {}, r"LossScaleUpdate.*statistics input 1 .* is DOUBLE \[2\]"),
    ([np.float32(1), None, np.int32([1, 1])], {}, r"LossScaleUpdate.*input 1 is absent"),
    ([np.float32(1), np.int32([1, 1])], {"updateFactorDType": ONNX_INT64},
     r"LossScaleUpdate.*'updateFactorDType' is 7 \(INT64\), expected 1 \(FLOAT\) or 10 \(FLOAT16\)"),
    ([np.float32(1), np.int32([1, 1])], {"updateFactorDType": 99}, r"LossScaleUpdate.*ONNX data type 99"),
    ([np.float32(1), np.int32([1, 1])], {"thresholdUpperCountProportion": -0.5},
     r"LossScaleUpdate.*'thresholdUpperCountProportion' is -0.5, expected a proportion in \[0, 1\]"),
    ([np.float32(1), np.float32([1, -2])], {},
     r"running LossScaleUpdate.*statistics input 1 \('in1'\) holds \[1, -2\]: counts must be finite and >= 0"),
    ([np.float32(1), np.float16([1, np.inf])], {}, r"running LossScaleUpdate.*statistics input 1 .* holds \[1, inf\]"),
])
def test_errors(op_tester, inputs, attrs, match):
    with pytest.raises(popart.popart_exception, match=match):
        op_tester.run("LossScaleUpdate", inputs, attrs=attrs, **GC)


def test_not_a_builder_method_and_no_gradient():
    import popart_core
    b = popart.Builder()
    assert not hasattr(b.aiGraphcore, "lossscaleupdate") and not hasattr(b.aiGraphcore, "lossScaleUpdate")
    rows = [r for r in popart_core._operatorTable(False) if r[1] == "LossScaleUpdate"]
    assert rows and not any(r[4] for r in rows)


@pytest.mark.parametrize("level", [1.0, 4.0, 100.0])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_histogram_to_loss_scale_update(level, dtype):
    """A gradient-like tensor (x * w) -> Histogram(levels=[level], absolute)
    -> LossScaleUpdate, built with customOp, against numpy."""
    onnx_dtype = "FLOAT" if dtype == np.float32 else "FLOAT16"
    b = popart.Builder()
    x = b.addInputTensor(onnx_dtype, [64, 8])
    w = b.addInputTensor(onnx_dtype, [8])
    f = b.addInputTensor("FLOAT", [])
    grad = b.aiOnnx.mul([x, w])
    hist = b.customOp(opName="Histogram", opVersion=1, domain="ai.graphcore", inputs=[grad],
                      attributes={"levels": [level], "absoluteOfInput": 1})[0]
    out = b.customOp(opName="LossScaleUpdate", opVersion=1, domain="ai.graphcore", inputs=[f, hist],
                     attributes={"thresholdUpperCountProportion": 0.01,
                                 "updateFactorDType": ONNX_FLOAT16})[0]
    b.addOutputTensor(hist)
    b.addOutputTensor(out)
    df = popart.DataFlow(1, {t: popart.AnchorReturnType("All") for t in (hist, out)})
    s = popart.InferenceSession(b.getModelProto(), df, popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    rng = np.random.default_rng(int(level))
    for scale in (0.01, 1.0, 50.0):
        xv = rng.standard_normal((64, 8)).astype(dtype)
        wv = (rng.standard_normal(8) * scale).astype(dtype)
        fv = np.array(16.0, np.float32)
        anchors = s.initAnchorArrays()
        s.run(popart.PyStepIO({x: xv, w: wv, f: fv}, anchors))
        g = np.abs((xv * wv).astype(np.float64))
        counts = np.array([(g < level).sum(), (g >= level).sum()], np.uint32)
        np.testing.assert_array_equal(anchors[hist], counts)
        want = reference(fv, counts, threshold=0.01, out_dtype=np.float16)
        assert anchors[out].dtype == np.float16 and anchors[out] == want
