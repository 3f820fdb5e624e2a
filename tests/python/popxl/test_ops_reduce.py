"""popxl.ops reductions and order statistics against numpy/torch: values, dtypes, axes/keepdims, float16,
gradients through autodiff, bad input."""
import numpy as np
import pytest

from popxl_run import check, check_grad, rand, run
import popxl
import popxl.ops as ops
import torch

AXES = [None, 0, -1, (0, 2)]
FLOATS = [np.float32, np.float16]


def _t_axes(axis, rank):
    ax = list(range(rank)) if axis is None else [axis] if isinstance(axis, int) else list(axis)
    return [a % rank for a in ax]


REDUCE = {  # name: (popxl op, numpy fn(a, axes, keepdims), torch fn(x, axes, keepdims), input range)
    "sum": (ops.sum, lambda a, ax, k: a.sum(ax, keepdims=k), lambda x, ax, k: x.sum(ax, keepdim=k), (-2, 2)),
    "mean": (ops.mean, lambda a, ax, k: a.mean(ax, keepdims=k), lambda x, ax, k: x.mean(ax, keepdim=k), (-2, 2)),
    "prod": (ops.prod, lambda a, ax, k: a.prod(ax, keepdims=k),
             lambda x, ax, k: _t_prod(x, ax, k), (0.5, 1.5)),
    "max": (ops.max, lambda a, ax, k: a.max(ax, keepdims=k), lambda x, ax, k: x.amax(ax, keepdim=k), (-2, 2)),
    "min": (ops.min, lambda a, ax, k: a.min(ax, keepdims=k), lambda x, ax, k: x.amin(ax, keepdim=k), (-2, 2)),
    "l1": (ops.l1, lambda a, ax, k: np.abs(a).sum(ax, keepdims=k), lambda x, ax, k: x.abs().sum(ax, keepdim=k),
           (-2, 2)),
    "l2": (ops.l2, lambda a, ax, k: np.sqrt((a * a).sum(ax, keepdims=k)),
           lambda x, ax, k: (x * x).sum(ax, keepdim=k).sqrt(), (-2, 2)),
    "logsum": (ops.logsum, lambda a, ax, k: np.log(a.sum(ax, keepdims=k)),
               lambda x, ax, k: x.sum(ax, keepdim=k).log(), (0.5, 2)),
    "logsumexp": (ops.logsumexp, lambda a, ax, k: np.log(np.exp(a).sum(ax, keepdims=k)),
                  lambda x, ax, k: x.logsumexp(ax, keepdim=k), (-2, 2)),
    "sumsquare": (ops.sumsquare, lambda a, ax, k: (a * a).sum(ax, keepdims=k),
                  lambda x, ax, k: (x * x).sum(ax, keepdim=k), (-2, 2)),
}


def _t_prod(x, ax, k):
    for a in sorted(ax, reverse=True):
        x = x.prod(a, keepdim=True)
    return x if k else x.reshape([d for i, d in enumerate(x.shape) if i not in ax])


@pytest.mark.parametrize("name", sorted(REDUCE))
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
def test_reduce(name, axis, keepdims, dtype):
    op, npf, tf, (lo, hi) = REDUCE[name]
    a = rand((2, 3, 4), dtype, lo, hi)
    ax = tuple(_t_axes(axis, 3))
    want = npf(a.astype(np.float64), ax, keepdims).astype(dtype)
    tol = dict(rtol=3e-2, atol=5e-2) if dtype == np.float16 else None
    got = run(lambda x: op(x, axis, keepdims), a)
    if tol:
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), **tol)
    else:
        check(got, want)
    if dtype == np.float32:
        check_grad(lambda x: op(x, axis, keepdims), lambda x: tf(x, list(ax), keepdims), a,
                   grad_tol=dict(rtol=1e-4, atol=1e-5))


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_reduce_ints(dtype):
    a = rand((3, 4), dtype, -5, 5)
    out = run(lambda x: [ops.sum(x, 1), ops.max(x), ops.min(x, 0, True), ops.prod(x, 0)], a)
    for got, want in zip(out, [a.sum(1), a.max(), a.min(0, keepdims=True), a.prod(0)]):
        check(got, want.astype(dtype))


