"""Expand, Tile, OneHot, Range, EyeLike and NonZero (constant input only), against numpy."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart

ALL = [np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64, np.bool_]


def run_with_constant_nodes(op_tester, op_type, inputs, attrs=None, opset=11, num_outputs=1):
    """Like op_tester.run, but const inputs become Constant nodes (float initializers are weights)."""
    model, feeds, outs = op_tester.build(op_type, inputs, attrs, opset, num_outputs=num_outputs)
    m = onnx.load_from_string(model)
    nodes = [oh.make_node("Constant", [], [t.name], value=t) for t in m.graph.initializer] + list(m.graph.node)
    del m.graph.initializer[:]
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    s = popart.InferenceSession(m.SerializeToString(), popart.DataFlow(1, outs),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, res))
    return [res[o] for o in outs]


def rand(shape, dtype, seed=0):
    x = np.asarray(np.random.RandomState(seed).randn(*shape) * 5)
    return (x > 0) if dtype == np.bool_ else x.astype(dtype)



@pytest.mark.parametrize("xs,shape", [((3, 1), (2, 1, 6)), ((3, 4), (4,)), ((1,), (2, 3)), ((), (3, 2)),
                                      ((2, 1, 4), (2, 3, 1)), ((4, 1), (4, 500)), ((1, 300), (7, 300)),
                                      ((2, 3), (1, 1, 2, 3)), ((3, 1), (3, 0))])
@pytest.mark.parametrize("opset", [8, 13])
def test_expand(op_tester, xs, shape, opset):
    x = rand(xs, np.float32)
    s = op_tester.const(np.array(shape, np.int64))
    op_tester.check("Expand", [x, s], reference=lambda x, s: x * np.ones(s, np.float32), opset=opset)


@pytest.mark.parametrize("dtype", ALL)
def test_expand_dtypes(op_tester, dtype):
    x = rand((3, 1), dtype)
    op_tester.check("Expand", [x, op_tester.const(np.array([2, 3, 4], np.int64))],
                    reference=lambda x, s: np.broadcast_to(x, (2, 3, 4)), opset=13)


def test_expand_errors(op_tester):
    x = rand((3, 2), np.float32)
    with pytest.raises(popart.popart_exception):
        op_tester.run("Expand", [x, op_tester.const(np.array([4, 3], np.int64))], opset=13)
    with pytest.raises(popart.popart_exception, match="must be a constant"):
        op_tester.run("Expand", [x, np.array([3, 2], np.int64)], opset=13)


@pytest.mark.parametrize("xs,reps", [((3,), (2,)), ((2, 3), (2, 2)), ((2, 3), (1, 3)), ((2, 3, 4), (2, 1, 3)),
                                     ((4, 5), (0, 2)), ((200, 3), (2, 50)), ((), ())])
@pytest.mark.parametrize("opset", [6, 13])
def test_tile(op_tester, xs, reps, opset):
    x = rand(xs, np.float32)
    op_tester.check("Tile", [x, op_tester.const(np.array(reps, np.int64))],
                    reference=lambda x, r: np.tile(x, reps), opset=opset)


@pytest.mark.parametrize("dtype", ALL)
def test_tile_dtypes(op_tester, dtype):
    x = rand((2, 3), dtype)
    op_tester.check("Tile", [x, op_tester.const(np.array([3, 2], np.int64))],
                    reference=lambda x, r: np.tile(x, (3, 2)), opset=13)


def test_tile_opset1(op_tester):
    x = rand((2, 3), np.float32)
    op_tester.check("Tile", [x, op_tester.const(np.array(3, np.int64)), op_tester.const(np.array(1, np.int64))],
                    reference=lambda x, t, a: np.tile(x, (1, 3)), opset=1)


def test_tile_errors(op_tester):
    x = rand((2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="repeats has 1 values, the input has rank 2"):
        op_tester.run("Tile", [x, op_tester.const(np.array([2], np.int64))], opset=13)
    with pytest.raises(popart.popart_exception, match="negative"):
        op_tester.run("Tile", [x, op_tester.const(np.array([2, -1], np.int64))], opset=13)


def np_onehot(idx, depth, values, axis):
    idx = np.asarray(idx).astype(np.int64)
    idx = np.where(idx < 0, idx + depth, idx)
    hot = np.arange(depth).reshape((1,) * idx.ndim + (depth,)) == idx[..., None]
    out = np.where(hot, values[1], values[0]).astype(values.dtype)
    return np.moveaxis(out, -1, axis if axis >= 0 else axis + idx.ndim + 1)


@pytest.mark.parametrize("shape,axis", [((5,), -1), ((5,), 0), ((2, 3), 1), ((2, 3), -3), ((2, 3), 2),
                                        ((4, 200), 1)])
@pytest.mark.parametrize("opset", [9, 11])
def test_onehot(op_tester, shape, axis, opset):
    depth = 7
    idx = np.random.RandomState(0).randint(-depth, depth + 2, size=shape).astype(np.int64)  # some out of range
    values = np.array([0.5, 3.0], np.float32)
    op_tester.check("OneHot", [idx, op_tester.const(np.array(depth, np.int64)), values],
                    reference=lambda i, d, v: np_onehot(i, depth, v, axis), attrs={"axis": axis}, opset=opset)


@pytest.mark.parametrize("itype", [np.int32, np.int64, np.uint8, np.float32])
@pytest.mark.parametrize("vtype", [np.float32, np.float16, np.int64, np.int32, np.bool_])
def test_onehot_dtypes(op_tester, itype, vtype):
    idx = np.array([[0, 2], [4, 1]]).astype(itype)
    values = np.array([0, 1]).astype(vtype)
    depth = np.array([5.0], np.float32)
    (y,) = run_with_constant_nodes(op_tester, "OneHot", [idx, op_tester.const(depth), values], opset=11)
    np.testing.assert_array_equal(y, np_onehot(idx, 5, values, -1))


def test_onehot_errors(op_tester):
    idx = np.array([0, 1], np.int64)
    with pytest.raises(popart.popart_exception, match="must be a constant"):
        op_tester.run("OneHot", [idx, np.array(3, np.int64), np.array([0, 1], np.float32)], opset=11)
    with pytest.raises(popart.popart_exception, match="values must have two elements"):
        op_tester.run("OneHot", [idx, op_tester.const(np.array(3)), np.array([0, 1, 2], np.float32)], opset=11)
    with pytest.raises(popart.popart_exception, match="axis 3 out of range"):
        op_tester.run("OneHot", [idx, op_tester.const(np.array(3)), np.array([0, 1], np.float32)],
                      attrs={"axis": 3}, opset=11)


@pytest.mark.parametrize("start,limit,delta", [(0, 10, 1), (1, 10, 3), (10, 1, -3), (5, 5, 1), (10, 0, 2),
                                               (-7, 8, 5), (0, 1000, 1)])
@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.int64, np.float32, np.float64])
def test_range(op_tester, start, limit, delta, dtype):
    args = [op_tester.const(np.array(v, dtype)) for v in (start, limit, delta)]
    (y,) = run_with_constant_nodes(op_tester, "Range", args, opset=11)
    np.testing.assert_array_equal(y, np.arange(start, limit, delta, dtype=dtype))
    assert y.dtype == dtype


def test_range_fractional(op_tester):
    args = [op_tester.const(np.array(v, np.float32)) for v in (0.5, 3.2, 0.7)]
    (y,) = run_with_constant_nodes(op_tester, "Range", args, opset=11)
    np.testing.assert_allclose(y, [0.5, 1.2, 1.9, 2.6], rtol=1e-6)


def test_range_errors(op_tester):
    c = lambda v, t=np.int64: op_tester.const(np.array(v, t))  # noqa: E731
    with pytest.raises(popart.popart_exception, match="delta must not be 0"):
        op_tester.run("Range", [c(0), c(5), c(0)], opset=11)
    with pytest.raises(popart.popart_exception, match="input 1 has type INT32"):
        op_tester.run("Range", [c(0), c(5, np.int32), c(1)], opset=11)
    with pytest.raises(popart.popart_exception, match="must be a constant"):
        op_tester.run("Range", [np.array(0, np.int64), c(5), c(1)], opset=11)


@pytest.mark.parametrize("shape,k", [((3, 3), 0), ((3, 5), 1), ((5, 3), -2), ((4, 4), 4), ((2, 6), -3)])
@pytest.mark.parametrize("dtype", ALL)
def test_eyelike(op_tester, shape, k, dtype):
    x = rand(shape, dtype)
    op_tester.check("EyeLike", [x], reference=lambda x: np.eye(*shape, k=k, dtype=dtype), attrs={"k": k}, opset=9)


@pytest.mark.parametrize("to,np_to", [(onnx.TensorProto.FLOAT, np.float32), (onnx.TensorProto.INT32, np.int32),
                                      (onnx.TensorProto.BOOL, np.bool_), (onnx.TensorProto.FLOAT16, np.float16)])
def test_eyelike_dtype_attr(op_tester, to, np_to):
    x = rand((3, 4), np.int64)
    op_tester.check("EyeLike", [x], reference=lambda x: np.eye(3, 4, dtype=np_to), attrs={"dtype": to}, opset=9)


def test_eyelike_errors(op_tester):
    with pytest.raises(popart.popart_exception, match="must be 2-D"):
        op_tester.run("EyeLike", [np.ones((2, 2, 2), np.float32)], opset=9)


@pytest.mark.parametrize("x", [np.array([[1, 0], [1, 1]], np.int32), np.array([0.0, 2.0, np.nan, -1.0], np.float32),
                               np.zeros((2, 3), np.float16), np.array([[[True, False], [False, True]]]),
                               np.arange(24, dtype=np.int64).reshape(2, 3, 4) % 5])
@pytest.mark.parametrize("opset", [9, 13])
def test_nonzero_constant_folds(op_tester, x, opset):
    (y,) = run_with_constant_nodes(op_tester, "NonZero", [op_tester.const(x)], opset=opset)
    np.testing.assert_array_equal(y, np.array(np.nonzero(x), np.int64))
    assert y.dtype == np.int64


def test_nonzero_needs_constant(op_tester):
    with pytest.raises(popart.popart_exception, match="compile time: the output shape depends"):
        op_tester.run("NonZero", [np.ones((2, 2), np.float32)], opset=13)


def test_nonzero_feeds_gather_chain(op_tester):
    """Constant NonZero -> Transpose -> output: the whole chain folds at import."""
    data = np.array([[0, 3], [4, 0]], np.float32)
    nodes = [oh.make_node("Constant", [], ["c"], value=onnx.numpy_helper.from_array(data, "c")),
             oh.make_node("NonZero", ["c"], ["nz"]), oh.make_node("Transpose", ["nz"], ["y"], perm=[1, 0]),
             oh.make_node("Identity", ["x"], ["xo"])]
    g = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])],
                      [oh.make_tensor_value_info("y", onnx.TensorProto.INT64, None),
                       oh.make_tensor_value_info("xo", onnx.TensorProto.FLOAT, [1])])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 13)])
    m.ir_version = 8
    s = popart.InferenceSession(m.SerializeToString(), popart.DataFlow(1, ["y"]),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": np.ones(1, np.float32)}, out))
    np.testing.assert_array_equal(out["y"], np.transpose(np.nonzero(data)))
