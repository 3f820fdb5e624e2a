"""ai.graphcore ScatterReduce, GroupedScatterReduce and GroupedGather against torch
(scatter_reduce with include_self, autograd for the gradients) and numpy."""
import numpy as np
import pytest
import torch

import popart

GC = "ai.graphcore"
REDUCE = {0: "sum", 1: "amax", 2: "amin", 3: "prod", 4: "none"}


def torch_scatter(src, index, axis, axis_size, reduction, init=None, grad_cot=None):
    """torch reference: output (and gradients of sum(out * cot) w.r.t. src and init)."""
    src_t = torch.tensor(src, dtype=torch.float64, requires_grad=grad_cot is not None)
    idx = torch.tensor(index, dtype=torch.int64).expand(src_t.shape) if index.shape != src.shape else \
        torch.tensor(index, dtype=torch.int64)
    shape = list(src.shape)
    shape[axis] = axis_size
    if init is None:
        base = torch.zeros(shape, dtype=torch.float64)
    else:
        base = torch.tensor(init, dtype=torch.float64, requires_grad=grad_cot is not None)
    if reduction == 4:
        out = base.scatter(axis, idx, src_t)
    else:
        out = base.scatter_reduce(axis, idx, src_t, REDUCE[reduction], include_self=init is not None)
    if grad_cot is None:
        return out.detach().numpy()
    (out * torch.tensor(grad_cot)).sum().backward()
    return out.detach().numpy(), src_t.grad.numpy(), None if init is None else base.grad.numpy()


def scatter_none(src, index, axis, axis_size, init=None, cot=None):
    """Reduction 'none': writes in row-major order, the last one wins. With `cot`, also the
    gradients: each output's cotangent goes to its surviving write, or to init if none."""
    shape = list(src.shape)
    shape[axis] = axis_size
    out = np.zeros(shape, np.float64) if init is None else init.astype(np.float64)
    last = {}
    for pos in np.ndindex(*src.shape):
        t = list(pos)
        t[axis] = index[pos]
        out[tuple(t)] = src[pos]
        last[tuple(t)] = pos
    if cot is None:
        return out
    dsrc = np.zeros(src.shape)
    dinit = cot.copy()
    for t, pos in last.items():
        dsrc[pos] = cot[t]
        dinit[t] = 0
    return out, dsrc, dinit


def broadcast_index(index, src_shape, axis):
    """An index of shape [n] broadcast along the other axes of src."""
    shape = [1] * len(src_shape)
    shape[axis] = index.shape[0]
    return np.broadcast_to(index.reshape(shape), src_shape)


def distinct(shape, rs, dtype=np.float32):
    """Random values without ties (max/min gradients are then unambiguous)."""
    n = int(np.prod(shape))
    return (rs.permutation(n).reshape(shape) / n * 4 - 2 + 0.1).astype(dtype)


@pytest.mark.parametrize("reduction", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("with_init", [False, True])
def test_scatter_reduce_forward(op_tester, reduction, axis, with_init):
    rs = np.random.RandomState(reduction)
    src = distinct((6, 5, 4), rs)
    ax = axis % 3
    size = 3
    index = rs.randint(0, size, src.shape).astype(np.int32)
    out_shape = list(src.shape)
    out_shape[ax] = size
    init = distinct(out_shape, rs) if with_init else None
    ins = [src, index] + ([init] if with_init else [])
    attrs = {"axis_size": size, "axis": axis, "reduction": reduction}
    got = op_tester.run("ScatterReduce", ins, attrs=attrs, domain=GC)[0]
    if reduction == 4:
        np.testing.assert_array_equal(got, scatter_none(src, index, ax, size, init))
        return
    np.testing.assert_allclose(got, torch_scatter(src, index, ax, size, reduction, init), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int32, np.int64])
