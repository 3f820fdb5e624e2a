"""NaN and +-Inf through every kernel family that compares or accumulates,
against numpy (float64 maths, cast to the op's type): max/min/clip, the relu
family, every reduction, pooling (max with and without Indices, average, Lp,
global), softmax/logsoftmax, comparisons, argmax/argmin, hardmax and topk, in
float32 (oneDNN where popart uses it), float16 and float64. numpy's rules are
the reference: max/min/argmax/argmin pick a NaN (the first one; the last one
with select_last_index, as argmax of the reversed axis) when there is one,
sorts order NaN above +Inf, arithmetic follows IEEE; activations follow the
numpy formulas of the ONNX reference implementation."""
import numpy as np
import pytest

DTYPES = [np.float32, np.float16, np.float64]


def special(shape, dtype, seed, nan=0.07, inf=0.06):
    """Normal values with NaN, +Inf and -Inf sprinkled in (seeded), plus one all-NaN-free first slice."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 2
    r = rng.random(shape)
    x[r < nan] = np.nan
    x[(r >= nan) & (r < nan + inf)] = np.inf
    x[(r >= nan + inf) & (r < nan + 2 * inf)] = -np.inf
    x.reshape(shape[0], -1)[0] = np.abs(x.reshape(shape[0], -1)[0])  # first slice: no -Inf
    x.reshape(shape[0], -1)[0][np.isnan(x.reshape(shape[0], -1)[0])] = 1.0  # and no NaN
    return x.astype(dtype)


def check(got, want, dtype):
    """Same dtype and shape; NaN exactly where numpy has NaN; +-Inf and finite values match."""
    want = np.asarray(want)
    want = want.astype(dtype) if want.dtype.kind == "f" else want
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg="NaN positions differ")
    tol = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-12}[want.dtype]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol * 4, atol=tol,
                               equal_nan=True)


def ref(fn, *xs):
    with np.errstate(all="ignore"):
        return fn(*[x.astype(np.float64) for x in xs])


# ---------------------------------------------------------------- elementwise: relu family, max/min/clip

def f32(v):
    """An ONNX float attribute's value (attributes are float32)."""
    return float(np.float32(v))


SELU_A, SELU_G = f32(1.67326319217681884765625), f32(1.05070102214813232421875)

