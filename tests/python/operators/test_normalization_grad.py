"""Gradients of InstanceNormalization, LayerNormalization, LpNormalization,
MeanVarianceNormalization and LRN against torch autograd (loss = sum(y * cot))."""
import numpy as np
import onnx.helper as oh
import pytest
import torch
import torch.nn.functional as F

from _grad_util import weight_grads, weighted_loss

DTYPES = [np.float32, np.float16, np.float64]


def tols(dtype):
    return {"rtol": 3e-2, "atol": 3e-2} if dtype == np.float16 else {"rtol": 1e-4, "atol": 1e-5}


def check(node, inputs, torch_fn, dtype, opset=13, seed=0):
    """inputs: {name: array}; torch_fn(*tensors) -> y. Compares every input's gradient."""
    inputs = {k: v.astype(dtype) for k, v in inputs.items()}
    t = [torch.tensor(v.astype(np.float64), requires_grad=True) for v in inputs.values()]
    y = torch_fn(*t)
    cot = np.random.RandomState(seed).uniform(-1.5, 1.5, tuple(y.shape)).astype(dtype)
    (y * torch.tensor(cot.astype(np.float64))).sum().backward()
    got = weight_grads([node] + weighted_loss(node.output[0], cot), inputs, "loss", opset=opset)
    for (name, _), v in zip(inputs.items(), t):
        assert got[name].dtype == dtype
        np.testing.assert_allclose(got[name].astype(np.float64), v.grad.numpy(), **tols(dtype), err_msg=name)


def rand(*shape, seed=1):
    return np.random.RandomState(seed).randn(*shape) * 1.5 + 0.3


@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 4, 3), (3, 2, 2)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_instance_norm(shape, dtype):
    c = shape[1]
    node = oh.make_node("InstanceNormalization", ["x", "s", "b"], ["y"], epsilon=1e-4)
    check(node, {"x": rand(*shape), "s": rand(c, seed=2), "b": rand(c, seed=3)},
          lambda x, s, b: F.instance_norm(x, weight=s, bias=b, eps=1e-4), dtype)


def torch_layer_norm(axis, eps):
    def fn(x, s, b=None):
        dims = tuple(range(axis % x.dim(), x.dim()))
        m = x.mean(dims, keepdim=True)
        v = ((x - m) ** 2).mean(dims, keepdim=True)
        y = (x - m) / torch.sqrt(v + eps) * s
        return y if b is None else y + b
    return fn


@pytest.mark.parametrize("shape,axis,pshape", [((4, 6), -1, (6,)), ((2, 3, 4), 1, (3, 4)), ((2, 3, 4), -1, (4,)),
                                               ((2, 3, 4), 1, (1, 4)), ((3, 2, 2, 3), 2, (2, 1)),
                                               # more rows than the kernel's 16 pieces of column sums, rows of
                                               # a length that is no multiple of the vector width
                                               ((3, 13, 37), -1, (37,)), ((40, 70), 1, (70,))])
@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_norm(shape, axis, pshape, dtype):
    node = oh.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=axis, epsilon=1e-3)
    check(node, {"x": rand(*shape), "s": rand(*pshape, seed=2), "b": rand(*pshape, seed=3)},
          torch_layer_norm(axis, 1e-3), dtype, opset=17)


def test_layer_norm_without_bias_and_with_stat_outputs():
    node = oh.make_node("LayerNormalization", ["x", "s"], ["y", "mean", "invstd"], axis=1)
    check(node, {"x": rand(3, 4, 2), "s": rand(4, 2, seed=2)}, torch_layer_norm(1, 1e-5), np.float64, opset=17)
    # torch's own layer_norm agrees for the whole trailing shape
    node = oh.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=-2)
    check(node, {"x": rand(2, 3, 4), "s": rand(3, 4, seed=2), "b": rand(3, 4, seed=3)},
          lambda x, s, b: F.layer_norm(x, (3, 4), s, b), np.float32, opset=17)


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("shape,axis", [((3, 5), -1), ((2, 4, 3), 1), ((2, 3, 4), 0)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_lp_norm(p, shape, axis, dtype):
    node = oh.make_node("LpNormalization", ["x"], ["y"], axis=axis, p=p)
    check(node, {"x": rand(*shape)}, lambda x: x / x.norm(p, dim=axis, keepdim=True), dtype)


@pytest.mark.parametrize("shape,axes", [((2, 3, 4, 5), None), ((3, 4, 5), [2]), ((2, 3, 4), [1]),
                                        ((2, 3, 4, 2), [1, 3])])
@pytest.mark.parametrize("dtype", DTYPES)
def test_mean_variance_norm(shape, axes, dtype):
    attrs = {} if axes is None else {"axes": axes}
    dims = tuple(axes or [0, 2, 3])

    def ref(x):
        d = x - x.mean(dims, keepdim=True)
        return d / (torch.sqrt((d * d).mean(dims, keepdim=True)) + 1e-9)

    check(oh.make_node("MeanVarianceNormalization", ["x"], ["y"], **attrs), {"x": rand(*shape)}, ref, dtype)


def torch_lrn(size, alpha, beta, bias):
    """ONNX window [c - (size-1)//2, c + size//2] (torch's own differs for even sizes)."""
    lo, hi = (size - 1) // 2, size // 2

    def fn(x):
        sq = F.pad((x * x).transpose(1, -1), (lo, hi)).transpose(1, -1)
        s = sum(sq.narrow(1, j, x.shape[1]) for j in range(size))
        return x / (bias + alpha / size * s) ** beta
    return fn


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("shape", [(2, 5, 3), (1, 6, 2, 3)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_lrn(size, shape, dtype):
    node = oh.make_node("LRN", ["x"], ["y"], size=size, alpha=0.3, beta=0.75, bias=1.5)
    check(node, {"x": rand(*shape)}, torch_lrn(size, 0.3, 0.75, 1.5), dtype)


@pytest.mark.parametrize("size", [3, 5])
def test_lrn_matches_torch_for_odd_sizes(size):
    node = oh.make_node("LRN", ["x"], ["y"], size=size, alpha=0.2, beta=0.6, bias=2.0)
    check(node, {"x": rand(2, 7, 3)}, lambda x: F.local_response_norm(x, size, alpha=0.2, beta=0.6, k=2.0),
          np.float64)
