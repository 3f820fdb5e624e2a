"""Inference 3x3 convolutions (stride 1, 16..256 channels in multiples of 16) run as Winograd F(2x2, 3x3)
(cpu/kernels/conv_winograd.hpp) on AVX-512 machines: against a float64 numpy convolution over shapes, pads,
channel counts, fused BatchNormalization/residual/Relu, layout chains, NaN and weights written from the host;
POPART_WINOGRAD=0 selects oneDNN's direct convolution (the results then differ in the last bits)."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart

try:
    with open("/proc/cpuinfo") as f:
        AVX512 = " avx512f" in f.read()
except OSError:
    AVX512 = False


def conv_ref(x, w, b=None, pads=(0, 0, 0, 0)):
    """float64 NCHW convolution, stride 1; pads [top, left, bottom, right]."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    oh_, ow_ = h - kh + 1, wd - kw + 1
    y = np.zeros((n, m, oh_, ow_))
    for i in range(kh):
        for j in range(kw):
            y += np.einsum("nchw,mc->nmhw", x[:, :, i:i + oh_, j:j + ow_], w[:, :, i, j].astype(np.float64))
    return y if b is None else y + b.astype(np.float64)[None, :, None, None]


def model(nodes, inputs, output, inits):
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info(k, onnx.TensorProto.FLOAT, list(v.shape))
                                       for k, v in inputs.items()],
                          [oh.make_tensor_value_info(output, onnx.TensorProto.FLOAT, None)],
                          initializer=[onnx.numpy_helper.from_array(v, k) for k, v in inits.items()])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)]).SerializeToString()


def run(proto, feeds, output, monkeypatch, winograd=True, weights=None):
    monkeypatch.setenv("POPART_WINOGRAD", "1" if winograd else "0")
    s = popart.InferenceSession(proto, popart.DataFlow(1, [output]), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, out))
    first = out[output].copy()
    if weights:  # new weights from the host: the transformed weights follow them
        s.writeWeights(popart.PyWeightsIO(weights))
        s.weightsFromHost()
        s.run(popart.PyStepIO(feeds, out))
        return first, out[output].copy()
    return first


def close(got, want, tol=2e-5):
    assert got.dtype == np.float32 and got.shape == want.shape
    scale = max(float(np.max(np.abs(want))), 1.0)
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * scale)


SHAPES = [  # n, c, m, h, w, pads [top, left, bottom, right]
    (1, 16, 16, 5, 5, [1, 1, 1, 1]),
    (2, 32, 64, 13, 13, [0, 0, 0, 0]),   # the benchmark CNN's second convolution: 11x11 output, odd tiles
    (3, 16, 48, 8, 11, [1, 0, 0, 1]),    # asymmetric pads; 48 output channels (3 of the kernel's 4 blocks)
    (1, 64, 32, 7, 6, [1, 1, 1, 1]),
    (2, 256, 16, 4, 4, [1, 1, 1, 1]),
    (1, 16, 80, 3, 3, [0, 0, 0, 0]),     # a 1x1 output
]


@pytest.mark.parametrize("n,c,m,h,w,pads", SHAPES)
@pytest.mark.parametrize("bias", [True, False])
def test_conv_matches_numpy(n, c, m, h, w, pads, bias, monkeypatch):
    rs = np.random.RandomState(c + m + h)
    x = rs.randn(n, c, h, w).astype(np.float32)
    wt = (rs.randn(m, c, 3, 3) / np.sqrt(9 * c)).astype(np.float32)
    b = rs.randn(m).astype(np.float32)
    inits = {"w": wt, "b": b} if bias else {"w": wt}
    proto = model([oh.make_node("Conv", ["x", "w"] + (["b"] if bias else []), ["y"], pads=pads)], {"x": x}, "y", inits)
    want = conv_ref(x, wt, b if bias else None, pads)
    got = run(proto, {"x": x}, "y", monkeypatch)
    close(got, want)
    direct = run(proto, {"x": x}, "y", monkeypatch, winograd=False)
    close(direct, want)
    if AVX512 and c * m >= 32 * 64:
        # The transform's arithmetic differs from the direct sum: the switch has an effect.
        assert not np.array_equal(got, direct)


