"""popxl.ops elementwise ops against numpy/torch: values, dtypes, broadcasting, float16, gradients, in-place
forms and bad input."""
import numpy as np
import pytest

from popxl_run import check, check_grad, rand, run, run_inplace
import popxl
import popxl.ops as ops
import torch
import torch.nn.functional as F

SHAPES = [(3,), (2, 3), (2, 1, 4)]
FLOATS = [np.float32, np.float16]

UNARY = {  # name: (popxl op, torch fn, input range)
    "abs": (ops.abs, torch.abs, (-2, 2)),
    "cos": (ops.cos, torch.cos, (-2, 2)),
    "sin": (ops.sin, torch.sin, (-2, 2)),
    "exp": (ops.exp, torch.exp, (-2, 2)),
    "log": (ops.log, torch.log, (0.5, 3)),
    "sqrt": (ops.sqrt, torch.sqrt, (0.5, 3)),
    "tanh": (ops.tanh, torch.tanh, (-2, 2)),
    "negate": (ops.negate, torch.neg, (-2, 2)),
    "relu": (ops.relu, torch.relu, (-2, 2)),
    "gelu": (ops.gelu, lambda x: F.gelu(x, approximate="tanh"), (-3, 3)),
    "swish": (ops.swish, lambda x: x * torch.sigmoid(x), (-3, 3)),
}
INPLACE = {"exp_": (ops.exp_, torch.exp), "relu_": (ops.relu_, torch.relu),
           "gelu_": (ops.gelu_, lambda x: F.gelu(x, approximate="tanh")), "swish_": (ops.swish_, lambda x: x * torch.sigmoid(x))}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_unary_forward_and_grad(name, shape, dtype):
    op, tfn, (lo, hi) = UNARY[name]
    a = rand(shape, dtype, lo, hi)
    check_grad(op, tfn, a)


@pytest.mark.parametrize("name", sorted(INPLACE))
@pytest.mark.parametrize("dtype", FLOATS)
def test_unary_inplace_modifies_input(name, dtype):
    op, tfn = INPLACE[name]
    a = rand((2, 3), dtype)
    want = tfn(torch.tensor(a.astype(np.float64))).numpy().astype(dtype)
    y, x_after = run_inplace(op, a)
    check(y, want)
    check(x_after, want)


BINARY = {
    "add": (ops.add, torch.add), "sub": (ops.sub, torch.sub), "mul": (ops.mul, torch.mul),
    "div": (ops.div, torch.div), "maximum": (ops.maximum, torch.maximum), "fmod": (ops.fmod, torch.fmod),
}
BCAST = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1, 3), (2, 1)), ((1,), (2, 2))]


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", BCAST)
@pytest.mark.parametrize("dtype", FLOATS)
def test_binary_forward_and_grad(name, shapes, dtype):
    op, tfn = BINARY[name]
    a = rand(shapes[0], dtype, 0.5, 3, seed=1)
    b = rand(shapes[1], dtype, 0.5, 3, seed=2) * np.array(-1 if name == "fmod" else 1, dtype)
    if name in ("maximum",):
        b = b - np.array(1.5, dtype)  # no ties
    if name == "fmod":  # forward only: torch's fmod gradient for the divisor is zero, PopART's -trunc(a/b)
        check(run(op, a, b), np.fmod(a, b))
        return
    check_grad(op, tfn, a, b, grad_tol=dict(rtol=3e-2, atol=3e-2) if dtype == np.float16 else None)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float16])
def test_binary_ints_and_operators(dtype):
    a, b = rand((2, 3), dtype, 1, 9, seed=3), rand((3,), dtype, 1, 9, seed=4)
    out = run(lambda x, y: [x + y, x - y, x * y, x % y, ops.fmod(x, y), x > y, x < y, ops.equal(x, y)], a, b)
    for got, want in zip(out, [a + b, a - b, a * b, np.fmod(a, b), np.fmod(a, b), a > b, a < b, a == b]):
        check(got, want)


@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
def test_maximum_of_several(dtype):
    a, b, c = rand((2, 3), dtype, seed=1), rand((3,), dtype, seed=2), rand((2, 1), dtype, seed=3)
    check(run(ops.maximum, a, b, c), np.maximum(np.maximum(a, b), c))
    check(run(ops.maximum, a), a)
    if dtype == np.float32:
        check_grad(lambda x, y, z: ops.maximum(x, y, z), lambda x, y, z: torch.maximum(torch.maximum(x, y), z),
                   a, b, c)


