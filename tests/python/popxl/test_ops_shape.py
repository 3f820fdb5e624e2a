"""popxl.ops shape, indexing and data-movement ops (and the Tensor methods using them) against numpy/torch:
values, dtypes, float16 and ints, gradients through autodiff, bad input."""
import numpy as np
import pytest

from popxl_run import check, check_grad, rand, run, run_inplace
import popxl
import popxl.ops as ops
import torch

DTYPES = [np.float32, np.float16, np.int32]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat(dtype, axis):
    a, b = rand((2, 3), dtype, seed=1), rand((2, 3), dtype, seed=2)
    check(run(lambda x, y: ops.concat([x, y, x], axis), a, b), np.concatenate([a, b, a], axis))
    if dtype != np.int32:
        check_grad(lambda x, y: ops.concat([x, y], axis), lambda x, y: torch.cat([x, y], axis), a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reshape_flatten_squeeze(dtype):
    a = rand((2, 1, 3, 1), dtype)
    out = run(lambda x: [ops.reshape(x, (3, 2)), ops.reshape_(x, (-1, 2)), ops.flatten(x), ops.flatten_(x),
                         ops.squeeze(x), ops.squeeze(x, [1]), ops.squeeze(x, -1), x.reshape((6,)), x.flatten(),
                         x.flatten_(), x.reshape_((1, 6))], a)
    wants = [a.reshape(3, 2), a.reshape(-1, 2), a.reshape(-1), a.reshape(-1), a.squeeze(), a.squeeze(1),
             a.squeeze(-1), a.reshape(6), a.reshape(-1), a.reshape(-1), a.reshape(1, 6)]
    for got, want in zip(out, wants):
        check(got, want)
    if dtype != np.int32:
        check_grad(lambda x: ops.squeeze(ops.flatten(x) * 2), lambda x: x.flatten() * 2, a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_transpose(dtype):
    a = rand((2, 3, 4), dtype)
    out = run(lambda x: [ops.transpose(x), ops.transpose(x, (1, 0, 2)), x.T, x.transpose((2, 0, 1))], a)
    for got, want in zip(out, [a.transpose(), a.transpose(1, 0, 2), a.T, a.transpose(2, 0, 1)]):
        check(got, want)
    if dtype != np.int32:
        check_grad(lambda x: ops.transpose(x, (1, 2, 0)), lambda x: x.permute(1, 2, 0), a)


SLICES = [  # (start, stop, step, axis) and the numpy index
    ((1, 3, None, 1), np.s_[:, 1:3]),
    (([0, 1], [2, 4], [1, 2], [0, 2]), np.s_[0:2, :, 1:4:2]),
    ((None, None, -1, 0), np.s_[::-1]),
    ((-2, None, None, -1), np.s_[..., -2:]),
    ((5, 10, None, 2), np.s_[:, :, 5:10]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(SLICES)))
def test_slice(dtype, case):
    (start, stop, step, axis), idx = SLICES[case]
    a = rand((3, 4, 5), dtype)
    check(run(lambda x: ops.slice(x, start, stop, step, axis), a), a[idx])
    if dtype == np.float32:
        check_grad(lambda x: ops.slice(x, start, stop, step, axis), lambda x: _torch_index(x, idx), a)


def _torch_index(x, idx):
    if isinstance(idx, tuple) and any(isinstance(s, slice) and s.step is not None and s.step < 0 for s in idx):
        return torch.tensor(0)
    if isinstance(idx, slice) and idx.step == -1:
        return torch.flip(x, [0])
    return x[idx]


INDEXES = [np.s_[1], np.s_[:, 2], np.s_[-1, 1:3], np.s_[..., ::2], np.s_[0, ..., 1], np.s_[1:, 0, ::-1],
           np.s_[::-2]]


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_getitem(dtype):
    a = rand((3, 4, 5), dtype)
    out = run(lambda x: [x[i] for i in INDEXES] + [x[[2, 0]], x[popxl.constant(np.array([[1], [0]], np.int32))]],
              a)
    for got, want in zip(out, [a[i] for i in INDEXES] + [a[[2, 0]], a[np.array([[1], [0]])]]):
        check(got, want)
    m = rand((3, 4, 5), np.bool_)
    check(run(lambda x, k: x[k], a, m), np.where(m, a, 0))


def test_tensor_getitem_grad():
    a = rand((3, 4))
    check_grad(lambda x: x[1:, 2], lambda x: x[1:, 2], a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("splits,axis", [(2, 0), ([1, 3], 1), (3, -1)])
def test_split(dtype, splits, axis):
    a = rand((4, 4, 3), dtype)
    outs = run(lambda x: ops.split(x, splits, axis), a)
    wants = np.split(a, splits if isinstance(splits, int) else np.cumsum(splits)[:-1], axis)
    assert len(outs) == len(wants)
    for got, want in zip(outs, wants):
        check(got, want)
    if dtype == np.float32:
        check_grad(lambda x: ops.split(x, splits, axis)[-1] * 3,
                   lambda x: torch.split(x, splits if not isinstance(splits, int) else 4 // 2 if axis == 0
                                         else 1, axis)[-1] * 3, a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_subsample(dtype):
    a = rand((5, 6), dtype)
    check(run(lambda x: ops.subsample(x, [2, 3]), a), a[::2, ::3])
    if dtype == np.float32:
        check_grad(lambda x: ops.subsample(x, [2, 1]), lambda x: x[::2, ::1], a)


def test_detach_stops_gradient():
    a, b = rand((2, 3), seed=1), rand((2, 3), seed=2)
    check_grad(lambda x, y: x * ops.detach(y) + ops.detach_(x), lambda x, y: x * y.detach() + x.detach(), a, b)
    check(run(lambda x: [ops.detach(x), x.detach(), x.detach_()], a)[2], a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dynamic_slice_update(dtype):
    a = rand((4, 5, 3), dtype)
    u = rand((2, 5, 2), dtype, seed=9)
    idx = np.array([1, 1], np.uint32)
    check(run(lambda x, i: ops.dynamic_slice(x, i, [0, 2], [2, 2], False), a, idx), a[1:3, :, 1:3])
    want = a.copy()
    want[1:3, :, 1:3] = u
    check(run(lambda x, i, v: ops.dynamic_update(x, i, v, [0, 2], [2, 2], True), a, idx, u), want)
    y, x_after = run_inplace(lambda x, i, v: ops.dynamic_update_(x, i, v, [0, 2], [2, 2], True), a, idx, u)
    check(y, want)
    check(x_after, want)
    # offsets are clamped so the region stays inside
    check(run(lambda x, i: ops.dynamic_slice(x, i, [0], [3], False), a, np.array([3], np.uint32)), a[1:4])
    if dtype == np.float32:
        check_grad(lambda x, i: ops.dynamic_slice(x, i, [0, 2], [2, 2], False), lambda x, i: x[1:3, :, 1:3], a, idx)
        check_grad(lambda x, v, i: ops.dynamic_update(x, i, v, [0, 2], [2, 2], False),
                   lambda x, v, i: _torch_update(x, v), a, u, idx)


def _torch_update(x, v):
    y = x.clone()
    y[1:3, :, 1:3] = v
    return y


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1])
def test_gather(dtype, axis):
    a = rand((4, 3), dtype)
    idx = np.array([[0, 2], [1, 2]], np.int32)
    want = np.take(a, idx, axis)
    check(run(lambda x, i: ops.gather(x, i, axis), a, idx), want)
    check(run(lambda x, i: ops.tied_gather(x, i, axis), a, idx), want)
    oor = np.array([0, -1, 5, 2], np.int32)
    want_oor = np.take(a, np.clip(oor, 0, a.shape[axis] - 1), axis)
    mask = (oor >= 0) & (oor < a.shape[axis])
    want_oor = np.where(mask.reshape((1,) * axis + (4,) + (1,) * (1 - axis)), want_oor, 0).astype(dtype)
    check(run(lambda x, i: ops.gather(x, i, axis, zero_OOR=True), a, oor), want_oor)
    if dtype == np.float32:
        check_grad(lambda x, i: ops.gather(x, i, axis), lambda x, i: _torch_take(x, i, axis), a, idx)


def _torch_take(x, i, axis):
    return torch.index_select(x, axis, i.flatten().long()).reshape(
        x.shape[:axis] + i.shape + x.shape[axis + 1:])


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter(dtype):
    a = rand((3, 4), dtype)
    idx = np.array([[2, 0, 1, 1]], np.int64)
    v = rand((1, 4), dtype, seed=3)
    want = torch.tensor(a.astype(np.float64)).scatter(0, torch.tensor(idx), torch.tensor(v.astype(np.float64)))
    check(run(lambda x, i, u: ops.scatter(x, i, u, 0), a, idx, v), want.numpy().astype(dtype))
    if dtype == np.float32:
        check_grad(lambda x, u, i: ops.scatter(x, i, u), lambda x, u, i: x.scatter(0, i, u), a, v, idx)


@pytest.mark.parametrize("reduction", ["sum", "max", "min", "mul"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_scatter_reduce(reduction, dtype):
    src = rand((5, 3), dtype, 0.5, 2)
    index = np.array([0, 2, 0, 3, 2], np.int32)
    got = run(lambda s, i: ops.scatter_reduce(s, i, 0, 4, reduction), src, index)
    tred = {"sum": "sum", "max": "amax", "min": "amin", "mul": "prod"}[reduction]
    want = torch.zeros(4, 3, dtype=torch.float64).scatter_reduce(
        0, torch.tensor(index, dtype=torch.int64)[:, None].expand(5, 3), torch.tensor(src.astype(np.float64)),
        tred, include_self=False)
    check(got, want.numpy().astype(dtype))
    if reduction == "sum" and dtype == np.float32:
        init = rand((4, 3), dtype, seed=4)
        check(run(lambda s, i, v: ops.scatter_reduce(s, i, 0, reduction="sum", initial_values=v), src, index, init),
              want.numpy().astype(dtype) + init)
        check_grad(lambda s, i: ops.scatter_reduce(s, i, 0, 4), lambda s, i: torch.zeros(4, 3, dtype=s.dtype)
                   .index_add(0, i.long(), s), src, index)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("axis", [-1, 0])
def test_onehot(dtype, axis):
    idx = np.array([[0, 3], [2, 1]], np.int32)
    got = run(lambda i: ops.onehot(i, popxl.constant(np.int64(4)), popxl.constant(np.array([-1, 5], dtype)), axis),
              idx)
    eye = np.where(np.eye(4, dtype=bool)[idx], 5, -1).astype(dtype)
    check(got, eye if axis == -1 else np.moveaxis(eye, -1, 0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_copies(dtype):
    a = rand((2, 3), dtype)
    out = run(lambda x: [ops.io_tile_copy(x), ops.ipu_copy(x, 1), ops.ipu_copy(x, 1, 0), x.copy_to_ipu(2)], a)
    for got in out:
        check(got, a)
    if dtype == np.float32:
        check_grad(lambda x: ops.ipu_copy(x, 1) * 2, lambda x: x * 2, a)


def test_copies_place_their_results():
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.constant(np.zeros(3, np.float32), name="x")
        with popxl.ipu(1):
            y = x + 1
        z = ops.ipu_copy(y, 0)
        assert (y.ipu, z.ipu, ops.ipu_copy(z, 2, 0).ipu) == (1, 0, 2)
        io = ops.io_tile_copy(y)
        assert (y.tile_set, io.tile_set, ops.io_tile_copy(io).tile_set) == ("compute", "io", "compute")
        with pytest.raises(ValueError, match="ipu_copy: tensor '.*' is on IPU 1, not on source IPU 0"):
            ops.ipu_copy(y, 2, 0)
        with pytest.raises(ValueError, match="copied from IPU 1 to itself"):
            y.copy_to_ipu(1)


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (4, 1)])
def test_tensor_diag(shape):
    a = rand(shape)
    check(run(lambda x: x.diag(), a), np.diag(a))
    check_grad(lambda x: x.diag() * 2, lambda x: torch.diagonal(x) * 2, a)


def test_strides():
    ir = popxl.Ir()
    with ir.main_graph:
        t = popxl.constant(np.zeros((2, 3, 4), np.float16))
        assert t.strides() == list(np.zeros((2, 3, 4), np.float16).strides)
        assert t.strides((5, 2)) == [4, 2]


def test_bad_input():
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.constant(np.zeros((2, 3), np.float32), name="x")
        h = popxl.constant(np.zeros((2, 3), np.float16), name="h")
        fi = popxl.constant(np.zeros(2, np.float32), name="fidx")
        with pytest.raises(TypeError, match="concat.*'x'.*'h'"):
            ops.concat([x, h])
        with pytest.raises(ValueError, match="concat: axis 2.*'x'"):
            ops.concat([x, x], 2)
        with pytest.raises(ValueError, match="split.*'x'.*into 2"):
            ops.split(x, 2, 1)
        with pytest.raises(ValueError, match="split: sizes \\[1, 1\\].*'x'"):
            ops.split(x, [1, 1], 1)
        with pytest.raises(ValueError, match="squeeze: axis 0 of tensor 'x'"):
            ops.squeeze(x, 0)
        with pytest.raises(TypeError, match="gather.*'fidx'.*integer"):
            ops.gather(x, fi)
        with pytest.raises(ValueError, match="subsample.*'x'"):
            ops.subsample(x, [1])
        with pytest.raises(ValueError, match="slice: step of tensor 'x'"):
            ops.slice(x, 0, 1, 0, 0)
        with pytest.raises(IndexError, match="index 2 is out of range for axis 0 of tensor 'x'"):
            x[2]
        with pytest.raises(ValueError, match="diag: tensor 'fidx'"):
            fi.diag()
        with pytest.raises(IndexError, match="'x' of rank 2 indexed with 3 axes"):
            x[0, 0, 0]
        with pytest.raises(ValueError, match="dynamic_slice.*'x'"):
            ops.dynamic_slice(x, popxl.constant(np.zeros(2, np.uint32)), [0], [1], False)
        with pytest.raises(ValueError, match="ipu_copy.*'x'"):
            ops.ipu_copy(x, -1)
        with pytest.raises(ValueError, match="scatter_reduce.*'reduction' 'avg'|scatter_reduce: reduction 'avg'"):
            ops.scatter_reduce(x, popxl.constant(np.zeros((2, 3), np.int32)), 0, 2, "avg")
        with pytest.raises(Exception, match="Reshape.*6 elements|6"):
            ops.reshape(x, (4,))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_view_ops_values_and_grads(dtype):
    a, b = rand((3, 4), dtype, seed=1), rand((2, 4), dtype, seed=2)
    out = run(lambda x, z: [ops.transpose_(x), x.T_, x.transpose_((1, 0)), ops.slice_(x, 1, 3, None, 1),
                            ops.concat_([x, z], 0)], a, b)
    for got, want in zip(out, [a.T, a.T, a.T, a[:, 1:3], np.concatenate([a, b])]):
        check(got, want)
    if dtype == np.float32:
        check_grad(lambda x: ops.transpose_(x) * 2, lambda x: x.T * 2, a)
        check_grad(lambda x: ops.slice_(x, [0, 1], [2, 4], [1, 2], [0, 1]), lambda x: x[0:2, 1:4:2], a)
        check_grad(lambda x, z: ops.concat_([x, z]), lambda x, z: torch.cat([x, z]), a, b)


def test_changing_a_view_changes_the_viewed_tensor():
    a, b = rand((3, 4), seed=1), rand((2, 4), seed=2)
    y, x_after = run_inplace(lambda x: ops.add_(ops.transpose_(x), popxl.constant(np.float32(1))), a)
    check(y, a.T + 1)
    check(x_after, a + 1)
    y, x_after = run_inplace(lambda x: ops.relu_(ops.slice_(x, [1, 0], [3, 4], [1, 2], [0, 1])), a)
    want = a.copy()
    want[1:3, 0:4:2] = np.maximum(want[1:3, 0:4:2], 0)
    check(y, want[1:3, 0:4:2])
    check(x_after, want)

    def change_concat(x, z):
        ops.exp_(ops.concat_([x, z], 0))
        return z + 0
    y, x_after = run_inplace(change_concat, a, b)
    check(y, np.exp(b))
    check(x_after, np.exp(a))


def test_changing_the_viewed_tensor_changes_the_view():
    a = rand((3, 4), seed=1)

    def change_source(x):
        v = x.T_
        s = ops.slice_(x, 0, 1, None, 0)
        ops.add_(x, popxl.constant(np.float32(10)))
        return ops.concat([ops.reshape(v, (12,)), ops.reshape(s, (4,))])
    y, x_after = run_inplace(change_source, a)
    check(y, np.concatenate([(a + 10).T.reshape(-1), (a + 10)[0]]))
    check(x_after, a + 10)


def test_reading_after_an_in_place_change_sees_it():
    a = rand((2, 3))

    def f(x):
        y = x * 1
        ops.exp_(y)  # its output is unused: the change must still happen before y is read
        return y + 0
    check(run(f, a), np.exp(a))


@pytest.mark.parametrize("view", [True, False])
def test_reshape_and_detach_share_memory_only_when_underscored(view):
    a = rand((2, 3))
    one = lambda: popxl.constant(np.float32(1))  # noqa: E731
    ops_ = [(ops.reshape_, ops.reshape, (3, 2)), (ops.flatten_, ops.flatten, None), (ops.detach_, ops.detach, None),
            (lambda x, s: x.reshape_(s), lambda x, s: x.reshape(s), (6,))]
    for v_op, c_op, arg in ops_:
        op = v_op if view else c_op
        call = (lambda x: op(x, arg)) if arg is not None else op

        def change_result(x):
            ops.add_(call(x), one())
            return x + 0
        check(run(change_result, a), a + 1 if view else a)

        def change_input(x):
            y = call(x)
            ops.add_(x, one())
            return ops.reshape(y, (2, 3)) * 1
        check(run(change_input, a), a + 1 if view else a)
        y, x_after = run_inplace(lambda x: ops.add_(call(x), one()), a)
        check(x_after, a + 1 if view else a)


def test_view_bad_input():
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.constant(np.zeros((2, 3), np.float32), name="x")
        with pytest.raises(ValueError, match="transpose_: \\[0, 0\\] is not a permutation.*'x'"):
            ops.transpose_(x, [0, 0])
        with pytest.raises(ValueError, match="concat: axis 3"):
            ops.concat_([x, x], 3)
