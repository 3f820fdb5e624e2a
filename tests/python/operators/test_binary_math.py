"""Mod, PRelu and ai.graphcore Atan2/Fmod/Remainder/ScaledAdd, against numpy."""
import numpy as np
import pytest

import popart

GC = "ai.graphcore"
SHAPES = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((2, 1, 4), (1, 3, 1)), ((5,), ()), ((300, 70), (70,))]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64]


def rand(shape, dtype, seed=0, nonzero=False):
    r = np.random.RandomState(seed)
    if np.issubdtype(dtype, np.integer):
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -20
        x = np.asarray(r.randint(lo, 20, size=shape))
        if nonzero:
            x[x == 0] = 3
    else:
        x = np.asarray(r.randn(*shape) * 5)
        if nonzero:
            x[np.abs(x) < 0.1] = 0.7
    return x.astype(dtype)


@pytest.mark.parametrize("sa,sb", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_mod_fmod_float(op_tester, sa, sb, dtype):
    a, b = rand(sa, dtype), rand(sb, dtype, 1, nonzero=True)
    tol = {"rtol": 1e-2, "atol": 2e-2} if dtype == np.float16 else {}
    op_tester.check("Mod", [a, b], reference=np.fmod, attrs={"fmod": 1}, opset=13, **tol)
    op_tester.check("Fmod", [a, b], reference=np.fmod, domain=GC, **tol)
    op_tester.check("Remainder", [a, b], reference=np.mod, domain=GC, **tol)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("opset", [10, 13])
def test_mod_integers(op_tester, dtype, opset):
    a, b = rand((4, 7), dtype), rand((7,), dtype, 1, nonzero=True)
    op_tester.check("Mod", [a, b], reference=np.mod, opset=opset)
    op_tester.check("Mod", [a, b], reference=np.fmod, attrs={"fmod": 1}, opset=opset)
    op_tester.check("Fmod", [a, b], reference=np.fmod, domain=GC)
    op_tester.check("Remainder", [a, b], reference=np.mod, domain=GC)


def test_mod_by_zero_integer(op_tester):
    a, b = np.array([5, -7, 3], np.int32), np.array([0, 0, -1], np.int32)
    op_tester.check("Mod", [a, b], reference=lambda a, b: np.array([0, 0, 0], np.int32))


def test_mod_errors(op_tester):
    x = np.ones(3, np.float32)
    with pytest.raises(popart.popart_exception, match="fmod=0 is not defined for floating type FLOAT"):
        op_tester.run("Mod", [x, x], opset=13)
    with pytest.raises(popart.popart_exception, match="fmod=2"):
        op_tester.run("Mod", [x, x], attrs={"fmod": 2}, opset=13)


@pytest.mark.parametrize("xs,ss", [((2, 3, 4, 5), (3, 1, 1)), ((2, 3, 4), (4,)), ((3, 4), ()), ((5,), (5,)),
                                   ((2, 3), (1, 3))])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int32, np.int64])
def test_prelu(op_tester, xs, ss, dtype):
    x, s = rand(xs, dtype), rand(ss, dtype, 1)
    for opset in [7, 9, 16]:
        op_tester.check("PRelu", [x, s], reference=lambda x, s: np.where(x < 0, x * s, x).astype(dtype), opset=opset)


def test_prelu_slope_must_broadcast_to_x(op_tester):
    with pytest.raises(popart.popart_exception, match="does not broadcast to X"):
        op_tester.run("PRelu", [np.ones((3,), np.float32), np.ones((2, 3), np.float32)], opset=9)


@pytest.mark.parametrize("sa,sb", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_atan2(op_tester, sa, sb, dtype):
    y, x = rand(sa, dtype), rand(sb, dtype, 1)
    tol = {"rtol": 1e-2, "atol": 1e-2} if dtype == np.float16 else {}
    op_tester.check("Atan2", [y, x], reference=lambda y, x: np.arctan2(y, x).astype(dtype), domain=GC, **tol)


def test_atan2_signs(op_tester):
    y = np.array([0.0, -0.0, 1.0, -1.0, 0.0, np.inf], np.float32)
    x = np.array([-1.0, -1.0, 0.0, 0.0, 0.0, np.inf], np.float32)
    op_tester.check("Atan2", [y, x], reference=np.arctan2, domain=GC)


@pytest.mark.parametrize("sa,sb", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int32])
def test_scaled_add_attributes(op_tester, sa, sb, dtype):
    a, b = rand(sa, dtype), rand(sb, dtype, 1)
    s0, s1 = (2.0, -3.0) if np.issubdtype(dtype, np.integer) else (0.5, -1.25)
    tol = {"rtol": 1e-2, "atol": 5e-2} if dtype == np.float16 else {}
    op_tester.check("ScaledAdd", [a, b], reference=lambda a, b: (s0 * a.astype(np.float64) + s1 * b).astype(dtype),
                    attrs={"scale0": s0, "scale1": s1}, domain=GC, **tol)
    op_tester.check("ScaledAdd", [a, b], reference=lambda a, b: (a.astype(np.float64) + b).astype(dtype), domain=GC,
                    **tol)


def test_scaled_add_tensor_scales(op_tester):
    a, b = rand((3, 4), np.float32), rand((4,), np.float32, 1)
    s0, s1 = np.array(0.25, np.float32), np.array([3.0], np.float32)
    op_tester.check("ScaledAdd", [a, b, s0, s1], reference=lambda a, b, s0, s1: s0 * a + s1 * b,
                    attrs={"scale0": 9.0, "scale1": 9.0}, domain=GC)
    op_tester.check("ScaledAdd", [a, b, None, s1], reference=lambda a, b, _, s1: 2.0 * a + s1 * b,
                    attrs={"scale0": 2.0}, domain=GC)


def test_scaled_add_scale_must_be_scalar(op_tester):
    a = rand((3, 4), np.float32)
    with pytest.raises(popart.popart_exception, match="scale input 2 must have one element"):
        op_tester.run("ScaledAdd", [a, a, np.ones(2, np.float32)], domain=GC)


def test_fmod_float32_edges(op_tester):
    """The float32 fast path against C fmod, with the cases it hands back to std::fmod."""
    a = np.array([5.5, -5.5, 1e30, -1e30, 7.0, -0.0, 3.0, np.inf, 2.0, 1e-30, 16777217.0, -4.0, 1e10, 0.1],
                 np.float32)
    b = np.array([2.0, 2.0, 3.0, 7.0, 0.0, 5.0, np.inf, 2.0, np.nan, 3e-31, 1.0, 2.0, -3.0, 0.03], np.float32)
    with np.errstate(invalid="ignore"):
        op_tester.check("Fmod", [a, b], reference=np.fmod, domain=GC)
        op_tester.check("Remainder", [a, b], reference=np.mod, domain=GC)
        op_tester.check("Mod", [a, b], reference=np.fmod, attrs={"fmod": 1}, opset=13)
    (r,) = op_tester.run("Fmod", [a[[5, 11]], b[[5, 11]]], domain=GC)
    assert np.signbit(r).all()  # -0.0: the sign of the dividend
