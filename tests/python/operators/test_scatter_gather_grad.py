"""Gradients of GatherElements, ScatterElements/Scatter (reductions none, add, mul,
max, min), GatherND and ScatterND against torch autograd (torch.gather, scatter,
scatter_reduce) and finite differences of numpy references."""
import numpy as np
import pytest
import torch

from _movement_grad import check_vs_torch, tol

DTYPES = [np.float32, np.float16, np.float64]


def rand(shape, dtype, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(dtype)


def distinct_indices(shape, dim, axis, seed=0, negative=True):
    """Indices along `axis` without repeats inside any lane (scatter 'none' is then well defined)."""
    rng = np.random.RandomState(seed)
    moved = list(shape)
    moved.append(moved.pop(axis))
    lanes = np.stack([rng.permutation(dim)[:moved[-1]] for _ in range(int(np.prod(moved[:-1])))])
    idx = np.moveaxis(lanes.reshape(moved), -1, axis)
    return np.where(rng.rand(*shape) < 0.5, idx - dim, idx) if negative else idx


GATHER_CASES = [((4, 5), (3, 5), 0), ((4, 5), (4, 2), -1), ((2, 3, 4), (2, 5, 4), 1), ((6,), (9,), 0),
                ((3, 4), (2, 3), 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("shape,ishape,axis", GATHER_CASES)
def test_gather_elements_grad(dtype, itype, shape, ishape, axis):
    dim = shape[axis]
    idx = np.random.RandomState(1).randint(-dim, dim, ishape).astype(itype)  # repeats accumulate
    check_vs_torch("GatherElements", [rand(shape, dtype), idx],
                   lambda x, i: torch.gather(x, axis, torch.from_numpy(np.where(idx < 0, idx + dim, idx)).long()),
                   attrs={"axis": axis}, **tol(dtype, 10))


SCATTER_CASES = [((5, 4), (3, 4), 0), ((4, 6), (4, 3), -1), ((2, 5, 3), (2, 4, 3), 1), ((7,), (4,), 0),
                 ((5, 4, 3), (3, 2, 2), 0)]
TORCH_REDUCE = {"add": "sum", "mul": "prod", "max": "amax", "min": "amin"}


def torch_scatter(axis, idx, reduction):
    def fn(x, i, u):
        i = torch.from_numpy(np.where(idx < 0, idx + x.shape[axis], idx)).long()
        if reduction == "none":
            return torch.scatter(x, axis, i, u)
        return torch.scatter_reduce(x, axis, i, u, TORCH_REDUCE[reduction], include_self=True)
    return fn


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize("shape,ishape,axis", SCATTER_CASES)
def test_scatter_elements_grad(dtype, reduction, shape, ishape, axis):
    dim = shape[axis]
    if reduction == "none":
        idx = distinct_indices(ishape, dim, axis)
    else:  # repeated positions combine
        idx = np.random.RandomState(2).randint(-dim, dim, ishape)
    x, upd = rand(shape, dtype, 3), rand(ishape, dtype, 4)
    if reduction in ("max", "min"):  # a few exact ties, shared evenly as torch does
        lead = x[tuple(slice(None) if k == axis % x.ndim else slice(0, n) for k, n in enumerate(ishape))]
        upd.reshape(-1)[::3] = np.take_along_axis(lead, np.where(idx < 0, idx + dim, idx), axis).reshape(-1)[::3]
    check_vs_torch("ScatterElements", [x, idx.astype(np.int64), upd], torch_scatter(axis, idx, reduction),
                   attrs={"axis": axis, "reduction": reduction}, opset=18, wrt=(0, 2), **tol(dtype, 10))


def test_scatter_mul_grad_with_zeros():
    # zero factors: the product of the others, computed without dividing by zero
    x = np.array([[0.0, 2.0, 3.0], [1.5, 0.0, -1.0]])
    idx = np.array([[0, 0, 1], [1, 0, 1], [0, 1, 0]])
    upd = np.array([[2.0, 0.0, 0.5], [0.0, 3.0, 4.0], [-1.0, 0.0, 2.0]])
    check_vs_torch("ScatterElements", [x, idx, upd], torch_scatter(0, idx, "mul"), attrs={"reduction": "mul"},
                   opset=16, wrt=(0, 2))


def scatter_none_ref(axis):
    def ref(x, i, u):  # row-major order: the last write to a position wins
        y = x.copy()
        for pos in np.ndindex(*i.shape):
            target = list(pos)
            target[axis] = i[pos]
            y[tuple(target)] = u[pos]
        return y
    return ref


@pytest.mark.parametrize("op,opset", [("ScatterElements", 11), ("Scatter", 9)])
def test_scatter_none_duplicates_last_write_wins(op_tester, op, opset):
    # only the update written last reaches y: the overwritten ones get zero gradient
    x, upd = rand((4, 3), np.float64, 5), rand((3, 3), np.float64, 6)
    idx = np.array([[1, 0, 2], [1, 3, 2], [-3, 0, 0]], np.int64)
    op_tester.check_grad(op, [x, idx, upd], reference=scatter_none_ref(0), opset=opset)


def test_scatter_elements_grad_large():
    shape = (64, 300)
    idx = distinct_indices((64, 200), 300, 1, seed=7)
    check_vs_torch("ScatterElements", [rand(shape, np.float32), idx, rand((64, 200), np.float32, 8)],
                   torch_scatter(1, idx, "none"), attrs={"axis": 1}, wrt=(0, 2))


def gather_nd_ref(b):
    def ref(x, ind):
        k = ind.shape[-1]
        out = np.zeros(ind.shape[:-1] + x.shape[b + k:], x.dtype)
        for pos in np.ndindex(*ind.shape[:-1]):
            out[pos] = x[pos[:b] + tuple(ind[pos])]
        return out
    return ref


GATHER_ND_CASES = [((4, 5), [[0, 1], [3, -1], [0, 1]], 0), ((4, 5, 3), [[2], [-4], [2]], 0),
                   ((2, 3, 4), [[[1], [1]], [[0], [2]]], 1), ((2, 3, 4), [[1, 3], [2, -4]], 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,indices,b", GATHER_ND_CASES)
def test_gather_nd_grad(op_tester, dtype, shape, indices, b):
    x = rand(shape, dtype)
    ind = np.array(indices, np.int64)
    def torch_ref(x, i):
        i = torch.from_numpy(np.where(ind < 0, ind + np.array(shape[b:b + ind.shape[-1]]), ind))
        if b == 0:
            return x[tuple(i[..., k] for k in range(i.shape[-1]))]
        batch = torch.arange(shape[0]).reshape((-1,) + (1,) * (i.dim() - 2))
        return x[(batch,) + tuple(i[..., k] for k in range(i.shape[-1]))]
    check_vs_torch("GatherND", [x, ind], torch_ref, attrs={"batch_dims": b}, opset=12, **tol(dtype, 10))


@pytest.mark.parametrize("b", [0, 1])
def test_gather_nd_grad_finite_differences(op_tester, b):
    ind = np.array([[[1, 2], [1, -2]], [[0, -1], [-1, 0]]], np.int64)
    op_tester.check_grad("GatherND", [rand((2, 3, 4), np.float64, 9), ind], reference=gather_nd_ref(b),
                         attrs={"batch_dims": b}, opset=13)


def test_gather_nd_grad_wide_slices():
    # slices long enough to be split into column blocks between threads
    ind = np.array([[[1, 2], [1, 2]], [[0, -1], [2, 0]]], np.int64)
    check_vs_torch("GatherND", [rand((3, 4, 6000), np.float32, 9), ind],
                   lambda x, i: x[torch.from_numpy(ind[..., 0]), torch.from_numpy(ind[..., 1] % 4)], opset=13)


def scatter_nd_ref(reduction):
    def ref(x, ind, u):
        y = x.copy()
        for pos in np.ndindex(*ind.shape[:-1]):
            t = tuple(ind[pos])
            if reduction == "none":
                y[t] = u[pos]
            elif reduction == "add":
                y[t] = y[t] + u[pos]
            elif reduction == "mul":
                y[t] = y[t] * u[pos]
            else:
                y[t] = (np.maximum if reduction == "max" else np.minimum)(y[t], u[pos])
        return y
    return ref


@pytest.mark.parametrize("reduction,indices", [("none", [[1], [3], [-4]]), ("none", [[1, 2], [0, 0], [1, 2]]),
                                               ("add", [[1], [1], [2]]), ("mul", [[0, 1], [2, 2], [0, 1]]),
                                               ("max", [[3], [3], [0]]), ("min", [[1, 1], [1, 1], [2, 0]])])
def test_scatter_nd_grad(op_tester, reduction, indices):
    ind = np.array(indices, np.int64)
    x = rand((4, 3), np.float64, 10)
    upd = rand(ind.shape[:-1] + x.shape[ind.shape[-1]:], np.float64, 11)
    op_tester.check_grad("ScatterND", [x, ind, upd], reference=scatter_nd_ref(reduction),
                         attrs={"reduction": reduction}, opset=18)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_nd_grad_dtypes(dtype):
    ind = np.array([[1], [-1]], np.int64)
    x, upd = rand((4, 5), dtype, 12), rand((2, 5), dtype, 13)
    def torch_ref(x, i, u):
        return x.index_put((torch.tensor([1, 3]),), u)
    check_vs_torch("ScatterND", [x, ind, upd], torch_ref, opset=13, wrt=(0, 2), **tol(dtype))


def test_scatter_grad_index_out_of_range_raises():
    # a bad index stops the training step with an error naming it
    import popart
    with pytest.raises(popart.popart_exception, match=r"index 5 .*out of range for an axis of size 4"):
        check_vs_torch("ScatterElements", [rand((4, 2), np.float32), np.array([[5, 0]], np.int64),
                                           rand((1, 2), np.float32, 1)],
                       lambda x, i, u: x, wrt=(0, 2))


@pytest.mark.parametrize("reduction", ["none", "max"])
@pytest.mark.parametrize("wrt", [(0,), (2,)])
def test_scatter_grad_one_operand(reduction, wrt):
    # only data or only updates trains: the other gradient output is left unused
    idx = np.array([[1, 2, 3, 0], [4, 0, 1, 2]])
    check_vs_torch("ScatterElements", [rand((5, 4), np.float32, 14), idx, rand((2, 4), np.float32, 15)],
                   torch_scatter(0, idx, reduction), attrs={"reduction": reduction}, opset=18, wrt=wrt)
