"""Elementwise, reduction and softmax ops of popxl.ops, each one registry op of the IR."""
from typing import Iterable, Optional, Union

from popxl.ops._core import _op
from popxl.tensor import Tensor


def _unary(name, op_type, doc):
    def f(t: Tensor) -> Tensor:
        return _op(op_type, [t])[0]
    f.__name__ = name
    f.__doc__ = doc
    return f


exp = _unary("exp", "Exp", "e**t elementwise.")
log = _unary("log", "Log", "Natural logarithm elementwise.")
sqrt = _unary("sqrt", "Sqrt", "Square root elementwise.")
abs = _unary("abs", "Abs", "|t| elementwise.")
tanh = _unary("tanh", "Tanh", "tanh(t) elementwise.")
sigmoid = _unary("sigmoid", "Sigmoid", "1 / (1 + e**-t) elementwise.")
cos = _unary("cos", "Cos", "cos(t) elementwise.")
sin = _unary("sin", "Sin", "sin(t) elementwise.")
logical_not = _unary("logical_not", "Not", "Logical not of a bool tensor.")


def _axes(t: Tensor, axis):
    if axis is None:
        return list(range(t.rank))
    return [axis] if isinstance(axis, int) else list(axis)


def _reduce(name, op_type):
    def f(t: Tensor, axis: Optional[Union[int, Iterable[int]]] = None, keepdims: bool = False) -> Tensor:
        return _op(op_type, [t], {"axes": _axes(t, axis), "keepdims": int(keepdims)}, version=11)[0]
    f.__name__ = name
    f.__doc__ = f"{op_type} over `axis` (all axes when None), keeping the reduced axes as size 1 if keepdims."
    return f


sum = _reduce("sum", "ReduceSum")
mean = _reduce("mean", "ReduceMean")
max = _reduce("max", "ReduceMax")
min = _reduce("min", "ReduceMin")
prod = _reduce("prod", "ReduceProd")


def softmax(t: Tensor, axis: int) -> Tensor:
    """Softmax along `axis`."""
    return _op("Softmax", [t], {"axis": axis}, version=13)[0]


def log_softmax(t: Tensor, axis: int) -> Tensor:
    """log(softmax(t)) along `axis`."""
    return _op("LogSoftmax", [t], {"axis": axis}, version=13)[0]


def equal(lhs, rhs) -> Tensor:
    """lhs == rhs elementwise (bool)."""
    return _op("Equal", [lhs, rhs])[0]


def maximum(*ts) -> Tensor:
    """Elementwise maximum of the tensors `ts` (one or more, same dtype) with numpy broadcasting."""
    if not ts:
        raise ValueError("maximum: no tensors given")
    return _op("Max", list(ts))[0]


def minimum(lhs, rhs) -> Tensor:
    """Elementwise minimum with broadcasting."""
    return _op("Min", [lhs, rhs])[0]
