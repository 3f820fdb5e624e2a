"""Neural-network ops of popxl.ops: pooling, convolutions, normalisations, interpolation, roi_align,
the NLL losses and print_tensor. Spatial ops take [N, C, *spatial] tensors; padding lists are
(begin of each spatial axis..., end of each spatial axis...)."""
from typing import Optional, Tuple

import numpy as np

from popxl.ops import _checks
from popxl.ops._core import _GC, _op
from popxl.tensor import Tensor, constant

_AUTO_PAD = {"not_set": "NOTSET", "same_upper": "SAME_UPPER", "same_lower": "SAME_LOWER", "valid": "VALID"}


def _spatial(name, t, what, v, n, default):
    if v is None:
        return [default] * n
    v = [int(x) for x in v]
    if len(v) != n:
        raise ValueError(f"{name}: '{what}' {v} of tensor '{t.id}' needs {n} entries")
    return v


def _window_attrs(name, t, kernel, stride, padding, dilation, pad_type):
    if t.rank < 3:
        raise ValueError(f"{name}: tensor '{t.id}' {t.shape} must be [N, C, *spatial] with spatial dims")
    n = t.rank - 2
    if pad_type not in _AUTO_PAD:
        raise ValueError(f"{name}: pad_type '{pad_type}' is not one of {sorted(_AUTO_PAD)}")
    attrs = {"strides": _spatial(name, t, "stride", stride, n, 1),
             "pads": _spatial(name, t, "padding", padding, 2 * n, 0),
             "dilations": _spatial(name, t, "dilation", dilation, n, 1),
             "auto_pad": _AUTO_PAD[pad_type]}
    if kernel is not None:
        attrs["kernel_shape"] = _spatial(name, t, "kernel_size", kernel, n, 1)
    if pad_type != "not_set":
        del attrs["pads"]
    return attrs


def _no_poplar_only(name, t, **kw):
    for what, v in kw.items():
        if v is not None and any(int(x) != d for x, d in zip(v, [kw_defaults[what]] * len(v))):
            raise ValueError(f"{name}: '{what}' {list(v)} of tensor '{t.id}' is not supported (only its "
                             f"default {kw_defaults[what]} per axis)")


kw_defaults = {"out_pads": 0, "in_dilation": 1}


def average_pool(t: Tensor, kernel_size: Tuple[int, ...], stride=None, padding=None, out_pads=None,
                 dilation=None, in_dilation=None, auto_pad: str = "not_set", ceil_mode: bool = False) -> Tensor:
    """Average over kernel_size windows of t [N, C, *spatial]; padded positions are not counted."""
    _checks.floating("average_pool", t)
    _no_poplar_only("average_pool", t, out_pads=out_pads, in_dilation=in_dilation)
    attrs = _window_attrs("average_pool", t, kernel_size, stride, padding, dilation, auto_pad)
    attrs["ceil_mode"] = int(ceil_mode)
    return _op("AveragePool", [t], attrs, version=19)[0]


def max_pool(t: Tensor, kernel_size: Tuple[int, ...], stride=None, padding=None, out_pads=None, dilation=None,
             in_dilation=None, auto_pad: str = "not_set", ceil_mode: bool = False,
             storage_order: str = "row") -> Tensor:
    """Maximum over kernel_size windows of t [N, C, *spatial]."""
    _checks.floating("max_pool", t)
    _no_poplar_only("max_pool", t, out_pads=out_pads, in_dilation=in_dilation)
    if storage_order not in ("row", "column"):
        raise ValueError(f"max_pool: storage_order '{storage_order}' is not 'row' or 'column'")
    attrs = _window_attrs("max_pool", t, kernel_size, stride, padding, dilation, auto_pad)
    attrs["ceil_mode"] = int(ceil_mode)
    attrs["storage_order"] = int(storage_order == "column")
    return _op("MaxPool", [t], attrs, version=12)[0]


