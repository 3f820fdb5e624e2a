import numpy as np
import pytest

import popart

RNG = np.random.default_rng(0)
TOL = {np.float32: (1e-4, 1e-5), np.float16: (1e-2, 1e-2), np.float64: (1e-7, 1e-8)}  # epsilon is a float32 attribute


def instance_norm(x, s, b, eps=1e-5):
    ax = tuple(range(2, x.ndim))
    shp = (1, -1) + (1,) * (x.ndim - 2)
    x64 = x.astype(np.float64)
    y = (x64 - x64.mean(ax, keepdims=True)) / np.sqrt(x64.var(ax, keepdims=True) + eps)
    return (y * s.reshape(shp) + b.reshape(shp)).astype(x.dtype)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 2, 7), (3, 4, 2, 3, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("opset", [1, 6])
def test_instance_norm(op_tester, shape, dtype, opset):
    x = RNG.standard_normal(shape).astype(dtype)
    s, b = RNG.standard_normal(shape[1]).astype(dtype), RNG.standard_normal(shape[1]).astype(dtype)
    rtol, atol = TOL[dtype]
    op_tester.check("InstanceNormalization", [x, s, b], reference=lambda x, s, b: instance_norm(x, s, b, 0.01),
                    attrs={"epsilon": 0.01}, opset=opset, rtol=rtol, atol=atol)


def layer_norm(x, s, b, axis, eps=1e-5):
    ax = tuple(range(axis % x.ndim, x.ndim))
    x64 = x.astype(np.float64)
    m = x64.mean(ax, keepdims=True)
    inv = 1 / np.sqrt(x64.var(ax, keepdims=True) + eps)
    y = (x64 - m) * inv * s + (0 if b is None else b)
    return y.astype(x.dtype), m.astype(np.float32), inv.astype(np.float32)


@pytest.mark.parametrize("shape,axis", [((3, 4), -1), ((3, 4), 0), ((2, 3, 5), 1), ((2, 3, 4, 5), -2),
                                        ((4, 16, 32), -1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_layer_norm(op_tester, shape, axis, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    norm = shape[axis % len(shape):]
    s, b = RNG.standard_normal(norm).astype(dtype), RNG.standard_normal(norm).astype(dtype)
    rtol, atol = TOL[dtype]
    op_tester.check("LayerNormalization", [x, s, b], reference=lambda x, s, b: layer_norm(x, s, b, axis, 0.1),
                    attrs={"axis": axis, "epsilon": 0.1}, opset=17, num_outputs=3, rtol=rtol, atol=atol)


def test_layer_norm_broadcast_scale_no_bias(op_tester):
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    s = RNG.standard_normal((1, 4)).astype(np.float32)
    op_tester.check("LayerNormalization", [x, s], reference=lambda x, s: layer_norm(x, s, None, 1)[0],
                    attrs={"axis": 1}, opset=17, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("axes", [None, [0, 2, 3], [2, 3], [1], [0, 1, 2, 3], [-1, 0]])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mean_variance_norm(op_tester, axes, dtype):
    x = RNG.standard_normal((3, 4, 5, 2)).astype(dtype)
    ax = tuple(a % 4 for a in (axes or [0, 2, 3]))

    def ref(x):
        m = x.mean(ax, keepdims=True)
        return ((x - m) / (np.sqrt(((x - m) ** 2).mean(ax, keepdims=True)) + 1e-9)).astype(x.dtype)
    attrs = {} if axes is None else {"axes": axes}
    op_tester.check("MeanVarianceNormalization", [x], reference=ref, attrs=attrs, opset=13, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_lp_norm(op_tester, p, axis, dtype):
    x = RNG.standard_normal((3, 4, 5)).astype(dtype)
    x[1, :, 2] = 0  # a zero norm gives 0

    def ref(x):
        n = np.linalg.norm(x.astype(np.float64), ord=p, axis=axis, keepdims=True)
        return np.where(n == 0, 0, x / np.where(n == 0, 1, n)).astype(x.dtype)
    rtol, atol = TOL[dtype]
    op_tester.check("LpNormalization", [x], reference=ref, attrs={"p": p, "axis": axis}, opset=1, rtol=rtol,
                    atol=atol)


def lrn(x, size, alpha=1e-4, beta=0.75, bias=1.0):
    sq = np.zeros_like(x, dtype=np.float64)
    c = x.shape[1]
    for k in range(c):
        lo, hi = max(0, k - (size - 1) // 2), min(c, k + size // 2 + 1)
        sq[:, k] = (x[:, lo:hi].astype(np.float64) ** 2).sum(1)
    return (x / (bias + alpha / size * sq) ** beta).astype(x.dtype)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("shape", [(2, 6, 3, 3), (1, 4, 5), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("opset", [1, 13])
def test_lrn(op_tester, size, shape, opset):
    x = RNG.standard_normal(shape).astype(np.float32) * 3
    attrs = {"size": size, "alpha": 0.2, "beta": 0.6, "bias": 1.5}
    op_tester.check("LRN", [x], reference=lambda x: lrn(x, size, 0.2, 0.6, 1.5), attrs=attrs, opset=opset,
                    rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_lrn_dtypes_defaults(op_tester, dtype):
    x = RNG.standard_normal((2, 5, 3, 3)).astype(dtype)
    rtol, atol = TOL[dtype]
    op_tester.check("LRN", [x], reference=lambda x: lrn(x, 3), attrs={"size": 3}, opset=13, rtol=rtol, atol=atol)


def test_normalization_errors(op_tester):
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(popart.popart_exception, match="must have shape \\[3\\]"):
        op_tester.run("InstanceNormalization", [x, np.ones(4, np.float32), np.ones(3, np.float32)], opset=6)
    with pytest.raises(popart.popart_exception, match="type INT32"):
        op_tester.run("InstanceNormalization", [x.astype(np.int32), np.ones(3, np.int32), np.ones(3, np.int32)],
                      opset=6)
    with pytest.raises(popart.popart_exception, match="does not broadcast"):
        op_tester.run("LayerNormalization", [x, np.ones(3, np.float32)], opset=17)
    with pytest.raises(popart.popart_exception, match="stash_type=11"):
        op_tester.run("LayerNormalization", [x, np.ones(4, np.float32)], attrs={"stash_type": 11}, opset=17)
    with pytest.raises(popart.popart_exception, match="p=3"):
        op_tester.run("LpNormalization", [x], attrs={"p": 3}, opset=1)
    with pytest.raises(popart.popart_exception, match="size=0"):
        op_tester.run("LRN", [x], attrs={"size": 0}, opset=13)
    with pytest.raises(popart.popart_exception, match="axes"):
        op_tester.run("MeanVarianceNormalization", [x], attrs={"axes": [0, 3]}, opset=13)
