"""Gradients of DepthToSpace/SpaceToDepth (the inverse rearrangement), ReverseSequence
(the same reversal) and TopK (values scattered back to their indices) against torch
autograd; autodiff stops at integer outputs (ArgMax, NonZero, OneHot's indices)."""
import numpy as np
import onnx.helper as oh
import pytest
import torch
import torch.nn.functional as F

from _grad_util import weight_grads, weighted_loss
from _movement_grad import check_vs_numeric, check_vs_torch, tol

DTYPES = [np.float32, np.float16, np.float64]


def rand(shape, dtype, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(dtype)


def torch_depth_to_space_dcr(b):
    def fn(x):
        n, c, h, w = x.shape
        return x.reshape(n, b, b, c // (b * b), h, w).permute(0, 3, 4, 1, 5, 2).reshape(n, c // (b * b), h * b, w * b)
    return fn


def torch_space_to_depth(b):
    def fn(x):
        n, c, h, w = x.shape
        return x.reshape(n, c, h // b, b, w // b, b).permute(0, 3, 5, 1, 2, 4).reshape(n, c * b * b, h // b, w // b)
    return fn


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,b", [((1, 4, 2, 3), 2), ((2, 18, 3, 2), 3), ((1, 8, 1, 1), 2)])
def test_depth_to_space_crd_grad_vs_pixel_shuffle(dtype, shape, b):
    check_vs_torch("DepthToSpace", [rand(shape, dtype)], lambda x: F.pixel_shuffle(x, b),
                   attrs={"blocksize": b, "mode": "CRD"}, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opset", [1, 11, 13])
def test_depth_to_space_dcr_grad(dtype, opset):
    check_vs_torch("DepthToSpace", [rand((2, 8, 3, 2), dtype)], torch_depth_to_space_dcr(2), attrs={"blocksize": 2},
                   opset=opset, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,b", [((1, 2, 4, 6), 2), ((2, 1, 3, 6), 3), ((1, 3, 2, 2), 1)])
def test_space_to_depth_grad(dtype, shape, b):
    check_vs_torch("SpaceToDepth", [rand(shape, dtype)], torch_space_to_depth(b), attrs={"blocksize": b},
                   **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch_axis", [0, 1])
@pytest.mark.parametrize("inner", [(), (5,), (2, 3)])
def test_reverse_sequence_grad(dtype, batch_axis, inner):
    # shape (4, 3, ...): batch 4 and time 3 (batch_axis 0), or time 4 and batch 3
    lens = np.array([3, 1, 0, 2] if batch_axis == 0 else [4, 0, 2], np.int64)

    def torch_ref(x, l):
        y = x.clone()
        for bi, n in enumerate(lens):
            sl = (bi, slice(None, n)) if batch_axis == 0 else (slice(None, n), bi)
            y[sl] = torch.flip(x[sl], [0])
        return y
    check_vs_torch("ReverseSequence", [rand((4, 3) + inner, dtype), lens], torch_ref,
                   attrs={"batch_axis": batch_axis, "time_axis": 1 - batch_axis}, opset=10, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,k,axis,largest", [((5,), 2, 0, 1), ((3, 6), 3, -1, 1), ((3, 6), 2, 0, 0),
                                                  ((2, 5, 4), 5, 1, 0), ((2, 5, 4), 1, -3, 1), ((4, 3), 0, 1, 1)])
def test_topk_grad(dtype, shape, k, axis, largest):
    x = np.random.RandomState(0).permutation(int(np.prod(shape))).reshape(shape).astype(dtype)  # no ties
    check_vs_torch("TopK", [x, np.array([k], np.int64)],
                   lambda x, kk: torch.topk(x, k, dim=axis, largest=bool(largest)).values,
                   attrs={"axis": axis, "largest": largest}, opset=11, num_outputs=2, **tol(dtype))


def test_topk_1_attribute_grad():
    x = rand((3, 7), np.float64, 1)
    check_vs_torch("TopK", [x], lambda x: torch.topk(x, 3, dim=-1).values, attrs={"k": 3}, opset=1, num_outputs=2)


def test_topk_grad_finite_differences():
    x = rand((3, 4, 5), np.float64, 2)
    def ref(x, k):
        idx = np.argsort(-x, axis=1, kind="stable")[:, :2]
        return np.take_along_axis(x, idx, 1)
    check_vs_numeric("TopK", [x, np.array([2], np.int64)], ref, attrs={"axis": 1}, opset=11, num_outputs=2)


def test_autodiff_stops_at_integer_outputs():
    # w feeds ArgMax, ArgMin and (through ArgMax) OneHot; their outputs are integers or
    # depend only on integers, so the gradient is that of the float path alone (NonZero
    # needs a constant input, so no weight can reach it)
    w = rand((3, 4), np.float32, 3)
    cot = rand((3, 4), np.float32, 4)
    nodes = [oh.make_node("ArgMax", ["w"], ["am"], axis=1, keepdims=0),
             oh.make_node("Constant", [], ["depth"], value=oh.make_tensor("depth", 7, [], [4])),
             oh.make_node("Constant", [], ["vals"], value=oh.make_tensor("vals", 1, [2], [0.0, 1.0])),
             oh.make_node("OneHot", ["am", "depth", "vals"], ["hot"], axis=-1),
             oh.make_node("ArgMin", ["w"], ["an"]),
             oh.make_node("Mul", ["w", "hot"], ["y"])]
    got = weight_grads(nodes + weighted_loss("y", cot), {"w": w}, "loss")["w"]
    hot = np.eye(4, dtype=np.float32)[np.argmax(w, 1)]
    np.testing.assert_allclose(got, cot * hot, rtol=1e-6)


def test_topk_indices_have_no_gradient():
    # only the values output is differentiated; the indices feed a Cast into the loss path
    x = rand((2, 6), np.float32, 5)
    cot = rand((2, 3), np.float32, 6)
    nodes = [oh.make_node("Constant", [], ["k"], value=oh.make_tensor("k", 7, [1], [3])),
             oh.make_node("TopK", ["w", "k"], ["v", "i"]), oh.make_node("Cast", ["i"], ["fi"], to=1),
             oh.make_node("Mul", ["v", "fi"], ["y"])]
    got = weight_grads(nodes + weighted_loss("y", cot), {"w": x}, "loss", opset=11)["w"]
    t = torch.tensor(x, requires_grad=True)
    v, i = torch.topk(t, 3)
    (v * i.float() * torch.from_numpy(cot)).sum().backward()
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", [np.int64, np.int32, np.float32])
@pytest.mark.parametrize("ishape,axis", [((5,), -1), ((2, 3), 1), ((2, 3), 0), ((4, 2, 3), -2)])
def test_onehot_values_grad(dtype, itype, ishape, axis):
    # d on = sum of dy at the hot positions, d off = the rest; out-of-range indices are all off
    depth = 4
    idx = np.random.RandomState(7).randint(-depth - 1, depth + 1, ishape).astype(itype)
    values = np.array([0.25, 1.5], dtype)

    def torch_ref(i, d, v):
        k = torch.from_numpy(idx.astype(np.int64))
        k = torch.where(k < 0, k + depth, k)
        valid = (k >= 0) & (k < depth)
        h = F.one_hot(torch.where(valid, k, 0), depth) * valid[..., None]
        h = h.movedim(-1, axis % (len(ishape) + 1)).double()
        return v[0] * (1 - h) + v[1] * h
    check_vs_torch("OneHot", [idx, np.array(depth, np.int64), values], torch_ref, attrs={"axis": axis}, opset=11,
                   wrt=(2,), **tol(dtype, 10))