def _conv_check(name, t, weight, groups):
    _checks.floating(name, t)
    _checks.floating(name, weight, "weight")
    _checks.same_dtype(name, t, weight)
    if weight.rank != t.rank:
        raise ValueError(f"{name}: weight '{weight.id}' {weight.shape} and input '{t.id}' {t.shape} must have "
                         "the same rank")
    if not isinstance(groups, (int, np.integer)) or groups < 1 or t.shape[1] % groups:
        raise ValueError(f"{name}: groups={groups!r} must be a positive divisor of the {t.shape[1]} channels of "
                         f"'{t.id}'")


def conv(t: Tensor, weight: Tensor, stride=None, padding=None, dilation=None, groups: int = 1,
         pad_type: str = "not_set", available_memory_proportions=None, partials_types=None,
         enable_conv_dithering=None) -> Tensor:
    """Convolution of t [N, C_in, *spatial] with weight [C_out, C_in / groups, *kernel]."""
    _conv_check("conv", t, weight, groups)
    attrs = _window_attrs("conv", t, None, stride, padding, dilation, pad_type)
    attrs["group"] = int(groups)
    return _op("Conv", [t, weight], attrs, version=11)[0]


def conv_transpose(t: Tensor, weight: Tensor, stride=None, padding=None, dilation=None, groups: int = 1,
                   pad_type: str = "not_set", output_padding=None, output_shape=None,
                   available_memory_proportions=None, partials_types=None, enable_conv_dithering=None) -> Tensor:
    """Transposed convolution of t [N, C_in, *spatial] with weight [C_in, C_out / groups, *kernel]."""
    _conv_check("conv_transpose", t, weight, groups)
    attrs = _window_attrs("conv_transpose", t, None, stride, padding, dilation, pad_type)
    attrs["group"] = int(groups)
    n = t.rank - 2
    if output_padding is not None:
        attrs["output_padding"] = _spatial("conv_transpose", t, "output_padding", output_padding, n, 0)
    if output_shape is not None:
        attrs["output_shape"] = _spatial("conv_transpose", t, "output_shape", output_shape, n, 0)
    return _op("ConvTranspose", [t, weight], attrs, version=11)[0]


def batch_norm_inference(t: Tensor, scale: Tensor, bias: Tensor, mean: Tensor, var: Tensor,
                         epsilon: float = 1e-5, momentum: float = 0.9) -> Tensor:
    """(t - mean) / sqrt(var + epsilon) * scale + bias per channel (axis 1) with the given statistics."""
    _checks.floating("batch_norm_inference", t)
    for what, p in (("scale", scale), ("bias", bias), ("mean", mean), ("var", var)):
        _checks.tensor("batch_norm_inference", p, what)
        if t.rank < 2 or p.shape != (t.shape[1],):
            raise ValueError(f"batch_norm_inference: {what} '{p.id}' has shape {p.shape}, expected "
                             f"({t.shape[1] if t.rank > 1 else '?'},) for input '{t.id}' {t.shape}")
    attrs = {"epsilon": float(epsilon), "momentum": float(momentum), "training_mode": 0}
    return _op("BatchNormalization", [t, scale, bias, mean, var], attrs, version=15)[0]


def group_norm(t: Tensor, weight: Tensor, bias: Tensor, num_groups: int, eps: float = 1e-5) -> Tensor:
    """Group normalisation of t [N, C, ...]: the C channels in num_groups groups, each normalised over its
    channels and the other axes, then scaled by weight [C] and shifted by bias [C]."""
    _checks.floating("group_norm", t)
    if t.rank < 2:
        raise ValueError(f"group_norm: tensor '{t.id}' {t.shape} must be [N, C, ...]")
    c = t.shape[1]
    for what, p in (("weight", weight), ("bias", bias)):
        _checks.tensor("group_norm", p, what)
        if p.shape != (c,):
            raise ValueError(f"group_norm: {what} '{p.id}' has shape {p.shape}, expected ({c},)")
    if not isinstance(num_groups, (int, np.integer)) or num_groups < 1 or c % num_groups:
        raise ValueError(f"group_norm: num_groups={num_groups!r} must divide the {c} channels of '{t.id}'")
    return _op("GroupNormalization", [t, weight, bias], {"num_groups": int(num_groups), "epsilon": float(eps)},
               domain=_GC, n_out=3)[0]