def test_logical_ops_and_operators():
    a, b = rand((2, 3), np.bool_, seed=1), rand((3,), np.bool_, seed=2)
    out = run(lambda x, y: [ops.logical_and(x, y), ops.logical_or(x, y), ops.logical_not(x), x & y, x | y, ~x],
              a, b)
    for got, want in zip(out, [a & b, a | b, ~a, a & b, a | b, ~a]):
        check(got, want)
    # non-bool inputs are cast to bool
    i = np.array([0, 2, -1], np.int32)
    check(run(lambda x: ops.logical_and(x, x), i), i != 0)


@pytest.mark.parametrize("src,dst", [(np.float32, popxl.float16), (np.float16, popxl.float32),
                                     (np.float32, popxl.int32), (np.int32, popxl.float32),
                                     (np.int32, popxl.bool), (np.float32, popxl.uint8)])
def test_cast(src, dst):
    a = rand((2, 3), src, 0, 9)
    check(run(lambda x: ops.cast(x, dst), a), a.astype(dst.as_numpy()))


def test_cast_grad():
    a = rand((2, 3), np.float32)
    check_grad(lambda x: ops.cast(x, popxl.float64), lambda x: x.to(torch.float64), a, out_dtype=np.float64,
               out_tol=dict(rtol=1e-7), grad_tol=dict(rtol=1e-6))


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3), (2, 3)), ((3,), (2, 3), (1,)), ((2, 1), (3,), (2, 3))])
@pytest.mark.parametrize("dtype", FLOATS)
def test_where(shapes, dtype):
    c = rand(shapes[0], np.bool_, seed=7)
    a, b = rand(shapes[1], dtype, seed=8), rand(shapes[2], dtype, seed=9)
    check(run(ops.where, c, a, b), np.where(c, a, b))
    check_grad(lambda x, y, m: ops.where(m, x, y), lambda x, y, m: torch.where(m, x, y), a, b, c)


@pytest.mark.parametrize("dtype,inc,mod", [(np.int32, 3, 5), (np.float32, 1.5, 2.0), (np.float16, 0.5, 3.0)])
def test_increment_mod(dtype, inc, mod):
    a = rand((2, 3), dtype, 0, 4)
    want = np.fmod(a.astype(np.float64) + inc, mod).astype(dtype)
    check(run(lambda x: ops.increment_mod(x, inc, mod), a), want)
    y, x_after = run_inplace(lambda x: ops.increment_mod_(x, inc, mod), a)
    check(y, want)
    check(x_after, want)


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (3,))])
@pytest.mark.parametrize("dtype", FLOATS)
def test_scaled_add(shapes, dtype):
    a, b = rand(shapes[0], dtype, seed=1), rand(shapes[1], dtype, seed=2)
    check_grad(lambda x, y: ops.scaled_add(x, y, 0.5, -2.0), lambda x, y: 0.5 * x - 2 * y, a, b)
    sa, sb = np.array(1.5, dtype), np.array(0.25, dtype)
    check(run(lambda x, y, s, t: ops.scaled_add(x, y, s, t), a, b, sa, sb), sa * a + sb * b)
    check(run(lambda x, y, s: ops.scaled_add(x, y, 2.0, s), a, b, sb), 2 * a + sb * b)
    y, x_after = run_inplace(lambda x, y: ops.scaled_add_(x, y, b=-0.5), a, b)
    check(y, a - 0.5 * b)
    check(x_after, a - 0.5 * b)


def test_add_inplace_operator():
    a, b = rand((2, 3)), rand((3,))
    y, x_after = run_inplace(ops.add_, a, b)
    check(y, a + b)
    check(x_after, a + b)


def test_bad_input():
    ir = popxl.Ir()
    with ir.main_graph:
        i = popxl.constant(np.ones(3, np.int32), name="ints")
        f = popxl.constant(np.ones(3, np.float32), name="floats")
        h = popxl.constant(np.ones(3, np.float16), name="halves")
        with pytest.raises(TypeError, match="gelu.*'ints'.*floating"):
            ops.gelu(i)
        with pytest.raises(TypeError, match="relu_.*'ints'"):
            ops.relu_(i)
        with pytest.raises(TypeError, match="where.*'floats'.*'halves'"):
            ops.where(popxl.constant(np.ones(3, np.bool_)), f, h)
        with pytest.raises(TypeError, match="scaled_add.*'floats'.*'halves'"):
            ops.scaled_add(f, h)
        with pytest.raises(ValueError, match="increment_mod: modulus of tensor 'ints'"):
            ops.increment_mod(i, 1, 0)
        with pytest.raises(ValueError, match="scaled_add_.*shape"):
            ops.scaled_add_(f, popxl.constant(np.ones((2, 3), np.float32)))
        with pytest.raises(Exception, match="cannot be broadcast"):
            ops.add(f, popxl.constant(np.ones(4, np.float32)))
        with pytest.raises(ValueError, match="not a type popxl supports"):
            ops.cast(f, "nonsense")