# The formulas of the ONNX reference (numpy): NaN goes through arithmetic and np.maximum/np.clip;
# a comparison-defined output (ThresholdedRelu) gives 0 for NaN, and HardSwish(-Inf) is -Inf * 0 = NaN.
UNARY = [
    ("Relu", {}, 14, lambda x: np.maximum(x, 0)),
    ("LeakyRelu", {"alpha": 0.1}, 6, lambda x: np.where(x < 0, f32(0.1) * x, x)),
    ("Elu", {"alpha": 0.5}, 6, lambda x: np.where(x < 0, 0.5 * (np.exp(x) - 1), x)),
    ("Selu", {}, 6, lambda x: SELU_G * np.where(x <= 0, SELU_A * (np.exp(x) - 1), x)),
    ("Celu", {}, 12, lambda x: np.maximum(0, x) + np.minimum(0, np.exp(x) - 1)),
    ("ThresholdedRelu", {"alpha": 0.5}, 10, lambda x: np.where(x > 0.5, x, 0.0)),
    ("HardSigmoid", {"alpha": 0.2, "beta": 0.5}, 6, lambda x: np.clip(f32(0.2) * x + 0.5, 0, 1)),
    ("HardSwish", {}, 14, lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    ("Softplus", {}, 1, lambda x: np.logaddexp(0, x)),
    ("Clip", {"min": -1.0, "max": 1.5}, 6, lambda x: np.clip(x, -1.0, 1.5)),
    ("Clip", {}, 13, lambda x: x),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op,attrs,opset,fn", UNARY, ids=[f"{u[0]}{u[2]}" for u in UNARY])
def test_unary(op_tester, op, attrs, opset, fn, dtype):
    x = special([4, 5, 6], dtype, 1)
    [y] = op_tester.run(op, [x], attrs, opset=opset)
    check(y, ref(fn, x), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_prelu(op_tester, dtype):
    x, slope = special([4, 5, 6], dtype, 2), np.linspace(-0.5, 0.5, 6).astype(dtype)
    [y] = op_tester.run("PRelu", [x, op_tester.const(slope)], opset=9)
    check(y, ref(lambda a, s: np.where(a < 0, s * a, a), x, slope), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_clip_with_bounds_inputs(op_tester, dtype):
    x = special([4, 9], dtype, 3)
    lo, hi = np.array(-0.5, dtype), np.array(np.inf, dtype)
    [y] = op_tester.run("Clip", [x, op_tester.const(lo), op_tester.const(hi)], opset=13)
    check(y, ref(lambda a: np.clip(a, -0.5, np.inf), x), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op,fn", [("Max", np.maximum), ("Min", np.minimum)])
@pytest.mark.parametrize("shapes", [[[4, 6], [4, 6]], [[3, 4, 6], [6]], [[4, 6], [1, 6], [4, 1]]],
                         ids=["same", "broadcast", "three"])
def test_variadic_max_min(op_tester, op, fn, shapes, dtype):
    xs = [special(s, dtype, 10 + i) for i, s in enumerate(shapes)]
    [y] = op_tester.run(op, xs, opset=13)
    check(y, ref(lambda *a: fn.reduce(np.broadcast_arrays(*a)), *xs), dtype)


# ---------------------------------------------------------------- comparisons

COMPARE = [("Greater", np.greater), ("Less", np.less), ("Equal", np.equal),
           ("GreaterOrEqual", np.greater_equal), ("LessOrEqual", np.less_equal)]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op,fn", COMPARE, ids=[c[0] for c in COMPARE])
def test_comparisons(op_tester, op, fn, dtype):
    a = special([5, 6], dtype, 4)
    b = np.concatenate([a[:2], special([3, 6], dtype, 5)])  # equal NaN/Inf pairs in the first rows
    [y] = op_tester.run(op, [a, b[:, None, :].repeat(1, 1)[:, 0, :]], opset=16)
    check(y, ref(fn, a, b), dtype)
    [y] = op_tester.run(op, [a, b[0]], opset=16)  # broadcast
    check(y, ref(fn, a, b[0]), dtype)


# ---------------------------------------------------------------- reductions

REDUCE = {
    "ReduceMax": np.max, "ReduceMin": np.min, "ReduceSum": np.sum, "ReduceMean": np.mean,
    "ReduceProd": np.prod,
    "ReduceL1": lambda x, axis, keepdims: np.sum(np.abs(x), axis=axis, keepdims=keepdims),
    "ReduceL2": lambda x, axis, keepdims: np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims)),
    "ReduceSumSquare": lambda x, axis, keepdims: np.sum(x * x, axis=axis, keepdims=keepdims),
    "ReduceLogSum": lambda x, axis, keepdims: np.log(np.sum(x, axis=axis, keepdims=keepdims)),
    "ReduceLogSumExp": lambda x, axis, keepdims: np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims)),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axes,keepdims", [([0], 0), ([1], 1), ([2], 0), ([0, 2], 1), (None, 0)])
@pytest.mark.parametrize("op", sorted(REDUCE))
def test_reductions(op_tester, op, axes, keepdims, dtype):
    x = special([4, 5, 6], dtype, 6)
    attrs = {"keepdims": keepdims} | ({"axes": axes} if axes is not None else {})
    [y] = op_tester.run(op, [x], attrs, opset=11)
    axis = tuple(axes) if axes is not None else None
    check(y, ref(lambda a: REDUCE[op](a, axis=axis, keepdims=bool(keepdims)), x), dtype)


# ---------------------------------------------------------------- softmax, logsoftmax, hardmax

def _softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _logsoftmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


def _hardmax(x, axis):
    return (np.arange(x.shape[axis]).reshape([-1] + [1] * (x.ndim - 1 - axis % x.ndim))
            == np.expand_dims(np.argmax(x, axis=axis), axis)).astype(x.dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis", [-1, 1, 0])
@pytest.mark.parametrize("op,fn", [("Softmax", _softmax), ("LogSoftmax", _logsoftmax), ("Hardmax", _hardmax)])
def test_softmax_family(op_tester, op, fn, axis, dtype):
    x = special([4, 5, 6], dtype, 7)
    [y] = op_tester.run(op, [x], {"axis": axis}, opset=13)
    check(y, ref(lambda a: fn(a, axis), x), dtype)


# ---------------------------------------------------------------- argmax, argmin, topk

def _arg(fn, x, axis, keepdims, last):
    if last:
        flipped = np.flip(x, axis)
        r = x.shape[axis] - 1 - fn(flipped, axis=axis)
    else:
        r = fn(x, axis=axis)
    return np.expand_dims(r, axis) if keepdims else r


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis,keepdims,last", [(0, 1, 0), (1, 0, 0), (-1, 1, 1), (2, 0, 1)])
@pytest.mark.parametrize("op,fn", [("ArgMax", np.argmax), ("ArgMin", np.argmin)])
def test_argmax_argmin(op_tester, op, fn, axis, keepdims, last, dtype):
    x = special([4, 5, 6], dtype, 8, nan=0.1, inf=0.1)  # ties between infinities and NaNs
    [y] = op_tester.run(op, [x], {"axis": axis, "keepdims": keepdims, "select_last_index": last}, opset=13)
    check(y, _arg(fn, x, axis, keepdims, last), np.int64)


def _topk(x, k, axis, largest):
    """numpy's order (NaN above +Inf), ties by lower index."""
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    idx = np.empty((rows.shape[0], k), np.int64)
    for r, row in enumerate(rows):
        keys = [((0 if np.isnan(v) else 1), -v, i) if largest else ((1 if np.isnan(v) else 0), v, i)
                for i, v in enumerate(row.astype(np.float64))]
        idx[r] = [i for *_, i in sorted(keys)[:k]]
    idx = idx.reshape(moved.shape[:-1] + (k,))
    vals = np.take_along_axis(moved, idx, -1)
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis,largest", [(-1, 1), (-1, 0), (0, 1), (1, 0)])
def test_topk(op_tester, axis, largest, dtype):
    x = special([4, 5, 6], dtype, 9, nan=0.1, inf=0.1)
    k = 3
    vals, idx = op_tester.run("TopK", [x, op_tester.const(np.array([k], np.int64))],
                              {"axis": axis, "largest": largest, "sorted": 1}, opset=11, num_outputs=2)
    want_vals, want_idx = _topk(x, k, axis, largest)
    check(vals, want_vals, dtype)
    check(idx, want_idx, np.int64)


# ---------------------------------------------------------------- pooling

def _windows(x, kernel, strides, pads, fill):
    """[N, C, *out, K] windows of x (pads filled with `fill`) and [*out, K] flat input indices (-1: pad)."""
    rank = len(kernel)
    spatial = x.shape[2:]
    padded = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[i + rank]) for i in range(rank)], constant_values=fill)
    index = np.pad(np.arange(int(np.prod(spatial))).reshape(spatial),
                   [(pads[i], pads[i + rank]) for i in range(rank)], constant_values=-1)
    out = [(padded.shape[2 + i] - kernel[i]) // strides[i] + 1 for i in range(rank)]
    wins, idx = [], []
    for pos in np.ndindex(*out):
        sl = tuple(slice(p * s, p * s + k) for p, s, k in zip(pos, strides, kernel))
        wins.append(padded[(slice(None), slice(None)) + sl].reshape(x.shape[:2] + (-1,)))
        idx.append(index[sl].reshape(-1))
    w = np.stack(wins, 2).reshape(x.shape[:2] + tuple(out) + (-1,))
    return w, np.stack(idx).reshape(tuple(out) + (-1,))


def _maxpool(x, kernel, strides, pads):
    """Y = np.max over each window's real taps; Indices = the flat NCHW index of np.argmax over them
    (the first NaN, else the first maximum)."""
    w, idx = _windows(x, kernel, strides, pads, -np.inf)
    y = np.empty(w.shape[:-1])
    ind = np.empty(w.shape[:-1], np.int64)
    plane = int(np.prod(x.shape[2:]))
    for pos in np.ndindex(*idx.shape[:-1]):
        real = idx[pos] >= 0
        for n, c in np.ndindex(*x.shape[:2]):
            vals = w[(n, c) + pos][real]
            y[(n, c) + pos] = np.max(vals)
            ind[(n, c) + pos] = (n * x.shape[1] + c) * plane + idx[pos][real][np.argmax(vals)]
    return y, ind


def _avgpool(x, kernel, strides, pads, include_pad):
    w, idx = _windows(x, kernel, strides, pads, 0.0)
    count = w.shape[-1] if include_pad else np.sum(idx >= 0, axis=-1)
    return np.sum(w, axis=-1) / count


def _lppool(x, kernel, strides, pads, p):
    w, _ = _windows(x, kernel, strides, pads, 0.0)
    return np.sum(np.abs(w) ** p, axis=-1) ** (1.0 / p)


POOLS = [  # shape, kernel, strides, pads
    ([2, 3, 7, 8], [3, 3], [2, 2], [0, 0, 0, 0]),
    ([2, 3, 6, 6], [2, 2], [2, 2], [1, 1, 1, 1]),
    ([2, 16, 9, 9], [3, 3], [1, 1], [1, 1, 1, 1]),
    ([2, 3, 11], [3], [2], [1, 0]),
    ([1, 2, 4, 5, 6], [2, 2, 3], [2, 1, 2], [0, 0, 1, 0, 1, 0]),
]
POOL_IDS = ["k3s2", "k2s2pad", "k3s1pad16c", "1d", "3d"]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape,kernel,strides,pads", POOLS, ids=POOL_IDS)
def test_max_pool(op_tester, shape, kernel, strides, pads, dtype):
    x = special(shape, dtype, 11)
    attrs = {"kernel_shape": kernel, "strides": strides, "pads": pads}
    [y] = op_tester.run("MaxPool", [x], attrs, opset=12)
    check(y, ref(lambda a: _maxpool(a, kernel, strides, pads)[0], x), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape,kernel,strides,pads", POOLS, ids=POOL_IDS)
def test_max_pool_indices(op_tester, shape, kernel, strides, pads, dtype):
    x = special(shape, dtype, 12)
    attrs = {"kernel_shape": kernel, "strides": strides, "pads": pads}
    y, i = op_tester.run("MaxPool", [x], attrs, opset=12, num_outputs=2)
    want_y, want_i = ref(lambda a: _maxpool(a, kernel, strides, pads), x)
    check(y, want_y, dtype)
    check(i, want_i, np.int64)


def test_max_pool_nan_at_every_tap_float32(op_tester):
    # Ascending values (the maximum is each window's last tap) and one NaN per window, at a
    # different tap from window to window: a max that drops NaN, or keeps it only at some taps, fails.
    x = np.arange(2 * 5 * 6 * 6, dtype=np.float32).reshape(2, 5, 6, 6)
    for k, (n, c, wy, wx) in enumerate(np.ndindex(2, 5, 2, 2)):
        tap = k % 9
        x[n, c, wy * 3 + tap // 3, wx * 3 + tap % 3] = np.nan
    attrs = {"kernel_shape": [3, 3], "strides": [3, 3]}
    [y] = op_tester.run("MaxPool", [x], attrs, opset=12)
    assert np.isnan(y).all()
    x[1] = np.arange(5 * 6 * 6, dtype=np.float32).reshape(5, 6, 6)  # no NaN in the second image
    [y] = op_tester.run("MaxPool", [x], attrs, opset=12)
    check(y, ref(lambda a: _maxpool(a, [3, 3], [3, 3], [0, 0, 0, 0])[0], x), np.float32)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("include_pad", [0, 1])
@pytest.mark.parametrize("shape,kernel,strides,pads", POOLS, ids=POOL_IDS)
def test_average_pool(op_tester, shape, kernel, strides, pads, include_pad, dtype):
    x = special(shape, dtype, 13)
    attrs = {"kernel_shape": kernel, "strides": strides, "pads": pads, "count_include_pad": include_pad}
    [y] = op_tester.run("AveragePool", [x], attrs, opset=11)
    check(y, ref(lambda a: _avgpool(a, kernel, strides, pads, include_pad), x), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("p", [1, 2, 3])
@pytest.mark.parametrize("shape,kernel,strides,pads", POOLS[:2] + POOLS[3:4], ids=["k3s2", "k2s2pad", "1d"])
def test_lp_pool(op_tester, shape, kernel, strides, pads, p, dtype):
    x = special(shape, dtype, 14)
    attrs = {"kernel_shape": kernel, "strides": strides, "pads": pads, "p": p}
    [y] = op_tester.run("LpPool", [x], attrs, opset=11)
    check(y, ref(lambda a: _lppool(a, kernel, strides, pads, p), x), dtype)


GLOBAL = [("GlobalMaxPool", {}, lambda a, ax: np.max(a, axis=ax, keepdims=True)),
          ("GlobalAveragePool", {}, lambda a, ax: np.mean(a, axis=ax, keepdims=True))]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [[2, 5, 4, 3], [3, 4, 7]])
@pytest.mark.parametrize("op,attrs,fn", GLOBAL, ids=[g[0] for g in GLOBAL])
def test_global_pools(op_tester, op, attrs, fn, shape, dtype):
    x = special(shape, dtype, 15, nan=0.03, inf=0.03)
    [y] = op_tester.run(op, [x], attrs, opset=11)
    check(y, ref(lambda a: fn(a, tuple(range(2, a.ndim))), x), dtype)


def test_max_pool_after_conv_in_onednn_layout():
    # Conv (16 channels) hands MaxPool its output in a oneDNN blocked layout, and MaxPool's output goes on
    # to another Conv: the NaN fix-up must read and write those layouts. A 1x1 kernel with zeros off the
    # diagonal copies x, spreading NaN/Inf (0 * NaN) over a pixel's channels as numpy's einsum does.
    import onnx
    import onnx.helper as oh
    from onnx import numpy_helper
    from _reliability_models import run
    x = special([2, 16, 10, 10], np.float32, 16)
    w = np.eye(16, dtype=np.float32).reshape(16, 16, 1, 1)
    nodes = [oh.make_node("Conv", ["x", "w"], ["c"]),
             oh.make_node("MaxPool", ["c"], ["p"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
             oh.make_node("Conv", ["p", "w"], ["y"])]
    f = onnx.TensorProto.FLOAT
    g = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", f, x.shape)],
                      [oh.make_tensor_value_info("y", f, None)], [numpy_helper.from_array(w, "w")])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 13)])
    y = run(m.SerializeToString(), {"x": x}, ["y"])["y"]

    def reference(a):
        c = np.einsum("ck,nkhw->nchw", w[:, :, 0, 0].astype(np.float64), a)
        p = _maxpool(c, [3, 3], [2, 2], [1, 1, 1, 1])[0]
        return np.einsum("ck,nkhw->nchw", w[:, :, 0, 0].astype(np.float64), p)
    check(y, ref(reference, x), np.float32)


# ---------------------------------------------------------------- ai.graphcore Sort and ReduceMedian

@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis,descending", [(-1, 0), (-1, 1), (0, 0), (1, 1)])
def test_graphcore_sort(op_tester, axis, descending, dtype):
    # NaN used to break std::sort's ordering (an invalid comparator: undefined behaviour)
    x = special([4, 5, 33], dtype, 17, nan=0.15, inf=0.1)
    vals, idx = op_tester.run("Sort", [x], {"axis": axis, "descending": descending}, domain="ai.graphcore",
                              num_outputs=2)
    want_vals, want_idx = _topk(x, x.shape[axis], axis, descending)
    check(vals, want_vals, dtype)
    check(idx, want_idx.astype(np.int32), np.int32)


def _median(x, axes, keepdims):
    """Lower median over `axes` (rank (n-1)//2, ties by index) and its row-major index among the reduced
    elements; NaN (the first one) when the lane holds NaN, as np.median."""
    kept = [a for a in range(x.ndim) if a not in axes]
    lanes = np.transpose(x, kept + list(axes)).reshape([x.shape[a] for a in kept] + [-1])
    vals = np.empty(lanes.shape[:-1], x.dtype)
    idx = np.empty(lanes.shape[:-1], np.int32)
    for pos in np.ndindex(*lanes.shape[:-1]):
        lane = lanes[pos].astype(np.float64)
        nan = np.flatnonzero(np.isnan(lane))
        i = nan[0] if nan.size else sorted(range(lane.size), key=lambda j: (lane[j], j))[(lane.size - 1) // 2]
        vals[pos], idx[pos] = lanes[pos][i], i
    if keepdims:
        shape = [1 if a in axes else x.shape[a] for a in range(x.ndim)]
        return vals.reshape(shape), idx.reshape(shape)
    return vals, idx


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axes,keepdims", [([2], 0), ([0, 2], 1), ([1], 1)])
def test_graphcore_reduce_median(op_tester, axes, keepdims, dtype):
    x = special([4, 5, 7], dtype, 18, nan=0.03, inf=0.1)
    vals, idx = op_tester.run("ReduceMedian", [x], {"axes": axes, "keepdims": keepdims}, domain="ai.graphcore",
                              num_outputs=2)
    want_vals, want_idx = _median(x, axes, keepdims)
    check(vals, want_vals, dtype)
    check(idx, want_idx, np.int32)


# ---------------------------------------------------------------- products with a fused Relu

def _fused_relu_model(kind, x, w, b):
    """Relu after Gemm / MatMul + Add / Conv + bias: the patterns fuse each Relu into the product."""
    import onnx
    import onnx.helper as oh
    from onnx import numpy_helper
    if kind == "gemm":
        nodes = [oh.make_node("Gemm", ["x", "w", "b"], ["c"])]
    elif kind == "matmul_add":
        nodes = [oh.make_node("MatMul", ["x", "w"], ["m"]), oh.make_node("Add", ["m", "b"], ["c"])]
    else:
        nodes = [oh.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1])]
    nodes.append(oh.make_node("Relu", ["c"], ["y"]))
    f = onnx.TensorProto.FLOAT
    g = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", f, x.shape)], [oh.make_tensor_value_info("y", f, None)],
                      [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    return oh.make_model(g, opset_imports=[oh.make_opsetid("", 13)]).SerializeToString()


def _conv_reference(x, w, b):
    """float64 3x3 convolution with pads 1 as a sum of shifted products (NaN * 0 = NaN, as the product's)."""
    n, c, h, wd = x.shape
    p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, w.shape[0], h, wd)) + b[None, :, None, None]
    for i in range(3):
        for j in range(3):
            out += np.einsum("oc,nchw->nohw", w[:, :, i, j], p[:, :, i:i + h, j:j + wd])
    return out


