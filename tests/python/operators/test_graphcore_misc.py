"""Smaller ai.graphcore ops: Nop, Square, Zeros/ZerosLike/Init, IncrementMod, TensorRemap,
Reverse, Subsample, Slice-1, Reshape-1, SequenceSlice, NormalizeImage, Sort, Bucketize,
ReduceMedian, Histogram, SplineBasis/SplineWeighting, PrintTensor, CopyVarUpdate and the
single-replica collectives, through the Builder and ONNX, with gradients where they exist."""
import numpy as np
import onnx.helper as oh
import pytest
import torch

import popart
from _grad_util import tol

GC = "ai.graphcore"


def run_builder(build, feeds):
    """build(builder, ids) -> output id; feeds: list of arrays (added as inputs)."""
    b = popart.Builder()
    ids = [b.addInputTensor(popart.TensorInfo(x.dtype, x.shape)) for x in feeds]
    y = build(b, ids)
    outs = y if isinstance(y, list) else [y]
    for o in outs:
        b.addOutputTensor(o)
    sess = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, outs),
                                   popart.DeviceManager().createCpuDevice())
    sess.prepareDevice()
    res = sess.initAnchorArrays()
    sess.run(popart.PyStepIO(dict(zip(ids, feeds)), res))
    return [res[o] for o in outs] if isinstance(y, list) else res[y]


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op", ["Nop", "TensorRemap"])
def test_identity_like(op_tester, op, dtype):
    x = np.random.RandomState(0).randn(3, 4).astype(dtype)
    op_tester.check(op, [x], lambda x: x, domain=GC)
    op_tester.check_grad(op, [x], lambda x: x, domain=GC, **tol(dtype))
    for remap in (1, 2):
        np.testing.assert_array_equal(run_builder(lambda b, i: b.aiGraphcore.tensorremap(i, remap_type=remap), [x]), x)
    assert np.array_equal(run_builder(lambda b, i: b.aiGraphcore.nop(i), [x]), x)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int32, np.int64])
def test_square(op_tester, dtype):
    x = (np.random.RandomState(1).randn(4, 5) * 3).astype(dtype)
    op_tester.check("Square", [x], lambda x: x * x, domain=GC)
    if dtype in (np.float32, np.float16):
        op_tester.check_grad("Square", [x], lambda x: x * x, domain=GC, **tol(dtype))


def test_zeros_zeroslike_init(op_tester):
    like = np.ones((2, 3), np.int32)
    got = op_tester.run("ZerosLike", [like], domain=GC)[0]
    assert got.dtype == np.int32 and got.shape == (2, 3) and not got.any()
    got = op_tester.run("Zeros", [], attrs={"shape": [4, 1], "dtype": 10}, domain=GC)[0]
    assert got.dtype == np.float16 and got.shape == (4, 1) and not got.any()
    y = run_builder(lambda b, i: b.aiGraphcore.init([2, 5], int(popart.DataType.FLOAT), 1, 0), [])
    assert y.dtype == np.float32 and y.shape == (2, 5) and not y.any()
    y = run_builder(lambda b, i: b.aiGraphcore.init([3], int(popart.DataType.INT32), 0), [])
    assert y.dtype == np.int32 and y.shape == (3,)
    with pytest.raises(popart.popart_exception, match="'init_type' is 4"):
        run_builder(lambda b, i: b.aiGraphcore.init([3], int(popart.DataType.FLOAT), 4), [])
    with pytest.raises(popart.popart_exception, match="'batch_axis' 2 out of range"):
        run_builder(lambda b, i: b.aiGraphcore.init([3], int(popart.DataType.FLOAT), 1, 2), [])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint8])
def test_incrementmod(dtype):
    x = (np.arange(20) % 7).astype(dtype)
    got = run_builder(lambda b, i: b.aiGraphcore.incrementmod(i, 3.0, 5.0), [x])
    want = np.fmod(x.astype(np.float64) + 3, 5)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-3)
    assert got.dtype == dtype
    if dtype == np.int32:
        with pytest.raises(popart.popart_exception, match="'modulus' 0.5 is 0 once converted"):
            run_builder(lambda b, i: b.aiGraphcore.incrementmod(i, 1.0, 0.5), [x])


@pytest.mark.parametrize("dims", [[0], [1, 2], [-1], []])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64])
def test_reverse(op_tester, dims, dtype):
    x = np.arange(60).reshape(3, 4, 5).astype(dtype)
    ref = lambda x: np.flip(x, axis=tuple(dims)) if dims else x  # noqa: E731
    np.testing.assert_array_equal(run_builder(lambda b, i: b.aiGraphcore.reverse(i, dims), [x]), ref(x))
    if dtype != np.int64 and dims:
        op_tester.check_grad("Reverse", [x], ref, attrs={"dimensions": dims}, domain=GC, **tol(dtype))


