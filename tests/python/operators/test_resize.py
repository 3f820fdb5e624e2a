import numpy as np
import onnx
import onnx.helper as oh
import pytest
from onnx.reference import ReferenceEvaluator

import popart


def ref_resize(x, roi=None, scales=None, sizes=None, **attrs):
    """onnx's reference Resize (opset 19)."""
    names = ["X", "roi", "scales", "sizes"]
    vals = [x, roi, scales, sizes]
    node = oh.make_node("Resize", [n if v is not None else "" for n, v in zip(names, vals)], ["Y"], **attrs)
    ins = [oh.make_tensor_value_info(n, oh.np_dtype_to_tensor_dtype(v.dtype), v.shape)
           for n, v in zip(names, vals) if v is not None]
    g = oh.make_graph([node], "g", ins, [oh.make_tensor_value_info("Y", onnx.TensorProto.UNDEFINED, None)])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 19)])
    return ReferenceEvaluator(m).run(None, {n: v for n, v in zip(names, vals) if v is not None})[0]


def run_const(op_tester, op, inputs, attrs=None, opset=19):
    """op_tester.run, with OpTester.const inputs as Constant nodes: float
    initializers are weights (Variables), not compile-time constants."""
    model_bytes, feeds, outs = op_tester.build(op, inputs, attrs, opset)
    m = onnx.load_from_string(model_bytes)
    consts = [oh.make_node("Constant", [], [t.name], value=t) for t in m.graph.initializer]
    del m.graph.initializer[:]
    nodes = consts + list(m.graph.node)
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    df = popart.DataFlow(1, {o: popart.AnchorReturnType("All") for o in outs})
    s = popart.InferenceSession(m.SerializeToString(), df, popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, anchors))
    return anchors[outs[0]]


def run_resize(op_tester, x, roi=None, scales=None, sizes=None, opset=19, **attrs):
    c = op_tester.const
    ins = [x, None if roi is None else c(roi), None if scales is None else c(scales),
           None if sizes is None else c(sizes)]
    while ins[-1] is None:
        ins.pop()
    return run_const(op_tester, "Resize", ins, attrs, opset)


def check(op_tester, x, roi=None, scales=None, sizes=None, opset=19, rtol=1e-5, atol=1e-5, **attrs):
    got = run_resize(op_tester, x, roi, scales, sizes, opset, **attrs)
    want = ref_resize(x, roi, scales, sizes, **attrs)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)


X4 = np.random.default_rng(0).standard_normal((2, 3, 5, 7)).astype(np.float32)
SCALES = [np.array([1, 1, 2.0, 1.5], np.float32), np.array([1, 1, 0.6, 0.5], np.float32),
          np.array([1, 1, 1.7, 0.3], np.float32)]
COORDS = ["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric"]


@pytest.mark.parametrize("scales", SCALES, ids=["up", "down", "mixed"])
@pytest.mark.parametrize("coord", COORDS)
@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_scales(op_tester, scales, coord, mode):
    if coord == "half_pixel_symmetric" and scales is not SCALES[2]:
        # onnx's reference rounds the window start and the weights' ratio separately:
        # a coordinate 1e-16 above an integer gets the wrong neighbour (see below)
        pytest.skip("reference mis-rounds exact ties")
    check(op_tester, X4, scales=scales, mode=mode, coordinate_transformation_mode=coord)


def test_resize_half_pixel_symmetric_exact(op_tester):
    """x_orig = 3.5 * (1 - 3/3.5) + (o + 0.5) / 0.5 - 0.5 = 1, 3, 5 for width 7 -> 3."""
    x = np.arange(7, dtype=np.float32).reshape(1, 1, 1, 7)
    for mode in ["nearest", "linear"]:
        got = run_resize(op_tester, x, scales=np.array([1, 1, 1, 0.5], np.float32), mode=mode,
                         coordinate_transformation_mode="half_pixel_symmetric")
        np.testing.assert_allclose(got.ravel(), [1, 3, 5], atol=1e-6)