def test_scatter_reduce_dtypes_and_broadcast(op_tester, dtype):
    rs = np.random.RandomState(3)
    src = (rs.randint(-5, 6, (7, 4))).astype(dtype)
    index = np.array([0, 2, 1, 2, 0, 4, 2], np.int64)
    for reduction in (0, 1, 2, 3):
        got = op_tester.run("ScatterReduce", [src, index], attrs={"axis_size": 5, "axis": 0, "reduction": reduction},
                            domain=GC)[0]
        want = torch_scatter(src.astype(np.float64), broadcast_index(index, src.shape, 0), 0, 5, reduction)
        assert got.dtype == dtype
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-2 if dtype == np.float16 else 1e-12)


@pytest.mark.parametrize("reduction", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("with_init", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_scatter_reduce_grad(reduction, with_init, dtype):
    rs = np.random.RandomState(10 + reduction)
    src = distinct((5, 6), rs, dtype)
    if reduction == 3:
        src[0, 0] = 0  # one zero factor: the product gradient goes through it only
    index = rs.randint(0, 4, (5, 6)).astype(np.int64)
    init = distinct((5, 4), rs, dtype) if with_init else None
    cot = rs.uniform(0.5, 1.5, (5, 4))
    ref = scatter_none if reduction == 4 else lambda *a: torch_scatter(*a[:4], reduction, *a[4:])
    _, want_src, want_init = ref(src.astype(np.float64), index, 1, 4, None if init is None else init.astype(np.float64),
                                 cot)
    got = _scatter_grads("ScatterReduce", src, index, init, cot.astype(dtype),
                         {"axis_size": 4, "axis": 1, "reduction": reduction})
    t = dict(rtol=2e-2, atol=2e-2) if dtype == np.float16 else dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["src"].astype(np.float64), want_src, **t)
    if with_init:
        np.testing.assert_allclose(got["init"].astype(np.float64), want_init, **t)


def _scatter_grads(op_type, src, index, init, cot, attrs):
    from _grad_util import weight_grads, weighted_loss
    import onnx
    import onnx.helper as oh
    weights = {"src": src} if init is None else {"src": src, "init": init}
    nodes = [oh.make_node("Constant", [], ["index"], value=onnx.numpy_helper.from_array(index, "index")),
             oh.make_node(op_type, ["src", "index"] + ([] if init is None else ["init"]), ["out"], domain=GC,
                          **attrs)] + weighted_loss("out", cot)
    return weight_grads(nodes, weights, "loss")


@pytest.mark.parametrize("reduction", [0, 1, 3])
def test_grouped_scatter_reduce(reduction):
    rs = np.random.RandomState(5)
    groups, n, f, size = 3, 6, 4, 5
    src = distinct((groups, n, f), rs)
    index = rs.randint(0, size, (groups, n)).astype(np.int32)
    b = popart.Builder()
    s = b.addInputTensor(popart.TensorInfo("FLOAT", src.shape))
    i = b.addInputTensor(popart.TensorInfo("INT32", index.shape))
    y = b.aiGraphcore.groupedscatterreduce([s, i], axis_size=size, axis=1, reduction=reduction, group_size=groups)
    got = _run_builder(b, y, {s: src, i: index})
    want = np.stack([torch_scatter(src[g], broadcast_index(index[g], (n, f), 0), 0, size, reduction)
                     for g in range(groups)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    cot = rs.uniform(0.5, 1.5, (groups, size, f)).astype(np.float32)
    grads = _scatter_grads("GroupedScatterReduce", src, np.ascontiguousarray(index), None, cot,
                           {"axis_size": size, "axis": 1, "reduction": reduction, "group_size": groups})
    want_g = np.stack([torch_scatter(src[g].astype(np.float64), broadcast_index(index[g], (n, f), 0), 0, size,
                                     reduction, None, cot[g].astype(np.float64))[1] for g in range(groups)])
    np.testing.assert_allclose(grads["src"], want_g, rtol=1e-5, atol=1e-6)


def _run_builder(b, y, feeds):
    b.addOutputTensor(y)
    sess = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), popart.DeviceManager().createCpuDevice())
    sess.prepareDevice()
    out = sess.initAnchorArrays()
    sess.run(popart.PyStepIO(feeds, out))
    return out[y]


def test_scatter_reduce_builder_defaults():
    src = np.arange(12, dtype=np.float32).reshape(3, 4)
    index = np.array([[0, 1, 1, 0]] * 3, np.int32)
    b = popart.Builder()
    s = b.addInputTensor(popart.TensorInfo("FLOAT", src.shape))
    i = b.addInputTensor(popart.TensorInfo("INT32", index.shape))
    y = b.aiGraphcore.scatterreduce([s, i], axis_size=2)  # axis -1, sum
    np.testing.assert_allclose(_run_builder(b, y, {s: src, i: index}), torch_scatter(src, index, 1, 2, 0))


def grouped_take(data, indices, axis):
    return np.stack([np.take(data[g], indices[g], axis=axis - 1) for g in range(data.shape[0])])


@pytest.mark.parametrize("axis,ishape", [(1, (3, 4)), (2, (3, 2, 2)), (-1, (3, 5))])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_grouped_gather(op_tester, axis, ishape, dtype):
    rs = np.random.RandomState(2)
    data = rs.randn(3, 4, 6).astype(dtype) if dtype != np.int32 else rs.randint(-9, 9, (3, 4, 6)).astype(dtype)
    d = data.shape[axis]
    indices = rs.randint(-d, d, ishape).astype(np.int64)
    attrs = {"axis": axis, "group_size": 3}
    op_tester.check("GroupedGather", [data, indices], lambda x, i: grouped_take(x, i, axis % 3), attrs=attrs, domain=GC)
    if dtype != np.int32:
        tol = dict(rtol=5e-3, atol=5e-3) if dtype == np.float16 else {}
        op_tester.check_grad("GroupedGather", [data, op_tester.const(indices)],
                             lambda x, i: grouped_take(x, i, axis % 3), attrs=attrs, domain=GC, **tol)


def test_grouped_gather_group_size_one_is_gather(op_tester):
    data = np.arange(20, dtype=np.float32).reshape(4, 5)
    idx = np.array([[3, 0], [1, 1]], np.int32)
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", data.shape))
    i = b.addInputTensor(popart.TensorInfo("INT32", idx.shape))
    y = b.aiGraphcore.groupedgather([x, i])
    np.testing.assert_array_equal(_run_builder(b, y, {x: data, i: idx}), np.take(data, idx, axis=0))


def test_scatter_gather_errors(op_tester):
    src = np.zeros((4, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="index 5 .* out of range for axis_size 3"):
        op_tester.run("ScatterReduce", [src, np.array([0, 1, 5, 2], np.int32)], attrs={"axis_size": 3, "axis": 0},
                      domain=GC)
    with pytest.raises(popart.popart_exception, match="attribute 'reduction' is 7"):
        op_tester.run("ScatterReduce", [src, np.zeros((4, 3), np.int32)], attrs={"axis_size": 3, "reduction": 7},
                      domain=GC)
    with pytest.raises(popart.popart_exception, match="index \\(input 1\\) has shape \\[4\\]"):
        op_tester.run("ScatterReduce", [src, np.zeros(4, np.int32)],
                      attrs={"axis_size": 3, "axis": 0, "enable_index_broadcast": 0}, domain=GC)
    with pytest.raises(popart.popart_exception, match="index \\(input 1\\) has type FLOAT"):
        op_tester.run("ScatterReduce", [src, np.zeros((4, 3), np.float32)], attrs={"axis_size": 3}, domain=GC)
    with pytest.raises(popart.popart_exception, match="leading group dimension of size 2"):
        op_tester.run("GroupedGather", [src, np.zeros((2, 1), np.int32)], attrs={"group_size": 2, "axis": 1},
                      domain=GC)
    with pytest.raises(popart.popart_exception, match="index 3 .* out of range for an axis of size 3"):
        op_tester.run("GroupedGather", [src.reshape(1, 4, 3), np.array([[3]], np.int32)],
                      attrs={"group_size": 1, "axis": 2}, domain=GC)