@pytest.mark.parametrize("strides", [[1, 1], [2, 3], [4, 1], [5, 7]])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_subsample(op_tester, strides, dtype):
    x = np.random.RandomState(2).randn(5, 7).astype(dtype)
    ref = lambda x: x[::strides[0], ::strides[1]]  # noqa: E731
    np.testing.assert_array_equal(run_builder(lambda b, i: b.aiGraphcore.subsample(i, strides), [x]), ref(x))
    op_tester.check_grad("Subsample", [x], ref, attrs={"strides": strides}, domain=GC, **tol(dtype))


def test_graphcore_slice_and_reshape(op_tester):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got = run_builder(lambda b, i: b.aiGraphcore.slice(i, ends=[3, -1], starts=[1, -10], axes=[1, 2]), [x])
    np.testing.assert_array_equal(got, x[:, 1:3, 0:3])
    op_tester.check_grad("Slice", [x], lambda x: x[:, 1:3, 0:3], attrs={"ends": [3, -1], "starts": [1, -10],
                                                                       "axes": [1, 2]}, domain=GC)
    got = run_builder(lambda b, i: b.aiGraphcore.reshape(i[0], [4, 6]), [x])
    np.testing.assert_array_equal(got, x.reshape(4, 6))
    op_tester.check_grad("Reshape", [x], lambda x: x.reshape(6, 4), attrs={"shape": [6, 4]}, domain=GC)
    with pytest.raises(popart.popart_exception, match="'shape' \\[5,5\\] has 25 elements"):
        run_builder(lambda b, i: b.aiGraphcore.reshape(i[0], [5, 5]), [x])


def seq_slice_ref(src, dst, n, so, do, zero):
    out = np.zeros_like(dst) if zero else dst.copy()
    for k, s, d in zip(n, so, do):
        if k == 0:
            break
        out[d:d + k] = src[s:s + k]
    return out


@pytest.mark.parametrize("zero", [0, 1])
def test_sequence_slice(zero):
    rs = np.random.RandomState(3)
    src = rs.randn(8, 2, 3).astype(np.float32)
    dst = rs.randn(6, 6).astype(np.float32)
    n, so, do = np.array([2, 1, 0, 3], np.uint32), np.array([0, 5, 0, 0], np.uint32), np.array([1, 4, 0, 0], np.uint32)
    got = run_builder(lambda b, i: b.aiGraphcore.sequenceslice(i, zero), [src, dst, n, so, do])
    np.testing.assert_array_equal(got, seq_slice_ref(src.reshape(8, 6), dst, n, so, do, zero))
    bad = [np.array([7], np.int32), np.array([0], np.int32), np.array([0], np.int32)]
    with pytest.raises(popart.popart_exception, match="entry 0: N 7 .* destination rows \\[0, 6\\)"):
        run_builder(lambda b, i: b.aiGraphcore.sequenceslice(i, zero), [src, dst] + bad)


