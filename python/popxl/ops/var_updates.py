"""popxl.ops.var_updates: ops that update a tensor (usually a variable) in place and return it, and the
Adam/Lamb updater terms.

The in-place ops modify their first argument ``t``: later reads of ``t`` (and of the returned tensor,
an alias of it) see the new value, and a variable keeps it across ``Session.run`` calls. Updaters ``X``
must have the shape of ``t`` (no broadcasting) but may have another float type (mixed precision). A
factor is a Python number (fixed when the graph is built) or a scalar tensor (read at every run).
"""
import enum
from numbers import Real
from typing import Dict, Optional, Union

from popxl import context
from popxl.ops._core import _GC, _op, _sequence
from popxl.tensor import Tensor

Factor = Union[float, Tensor]


class _Accumulation(enum.IntEnum):
    """PopART's AccumulationType values (cpp/src/ops/var_update.hpp)."""
    Add = 0
    DampenedAdd = 1
    DampenedAddSquare = 2
    DecayAdd = 3
    DecayAddSquare = 4
    MovingAverage = 5
    MovingAverageSquare = 6
    Infinity = 7
    Mean = 8


class _AdamMode(enum.IntEnum):
    """popart.AdamMode values."""
    Adam = 0
    AdamNoBias = 1
    AdaMax = 2
    Lamb = 3
    LambNoBias = 4


def _base(t: Tensor) -> str:
    return t.id.rsplit("/", 1)[-1]


def _check_tensor(g, t, what: str, op: str) -> None:
    g._check_in_graph(t, f"{op}: {what}")


def _hyper(g, op: str, what: str, value, ins: Dict[int, str], index: int, attrs: dict, attr: str) -> None:
    """Connects hyper-parameter `value` as scalar tensor input `index` or float attribute `attr`."""
    if isinstance(value, Tensor):
        _check_tensor(g, value, what, op)
        if value.nelms != 1:
            raise ValueError(f"{op}: {what} '{value.id}' must be a scalar tensor, got shape {value.shape}")
        ins[index] = value.id
        return
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{op}: {what} must be a float or a scalar popxl.Tensor, got {type(value).__name__}")
    attrs[attr] = float(value)


def _create(op_type: str, ins: Dict[int, str], attrs: dict, name: str, n_out: int = 1):
    """Creates internal op `op_type` with (possibly sparse) inputs `ins`; returns its outputs."""
    g = context.get_current_graph()
    outs = {i: g._new_id(name) for i in range(n_out)}
    pb_op = g._pb_graph.createConnectedOp(_GC, op_type, 0, ins, outs, attrs, "")
    _sequence(g, pb_op)
    return [g._wrap(outs[i]) for i in range(n_out)]


def _accumulate(op: str, t: Tensor, X: Tensor, kind: _Accumulation, f: Optional[Factor]) -> Tensor:
    g = context.get_current_graph()
    _check_tensor(g, t, "t", op)
    _check_tensor(g, X, "X", op)
    ins = {0: t.id, 1: X.id}
    attrs = {"type": int(kind)}
    if f is not None:
        _hyper(g, op, "factor f", f, ins, 2, attrs, "factor")
    return _create("Accumulate", ins, attrs, f"{_base(t)}_{op}")[0]


def accumulate_(t: Tensor, X: Tensor, f: Optional[Factor] = None) -> Tensor:
    """t = t + f * X in place (t = t + X when `f` is None); returns the updated t. Integer t and X
    (without `f`) add exactly, as ops.add_ does."""
    if f is None and isinstance(t, Tensor) and isinstance(X, Tensor) and t.dtype.is_int and X.dtype == t.dtype:
        from popxl.ops._core import add_
        g = context.get_current_graph()
        _check_tensor(g, t, "t", "accumulate_")
        _check_tensor(g, X, "X", "accumulate_")
        if t.shape != X.shape:
            raise ValueError(f"accumulate_: X '{X.id}' has shape {X.shape}, t '{t.id}' has shape {t.shape}: they "
                             "must match")
        return add_(t, X)
    kind = _Accumulation.Add if f is None else _Accumulation.DampenedAdd
    return _accumulate("accumulate_", t, X, kind, f)


def accumulate_square_(t: Tensor, X: Tensor, f: Factor = 1.0) -> Tensor:
    """t = t + f * X^2 in place; returns the updated t."""
    return _accumulate("accumulate_square_", t, X, _Accumulation.DampenedAddSquare, f)


def accumulate_mean_(t: Tensor, X: Tensor, step: Factor) -> Tensor:
    """Running mean in place: t = t * step / (step + 1) + X / (step + 1), where `step` is the number of
    values t already averages; returns the updated t."""
    return _accumulate("accumulate_mean_", t, X, _Accumulation.Mean, step)


