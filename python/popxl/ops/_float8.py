"""Float8 ops of popxl.ops: casts to and from float8_143 / float8_152 fused with a power-of-two scale, and
matmul / conv / conv_transpose on float8 operands whose result is scaled by 2**log2_scale.

`log2_scale` is a scalar int32 tensor (a constant, variable or computed tensor), so the scale can change
between runs; its value must lie in [-32, 32), which is checked when the op runs."""
from typing import Optional

import numpy as np

from popxl import dtypes
from popxl.ops._core import _GC, _op
from popxl.ops._nn import _spatial, _window_attrs
from popxl.tensor import Tensor, constant

_FLOAT8 = (dtypes.float8_143, dtypes.float8_152)
_WIDE = (dtypes.float16, dtypes.float32)


def _tensor(op: str, t, what: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}: argument '{what}' must be a popxl.Tensor, got {type(t).__name__}")
    return t


def _float8(op: str, t, what: str) -> Tensor:
    _tensor(op, t, what)
    if t.dtype not in _FLOAT8:
        raise TypeError(f"{op}: tensor '{t.id}' ({what}) is {t.dtype.name}, expected float8_143 or float8_152")
    return t


def _log2_scale(op: str, log2_scale) -> Tensor:
    """The scalar int32 tensor `log2_scale` (a Python int becomes a constant, checked here)."""
    if isinstance(log2_scale, (int, np.integer)) and not isinstance(log2_scale, bool):
        if not -32 <= int(log2_scale) < 32:
            raise ValueError(f"{op}: log2_scale {int(log2_scale)} is outside the supported range [-32, 32)")
        return constant(np.int32(log2_scale), dtypes.int32, name="log2_scale")
    _tensor(op, log2_scale, "log2_scale")
    if log2_scale.dtype != dtypes.int32 or log2_scale.shape != ():
        raise TypeError(f"{op}: log2_scale '{log2_scale.id}' must be a scalar int32 tensor, got "
                        f"{log2_scale.dtype.name} {log2_scale.shape}")
    return log2_scale


def _dtype_attr(op: str, what: str, value, allowed) -> int:
    dt = dtypes.dtype.as_dtype(value) if not isinstance(value, dtypes.dtype) else value
    if dt not in allowed:
        raise TypeError(f"{op}: {what} {dt.name} is not one of {[d.name for d in allowed]}")
    return int(dt._pb_dtype)


def pow2scale_then_cast(t: Tensor, log2_scale: Tensor, data_type: dtypes.dtype = dtypes.float8_143,
                        nan_on_overflow: bool = False) -> Tensor:
    """t * 2**log2_scale rounded to the float8 `data_type` (nearest, ties to even). Values beyond the
    format's range become NaN with `nan_on_overflow`, else its largest value of their sign.

    t: float16 or float32. log2_scale: scalar int32 tensor in [-32, 32). Returns a `data_type` tensor."""
    name = "pow2scale_then_cast"
    _tensor(name, t, "t")
    if t.dtype not in _WIDE:
        raise TypeError(f"{name}: tensor '{t.id}' is {t.dtype.name}, expected float16 or float32")
    attrs = {"to": _dtype_attr(name, "data_type", data_type, _FLOAT8), "nan_on_overflow": int(bool(nan_on_overflow))}
    return _op("Pow2ScaleThenCast", [t, _log2_scale(name, log2_scale)], attrs, domain=_GC)[0]


def cast_then_pow2scale(t: Tensor, log2_scale: Tensor, data_type: dtypes.dtype = dtypes.float16) -> Tensor:
    """The float8 tensor t as `data_type` (float16 or float32) times 2**log2_scale, rounded once.

    log2_scale: scalar int32 tensor in [-32, 32)."""
    name = "cast_then_pow2scale"
    _float8(name, t, "t")
    attrs = {"to": _dtype_attr(name, "data_type", data_type, _WIDE)}
    return _op("CastThenPow2Scale", [t, _log2_scale(name, log2_scale)], attrs, domain=_GC)[0]


def pow2scale_cast_to_fp8(t: Tensor, data_type: dtypes.dtype = dtypes.float8_143, log2_scale: Tensor = None,
                          nan_on_overflow: bool = False) -> Tensor:
    """pow2scale_then_cast with the arguments in fp8_utils' order; log2_scale defaults to 0."""
    return pow2scale_then_cast(t, 0 if log2_scale is None else log2_scale, data_type, nan_on_overflow)


def pow2scale_cast_from_fp8(t: Tensor, data_type: dtypes.dtype = dtypes.float16,
                            log2_scale: Tensor = None) -> Tensor:
    """cast_then_pow2scale with the arguments in fp8_utils' order; log2_scale defaults to 0."""
    return cast_then_pow2scale(t, 0 if log2_scale is None else log2_scale, data_type)


