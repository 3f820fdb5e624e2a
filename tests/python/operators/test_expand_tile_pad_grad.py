"""Gradients of Expand (sum over broadcast dims), Tile (sum over tiles) and Pad
(constant: the interior of dy; reflect/edge/wrap: mirrored, clamped or wrapped
positions accumulate) against torch autograd and finite differences."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import popart
from _movement_grad import check_vs_torch, tol

DTYPES = [np.float32, np.float16, np.float64]


def rand(shape, dtype, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xshape,shape", [((3, 1), (3, 4)), ((1, 4), (2, 3, 1)), ((5,), (2, 3, 5)),
                                          ((2, 1, 3), (2, 4, 3)), ((3, 4), (3, 4)), ((1,), (6, 7)),
                                          ((4, 1, 1), (1, 1, 300))])
def test_expand_grad(dtype, xshape, shape):
    out = np.broadcast_shapes(xshape, shape)
    check_vs_torch("Expand", [rand(xshape, dtype), np.array(shape, np.int64)],
                   lambda x, s: torch.broadcast_to(x, out), **tol(dtype, 10))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,repeats", [((2, 3), (1, 1)), ((2, 3), (3, 1)), ((2, 3), (2, 4)),
                                           ((4,), (5,)), ((2, 1, 3), (1, 4, 2)), ((3, 2), (0, 2))])
def test_tile_grad(dtype, shape, repeats):
    check_vs_torch("Tile", [rand(shape, dtype), np.array(repeats, np.int64)],
                   lambda x, r: x.repeat(*repeats), **tol(dtype, 10))


def test_tile_1_grad(op_tester):
    x = rand((3, 4), np.float64)
    op_tester.check_grad("Tile", [x, op_tester.const(np.array(3, np.int64)), op_tester.const(np.array(-1, np.int64))],
                         reference=lambda x, *_: np.tile(x, (1, 3)), opset=1)


TORCH_MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate", "wrap": "circular"}


def torch_pad(pads, mode, axes=None, value=0.5):
    """torch F.pad for ONNX pads [b_0.., e_0..] over `axes` (default all). Non-constant
    modes pad one axis at a time, moved last in a 3-d view (torch's supported form)."""
    def fn(x, *unused):
        ax = [a % x.ndim for a in (range(x.ndim) if axes is None else axes)]
        for i, a in enumerate(ax):
            b, e = pads[i], pads[i + len(ax)]
            y = x.movedim(a, -1)
            shape = y.shape
            if mode == "constant":
                y = F.pad(y, [b, e], value=value)
            else:
                y = F.pad(y.reshape(1, -1, shape[-1]), [b, e], mode=TORCH_MODES[mode])
            x = y.reshape(tuple(shape[:-1]) + (y.shape[-1],)).movedim(-1, a)
        return x
    return fn


PAD_CASES = [((3, 4), [1, 2, 0, 3]), ((2, 3, 5), [0, 1, 2, 0, 1, 2]), ((6,), [3, 4]),
             ((2, 3, 4), [0, 0, 2, 0, 0, 3]), ((4, 5), [0, -1, 0, -2])]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode,shape,pads", [  # torch crops (negative pads) only in constant mode;
    (mode, *case) for mode in ("constant", "reflect", "edge", "wrap")  # the rest: finite differences
    for case in PAD_CASES if mode == "constant" or min(case[1]) >= 0])
def test_pad_grad(dtype, mode, shape, pads):
    ins = [rand(shape, dtype), np.array(pads, np.int64), np.array(0.5, dtype)]
    check_vs_torch("Pad", ins, torch_pad(pads, mode), attrs={"mode": mode}, opset=19, **tol(dtype, 10))


@pytest.mark.parametrize("mode", ["reflect", "edge", "wrap"])
def test_pad_grad_large_pads_and_crop(op_tester, mode):
    # pads longer than the axis (reflect/wrap fold several times), mixed with a crop
    from test_pad import np_pad
    x = rand((3, 4), np.float64, 1)
    pads = [-1, 9, 2, -1] if mode != "reflect" else [-1, 3, 1, -1]
    op_tester.check_grad("Pad", [x, op_tester.const(np.array(pads, np.int64))],
                         reference=lambda x, p: np_pad(x, pads, mode), attrs={"mode": mode}, opset=19)


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
def test_pad_2_attribute_grad(mode):
    pads = [2, 1, 1, 2]
    check_vs_torch("Pad", [rand((3, 4), np.float32)], torch_pad(pads, mode, value=-2.0),
                   attrs={"mode": mode, "pads": pads, "value": -2.0}, opset=2)


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
def test_pad_18_axes_grad(mode):
    pads, axes = [1, 2, 2, 1], [-1, 1]
    ins = [rand((2, 3, 4, 5), np.float32, 2), np.array(pads, np.int64), None, np.array(axes, np.int64)]
    check_vs_torch("Pad", ins, torch_pad(pads, mode, axes, value=0.0), attrs={"mode": mode}, opset=18)


def test_pad_grad_wide_rows():
    # rows long enough to be split into column blocks between threads
    pads = [0, 2, 1, 0, 3, 2]
    check_vs_torch("Pad", [rand((2, 1, 5000), np.float32, 3), np.array(pads, np.int64)], torch_pad(pads, "edge"),
                   attrs={"mode": "edge"})


def test_expand_grad_of_integer_input_is_not_needed():
    # an int64 Expand feeding a Cast: autodiff stops at the integer tensor, training still works
    import onnx.helper as oh
    from _grad_util import weight_grads, weighted_loss
    w = rand((3, 1), np.float32, 4)
    cot = rand((3, 4), np.float32, 5)
    nodes = [oh.make_node("Constant", [], ["i"], value=oh.make_tensor("i", 7, [3, 1], [1, 2, 3])),
             oh.make_node("Constant", [], ["s"], value=oh.make_tensor("s", 7, [2], [3, 4])),
             oh.make_node("Expand", ["i", "s"], ["ie"]), oh.make_node("Cast", ["ie"], ["f"], to=1),
             oh.make_node("Expand", ["w", "s"], ["we"]), oh.make_node("Mul", ["we", "f"], ["y"])]
    got = weight_grads(nodes + weighted_loss("y", cot), {"w": w}, "loss")["w"]
    np.testing.assert_allclose(got, (cot * np.array([[1], [2], [3]])).sum(1, keepdims=True), rtol=1e-6)