def accumulate_moving_average_(t: Tensor, X: Tensor, f: Factor) -> Tensor:
    """t = f * t + (1 - f) * X in place; returns the updated t."""
    return _accumulate("accumulate_moving_average_", t, X, _Accumulation.MovingAverage, f)


def accumulate_moving_average_square_(t: Tensor, X: Tensor, f: Factor) -> Tensor:
    """t = f * t + (1 - f) * X^2 in place; returns the updated t."""
    return _accumulate("accumulate_moving_average_square_", t, X, _Accumulation.MovingAverageSquare, f)


def sparse_accumulate_(t: Tensor, X: Tensor, indices: Tensor, axis: int = 0, f: Optional[Factor] = None,
                       W: Optional[Tensor] = None) -> Tensor:
    """The accumulate_ of a gather's gradient without forming it: for each position j of `indices`,
    t[..., indices[j], ...] += f * X[..., j, ...] along `axis` (repeated indices add up; negative ones count
    from the end). X has t's shape with dimension `axis` replaced by the shape of `indices`. `W`, the
    gathered tensor, is a layout hint on the IPU; here it is only checked to have t's shape. Returns the
    updated t."""
    op = "sparse_accumulate_"
    g = context.get_current_graph()
    _check_tensor(g, t, "t", op)
    _check_tensor(g, X, "X", op)
    _check_tensor(g, indices, "indices", op)
    if W is not None:
        _check_tensor(g, W, "W", op)
        if W.shape != t.shape:
            raise ValueError(f"{op}: W '{W.id}' has shape {W.shape}, t '{t.id}' has shape {t.shape}")
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"{op}: axis must be an int, got {type(axis).__name__}")
    ins = {0: t.id, 1: X.id, 3: indices.id}
    kind = _Accumulation.Add if f is None else _Accumulation.DampenedAdd
    attrs = {"type": int(kind), "axis": axis}
    if f is not None:
        _hyper(g, op, "factor f", f, ins, 2, attrs, "factor")
    return _create("SparseAccumulate", ins, attrs, f"{_base(t)}_{op}")[0]


def accumulator_scale_(t: Tensor, f: Factor) -> Tensor:
    """t = t * f in place (f = 0 sets t to zero); returns the updated t."""
    g = context.get_current_graph()
    _check_tensor(g, t, "t", "accumulator_scale_")
    ins = {0: t.id}
    attrs: dict = {}
    _hyper(g, "accumulator_scale_", "factor f", f, ins, 1, attrs, "factor")
    return _create("AccumulatorScale", ins, attrs, f"{_base(t)}_scale")[0]


def accumulator_zero_(t: Tensor) -> Tensor:
    """t = 0 in place; returns the updated t."""
    return accumulator_scale_(t, 0.0)


def copy_var_update_(t: Tensor, X: Tensor) -> Tensor:
    """t := X in place (same shape and dtype); returns the updated t."""
    return _op("CopyVarUpdate", [t, X], domain=_GC, name=f"{_base(t)}_copy")[0]


def _updater(op: str, mode: _AdamMode, m: Tensor, v: Tensor, weight, time_step, weight_decay, beta1, beta2,
             epsilon) -> Tensor:
    g = context.get_current_graph()
    _check_tensor(g, m, "acc_first_order", op)
    _check_tensor(g, v, "acc_second_order", op)
    ins = {1: m.id, 2: v.id}
    attrs = {"mode": int(mode)}
    if weight is not None:
        _check_tensor(g, weight, "weight", op)
        ins[0] = weight.id
    if weight_decay is not None:
        if weight is None:
            raise ValueError(f"{op}: weight_decay needs the weight")
        _hyper(g, op, "weight_decay", weight_decay, ins, 4, attrs, "weightDecay")
    if time_step is not None:
        _check_tensor(g, time_step, "time_step", op)
        if time_step.nelms != 1:
            raise ValueError(f"{op}: time_step '{time_step.id}' must be a scalar tensor, got shape {time_step.shape}")
        ins[3] = time_step.id
        _hyper(g, op, "beta1", beta1, ins, 5, attrs, "beta1")
        if beta2 is not None:
            _hyper(g, op, "beta2", beta2, ins, 6, attrs, "beta2")
    _hyper(g, op, "epsilon", epsilon, ins, 7, attrs, "epsilon")
    return _create("AdamUpdater", ins, attrs, f"{_base(m)}_updater")[0]


def _check_bias_args(op: str, time_step, beta1, beta2) -> None:
    if time_step is not None and (beta1 is None or beta2 is None):
        raise ValueError(f"{op}: bias correction (a time_step) needs both beta1 and beta2")


