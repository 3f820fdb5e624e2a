"""Elementwise ops of popxl.ops beyond the basic arithmetic: activations and their in-place forms,
fmod, logical and/or, cast, where, increment_mod and scaled_add."""
from typing import Union

import numpy as np

from popxl.ops import _checks
from popxl.ops._core import _GC, _op
from popxl.tensor import Tensor, constant


def _unary_gc(op_type, name, doc, attrs=None):
    def f(t: Tensor) -> Tensor:
        _checks.floating(name, t)
        return _op(op_type, [t], attrs, domain=_GC)[0]
    f.__name__ = name
    f.__doc__ = doc
    return f


gelu = _unary_gc("Gelu", "gelu", "GELU (tanh approximation) elementwise.")
swish = _unary_gc("Swish", "swish", "Swish x * sigmoid(x) elementwise.")
exp_ = _unary_gc("ExpInplace", "exp_", "e**t in place: t is modified and the result aliases t.")
relu_ = _unary_gc("ReluInplace", "relu_", "max(t, 0) in place: t is modified and the result aliases t.")
gelu_ = _unary_gc("GeluInplace", "gelu_", "GELU (tanh approximation) in place: the result aliases t.",
                  {"approximate": "tanh"})
swish_ = _unary_gc("SwishInplace", "swish_", "Swish in place: t is modified and the result aliases t.")


def _copy_into(t: Tensor, value: Tensor) -> Tensor:
    """t := value in place; the result aliases t (the in-place form of an op with no IR in-place variant)."""
    return _op("CopyVarUpdate", [t, value], domain=_GC, name=f"{t.id}_inplace")[0]


def fmod(lhs: Tensor, rhs: Tensor) -> Tensor:
    """Remainder of lhs / rhs with the sign of lhs (C fmod), numpy broadcasting."""
    return _op("Fmod", [lhs, rhs], domain=_GC)[0]


def _as_bool(t):
    from popxl.dtypes import bool as _bool
    if not isinstance(t, Tensor):
        return constant(np.asarray(t, dtype=np.bool_))
    return t if t.dtype == _bool else cast(t, _bool)


def logical_and(lhs: Tensor, rhs: Tensor) -> Tensor:
    """lhs AND rhs elementwise (non-bool inputs are cast to bool first)."""
    return _op("And", [_as_bool(lhs), _as_bool(rhs)])[0]


def logical_or(lhs: Tensor, rhs: Tensor) -> Tensor:
    """lhs OR rhs elementwise (non-bool inputs are cast to bool first)."""
    return _op("Or", [_as_bool(lhs), _as_bool(rhs)])[0]


def cast(t: Tensor, data_type) -> Tensor:
    """t converted to `data_type`."""
    from popxl.dtypes import dtype as _dtype
    _checks.tensor("cast", t)
    dt = _dtype.as_dtype(data_type)
    if dt.name not in _ONNX_TYPES:
        raise TypeError(f"cast: tensor '{t.id}' cannot be cast to {dt.name}")
    return _op("Cast", [t], {"to": _ONNX_TYPES[dt.name]}, version=13)[0]


_ONNX_TYPES = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7, "bool": 9,
               "float16": 10, "float64": 11, "uint32": 12, "uint64": 13, "bfloat16": 16}


def where(condition: Tensor, lhs: Tensor, rhs: Tensor) -> Tensor:
    """lhs where condition is true, rhs elsewhere (numpy broadcasting; a non-bool condition is cast)."""
    _checks.tensor("where", condition, "condition")
    like = lhs if isinstance(lhs, Tensor) else rhs
    if not isinstance(lhs, Tensor):
        lhs = constant(np.asarray(lhs, like.dtype.as_numpy()))
    if not isinstance(rhs, Tensor):
        rhs = constant(np.asarray(rhs, like.dtype.as_numpy()))
    _checks.same_dtype("where", lhs, rhs)
    return _op("Where", [_as_bool(condition), lhs, rhs])[0]


def increment_mod(t: Tensor, increment: float, modulus: float) -> Tensor:
    """(t + increment) mod modulus elementwise."""
    _checks.tensor("increment_mod", t)
    if modulus == 0:
        raise ValueError(f"increment_mod: modulus of tensor '{t.id}' must not be 0")
    return _op("IncrementMod", [t], {"increment": float(increment), "modulus": float(modulus)}, domain=_GC)[0]


def increment_mod_(t: Tensor, increment: float, modulus: float) -> Tensor:
    """increment_mod in place: t is modified and the result aliases t."""
    return _copy_into(t, increment_mod(t, increment, modulus))


def _scale(name, s, like: Tensor):
    if isinstance(s, Tensor):
        if s.nelms != 1:
            raise ValueError(f"{name}: scale tensor '{s.id}' must have one element, it has shape {s.shape}")
        return s
    return None


def scaled_add(X: Tensor, Y: Tensor, a: Union[float, Tensor] = 1.0, b: Union[float, Tensor] = 1.0) -> Tensor:
    """a * X + b * Y (a, b floats or scalar tensors; numpy broadcasting)."""
    _checks.tensor("scaled_add", X, "X")
    _checks.tensor("scaled_add", Y, "Y")
    _checks.same_dtype("scaled_add", X, Y)
    ta, tb = _scale("scaled_add", a, X), _scale("scaled_add", b, X)
    attrs = {}
    if ta is None:
        attrs["scale0"] = float(a)
    if tb is None:
        attrs["scale1"] = float(b)
    ins = [X, Y]
    if ta is not None or tb is not None:
        ins.append(ta if ta is not None else constant(np.asarray(a, X.dtype.as_numpy())))
        ins.append(tb if tb is not None else constant(np.asarray(b, X.dtype.as_numpy())))
    return _op("ScaledAdd", ins, attrs, domain=_GC)[0]


def scaled_add_(X: Tensor, Y: Tensor, a: Union[float, Tensor] = 1.0, b: Union[float, Tensor] = 1.0) -> Tensor:
    """X := a * X + b * Y in place; the result aliases X (Y must broadcast to X's shape)."""
    out = scaled_add(X, Y, a, b)
    if out.shape != X.shape:
        raise ValueError(f"scaled_add_: the result has shape {out.shape}, not the shape {X.shape} of '{X.id}' "
                         "it is written to")
    return _copy_into(X, out)
