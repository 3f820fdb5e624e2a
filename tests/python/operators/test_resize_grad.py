"""Resize/Upsample gradients (the transposed interpolation: dy scatter-added with
the forward's weights) against torch autograd (F.interpolate with the matching
align_corners / half-pixel convention) and finite differences of onnx's reference."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from _movement_grad import check_vs_numeric, check_vs_torch, tol
from test_resize import ref_resize

DTYPES = [np.float32, np.float16, np.float64]


def rand(shape, dtype, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(dtype)


def resize_inputs(x, sizes=None, scales=None, roi=None):
    ins = [x, roi, scales, sizes]
    while ins[-1] is None:
        ins.pop()
    return ins


# (ONNX mode, coordinate_transformation_mode, nearest_mode) -> torch (mode, align_corners)
TORCH_EQUIV = [
    ("nearest", "asymmetric", "floor", "nearest", None),
    ("nearest", "half_pixel", "round_prefer_ceil", "nearest-exact", None),
    ("linear", "half_pixel", None, "linear", False),
    ("linear", "pytorch_half_pixel", None, "linear", False),
    ("linear", "align_corners", None, "linear", True),
    ("cubic", "half_pixel", None, "bicubic", False),
    ("cubic", "align_corners", None, "bicubic", True),
]
TORCH_LINEAR = {1: "linear", 2: "bilinear", 3: "trilinear"}


RESIZE_SHAPES = [((1, 2, 5, 7), (1, 2, 9, 4)), ((2, 1, 4, 4), (2, 1, 8, 3)), ((1, 1, 6), (1, 1, 13)),
                 ((1, 1, 3, 2, 4), (1, 1, 5, 3, 2))]


@pytest.mark.parametrize("mode,coord,nearest,tmode,align,shape,out", [  # torch's bicubic is 2-d only
    (*equiv, *shapes) for equiv in TORCH_EQUIV for shapes in RESIZE_SHAPES
    if equiv[3] != "bicubic" or len(shapes[0]) == 4])
@pytest.mark.parametrize("dtype", DTYPES)
def test_resize_grad_vs_torch(dtype, mode, coord, nearest, tmode, align, shape, out):
    spatial = len(shape) - 2
    attrs = {"mode": mode, "coordinate_transformation_mode": coord}
    if nearest:
        attrs["nearest_mode"] = nearest
    if tmode == "linear":
        tmode = TORCH_LINEAR[spatial]
    kw = {} if align is None else {"align_corners": align}
    x = rand(shape, dtype)
    check_vs_torch("Resize", resize_inputs(x, sizes=np.array(out, np.int64)),
                   lambda x, *_: F.interpolate(x, size=out[2:], mode=tmode, **kw), attrs=attrs, opset=13,
                   **tol(dtype, 10))


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
@pytest.mark.parametrize("coord", ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                   "half_pixel_symmetric"])
@pytest.mark.parametrize("scales", [[1, 1, 2.0, 1.5], [1, 1, 0.6, 0.5]], ids=["up", "down"])
def test_resize_grad_finite_differences(mode, coord, scales):
    # the gradient is linear in dy: finite differences of onnx's reference are exact up to rounding
    scales = np.array(scales, np.float32)
    if coord == "half_pixel_symmetric" and scales[2] == 2.0:
        pytest.skip("onnx's reference mis-rounds exact ties here (see test_resize.py)")
    attrs = {"mode": mode, "coordinate_transformation_mode": coord}
    check_vs_numeric("Resize", resize_inputs(rand((1, 1, 4, 5), np.float64), scales=scales),
                     lambda x, *_: ref_resize(x, scales=scales, **attrs), attrs=attrs, opset=19)


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_resize_grad_antialias_and_exclude_outside(mode):
    sizes = np.array([1, 1, 2, 3], np.int64)
    for attrs in [{"mode": mode, "antialias": 1}, {"mode": mode, "exclude_outside": 1, "cubic_coeff_a": -0.5}]:
        check_vs_numeric("Resize", resize_inputs(rand((1, 1, 5, 7), np.float64, 1), sizes=sizes),
                         lambda x, *_: ref_resize(x, sizes=sizes, **attrs), attrs=attrs, opset=19)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_resize_grad_tf_crop_and_resize(mode):
    # outputs outside the roi take extrapolation_value: no gradient flows from them
    roi = np.array([0, 0, -0.2, 0.3, 1, 1, 0.9, 1.4], np.float32)
    sizes = np.array([1, 1, 4, 5], np.int64)
    attrs = {"mode": mode, "coordinate_transformation_mode": "tf_crop_and_resize", "extrapolation_value": 2.0}
    check_vs_numeric("Resize", resize_inputs(rand((1, 1, 4, 4), np.float64, 2), sizes=sizes, roi=roi),
                     lambda x, *_: ref_resize(x, roi=roi, sizes=sizes, **attrs), attrs=attrs, opset=19)


def test_resize_11_tf_half_pixel_for_nn_grad():
    scales = np.array([1, 1, 1.6, 2.5], np.float32)
    x = rand((1, 2, 3, 2), np.float64, 3)
    attrs = {"mode": "nearest", "coordinate_transformation_mode": "tf_half_pixel_for_nn"}
    def ref(x, *_):  # source index (o + 0.5) / scale, rounded half down, clamped
        iy = np.minimum(np.ceil((np.arange(4) + 0.5) / 1.6 - 0.5).astype(int), 2)
        ix = np.minimum(np.ceil((np.arange(5) + 0.5) / 2.5 - 0.5).astype(int), 1)
        return x[:, :, iy][:, :, :, ix]
    check_vs_numeric("Resize", [x, np.zeros(0, np.float32), scales], ref, attrs=attrs, opset=11)


@pytest.mark.parametrize("op,opset,mode", [("Upsample", 9, "nearest"), ("Upsample", 9, "linear"),
                                           ("Resize", 10, "linear")])
def test_upsample_and_resize_10_grad(op, opset, mode):
    # asymmetric coordinates: nearest is torch's "nearest"; linear has no torch equivalent
    scales = np.array([1, 1, 2, 3], np.float32)
    x = rand((1, 2, 3, 4), np.float64, 4)
    if mode == "nearest":
        check_vs_torch(op, [x, scales], lambda x, s: F.interpolate(x, scale_factor=(2, 3), mode="nearest"),
                       attrs={"mode": mode}, opset=opset)
    else:
        attrs = {"mode": mode, "coordinate_transformation_mode": "asymmetric"}
        check_vs_numeric(op, [x, scales], lambda x, s: ref_resize(x, scales=s, **attrs), attrs={"mode": mode},
                         opset=opset)


def test_resize_grad_large():
    x = rand((2, 3, 40, 50), np.float32, 5)
    check_vs_torch("Resize", resize_inputs(x, sizes=np.array([2, 3, 64, 33], np.int64)),
                   lambda x, *_: F.interpolate(x, size=(64, 33), mode="bilinear", align_corners=False),
                   attrs={"mode": "linear"}, opset=13, atol=1e-5)