@pytest.mark.parametrize("nearest_mode", ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"])
@pytest.mark.parametrize("sizes", [[2, 3, 9, 4], [2, 3, 3, 11], [1, 3, 1, 1]])
def test_resize_nearest_modes_sizes(op_tester, nearest_mode, sizes):
    check(op_tester, X4, sizes=np.array(sizes, np.int64), mode="nearest", nearest_mode=nearest_mode,
          coordinate_transformation_mode="half_pixel")


@pytest.mark.parametrize("mode", ["linear", "cubic"])
@pytest.mark.parametrize("sizes", [[2, 3, 3, 4], [2, 3, 2, 2], [2, 3, 10, 9]])
def test_resize_antialias(op_tester, mode, sizes):
    check(op_tester, X4, sizes=np.array(sizes, np.int64), mode=mode, antialias=1)


@pytest.mark.parametrize("a,exclude", [(-0.5, 1), (-0.75, 1), (-0.5, 0)])
def test_resize_cubic_coeff_and_exclude_outside(op_tester, a, exclude):
    check(op_tester, X4, scales=SCALES[2], mode="cubic", cubic_coeff_a=a, exclude_outside=exclude)


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_tf_crop_and_resize(op_tester, mode):
    roi = np.array([0, 0, 0.1, -0.2, 1, 1, 0.8, 1.3], np.float32)
    check(op_tester, X4, roi=roi, sizes=np.array([2, 3, 4, 6], np.int64), mode=mode,
          coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-3.0)


@pytest.mark.parametrize("policy", ["stretch", "not_larger", "not_smaller"])
@pytest.mark.parametrize("axes", [[2, 3], [3, 2], [-1]])
def test_resize_18_axes_and_aspect_ratio(op_tester, policy, axes):
    sizes = np.array([4, 10][:len(axes)], np.int64)
    got = run_resize(op_tester, X4, sizes=sizes, mode="linear", axes=axes, keep_aspect_ratio_policy=policy)
    want = ref_resize(X4, sizes=sizes, mode="linear", axes=[a % 4 for a in axes], keep_aspect_ratio_policy=policy)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_resize_18_axes_scales_roi(op_tester):
    check(op_tester, X4, roi=np.array([0.2, 0.9], np.float32), scales=np.array([1.5], np.float32), axes=[3],
          mode="linear", coordinate_transformation_mode="tf_crop_and_resize")


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.uint8, np.int8, np.int32])
@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_dtypes(op_tester, dtype, mode):
    x = (np.random.default_rng(1).uniform(0, 100, (1, 2, 4, 5))).astype(dtype)
    tol = 2e-3 if dtype == np.float16 else 1e-5
    # integers round half to even: allow 1 ulp where float and float64 sums straddle .5
    check(op_tester, x, scales=np.array([1, 1, 1.5, 0.7], np.float32), mode=mode, rtol=tol,
          atol=1.0 if np.issubdtype(dtype, np.integer) else tol)


def test_resize_13_empty_roi_and_scales(op_tester):
    """Resize-11/13 models often pass an empty roi and scales with sizes."""
    empty = np.zeros((0,), np.float32)
    got = run_const(op_tester, "Resize", [X4, op_tester.const(empty), op_tester.const(empty),
                                          op_tester.const(np.array([2, 3, 10, 14], np.int64))],
                    {"mode": "nearest"}, opset=13)
    np.testing.assert_array_equal(got, X4.repeat(2, axis=2).repeat(2, axis=3))


def test_resize_11_tf_half_pixel_for_nn(op_tester):
    x = np.arange(6, dtype=np.float32).reshape(1, 1, 1, 6)
    got = run_resize(op_tester, x, roi=np.zeros(0, np.float32), scales=np.array([1, 1, 1, 0.5], np.float32),
                     opset=11, mode="nearest", coordinate_transformation_mode="tf_half_pixel_for_nn")
    # x_orig = (o + 0.5) / 0.5 = 1, 3, 5 -> round_prefer_floor
    np.testing.assert_array_equal(got, x[..., [1, 3, 5]])


@pytest.mark.parametrize("op,opset", [("Resize", 10), ("Upsample", 9), ("Upsample", 7)])
@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_resize_10_and_upsample(op_tester, op, opset, mode):
    """Legacy semantics: asymmetric coordinates, nearest rounds down."""
    x = np.random.default_rng(2).standard_normal((1, 2, 3, 4)).astype(np.float32)
    scales = np.array([1, 1, 2.5, 1.5], np.float32)
    if opset == 7:
        got = op_tester.run(op, [x], attrs={"mode": mode, "scales": scales.tolist()}, opset=opset)[0]
    else:
        got = run_const(op_tester, op, [x, op_tester.const(scales)], {"mode": mode}, opset)
    want = ref_resize(x, scales=scales, mode=mode, coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_resize_identity_and_runs_twice(op_tester):
    x = X4.copy()
    got = run_resize(op_tester, x, scales=np.ones(4, np.float32), mode="cubic")
    np.testing.assert_array_equal(got, x)


def test_resize_errors(op_tester):
    s = np.array([1, 1, 2, 2], np.float32)
    with pytest.raises(popart.popart_exception, match="mode='bicubic' is not supported"):
        run_resize(op_tester, X4, scales=s, mode="bicubic")
    with pytest.raises(popart.popart_exception, match="coordinate_transformation_mode='half_pixel_symmetric'"):
        run_resize(op_tester, X4, scales=s, opset=18, coordinate_transformation_mode="half_pixel_symmetric")
    with pytest.raises(popart.popart_exception, match="nearest_mode='round'"):
        run_resize(op_tester, X4, scales=s, nearest_mode="round")
    with pytest.raises(popart.popart_exception, match="exactly one of scales and sizes"):
        run_resize(op_tester, X4, scales=s, sizes=np.array([2, 3, 4, 4], np.int64))
    with pytest.raises(popart.popart_exception, match="must have 4 values"):
        run_resize(op_tester, X4, scales=s[:2])
    with pytest.raises(popart.popart_exception, match="keep_aspect_ratio_policy='fit'"):
        run_resize(op_tester, X4, sizes=np.array([2, 3, 4, 4], np.int64), keep_aspect_ratio_policy="fit")
    with pytest.raises(popart.popart_exception, match="antialias=1 needs mode linear or cubic"):
        run_resize(op_tester, X4, scales=s, antialias=1)
    with pytest.raises(popart.popart_exception, match="must be a constant"):
        op_tester.run("Resize", [X4, None, s], opset=13)
    with pytest.raises(popart.popart_exception, match="mode='cubic' is not supported"):
        run_const(op_tester, "Resize", [X4, op_tester.const(s)], {"mode": "cubic"}, opset=10)