def layer_norm(t: Tensor, weight: Tensor, bias: Tensor, eps: float = 1e-5) -> Tensor:
    """Layer normalisation of t [N, C, ...]: each sample normalised over all its values, then scaled by
    weight [C] and shifted by bias [C] (group_norm with one group)."""
    return group_norm(t, weight, bias, 1, eps)


_RESIZE_MODES = ("nearest", "linear", "cubic")


def interpolate(t: Tensor, scale_factor=(1.0, 1.0, 1.0, 1.0), mode: str = "nearest",
                nearest_mode: str = "round_prefer_floor", coordinate_transformation_mode: str = "half_pixel") -> Tensor:
    """t resized by scale_factor (one per axis; output dims floor(d * scale)) with nearest, linear or cubic
    interpolation (ONNX Resize semantics)."""
    _checks.tensor("interpolate", t)
    sc = [float(s) for s in scale_factor]
    if len(sc) != t.rank or any(s <= 0 for s in sc):
        raise ValueError(f"interpolate: scale_factor {sc} needs {t.rank} positive entries for tensor '{t.id}'")
    if mode not in _RESIZE_MODES:
        raise ValueError(f"interpolate: mode '{mode}' is not one of {_RESIZE_MODES}")
    roi = constant(np.zeros((0,), np.float32), name="roi")
    scales = constant(np.asarray(sc, np.float32), name="scales")
    attrs = {"mode": mode, "nearest_mode": nearest_mode,
             "coordinate_transformation_mode": coordinate_transformation_mode}
    return _op("Resize", [t, roi, scales], attrs, version=13)[0]


def roi_align(t: Tensor, rois: Tensor, batch_index: Tensor, output_size: Tuple[int, int], spatial_scale: float,
              sampling_ratio: int, aligned: bool = True) -> Tensor:
    """The regions `rois` [R, 4] (x1, y1, x2, y2) of images batch_index [R] of t [N, C, H, W], each averaged
    into output_size bins by bilinear sampling: [R, C, *output_size]. aligned shifts the corners by half a
    pixel."""
    from popxl.ops._math import cast
    from popxl.dtypes import int64
    _checks.floating("roi_align", t)
    _checks.floating("roi_align", rois, "rois")
    _checks.integral("roi_align", batch_index, "batch_index")
    if t.rank != 4 or rois.rank != 2 or rois.shape[1] != 4 or batch_index.shape != (rois.shape[0],):
        raise ValueError(f"roi_align: expected t [N, C, H, W], rois [R, 4], batch_index [R]; got '{t.id}' "
                         f"{t.shape}, '{rois.id}' {rois.shape}, '{batch_index.id}' {batch_index.shape}")
    h, w = (int(x) for x in output_size)
    attrs = {"output_height": h, "output_width": w, "spatial_scale": float(spatial_scale),
             "sampling_ratio": int(sampling_ratio), "mode": "avg",
             "coordinate_transformation_mode": "half_pixel" if aligned else "output_half_pixel"}
    bi = batch_index if batch_index.dtype == int64 else cast(batch_index, int64)
    return _op("RoiAlign", [t, rois, bi], attrs, version=16)[0]


_LOSS_REDUCTION = {"sum": 0, "mean": 1, "none": 2}


def _nll_check(name, probs, target, reduction):
    _checks.floating(name, probs, "probs")
    _checks.integral(name, target, "target")
    if reduction not in _LOSS_REDUCTION:
        raise ValueError(f"{name}: reduction '{reduction}' is not one of {sorted(_LOSS_REDUCTION)}")
    if probs.shape[:-1] != target.shape:
        raise ValueError(f"{name}: target '{target.id}' has shape {target.shape}, expected {probs.shape[:-1]} for "
                         f"probabilities '{probs.id}' {probs.shape}")