@pytest.mark.parametrize("kind,shape", [("gemm", [16, 40]), ("matmul_add", [3, 16, 40]), ("conv", [2, 5, 9, 11]),
                                        ("conv", [4, 32, 14, 14])])
def test_fused_relu_keeps_nan(kind, shape):
    """A Relu fused into the product (a oneDNN post-op) keeps NaN and turns -Inf and negatives into +0, as numpy's
    maximum(x, 0) does; Inf inputs make NaN where they meet opposite signs or zeros."""
    import popart
    from _reliability_models import session
    x = special(shape, np.float32, 21, nan=0.01, inf=0.01).astype(np.float32)
    rng = np.random.default_rng(3)
    if kind == "conv":
        w = rng.standard_normal((24, shape[1], 3, 3)).astype(np.float32)
        b = rng.standard_normal(24).astype(np.float32)
    else:
        w = rng.standard_normal((shape[-1], 24)).astype(np.float32)
        b = rng.standard_normal(24).astype(np.float32)
    s = session(_fused_relu_model(kind, x, w, b), ["y"])
    fused = {"gemm": "GemmFused", "matmul_add": "GemmFused", "conv": "ConvFused"}[kind]
    assert fused in s.getSummaryReport(), "the Relu was not fused: the test would not check the post-op"
    y = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, y))
    with np.errstate(all="ignore"):
        x64, w64, b64 = x.astype(np.float64), w.astype(np.float64), b.astype(np.float64)
        pre = _conv_reference(x64, w64, b64) if kind == "conv" else np.matmul(x64, w64) + b64
        want = np.maximum(pre, 0)
    assert np.isnan(want).any() and (want == 0).any()
    np.testing.assert_array_equal(np.isnan(y["y"]), np.isnan(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(y["y"][finite], want[finite], rtol=1e-4, atol=1e-3)
    assert not np.signbit(y["y"][want == 0]).any(), "Relu gave -0"


# ---------------------------------------------------------------- RNN activations

RNN_ACTS = {  # name, attributes, numpy activation (NaN kept as numpy's ufuncs keep it)
    "Relu": ({}, lambda v: np.maximum(v, 0)),
    "Tanh": ({}, np.tanh),
    "Sigmoid": ({}, lambda v: 1 / (1 + np.exp(-v))),
    "HardSigmoid": ({"activation_alpha": [0.3], "activation_beta": [0.4]}, lambda v: np.clip(0.3 * v + 0.4, 0, 1)),
    "LeakyRelu": ({"activation_alpha": [0.1]}, lambda v: np.where(v >= 0, v, 0.1 * v)),
}


@pytest.mark.parametrize("act", list(RNN_ACTS))
def test_rnn_activation_keeps_nan(act):
    """An RNN whose input holds NaN: its hidden state is NaN from that step on, in that batch row only (the
    Relu of oneDNN's RNN cell, and the loops' Relu and HardSigmoid, made it 0 or 1)."""
    import onnx
    import onnx.helper as oh
    from onnx import numpy_helper
    from _reliability_models import run
    T, B, I, H = 4, 3, 5, 6
    rng = np.random.default_rng(7)
    x = rng.standard_normal((T, B, I)).astype(np.float32)
    x[1, 0, 2] = np.nan
    x[2, 2, 0] = np.inf
    w = (rng.standard_normal((1, H, I)) * 0.5).astype(np.float32)
    r = (rng.standard_normal((1, H, H)) * 0.2).astype(np.float32)
    attrs, fn = RNN_ACTS[act]
    node = oh.make_node("RNN", ["x", "W", "R"], ["Y"], hidden_size=H, activations=[act], **attrs)
    f = onnx.TensorProto.FLOAT
    g = oh.make_graph([node], "g", [oh.make_tensor_value_info("x", f, x.shape)], [oh.make_tensor_value_info("Y", f, None)],
                      [numpy_helper.from_array(w, "W"), numpy_helper.from_array(r, "R")])
    y = run(oh.make_model(g, opset_imports=[oh.make_opsetid("", 14)]).SerializeToString(), {"x": x}, ["Y"])["Y"]
    h, want = np.zeros((B, H)), []
    with np.errstate(all="ignore"):
        for t in range(T):
            h = fn(x[t].astype(np.float64) @ w[0].T.astype(np.float64) + h @ r[0].T.astype(np.float64))
            want.append(h)
    want = np.stack(want)[:, None]  # [T, directions, B, H]
    assert np.isnan(want[1:, 0, 0]).all() and not np.isnan(want[:, 0, 1]).any()
    check(y, want, np.float32)