def adam_updater(acc_first_order: Tensor, acc_second_order: Tensor, weight: Optional[Tensor] = None,
                 time_step: Optional[Tensor] = None, weight_decay: Optional[Factor] = None,
                 beta1: Optional[Factor] = None, beta2: Optional[Factor] = None, epsilon: Factor = 1e-07) -> Tensor:
    """The Adam updater term x = m / (sqrt(v) + epsilon) (+ weight_decay * weight), with m, v the first and
    second order accumulators. With a `time_step` tensor the moments are bias corrected: the step is
    incremented in place to t, then m / (1 - beta1^t) and v / (1 - beta2^t) are used. Returns x (m's type)."""
    _check_bias_args("adam_updater", time_step, beta1, beta2)
    mode = _AdamMode.Adam if time_step is not None else _AdamMode.AdamNoBias
    return _updater("adam_updater", mode, acc_first_order, acc_second_order, weight, time_step, weight_decay,
                    beta1, beta2, epsilon)


def lamb_updater(acc_first_order: Tensor, acc_second_order: Tensor, weight: Optional[Tensor] = None,
                 time_step: Optional[Tensor] = None, weight_decay: Optional[Factor] = None,
                 beta1: Optional[Factor] = None, beta2: Optional[Factor] = None, epsilon: Factor = 1e-07) -> Tensor:
    """The Lamb updater term: as adam_updater; the trust ratio is applied by adam_var_update with the squared
    norms of ops.lamb_square."""
    _check_bias_args("lamb_updater", time_step, beta1, beta2)
    mode = _AdamMode.Lamb if time_step is not None else _AdamMode.LambNoBias
    return _updater("lamb_updater", mode, acc_first_order, acc_second_order, weight, time_step, weight_decay,
                    beta1, beta2, epsilon)


def adamax_updater(acc_first_order: Tensor, acc_second_order: Tensor, weight: Optional[Tensor] = None,
                   time_step: Optional[Tensor] = None, weight_decay: Optional[Factor] = None,
                   beta1: Factor = 0.9, epsilon: Factor = 1e-07) -> Tensor:
    """The AdaMax updater term x = m / (1 - beta1^t) / (v + epsilon) (+ weight_decay * weight), with v the
    infinity-norm accumulator (accumulate_ of type max). The `time_step` tensor is required: it is
    incremented in place to t first."""
    if time_step is None:
        raise ValueError("adamax_updater: time_step is required (AdaMax corrects the first moment's bias)")
    return _updater("adamax_updater", _AdamMode.AdaMax, acc_first_order, acc_second_order, weight, time_step,
                    weight_decay, beta1, None, epsilon)


def adam_var_update(t: Tensor, x: Tensor, r1: Optional[Tensor] = None, r2: Optional[Tensor] = None,
                    learning_rate: Optional[Factor] = None, max_weight_norm: Optional[Factor] = None) -> Tensor:
    """t = t - learning_rate * ratio * x in place; returns the updated t. Without `r1` and `r2` the ratio is 1
    (Adam); with them (Lamb: the squared norms of the weight and the updater, from ops.lamb_square) it is
    min(sqrt(r1), max_weight_norm) / sqrt(r2), or 1 when either norm is 0. `learning_rate` None applies x as
    is; `max_weight_norm` None does not clip."""
    op = "adam_var_update"
    g = context.get_current_graph()
    _check_tensor(g, t, "t", op)
    _check_tensor(g, x, "x", op)
    if (r1 is None) != (r2 is None):
        raise ValueError(f"{op}: give both r1 and r2 (the squared norms of the weight and the updater), or neither")
    ins = {0: t.id, 1: x.id}
    attrs: dict = {}
    for idx, r, what in ((2, r1, "r1"), (3, r2, "r2")):
        if r is not None:
            _check_tensor(g, r, what, op)
            ins[idx] = r.id
    if learning_rate is not None:
        _hyper(g, op, "learning_rate", learning_rate, ins, 4, attrs, "learningRate")
    if max_weight_norm is not None:
        _hyper(g, op, "max_weight_norm", max_weight_norm, ins, 5, attrs, "maxWeightNorm")
    return _create("AdamVarUpdate", ins, attrs, f"{_base(t)}_adam_update")[0]


def lamb_square(t: Tensor) -> Tensor:
    """The sum of the squares of t's elements, as a float32 scalar (summed in double precision)."""
    g = context.get_current_graph()
    _check_tensor(g, t, "t", "lamb_square")
    return _create("LambSquare", {0: t.id}, {}, f"{_base(t)}_lamb_square")[0]
