"""Gradients of MaxPool, AveragePool, LpPool, GlobalMaxPool and GlobalAveragePool against torch autograd."""
import os
import sys

import numpy as np
import onnx.helper as oh
import pytest
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _grad_util import weight_grads, weighted_loss  # noqa: E402

TOL = {np.float32: (1e-5, 1e-5), np.float64: (1e-12, 1e-12), np.float16: (1e-2, 1e-2)}

MAX_CASES = [  # x shape, attrs
    ((2, 3, 8, 8), {"kernel_shape": [2, 2], "strides": [2, 2]}),
    ((1, 2, 9, 7), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 1]}),
    ((1, 2, 9, 10), {"kernel_shape": [3, 2], "strides": [2, 3], "ceil_mode": 1}),
    ((1, 2, 11, 11), {"kernel_shape": [3, 3], "dilations": [2, 2], "pads": [1, 1, 1, 1]}),
    ((1, 2, 8, 8), {"kernel_shape": [3, 3], "storage_order": 1}),
    ((2, 3, 13), {"kernel_shape": [4], "strides": [3], "pads": [1, 2], "ceil_mode": 1}),  # 1-D
    ((1, 2, 6, 7, 5), {"kernel_shape": [2, 3, 2], "strides": [2, 2, 1], "pads": [0, 1, 1, 1, 0, 0]}),  # 3-D
]

AVG_CASES = [
    ((2, 3, 8, 8), {"kernel_shape": [2, 2], "strides": [2, 2]}),
    ((1, 2, 9, 7), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ((1, 2, 9, 7), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "count_include_pad": 1}),
    ((1, 2, 9, 10), {"kernel_shape": [3, 2], "strides": [2, 3], "ceil_mode": 1}),
    ((1, 2, 10, 10), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1,
                      "count_include_pad": 1}),
    ((2, 3, 13), {"kernel_shape": [4], "strides": [3], "pads": [1, 2]}),
    ((1, 2, 6, 7, 5), {"kernel_shape": [2, 3, 2], "strides": [2, 2, 1], "pads": [0, 1, 1, 1, 0, 0],
                       "count_include_pad": 1}),
]


def out_size(n, k, s, d, pb, pe, ceil):
    span = n + pb + pe - ((k - 1) * d + 1)
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= n + pb:
        out -= 1
    return out