@pytest.mark.parametrize("zero", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_sequence_slice_grad(zero, dtype):
    import onnx
    from _grad_util import weight_grads, weighted_loss
    rs = np.random.RandomState(13)
    src = rs.randn(5, 3).astype(dtype)
    dst = rs.randn(7, 3).astype(dtype)
    n, so, do = [2, 2, 1, 0], [0, 1, 4, 0], [0, 3, 6, 0]  # source row 1 is read twice
    consts = [oh.make_node("Constant", [], [k], value=onnx.numpy_helper.from_array(np.array(v, np.int32), k))
              for k, v in (("n", n), ("so", so), ("do", do))]
    cot = rs.uniform(0.5, 1.5, dst.shape)
    nodes = consts + [oh.make_node("SequenceSlice", ["src", "dst", "n", "so", "do"], ["y"], domain=GC,
                                   zeroUnused=zero)] + weighted_loss("y", cot.astype(dtype))
    got = weight_grads(nodes, {"src": src, "dst": dst}, "loss")
    ts = torch.tensor(src.astype(np.float64), requires_grad=True)
    td = torch.tensor(dst.astype(np.float64), requires_grad=True)
    y = torch.zeros_like(td) if zero else td.clone()
    for k, a, c in zip(n, so, do):
        if k == 0:
            break
        y = torch.cat([y[:c], ts[a:a + k], y[c + k:]])
    (y * torch.tensor(cot)).sum().backward()
    np.testing.assert_allclose(got["src"], ts.grad.numpy(), **tol(dtype))
    want_dst = np.zeros(dst.shape) if td.grad is None else td.grad.numpy()  # zeroUnused: dst is not read
    np.testing.assert_allclose(got["dst"], want_dst, **tol(dtype))


@pytest.mark.parametrize("itype,otype", [(np.uint8, np.float32), (np.float16, np.float16), (np.float32, np.float32)])
def test_normalize_image(itype, otype):
    rs = np.random.RandomState(4)
    img = rs.randint(0, 255, (2, 3, 5, 3)).astype(itype)
    offsets = np.array([0.4, 0.5, 0.6], otype)
    scales = np.array([2.0, 1.5, 0.5], otype)
    got = run_builder(lambda b, i: b.aiGraphcore.normalize_image(i, 1 / 255), [img, offsets, scales])
    want = (img.astype(np.float64) * np.float32(1 / 255) - offsets) * scales
    want = np.concatenate([want, np.zeros(want.shape[:-1] + (1,))], axis=-1)
    assert got.dtype == otype and got.shape == (2, 3, 5, 4)
    t = 1e-2 if otype == np.float16 else 1e-6
    np.testing.assert_allclose(got, want, rtol=t, atol=t)
    with pytest.raises(popart.popart_exception, match="3 channels in the last dimension"):
        run_builder(lambda b, i: b.aiGraphcore.normalize_image(i), [img[..., :2].copy(), offsets, scales])


@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("descending", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_sort(op_tester, axis, descending, dtype):
    rs = np.random.RandomState(5)
    x = rs.randint(-20, 20, (6, 7)).astype(dtype)  # ties: checked with the stable order
    values, indices = run_builder(lambda b, i: b.aiGraphcore.sort(i, axis, descending, 1), [x])
    tv, ti = torch.sort(torch.tensor(x.astype(np.float64)), dim=axis, descending=bool(descending), stable=True)
    np.testing.assert_array_equal(values, tv.numpy().astype(dtype))
    np.testing.assert_array_equal(indices, ti.numpy())
    if dtype != np.int32:
        xf = rs.permutation(42).reshape(6, 7).astype(dtype)
        cot = rs.uniform(0.5, 1.5, xf.shape)
        got = values_grad("Sort", xf, {"axis": axis, "descending": descending}, cot.astype(dtype))
        xt = torch.tensor(xf.astype(np.float64), requires_grad=True)
        (torch.sort(xt, dim=axis, descending=bool(descending)).values * torch.tensor(cot)).sum().backward()
        np.testing.assert_allclose(got, xt.grad.numpy(), **tol(dtype))


def values_grad(op, x, attrs, cot):
    """Gradient of sum(values * cot) for a (values, indices) op, by training with lr 0."""
    from _grad_util import weight_grads, weighted_loss
    nodes = [oh.make_node(op, ["x"], ["v", "i"], domain=GC, **attrs)] + weighted_loss("v", cot)
    return weight_grads(nodes, {"x": x}, "loss")["x"]


@pytest.mark.parametrize("right", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_bucketize(right, dtype):
    x = np.array([[-3, 0, 1, 2], [5, 7, 9, 11]], dtype)
    bounds = np.array([0, 2, 5, 9], dtype)
    got = run_builder(lambda b, i: b.aiGraphcore.bucketize(i, right), [x, bounds])
    want = torch.bucketize(torch.tensor(x), torch.tensor(bounds), right=bool(right))
    np.testing.assert_array_equal(got, want.numpy())


@pytest.mark.parametrize("axes,keep", [([1], 1), ([0], 0), ([0, 2], 1), (None, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_reduce_median(op_tester, axes, keep, dtype):
    rs = np.random.RandomState(6)
    x = (rs.permutation(4 * 5 * 6).reshape(4, 5, 6) / 10).astype(dtype)
    values, indices = run_builder(lambda b, i: b.aiGraphcore.reducemedian(i, axes, keep), [x])
    red = list(range(3)) if axes is None else axes
    kept = [a for a in range(3) if a not in red]
    flat = np.transpose(x, kept + red).reshape([x.shape[a] for a in kept] + [-1])
    if len(red) == 1:
        tv, ti = torch.median(torch.tensor(x.astype(np.float32)), dim=red[0], keepdim=bool(keep))
        want_v, want_i = tv.numpy(), ti.numpy()
    else:
        want_i = np.argsort(flat, axis=-1)[..., (flat.shape[-1] - 1) // 2]
        want_v = np.take_along_axis(flat, want_i[..., None], -1)[..., 0]
        if keep:
            want_v, want_i = np.expand_dims(want_v, red), np.expand_dims(want_i, red)
    np.testing.assert_array_equal(values, want_v.astype(dtype))
    np.testing.assert_array_equal(indices, want_i)

    attrs = {"keepdims": keep} if axes is None else {"axes": axes, "keepdims": keep}
    cot = rs.uniform(0.5, 1.5, values.shape)
    got = values_grad("ReduceMedian", x, attrs, cot.astype(dtype))
    xt = torch.tensor(x.astype(np.float64), requires_grad=True)
    ft = xt.permute(*(kept + red)).reshape([x.shape[a] for a in kept] + [-1])
    med = torch.kthvalue(ft, (ft.shape[-1] - 1) // 2 + 1, dim=-1).values.reshape(values.shape)
    (med * torch.tensor(cot)).sum().backward()
    np.testing.assert_allclose(got, xt.grad.numpy(), **tol(dtype))


@pytest.mark.parametrize("absolute", [0, 1])
def test_histogram(op_tester, absolute):
    x = np.random.RandomState(7).randn(1000).astype(np.float32)
    levels = [-1.0, -0.25, 0.0, 0.5, 1.5]
    v = np.abs(x) if absolute else x
    want = np.bincount(np.searchsorted(levels, v, side="right"), minlength=len(levels) + 1)
    op_tester.check("Histogram", [x], lambda x: want.astype(np.uint32),
                    attrs={"levels": levels, "absoluteOfInput": absolute}, domain=GC)
    with pytest.raises(popart.popart_exception, match="'levels' must be sorted"):
        op_tester.run("Histogram", [x], attrs={"levels": [1.0, 0.0]}, domain=GC)


def spline_basis_ref(pseudo, kernel_size, is_open, degree):
    """torch_spline_conv's basis: product over dims of B-spline pieces and flattened kernel indices."""
    def piece(v, k):
        if degree == 1:
            return 1 - v - k + 2 * v * k
        if degree == 2:
            return [0.5 * v * v - v + 0.5, -v * v + v + 0.5, 0.5 * v * v][k]
        return [(1 - v) ** 3 / 6, (3 * v ** 3 - 6 * v * v + 4) / 6, (-3 * v ** 3 + 3 * v * v + 3 * v + 1) / 6,
                v ** 3 / 6][k]
    e_count, dims = pseudo.shape
    m = degree + 1
    basis = np.ones((e_count, m ** dims))
    index = np.zeros((e_count, m ** dims), np.int64)
    for s in range(m ** dims):
        offset = 1
        for d in range(dims):
            k = (s // m ** d) % m
            v = pseudo[:, d].astype(np.float64) * (kernel_size[d] - degree * is_open[d])
            index[:, s] += ((np.trunc(v).astype(np.int64) + k) % kernel_size[d]) * offset
            offset *= kernel_size[d]
            basis[:, s] *= piece(v - np.floor(v), k)
    return basis, index


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_spline_basis_and_weighting(degree):
    rs = np.random.RandomState(8)
    pseudo = rs.rand(10, 2).astype(np.float32)
    ks = np.array([5, 4], np.int64)
    is_open = np.array([1, 0], np.uint8)
    basis, widx = run_builder(lambda b, i: b.aiGraphcore.splinebasis(i, degree), [pseudo, ks, is_open])
    want_b, want_i = spline_basis_ref(pseudo, ks, is_open, degree)
    np.testing.assert_allclose(basis, want_b, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(widx, want_i)
    x = rs.randn(10, 3).astype(np.float32)
    w = rs.randn(20, 3, 4).astype(np.float32)
    got = run_builder(lambda b, i: b.aiGraphcore.splineweighting(i), [x, w, basis, widx])
    want = np.einsum("es,ei,esio->eo", want_b, x.astype(np.float64), w[want_i].astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_print_tensor(capfd):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = run_builder(lambda b, i: b.aiGraphcore.printtensor(i, title="xs"), [x])
    np.testing.assert_array_equal(y, x)
    assert capfd.readouterr().out == "xs: [[0 1 2]\n [3 4 5]]\n"
    big = np.arange(2000, dtype=np.int32)
    run_builder(lambda b, i: b.aiGraphcore.printtensor(i, title="big", edgeItems=2, separator=",",
                                                        openBracket="(", closeBracket=")"), [big])
    assert capfd.readouterr().out == "big: (   0,   1,...,1998,1999)\n"
    run_builder(lambda b, i: b.aiGraphcore.printtensor(i, title="f", digits=3, floatFormat=1),
                [np.array([1.5, -2.25], np.float32)])
    assert capfd.readouterr().out == "f: [ 1.500 -2.250]\n"


@pytest.mark.parametrize("print_gradient", [0, 1])
def test_print_tensor_gradient(capfd, print_gradient):
    import onnx
    from _grad_util import weight_grads, weighted_loss
    w = np.array([1.0, 2.0], np.float32)
    cot = np.array([3.0, 4.0], np.float32)
    nodes = [oh.make_node("PrintTensor", ["w"], ["p"], domain=GC, print_gradient=print_gradient, title="w")]
    grads = weight_grads(nodes + weighted_loss("p", cot), {"w": w}, "loss")
    np.testing.assert_array_equal(grads["w"], cot)
    out = capfd.readouterr().out
    assert "w: [1 2]\n" in out
    assert ("Gradient___w: [3 4]\n" in out) == bool(print_gradient)
    del onnx


def test_copy_var_update():
    b = popart.Builder()
    v = b.addInitializedInputTensor(np.zeros(3, np.float32))
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [3]))
    y = b.aiGraphcore.copyvarupdate([v, x])
    b.addOutputTensor(y)
    sess = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), popart.DeviceManager().createCpuDevice())
    sess.prepareDevice()
    res = sess.initAnchorArrays()
    feed = np.array([1.0, 2.0, 3.0], np.float32)
    sess.run(popart.PyStepIO({x: feed}, res))
    np.testing.assert_array_equal(res[y], feed)
    weights = {v: np.zeros(3, np.float32)}
    sess.weightsToHost()
    sess.readWeights(popart.PyWeightsIO(weights))
    np.testing.assert_array_equal(weights[v], feed)


def test_single_replica_collectives(op_tester):
    x = np.random.RandomState(9).randn(2, 3).astype(np.float32)
    np.testing.assert_array_equal(run_builder(lambda b, i: b.aiGraphcore.replicatedallreduce(i), [x]), x)
    np.testing.assert_array_equal(run_builder(lambda b, i: b.aiGraphcore.replicatedreducescatter(i), [x]),
                                  x.reshape(-1))
    op_tester.check("ReplicatedAllGather", [x], lambda x: x.reshape(-1), domain=GC)
    op_tester.check_grad("ReplicatedAllReduce", [x], lambda x: x, domain=GC)
    op_tester.check_grad("ReplicatedReduceScatter", [x], lambda x: x.reshape(-1), domain=GC)


def test_misc_errors(op_tester):
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="axis 2 out of range for rank 2"):
        op_tester.run("Sort", [x], attrs={"axis": 2}, domain=GC, num_outputs=2)
    with pytest.raises(popart.popart_exception, match="boundaries \\(input 1\\) must be 1-D"):
        op_tester.run("Bucketize", [x, x], domain=GC)
    with pytest.raises(popart.popart_exception, match="'strides' \\[2\\] must have one entry per input dimension"):
        op_tester.run("Subsample", [x], attrs={"strides": [2]}, domain=GC)
    with pytest.raises(popart.popart_exception, match="'strides' \\[1,0\\] must be positive"):
        op_tester.run("Subsample", [x], attrs={"strides": [1, 0]}, domain=GC)
    with pytest.raises(popart.popart_exception, match="dimensions \\[1,-1\\] contain axis -1 more than once"):
        op_tester.run("Reverse", [x], attrs={"dimensions": [1, -1]}, domain=GC)
    with pytest.raises(popart.popart_exception, match="'remap_type' is 3"):
        op_tester.run("TensorRemap", [x], attrs={"remap_type": 3}, domain=GC)
    with pytest.raises(popart.popart_exception, match="'degree' is 4, expected 1, 2 or 3"):
        op_tester.run("SplineBasis", [x, np.array([3, 3, 3], np.int32), np.array([1, 1, 1], np.uint8)],
                      attrs={"degree": 4}, domain=GC, num_outputs=2)
    with pytest.raises(popart.popart_exception, match="'floatFormat' is 5"):
        op_tester.run("PrintTensor", [x], attrs={"floatFormat": 5}, domain=GC)
    with pytest.raises(popart.popart_exception, match="cannot take the median over the empty axis 0"):
        op_tester.run("ReduceMedian", [np.zeros((0, 2), np.float32)], attrs={"axes": [0]}, domain=GC, num_outputs=2)