def test_which_convolutions_take_the_kernel(monkeypatch, capfd):
    """3x3, stride 1, one group, 16..256 channels in multiples of 16 (the debug log names the kernel)."""
    rs = np.random.RandomState(3)
    cases = [(32, (32, 32, 3, 3), {}, True), (32, (32, 32, 3, 3), {"strides": [2, 2]}, False),
             (32, (32, 32, 3, 3), {"dilations": [2, 2]}, False), (8, (32, 8, 3, 3), {}, False),
             (32, (24, 32, 3, 3), {}, False), (32, (512, 32, 3, 3), {}, False), (32, (32, 32, 5, 5), {}, False),
             (32, (32, 16, 3, 3), {"group": 2}, False)]
    for c, shape, attrs, fits in cases:
        x = rs.randn(1, c, 9, 9).astype(np.float32)
        w = (rs.randn(*shape) * 0.1).astype(np.float32)
        proto = model([oh.make_node("Conv", ["x", "w"], ["y"], **attrs)], {"x": x}, "y", {"w": w})
        popart.getLogger("opx").setLevel("DEBUG")
        try:
            run(proto, {"x": x}, "y", monkeypatch)
        finally:
            popart.getLogger("opx").setLevel("INFO")
        assert ("Winograd F(2x2, 3x3)" in capfd.readouterr().err) == (fits and AVX512), (shape, attrs)


def test_plain_weights_stay_beside_the_transformed_ones(monkeypatch):
    """The direct fallback reads the plain weights: a Winograd convolution keeps them (oneDNN's frees them)."""
    import re
    rs = np.random.RandomState(4)
    x = rs.randn(1, 32, 6, 6).astype(np.float32)
    w = (rs.randn(32, 32, 3, 3) * 0.1).astype(np.float32)
    proto = model([oh.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])], {"x": x}, "y", {"w": w})

    def persistent_mb(winograd):
        monkeypatch.setenv("POPART_WINOGRAD", "1" if winograd else "0")
        s = popart.InferenceSession(proto, popart.DataFlow(1, ["y"]), popart.DeviceManager().createCpuDevice())
        s.prepareDevice()
        return float(re.search(r"persistent \(weights, inputs, constants\) ([0-9.]+) MB",
                               s.getSummaryReport()).group(1))
    kept = persistent_mb(True) - persistent_mb(False)
    assert kept == pytest.approx(w.nbytes / 1e6 if AVX512 else 0, abs=2e-3)


def test_new_weights_from_the_host_are_transformed_again(monkeypatch):
    rs = np.random.RandomState(5)
    x = rs.randn(2, 32, 9, 9).astype(np.float32)
    w1, w2 = (rs.randn(2, 32, 32, 3, 3) * 0.05).astype(np.float32)
    proto = model([oh.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])], {"x": x}, "y", {"w": w1})
    first, second = run(proto, {"x": x}, "y", monkeypatch, weights={"w": w2})
    close(first, conv_ref(x, w1, None, [1, 1, 1, 1]))
    close(second, conv_ref(x, w2, None, [1, 1, 1, 1]))


def block_model(x, w1, w2, bn):
    """A ResNet basic block: Conv-BN-Relu-Conv-BN + x, Relu (ConvFusion folds BN, the Add and the Relus)."""
    nodes = [oh.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
             oh.make_node("BatchNormalization", ["c1", "s1", "t1", "m1", "v1"], ["b1"]),
             oh.make_node("Relu", ["b1"], ["r1"]),
             oh.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
             oh.make_node("BatchNormalization", ["c2", "s2", "t2", "m2", "v2"], ["b2"]),
             oh.make_node("Add", ["b2", "x"], ["a"]), oh.make_node("Relu", ["a"], ["y"])]
    return model(nodes, {"x": x}, "y", {"w1": w1, "w2": w2, **bn})


