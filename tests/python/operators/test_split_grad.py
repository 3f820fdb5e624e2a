"""Split gradient: dx = the output gradients joined along the axis; outputs
without a gradient (unused, or absent from the node) contribute zeros."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest

from _grad_util import tol, weight_grads, weighted_loss

DTYPES = [np.float32, np.float16, np.float64]


def pieces(x, split, axis):
    return np.split(x, np.cumsum(split)[:-1], axis=axis)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,split,axis", [((5, 3), [2, 3], 0), ((2, 6), [4, 2], -1), ((2, 3, 4), [1, 1, 2], 2)])
def test_split_grad_first_output_only(op_tester, dtype, shape, split, axis):
    # a one-output node: the pieces of the absent outputs get zero gradient
    x = np.random.RandomState(0).randn(*shape).astype(dtype)
    op_tester.check_grad("Split", [x, op_tester.const(np.array(split, np.int64))],
                         reference=lambda x, s: pieces(x, split, axis)[0], attrs={"axis": axis}, opset=13,
                         **tol(dtype))


def test_split_grad_attribute_opset11(op_tester):
    x = np.random.RandomState(1).randn(3, 4).astype(np.float32)
    op_tester.check_grad("Split", [x], reference=lambda x: pieces(x, [3, 1], 1)[0], attrs={"axis": 1, "split": [3, 1]})


def split_model(shape, axis, n_out, used, dtype, split=None, num_outputs=None, seed=0):
    """w -> Split -> Concat of the `used` outputs (in that order) -> sum(. * cot)."""
    rng = np.random.RandomState(seed)
    w = rng.randn(*shape).astype(dtype)
    outs = [f"y{i}" for i in range(n_out)]
    attrs = {"axis": axis}
    ins = ["w"]
    nodes = []
    if split is not None:
        nodes.append(oh.make_node("Constant", [], ["split"],
                                  value=onnx.numpy_helper.from_array(np.array(split, np.int64), "split")))
        ins.append("split")
    if num_outputs is not None:
        attrs["num_outputs"] = num_outputs
    nodes.append(oh.make_node("Split", ins, outs, **attrs))
    sizes = split or [-(-shape[axis] // num_outputs)] * num_outputs
    sizes[-1] = shape[axis] - sum(sizes[:-1])
    ys = pieces(w.astype(np.float64), sizes, axis)
    cat = np.concatenate([ys[i] for i in used], axis=axis)
    cot = rng.uniform(0.5, 1.5, cat.shape).astype(dtype)
    nodes += [oh.make_node("Concat", [outs[i] for i in used], ["cat"], axis=axis)] + weighted_loss("cat", cot)
    # expected: each used piece's cotangent lands at its place, others zero
    want = [np.zeros_like(y) for y in ys]
    off = 0
    for i in used:
        take = [slice(None)] * len(shape)
        take[axis] = slice(off, off + ys[i].shape[axis])
        want[i] = want[i] + cot.astype(np.float64)[tuple(take)]
        off += ys[i].shape[axis]
    return nodes, w, np.concatenate(want, axis=axis)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,split,axis,used", [
    ((6, 2), [1, 2, 3], 0, [2, 1, 0]),      # all outputs, reordered
    ((2, 7), [3, 4], -1, [1]),              # output 0 unused: zeros
    ((2, 3, 4), [2, 0, 2], 2, [0, 2]),      # an empty piece
    ((4, 3), [2, 2], 0, [0, 0, 1]),         # an output used twice: partials summed
])
def test_split_grad_multi_output(dtype, shape, split, axis, used):
    nodes, w, want = split_model(shape, axis, len(split), used, dtype, split=split)
    got = weight_grads(nodes, {"w": w}, "loss")["w"]
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-3 if dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("n_out,used", [(3, [0, 2]), (2, [1])])
def test_split_grad_num_outputs_opset18(n_out, used):
    # num_outputs=3 over 8 elements: pieces 3, 3, 2; a 2-output node leaves the last piece absent
    nodes, w, want = split_model((2, 8), 1, n_out, used, np.float32, num_outputs=3)
    got = weight_grads(nodes, {"w": w}, "loss", opset=18)["w"]
    np.testing.assert_allclose(got, want, rtol=1e-6)
