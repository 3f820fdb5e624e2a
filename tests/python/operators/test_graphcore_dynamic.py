"""ai.graphcore DynamicSlice/DynamicUpdate/DynamicAdd/DynamicZero: forward through the
Builder and ONNX, gradients against finite differences, offset clamping and errors."""
import numpy as np
import pytest

import popart
from _grad_util import tol

GC = "ai.graphcore"


def region(shape, axes, sizes, offset):
    """Index tuple of the region, offsets clamped like the op."""
    idx = [slice(None)] * len(shape)
    for a, s, o in zip(axes, sizes, offset):
        o = int(np.clip(o, 0, shape[a] - s))
        idx[a] = slice(o, o + s)
    return tuple(idx)


def ref_slice(x, off, axes, sizes):
    return x[region(x.shape, axes, sizes, off)]


def ref_update(x, off, s, axes, sizes):
    y = x.copy()
    y[region(x.shape, axes, sizes, off)] = s
    return y


def ref_add(x, off, s, axes, sizes):
    y = x.copy()
    y[region(x.shape, axes, sizes, off)] += s
    return y


def ref_zero(x, off, axes, sizes):
    y = x.copy()
    y[region(x.shape, axes, sizes, off)] = 0
    return y


def slice_shape(shape, axes, sizes):
    s = list(shape)
    for a, n in zip(axes, sizes):
        s[a] = n
    return s


def run_builder(method, x, off, s=None, **attrs):
    b = popart.Builder()
    ins = [b.addInputTensor(popart.TensorInfo(x.dtype, x.shape), "x"),
           b.addInputTensor(popart.TensorInfo(off.dtype, off.shape), "off")]
    feeds = {ins[0]: x, ins[1]: off}
    if s is not None:
        ins.append(b.addInputTensor(popart.TensorInfo(s.dtype, s.shape), "s"))
        feeds[ins[2]] = s
    y = getattr(b.aiGraphcore, method)(ins, **attrs)
    b.addOutputTensor(y)
    sess = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]),
                                   popart.DeviceManager().createCpuDevice())
    sess.prepareDevice()
    out = sess.initAnchorArrays()
    sess.run(popart.PyStepIO(feeds, out))
    return out[y]


CASES = [((6, 5), [0], [2], [3]), ((4, 6, 5), [1, 2], [3, 2], [2, 1]), ((4, 6, 5), [2, 0], [5, 1], [0, 3]),
         ((3, 4), [1], [1], [9]), ((3, 4), [0, 1], [3, 4], [0, 0])]


@pytest.mark.parametrize("shape,axes,sizes,offset", CASES)
@pytest.mark.parametrize("otype", [np.uint32, np.int32, np.int64])
def test_dynamic_builder(shape, axes, sizes, offset, otype):
    rs = np.random.RandomState(0)
    x = rs.randn(*shape).astype(np.float32)
    s = rs.randn(*slice_shape(shape, axes, sizes)).astype(np.float32)
    off = np.array(offset, otype)
    np.testing.assert_array_equal(run_builder("dynamicslice", x, off, axes=axes, sizes=sizes),
                                  ref_slice(x, off, axes, sizes))
    np.testing.assert_array_equal(run_builder("dynamicupdate", x, off, s, axes=axes, sizes=sizes, noOverlap=1),
                                  ref_update(x, off, s, axes, sizes))
    np.testing.assert_allclose(run_builder("dynamicadd", x, off, s, axes=axes, sizes=sizes),
                               ref_add(x, off, s, axes, sizes), rtol=1e-6)
    np.testing.assert_array_equal(run_builder("dynamiczero", x, off, axes=axes, sizes=sizes),
                                  ref_zero(x, off, axes, sizes))


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int32, np.int64, np.uint8])
def test_dynamic_dtypes(op_tester, dtype):
    x = (np.arange(60) % 17).reshape(3, 4, 5).astype(dtype)
    s = (np.arange(24) % 5 + 1).reshape(3, 4, 2).astype(dtype)
    off = np.array([2], np.uint32)
    a = {"axes": [2], "sizes": [2]}
    op_tester.check("DynamicSlice", [x, off], lambda x, o: ref_slice(x, o, [2], [2]), attrs=a, domain=GC)
    op_tester.check("DynamicUpdate", [x, off, s], lambda x, o, s: ref_update(x, o, s, [2], [2]), attrs=a, domain=GC)
    op_tester.check("DynamicAdd", [x, off, s], lambda x, o, s: ref_add(x, o, s, [2], [2]), attrs=a, domain=GC)
    op_tester.check("DynamicZero", [x, off], lambda x, o: ref_zero(x, o, [2], [2]), attrs=a, domain=GC)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("shape,axes,sizes,offset", CASES[:3])
def test_dynamic_grads(op_tester, dtype, shape, axes, sizes, offset):
    rs = np.random.RandomState(1)
    x = rs.randn(*shape).astype(dtype)
    s = rs.randn(*slice_shape(shape, axes, sizes)).astype(dtype)
    off = op_tester.const(np.array(offset, np.int32))
    a = {"axes": axes, "sizes": sizes}
    t = tol(dtype)
    op_tester.check_grad("DynamicSlice", [x, off], lambda x, o: ref_slice(x, o, axes, sizes), attrs=a, domain=GC, **t)
    op_tester.check_grad("DynamicUpdate", [x, off, s], lambda x, o, s: ref_update(x, o, s, axes, sizes),
                         attrs=a, domain=GC, **t)
    op_tester.check_grad("DynamicAdd", [x, off, s], lambda x, o, s: ref_add(x, o, s, axes, sizes),
                         attrs=a, domain=GC, **t)
    op_tester.check_grad("DynamicZero", [x, off], lambda x, o: ref_zero(x, o, axes, sizes), attrs=a, domain=GC, **t)


def test_dynamic_errors(op_tester):
    x = np.zeros((3, 4), np.float32)
    off = np.array([1], np.int32)
    with pytest.raises(popart.popart_exception, match="'axes' .* and 'sizes' .* same length"):
        op_tester.run("DynamicSlice", [x, off], attrs={"axes": [0], "sizes": [1, 1]}, domain=GC)
    with pytest.raises(popart.popart_exception, match="size 5 along axis 1 must be in \\[0, 4\\]"):
        op_tester.run("DynamicSlice", [x, off], attrs={"axes": [1], "sizes": [5]}, domain=GC)
    with pytest.raises(popart.popart_exception, match="axes 2 out of range for rank 2"):
        op_tester.run("DynamicZero", [x, off], attrs={"axes": [2], "sizes": [1]}, domain=GC)
    with pytest.raises(popart.popart_exception, match="offset \\(input 1\\) has type FLOAT"):
        op_tester.run("DynamicSlice", [x, np.array([1.0], np.float32)], attrs={"axes": [0], "sizes": [1]}, domain=GC)
    with pytest.raises(popart.popart_exception, match="offset \\(input 1\\) has shape \\[2\\], expected \\[1\\]"):
        op_tester.run("DynamicSlice", [x, np.array([1, 1], np.int32)], attrs={"axes": [0], "sizes": [1]}, domain=GC)
    with pytest.raises(popart.popart_exception, match="slice \\(input 2\\) has shape \\[3,2\\], expected \\[3,1\\]"):
        op_tester.run("DynamicUpdate", [x, off, np.zeros((3, 2), np.float32)], attrs={"axes": [1], "sizes": [1]},
                      domain=GC)