def block_ref(x, w1, w2, bn):
    def norm(y, k):
        s, t, m, v = (bn[f"{p}{k}"].astype(np.float64)[None, :, None, None] for p in "stmv")
        return (y - m) / np.sqrt(v + 1e-5) * s + t
    r1 = np.maximum(norm(conv_ref(x, w1, None, [1, 1, 1, 1]), 1), 0)
    a = norm(conv_ref(r1.astype(np.float32), w2, None, [1, 1, 1, 1]), 2) + x
    return np.where(np.isnan(a), a, np.maximum(a, 0))


def test_fused_basic_block_matches_numpy_and_keeps_nan(monkeypatch):
    rs = np.random.RandomState(7)
    c = 64
    x = rs.randn(2, c, 10, 10).astype(np.float32)
    x[0, 3, 4, 4] = np.nan  # spreads through both convolutions' windows
    w1, w2 = (rs.randn(2, c, c, 3, 3) / np.sqrt(9 * c)).astype(np.float32)
    bn = {}
    for k in (1, 2):
        bn.update({f"s{k}": rs.uniform(0.5, 1.5, c), f"t{k}": rs.randn(c), f"m{k}": rs.randn(c) * 0.1,
                   f"v{k}": rs.uniform(0.5, 2, c)})
    bn = {k: v.astype(np.float32) for k, v in bn.items()}
    proto = block_model(x, w1, w2, bn)
    want = block_ref(x, w1, w2, bn)
    for winograd in (True, False):
        got = run(proto, {"x": x}, "y", monkeypatch, winograd=winograd)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        assert np.isnan(want).any() and (~np.isnan(want)).any()
        ok = ~np.isnan(want)
        close(got[ok], want[ok])
        assert not np.signbit(got[ok & (got == 0)]).any()  # Relu gives +0


def test_conv_chain_in_blocked_layout_matches_numpy(monkeypatch):
    """Two Winograd convolutions back to back: the second reads the first's 16-channel blocks."""
    rs = np.random.RandomState(9)
    x = rs.randn(1, 16, 12, 12).astype(np.float32)
    w1 = (rs.randn(32, 16, 3, 3) * 0.1).astype(np.float32)
    w2 = (rs.randn(16, 32, 3, 3) * 0.1).astype(np.float32)
    proto = model([oh.make_node("Conv", ["x", "w1"], ["c"], pads=[1, 1, 1, 1]),
                   oh.make_node("Conv", ["c", "w2"], ["y"], pads=[0, 0, 0, 0])], {"x": x}, "y", {"w1": w1, "w2": w2})
    want = conv_ref(conv_ref(x, w1, None, [1, 1, 1, 1]).astype(np.float32), w2)
    close(run(proto, {"x": x}, "y", monkeypatch), want)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_non_finite_input_gives_what_numpy_gives(bad, monkeypatch):
    """The transforms would turn an infinity into NaN and spread a NaN over its 4x4 tile: such inputs are
    convolved directly, as numpy sums them (positive weights keep an infinity's sign)."""
    rs = np.random.RandomState(11)
    x = rs.randn(2, 16, 8, 8).astype(np.float32)
    x[1, 5, 3, 4] = bad
    w = rs.uniform(0.01, 0.1, (32, 16, 3, 3)).astype(np.float32)
    proto = model([oh.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])], {"x": x}, "y", {"w": w})
    want = conv_ref(x, w, None, [1, 1, 1, 1])
    got = run(proto, {"x": x}, "y", monkeypatch)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    assert (~finite).sum() == 9 * 32  # the 3x3 outputs around it, every output channel
    close(got[finite], want[finite])
    np.testing.assert_array_equal(got[~finite], want[~finite].astype(np.float32))