def nll_loss(probs: Tensor, target: Tensor, ignore_index: Optional[int] = None, reduction: str = "mean",
             log_prob: bool = False) -> Tensor:
    """Negative log-likelihood -log(probs[..., target]) (-probs[..., target] when log_prob), summed, averaged
    over the targets not equal to ignore_index, or per sample (reduction 'none')."""
    _nll_check("nll_loss", probs, target, reduction)
    attrs = {"reduction": _LOSS_REDUCTION[reduction], "inputIsLogProbability": int(log_prob)}
    if ignore_index is not None:
        attrs["ignoreIndex"] = int(ignore_index)
    return _op("Nll", [probs, target], attrs, domain=_GC)[0]


def nll_loss_with_softmax_grad(probs: Tensor, target: Tensor, loss_grad=1, ignore_index: Optional[int] = None,
                               reduction: str = "mean") -> Tuple[Tensor, Tensor]:
    """nll_loss of probs = softmax(logits) and its gradient with respect to the logits,
    loss_grad * (probs - onehot(target)) (reduced like the loss; zero for ignored targets)."""
    from popxl.ops._core import mul, sub
    from popxl.ops._math import cast
    _nll_check("nll_loss_with_softmax_grad", probs, target, reduction)
    loss = nll_loss(probs, target, ignore_index, reduction)
    npt = probs.dtype.as_numpy()
    depth = constant(np.asarray(probs.shape[-1], np.int64), name="depth")
    values = constant(np.asarray([0, 1], npt), name="onehot_values")
    dx = sub(probs, _op("OneHot", [target, depth, values], {"axis": -1}, version=11)[0])
    count = float(target.nelms)
    if ignore_index is not None:
        from popxl.ops._elementwise import equal, sum as _sum
        from popxl.ops._elementwise import logical_not
        keep = cast(logical_not(equal(target, constant(np.asarray(ignore_index, target.dtype.as_numpy())))),
                    probs.dtype)
        dx = mul(dx, _op("Unsqueeze", [keep, constant(np.asarray([-1], np.int64))], version=13)[0])
        if reduction == "mean":
            n = _op("Max", [_sum(keep), constant(np.asarray(1, npt))])[0]
            dx = _op("Div", [dx, n])[0]
    elif reduction == "mean":
        dx = mul(dx, constant(np.asarray(1.0 / count, npt)))
    g = loss_grad if isinstance(loss_grad, Tensor) else constant(np.asarray(loss_grad, npt), name="loss_grad")
    if reduction == "none" and isinstance(loss_grad, Tensor) and loss_grad.rank:
        g = _op("Unsqueeze", [g, constant(np.asarray([-1], np.int64))], version=13)[0]
    return loss, mul(dx, g)


_FLOAT_FORMATS = {"auto": 0, "fixed": 1, "scientific": 2, "none": 3}


def print_tensor(t: Tensor, title: Optional[str] = None, print_self: bool = True, print_gradient: bool = False,
                 summarise_threshold: int = 1000, edge_items: int = 3, max_line_width: int = 75, digits: int = 8,
                 float_format: str = "auto", separator: str = " ", open_bracket: str = "[",
                 close_bracket: str = "]") -> Tensor:
    """t unchanged, printing it at each run when print_self (title: t's id by default), and its gradient
    when print_gradient."""
    _checks.tensor("print_tensor", t)
    if float_format not in _FLOAT_FORMATS:
        raise ValueError(f"print_tensor: float_format '{float_format}' is not one of {sorted(_FLOAT_FORMATS)}")
    if not print_self and not print_gradient:
        return _op("Nop", [t], domain=_GC, name=f"{t.id}_print")[0]
    attrs = {"print_gradient": int(print_gradient), "title": title if title is not None else t.id,
             "summariseThreshold": int(summarise_threshold), "edgeItems": int(edge_items),
             "maxLineWidth": int(max_line_width), "digits": int(digits), "floatFormat": _FLOAT_FORMATS[float_format],
             "separator": separator, "openBracket": open_bracket, "closeBracket": close_bracket,
             "print_self": int(print_self)}
    return _op("PrintTensor", [t], attrs, domain=_GC)[0]