def torch_pool(x, x_shape, attrs, is_max, p=None):
    """ONNX pooling via torch: padded explicitly (-inf for max; for average a count of the counted positions;
    LpPool (p given): the root of the window sums of |x|^p, padding adding 0)."""
    r = len(x_shape) - 2
    k, s = attrs["kernel_shape"], attrs.get("strides", [1] * r)
    d, pads = attrs.get("dilations", [1] * r), attrs.get("pads", [0] * 2 * r)
    ceil = attrs.get("ceil_mode", 0)
    outs = [out_size(x_shape[2 + i], k[i], s[i], d[i], pads[i], pads[r + i], ceil) for i in range(r)]
    ends = [(outs[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 - x_shape[2 + i] - pads[i] for i in range(r)]
    tp = []
    for i in reversed(range(r)):
        tp += [pads[i], max(ends[i], 0)]
    if is_max:
        pool = [F.max_pool1d, F.max_pool2d, F.max_pool3d][r - 1]
        return pool(F.pad(x, tp, value=-np.inf), k, s, dilation=d)
    # average: window sum / count, where count covers real elements (and explicit pads with count_include_pad)
    conv = [F.conv1d, F.conv2d, F.conv3d][r - 1]
    c = x.shape[1]
    ones_w = torch.ones((c, 1, *k), dtype=x.dtype)
    if p is not None:
        return conv(F.pad(x.abs() ** p, tp), ones_w, stride=s, dilation=d, groups=c) ** (1.0 / p)
    total = conv(F.pad(x, tp), ones_w, stride=s, dilation=d, groups=c)
    mask = torch.ones((1, 1, *x_shape[2:]), dtype=x.dtype)
    if attrs.get("count_include_pad", 0):
        mask = F.pad(mask, [p for i in reversed(range(r)) for p in (pads[i], pads[r + i])], value=1.0)
        tp = [p for i in reversed(range(r)) for p in (0, max(ends[i] - pads[r + i], 0))]
    count = conv(F.pad(mask, tp), torch.ones((1, 1, *k), dtype=x.dtype), stride=s, dilation=d)
    return total / count


def check_pool_grad(op, x, attrs, fn, opset=None):
    rs = np.random.RandomState(1)
    y = fn(torch.tensor(x.astype(np.float64)))
    cot = rs.uniform(-1, 1, tuple(y.shape)).astype(x.dtype)
    xt = torch.tensor(x.astype(np.float64), requires_grad=True)
    (fn(xt) * torch.tensor(cot.astype(np.float64))).sum().backward()
    nodes = [oh.make_node(op, ["x"], ["y"], **attrs)] + weighted_loss("y", cot)
    got = weight_grads(nodes, {"x": x}, "loss", opset=opset or (12 if op == "MaxPool" else 11))["x"]
    rtol, atol = TOL[x.dtype.type]
    np.testing.assert_allclose(got.astype(np.float64), xt.grad.numpy(), rtol=rtol, atol=atol)


def distinct(shape, dtype, seed=0):
    """Values without ties inside a window, exact in float16 too."""
    rs = np.random.RandomState(seed)
    n = int(np.prod(shape))
    return (rs.permutation(n).reshape(shape) / 64.0 - n / 128.0).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("x_shape,attrs", MAX_CASES)
def test_maxpool_grad(dtype, x_shape, attrs):
    check_pool_grad("MaxPool", distinct(x_shape, dtype), attrs, lambda x: torch_pool(x, x_shape, attrs, True))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("x_shape,attrs", AVG_CASES)
def test_averagepool_grad(dtype, x_shape, attrs):
    x = np.random.RandomState(2).randn(*x_shape).astype(dtype)
    check_pool_grad("AveragePool", x, attrs, lambda x: torch_pool(x, x_shape, attrs, False))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("x_shape,attrs", MAX_CASES[:4] + MAX_CASES[5:])
@pytest.mark.parametrize("p", [1, 2, 3])
def test_lppool_grad(dtype, x_shape, attrs, p):
    x = np.random.RandomState(4).randn(*x_shape).astype(dtype)
    check_pool_grad("LpPool", x, dict(attrs, p=p), lambda x: torch_pool(x, x_shape, attrs, False, p), opset=18)


@pytest.mark.parametrize("p", [2, 3])
def test_lppool_grad_zero_windows(p):
    """A window of zeros (y = 0) gets a zero gradient (torch's is NaN there), a zero tap too."""
    x = np.random.RandomState(5).randn(1, 1, 6, 6)
    x[0, 0, :2, :2] = 0
    x[0, 0, 4, 4] = 0
    attrs = {"kernel_shape": [2, 2], "strides": [2, 2]}
    cot = np.random.RandomState(1).uniform(-1, 1, (1, 1, 3, 3))
    xt = torch.tensor(x, requires_grad=True)
    (torch_pool(xt, x.shape, attrs, False, p) * torch.tensor(cot)).sum().backward()
    want = torch.nan_to_num(xt.grad, nan=0.0).numpy()
    assert np.isnan(xt.grad.numpy()[0, 0, :2, :2]).all()
    nodes = [oh.make_node("LpPool", ["x"], ["y"], p=p, **attrs)] + weighted_loss("y", cot)
    got = weight_grads(nodes, {"x": x}, "loss", opset=18)["x"]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert got[0, 0, 4, 4] == 0


def test_maxpool_with_indices_grad():
    x = distinct((1, 2, 6, 6), np.float32)
    attrs = {"kernel_shape": [2, 2], "strides": [2, 2]}
    cot = np.random.RandomState(3).randn(1, 2, 3, 3).astype(np.float32)
    xt = torch.tensor(x, requires_grad=True)
    (F.max_pool2d(xt, 2) * torch.tensor(cot)).sum().backward()
    nodes = [oh.make_node("MaxPool", ["x"], ["y", "idx"], **attrs)] + weighted_loss("y", cot)
    np.testing.assert_allclose(weight_grads(nodes, {"x": x}, "loss")["x"], xt.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("shape", [(2, 3, 5, 4), (2, 3, 7), (1, 2, 3, 4, 2)])
@pytest.mark.parametrize("op", ["GlobalMaxPool", "GlobalAveragePool"])
def test_global_pool_grad(dtype, shape, op):
    axes = tuple(range(2, len(shape)))
    if op == "GlobalMaxPool":
        fn = lambda x: x.amax(dim=axes, keepdim=True)  # noqa: E731
    else:
        fn = lambda x: x.mean(dim=axes, keepdim=True)  # noqa: E731
    check_pool_grad(op, distinct(shape, dtype), {}, fn)


def pool_and_grads(attrs, x, cot):
    """One training step (learning rate 0) of loss = sum(MaxPool(x) * cot): MaxPool's output and x's gradient."""
    nodes = [oh.make_node("MaxPool", ["x"], ["y"], **attrs)] + weighted_loss("y", cot)
    return weight_grads(nodes, {"x": x}, "loss", opset=12, anchors=["y"])


def nan_per_window(x_shape, attrs, dtype, seed):
    """`distinct` values with NaN at random taps, at most one per window (where torch's argmax, the last NaN,
    and numpy's, the first, agree); every plane gets some."""
    x = torch.tensor(distinct(x_shape, np.float64, seed))
    mask = torch.zeros(x_shape, dtype=torch.float64)
    rs = np.random.RandomState(seed)
    for flat in rs.permutation(int(np.prod(x_shape)))[: int(np.prod(x_shape)) // 3]:
        trial = mask.clone()
        trial.view(-1)[int(flat)] = 1.0
        if torch_pool(trial, x_shape, attrs, False, p=1).max() <= 1:  # LpPool p=1 of the mask: NaNs per window
            mask = trial
    x[mask > 0] = np.nan
    return x.numpy().astype(dtype), int(mask.sum())


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("x_shape,attrs", MAX_CASES)
def test_maxpool_nan_forward_and_grad(dtype, x_shape, attrs):
    """NaN in a window is its maximum, forward and backward: the window's gradient goes to the NaN tap."""
    x, nans = nan_per_window(x_shape, attrs, dtype, 7)
    assert nans >= x_shape[0] * x_shape[1]
    fn = lambda t: torch_pool(t, x_shape, attrs, True)  # noqa: E731
    want_y = fn(torch.tensor(x.astype(np.float64))).numpy()
    assert np.isnan(want_y).any() and not np.isnan(want_y).all()
    cot = np.random.RandomState(1).uniform(-1, 1, want_y.shape).astype(dtype)
    xt = torch.tensor(x.astype(np.float64), requires_grad=True)
    (fn(xt) * torch.tensor(cot.astype(np.float64))).sum().backward()
    got = pool_and_grads(attrs, x, cot)
    assert got["y"].dtype == dtype and got["x"].dtype == dtype
    np.testing.assert_array_equal(np.isnan(got["y"]), np.isnan(want_y))
    rtol, atol = TOL[x.dtype.type]
    np.testing.assert_allclose(got["y"].astype(np.float64), want_y.astype(dtype).astype(np.float64), rtol=rtol,
                               atol=atol)
    assert not np.isnan(got["x"]).any()
    np.testing.assert_allclose(got["x"].astype(np.float64), xt.grad.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("x_shape,k", [((2, 3, 8, 8), 2), ((2, 3, 12), 3), ((1, 2, 4, 6, 6), 2)])
def test_maxpool_grad_several_nans_in_a_window(dtype, x_shape, k):
    """Several NaNs in a window: the gradient goes to the first one (numpy's argmax, as MaxPool's Indices output;
    torch picks the last). Non-overlapping windows, so numpy's argmax over each is the reference."""
    r = len(x_shape) - 2
    x = distinct(x_shape, dtype, 3)
    rs = np.random.RandomState(4)
    x[rs.uniform(size=x_shape) < 0.4] = np.nan
    cot = rs.uniform(-1, 1, x_shape[:2] + tuple(n // k for n in x_shape[2:])).astype(dtype)
    # windows as a last axis: (N, C, o1.., k*k..)
    split = x.reshape(x_shape[:2] + sum(((n // k, k) for n in x_shape[2:]), ()))
    order = [0, 1] + [2 + 2 * i for i in range(r)] + [3 + 2 * i for i in range(r)]
    wins = split.transpose(order).reshape(cot.shape + (-1,))
    want_y = np.max(wins.astype(np.float64), axis=-1)
    arg = np.argmax(wins, axis=-1)
    dwins = np.zeros(wins.shape)
    np.put_along_axis(dwins, arg[..., None], cot.astype(np.float64)[..., None], axis=-1)
    inverse = np.argsort(order)
    want_dx = dwins.reshape(tuple(split.transpose(order).shape)).transpose(inverse).reshape(x_shape)
    got = pool_and_grads({"kernel_shape": [k] * r, "strides": [k] * r}, x, cot)
    assert (np.isnan(wins).sum(-1) >= 2).any()
    np.testing.assert_array_equal(np.isnan(got["y"]), np.isnan(want_y))
    np.testing.assert_array_equal(got["x"].astype(np.float64), want_dx)


@pytest.mark.parametrize("flat", [0, 16383, 16384, 65535, 65536, 2 * 3 * 130 * 130 - 1])
def test_maxpool_single_nan_in_a_large_input(flat):
    """One NaN anywhere in an input larger than the NaN scan's parallel grain and vector chunks (its first and
    last element, chunk and thread boundaries): forward and gradient keep it, as with few elements."""
    x_shape, attrs = (2, 3, 130, 130), {"kernel_shape": [2, 2], "strides": [2, 2]}
    x = distinct(x_shape, np.float32, 5)
    x.reshape(-1)[flat] = np.nan
    cot = np.random.RandomState(2).uniform(-1, 1, (2, 3, 65, 65)).astype(np.float32)
    got = pool_and_grads(attrs, x, cot)
    wins = x.reshape(2, 3, 65, 2, 65, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, 3, 65, 65, 4)
    want_y = np.max(wins, axis=-1)
    assert np.isnan(want_y).sum() == 1
    np.testing.assert_array_equal(got["y"], want_y)
    arg = np.argmax(wins, axis=-1)
    onehot = np.eye(4, dtype=np.float32)[arg] * cot[..., None]
    want_dx = onehot.reshape(2, 3, 65, 65, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(x_shape)
    np.testing.assert_array_equal(got["x"], want_dx)