@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, True), (-1, False)])
def test_argmax_argmin(dtype, dim, keepdim):
    a = rand((3, 5), dtype, -50, 50)
    out = run(lambda x: [ops.argmax(x, dim, keepdim), ops.argmin(x, dim, keepdim)], a)
    check(out[0], np.argmax(a, dim, keepdims=keepdim).astype(np.int32))
    check(out[1], np.argmin(a, dim, keepdims=keepdim).astype(np.int32))


@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum(dtype, dim):
    a = rand((3, 4), dtype, -3, 3)
    check(run(lambda x: ops.cumsum(x, dim), a), np.cumsum(a.astype(np.float64), dim).astype(dtype))
    if dtype == np.float32:
        check_grad(lambda x: ops.cumsum(x, dim), lambda x: torch.cumsum(x, dim), a)


@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, True), ((0, 1), False)])
def test_median(dtype, axis, keepdims):
    a = rand((4, 5), dtype, -50, 50)
    ax = tuple(_t_axes(axis, 2))
    moved = np.moveaxis(a, ax, range(-len(ax), 0)).reshape(a.shape[:0] + tuple(
        d for i, d in enumerate(a.shape) if i not in ax) + (-1,))
    want = np.sort(moved, -1)[..., (moved.shape[-1] - 1) // 2]
    if keepdims:
        want = np.expand_dims(want, ax)
    check(run(lambda x: ops.median(x, axis, keepdims), a), want)
    if dtype == np.float32 and axis == 1:
        check_grad(lambda x: ops.median(x, 1, True), lambda x: x.median(1, keepdim=True).values, a)


@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("axis", [0, -1])
def test_topk(dtype, largest, axis):
    a = (np.random.default_rng(0).permutation(30).reshape(5, 6) - 15).astype(dtype)  # no ties
    vals, idx = run(lambda x: list(ops.topk(x, 3, axis, largest, True)), a)
    tv, ti = torch.topk(torch.tensor(a.astype(np.float64)), 3, axis, largest, True)
    check(vals, tv.numpy().astype(dtype))
    check(idx, ti.numpy().astype(np.int32))
    if dtype == np.float32:
        check_grad(lambda x: ops.topk(x, 3, axis, largest, True)[0],
                   lambda x: torch.topk(x, 3, axis, largest, True).values, a)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("absolute", [False, True])
def test_histogram(dtype, absolute):
    a = rand((50,), dtype, -3, 3)
    levels = [-1.0, 0.0, 0.5, 2.0]
    x = np.abs(a) if absolute else a
    want = np.array([np.sum(x < levels[0])] + [np.sum((x >= lo) & (x < hi)) for lo, hi in zip(levels, levels[1:])]
                    + [np.sum(x >= levels[-1])], np.uint32)
    check(run(lambda t: ops.histogram(t, levels, absolute), a), want)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3,), (2, 5)])
def test_lamb_square(dtype, shape):
    a = rand(shape, dtype)
    check(run(ops.lamb_square, a), np.float32((a.astype(np.float64) ** 2).sum()))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("axis", [0, -1])
def test_softmax(dtype, axis):
    a = rand((3, 4), dtype)
    check_grad(lambda x: ops.softmax(x, axis), lambda x: torch.softmax(x, axis), a)


def test_bad_input():
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.constant(np.zeros((2, 3), np.float32), name="x")
        with pytest.raises(ValueError, match="l2: axis 2 is out of range for tensor 'x'"):
            ops.l2(x, 2)
        with pytest.raises(ValueError, match="sumsquare: axes \\[0, -2\\] of tensor 'x' repeat"):
            ops.sumsquare(x, [0, -2])
        with pytest.raises(ValueError, match="argmax: axis 3.*'x'"):
            ops.argmax(x, 3)
        with pytest.raises(ValueError, match="topk: k=4.*'x'"):
            ops.topk(x, 4, 1, True, True)
        with pytest.raises(ValueError, match="histogram: levels.*'x'"):
            ops.histogram(x, [1.0, 0.0], False)
        with pytest.raises(Exception, match="LambSquare.*'i'.*INT32"):
            ops.lamb_square(popxl.constant(np.zeros(2, np.int32), name="i"))
