"""Where (3-way broadcasting) and the variadic Max/Min/Sum/Mean, against numpy."""
import numpy as np
import pytest

import popart

WHERE_SHAPES = [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), ()), ((2, 1, 4), (1, 3, 1), (3, 4)),
                ((), (2, 3), (2, 3)), ((5, 1), (1, 6), (5, 6)), ((2, 3, 4, 5), (3, 1, 5), (2, 1, 4, 1)),
                ((1,), (1,), (1,)), ((400, 50), (50,), (400, 1))]


def rand(shape, dtype, seed=0):
    r = np.random.RandomState(seed)
    if dtype == np.bool_:
        return np.asarray(r.rand(*shape) > 0.5)
    return np.asarray(r.randn(*shape) * 10).astype(dtype)


@pytest.mark.parametrize("sc,sx,sy", WHERE_SHAPES)
@pytest.mark.parametrize("opset", [9, 16])
def test_where_broadcast(op_tester, sc, sx, sy, opset):
    c, x, y = rand(sc, np.bool_), rand(sx, np.float32, 1), rand(sy, np.float32, 2)
    op_tester.check("Where", [c, x, y], reference=np.where, opset=opset)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                   np.uint64, np.bool_])
def test_where_dtypes(op_tester, dtype):
    c, x, y = rand((3, 5), np.bool_), rand((5,), dtype, 1), rand((3, 1), dtype, 2)
    op_tester.check("Where", [c, x, y], reference=np.where, opset=16)


def test_where_errors(op_tester):
    x = np.ones(3, np.float32)
    with pytest.raises(popart.popart_exception, match="Where.*FLOAT"):
        op_tester.run("Where", [x, x, x], opset=9)
    with pytest.raises(popart.popart_exception, match="X and Y have different types"):
        op_tester.run("Where", [x > 0, x, x.astype(np.int32)], opset=9)


VARIADIC = {"Max": lambda *xs: np.maximum.reduce(np.broadcast_arrays(*xs)) if len(xs) > 1 else xs[0],
            "Min": lambda *xs: np.minimum.reduce(np.broadcast_arrays(*xs)) if len(xs) > 1 else xs[0],
            "Sum": lambda *xs: sum(x.astype(np.float64) for x in xs),
            "Mean": lambda *xs: sum(x.astype(np.float64) for x in xs) / len(xs)}
VARIADIC_SHAPES = [[(3, 4)], [(3, 4), (3, 4)], [(3, 4), (4,)], [(4,), (3, 4)], [(2, 1, 4), (3, 1), (4,)],
                   [(5,), (5,), (5,), (5,)], [(), (2, 3)], [(3,), (3,), (2, 3)], [(300, 40), (40,), (300, 1)]]


@pytest.mark.parametrize("op", sorted(VARIADIC))
@pytest.mark.parametrize("shapes", VARIADIC_SHAPES)
def test_variadic_broadcast(op_tester, op, shapes):
    xs = [rand(s, np.float32, i) for i, s in enumerate(shapes)]
    op_tester.check(op, xs, reference=lambda *a: np.asarray(VARIADIC[op](*a), np.float32), opset=13)


@pytest.mark.parametrize("op", sorted(VARIADIC))
@pytest.mark.parametrize("dtype", [np.float16, np.float64])
@pytest.mark.parametrize("opset", [6, 8, 13])
def test_variadic_float_dtypes(op_tester, op, dtype, opset):
    xs = [rand((3, 4), dtype, i) for i in range(3)]
    tol = {"rtol": 1e-2, "atol": 1e-2} if dtype == np.float16 else {}
    op_tester.check(op, xs, reference=lambda *a: np.asarray(VARIADIC[op](*a)).astype(dtype), opset=opset, **tol)


@pytest.mark.parametrize("op", ["Max", "Min"])
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint32, np.uint64])
def test_max_min_integers(op_tester, op, dtype):
    xs = [np.random.RandomState(i).randint(0, 100, size=s).astype(dtype) for i, s in enumerate([(3, 4), (4,), (3, 1)])]
    op_tester.check(op, xs, reference=VARIADIC[op], opset=13)


def test_max_min_nan(op_tester):
    a = np.array([np.nan, 1.0, 2.0], np.float32)
    b = np.array([0.0, np.nan, 1.0], np.float32)
    op_tester.check("Max", [a, b], reference=np.maximum, opset=13)
    op_tester.check("Min", [a, b], reference=np.minimum, opset=13)


def test_variadic_errors(op_tester):
    with pytest.raises(popart.popart_exception, match="broadcasting needs opset 8"):
        op_tester.run("Sum", [np.ones((3, 4), np.float32), np.ones((4,), np.float32)], opset=6)
    with pytest.raises(popart.popart_exception, match="input 1 has type INT32"):
        op_tester.run("Max", [np.ones(3, np.float32), np.ones(3, np.int32)], opset=13)
    with pytest.raises(popart.popart_exception, match="Sum.*INT32"):
        op_tester.run("Sum", [np.ones(3, np.int32)], opset=13)


def test_empty_tensors(op_tester):
    e = op_tester.const(np.zeros((3, 0), np.float32))
    (y,) = op_tester.run("Where", [op_tester.const(np.zeros((3, 0), np.bool_)), e, np.ones((1,), np.float32)], opset=16)
    assert y.shape == (3, 0)
    (y,) = op_tester.run("Max", [e, np.ones((1,), np.float32)], opset=13)
    assert y.shape == (3, 0)
    (y,) = op_tester.run("Equal", [e, np.ones((1,), np.float32)], opset=13)
    assert y.shape == (3, 0) and y.dtype == np.bool_
    (y,) = op_tester.run("Floor", [e], opset=13)
    assert y.shape == (3, 0)
    (y,) = op_tester.run("CumSum", [e, op_tester.const(np.array(1, np.int64))], opset=14)
    assert y.shape == (3, 0)