def _no_serialisation(op: str, serialise_mode, serialise_factor):
    mode = getattr(serialise_mode, "name", serialise_mode)
    if mode not in (None, "NoSerialisation", "none") and int(serialise_factor) != 1:
        raise ValueError(f"{op}: serialise_mode {mode} with factor {serialise_factor} is not supported (a CPU "
                         "matmul is not split)")


def _partials(op: str, partials_type):
    if partials_type is not None:
        dt = dtypes.dtype.as_dtype(partials_type) if not isinstance(partials_type, dtypes.dtype) else partials_type
        if dt not in _WIDE:
            raise TypeError(f"{op}: partials_type {dt.name} is not float16 or float32")


def matmul_pow2scaled(lhs: Tensor, rhs: Tensor, log2_scale: Tensor, available_memory_proportion=None,
                      serialise_mode=None, serialise_factor: int = 1, output_type: Optional[dtypes.dtype] = None,
                      partials_type: Optional[dtypes.dtype] = None) -> Tensor:
    """(lhs @ rhs) * 2**log2_scale for float8 lhs and rhs (either format each), with numpy's matmul rules.

    The products are exact in float; they are accumulated in float and the scaled result is rounded once to
    `output_type` (float16 by default, or float32). log2_scale: scalar int32 tensor in [-32, 32)."""
    name = "matmul_pow2scaled"
    _float8(name, lhs, "lhs")
    _float8(name, rhs, "rhs")
    _no_serialisation(name, serialise_mode, serialise_factor)
    _partials(name, partials_type)
    out = _dtype_attr(name, "output_type", output_type or dtypes.float16, _WIDE)
    return _op("MatMulPow2Scaled", [lhs, rhs, _log2_scale(name, log2_scale)], {"output_type": out}, domain=_GC)[0]


def _conv_attrs(op: str, t: Tensor, weight: Tensor, log2_scale, stride, padding, dilation, groups, pad_type):
    _float8(op, t, "t")
    _float8(op, weight, "weight")
    if weight.rank != t.rank:
        raise ValueError(f"{op}: weight '{weight.id}' {weight.shape} and input '{t.id}' {t.shape} must have the "
                         "same rank")
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1 or t.shape[1] % groups:
        raise ValueError(f"{op}: groups={groups!r} must be a positive divisor of the {t.shape[1]} channels of "
                         f"'{t.id}'")
    attrs = _window_attrs(op, t, None, stride, padding, dilation, pad_type)
    attrs["group"] = int(groups)
    return attrs, _log2_scale(op, log2_scale)


def conv_pow2scaled(t: Tensor, weight: Tensor, log2_scale: Tensor, stride=None, padding=None, dilation=None,
                    groups: int = 1, pad_type: str = "not_set", available_memory_proportions=None,
                    partials_types=None, enable_conv_dithering=None) -> Tensor:
    """conv(t, weight) * 2**log2_scale for float8 t [N, C_in, *spatial] and weight [C_out, C_in / groups,
    *kernel], accumulated in float and rounded once to a float16 result. padding lists the begin pads of each
    spatial axis, then the end pads. log2_scale: scalar int32 tensor in [-32, 32)."""
    name = "conv_pow2scaled"
    attrs, s = _conv_attrs(name, t, weight, log2_scale, stride, padding, dilation, groups, pad_type)
    return _op("ConvPow2Scaled", [t, weight, s], attrs, domain=_GC)[0]


def conv_transpose_pow2scaled(t: Tensor, weight: Tensor, log2_scale: Tensor, stride=None, padding=None,
                              dilation=None, groups: int = 1, pad_type: str = "not_set", output_padding=None,
                              output_shape=None, available_memory_proportions=None, partials_types=None,
                              enable_conv_dithering=None) -> Tensor:
    """conv_transpose(t, weight) * 2**log2_scale for float8 t [N, C_in, *spatial] and weight [C_in,
    C_out / groups, *kernel] (ONNX ConvTranspose geometry), accumulated in float and rounded once to float16.
    log2_scale: scalar int32 tensor in [-32, 32)."""
    name = "conv_transpose_pow2scaled"
    attrs, s = _conv_attrs(name, t, weight, log2_scale, stride, padding, dilation, groups, pad_type)
    if weight.shape[0] != t.shape[1]:
        raise ValueError(f"{name}: weight '{weight.id}' {weight.shape} must have {t.shape[1]} rows (the channels "
                         f"of '{t.id}')")
    n = t.rank - 2
    if output_padding is not None:
        attrs["output_padding"] = _spatial(name, t, "output_padding", output_padding, n, 0)
    if output_shape is not None:
        attrs["output_shape"] = _spatial(name, t, "output_shape", output_shape, n, 0)
    return _op("ConvTransposePow2Scaled", [t, weight, s], attrs, domain=_GC)[0]
