"""MatMulInteger (opset 10) and QLinearMatMul (opsets 10, 21) against numpy (per-tensor, per-row and
per-column parameters, INT8/UINT8 operand mixes, batch broadcasting, 1-D operands, float and float16
scales) and onnxruntime; error cases."""
import os
import sys

import numpy as np
import pytest

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import ort_run  # noqa: E402

SHAPES = [((4, 3), (3, 5)), ((2, 4, 7), (7, 3)), ((3, 1, 2, 5), (4, 5, 6)), ((5,), (5, 3)), ((2, 4, 6), (6,)),
          ((64, 300), (300, 96))]


def q(shape, dtype, seed):
    info = np.iinfo(dtype)
    return np.random.RandomState(seed).randint(info.min, int(info.max) + 1, shape).astype(dtype)


def centred(x, zero, per_row):
    """x - zero as int32; a 1-D zero point runs along rows (A, per_row) or columns (B)."""
    x = x.astype(np.int32)
    if zero is None:
        return x
    z = zero.astype(np.int32)
    if z.size > 1 and per_row:
        z = z.reshape(-1, 1)
    return x - z


def matmul_integer_ref(a, b, za=None, zb=None):
    return np.matmul(centred(a, za, True), centred(b, zb, False)).astype(np.int32)


def qlinear_ref(a, sa, za, b, sb, zb, sy, zy):
    acc = matmul_integer_ref(a, b, za, zb).astype(np.float64)
    sa2 = sa.reshape(-1, 1) if sa.size > 1 else sa.reshape(())
    mult = ((sa2 * sb.reshape(-1) if sb.size > 1 else sa2 * sb.reshape(())) / sy.reshape(())).astype(sa.dtype)
    if b.ndim == 1 and mult.ndim == 2:  # the output has no column axis
        mult = mult[:, 0]
    info = np.iinfo(zy.dtype)
    return np.clip(np.rint(acc * mult.astype(np.float64)) + zy.reshape(()), info.min, info.max).astype(zy.dtype)


@pytest.mark.parametrize("sa,sb", SHAPES)
@pytest.mark.parametrize("ta,tb", [(np.uint8, np.uint8), (np.int8, np.int8), (np.uint8, np.int8), (np.int8, np.uint8)])
@pytest.mark.parametrize("zeros", ["none", "tensor", "axis"])
def test_matmul_integer(op_tester, sa, sb, ta, tb, zeros):
    a, b = q(sa, ta, 0), q(sb, tb, 1)
    m, n = (sa[-2] if len(sa) > 1 else 1), (sb[-1] if len(sb) > 1 else 1)
    za = {"none": None, "tensor": q((), ta, 2), "axis": q((m,), ta, 2)}[zeros]
    zb = {"none": None, "tensor": q((1,), tb, 3), "axis": q((n,), tb, 3)}[zeros]
    inputs = [a, b] + ([za, zb] if za is not None else [])
    op_tester.check("MatMulInteger", inputs, reference=matmul_integer_ref, opset=10)


def test_matmul_integer_vs_onnxruntime(op_tester):
    a, b = q((3, 4, 9), np.uint8, 4), q((9, 5), np.uint8, 5)
    za, zb = np.array(7, np.uint8), np.array(200, np.uint8)
    op_tester.check("MatMulInteger", [a, b, za, zb], reference=lambda *x: ort_run("MatMulInteger", x, {}, 10)[0],
                    opset=10)


@pytest.mark.parametrize("sa,sb", SHAPES)
@pytest.mark.parametrize("ta,tb,ty", [(np.uint8, np.uint8, np.uint8), (np.int8, np.int8, np.int8),
                                      (np.uint8, np.int8, np.int8)])
@pytest.mark.parametrize("stype", [np.float32, np.float16])
@pytest.mark.parametrize("axis", [False, True])
def test_qlinear_matmul(op_tester, sa, sb, ta, tb, ty, stype, axis):
    a, b = q(sa, ta, 0), q(sb, tb, 1)
    m, n = (sa[-2] if len(sa) > 1 else 1), (sb[-1] if len(sb) > 1 else 1)
    rng = np.random.RandomState(2)
    k = sa[-1]
    s_a = (rng.uniform(0.01, 0.05, (m,) if axis else (1,))).astype(stype)
    s_b = (rng.uniform(0.01, 0.05, (n,) if axis else ())).astype(stype)
    z_a, z_b = q((m,) if axis else (), ta, 3), q((n,) if axis else (1,), tb, 4)
    s_y, z_y = np.array(0.0004 * k, stype), q((), ty, 5)
    inputs = [a, s_a, z_a, b, s_b, z_b, s_y, z_y]
    op_tester.check("QLinearMatMul", inputs, reference=qlinear_ref, opset=21 if stype == np.float16 else 10)


def test_qlinear_matmul_vs_onnxruntime(op_tester):
    a, b = q((2, 4, 6), np.uint8, 6), q((6, 3), np.uint8, 7)
    inputs = [a, np.array(0.02, np.float32), np.array(120, np.uint8), b, np.array(0.03, np.float32),
              np.array(130, np.uint8), np.array(0.05, np.float32), np.array(128, np.uint8)]
    op_tester.check("QLinearMatMul", inputs, reference=lambda *x: ort_run("QLinearMatMul", x, {}, 10)[0], opset=10)


def test_matmul_integer_errors(op_tester):
    a, b = q((2, 3), np.uint8, 0), q((3, 4), np.uint8, 1)
    with pytest.raises(popart.popart_exception, match="MatMulInteger.*INT16"):
        op_tester.run("MatMulInteger", [a.astype(np.int16), b], opset=10)
    with pytest.raises(popart.popart_exception, match="input 1 must be INT8 or UINT8, got INT32"):
        op_tester.run("MatMulInteger", [a, b.astype(np.int32)], opset=10)
    with pytest.raises(popart.popart_exception, match="contraction dimensions differ"):
        op_tester.run("MatMulInteger", [a, q((4, 4), np.uint8, 1)], opset=10)
    with pytest.raises(popart.popart_exception, match="input 2 \\(a_zero_point\\) must be UINT8 with one value or \\[2\\]"):
        op_tester.run("MatMulInteger", [a, b, np.array([1, 2, 3], np.uint8)], opset=10)
    with pytest.raises(popart.popart_exception, match="input 3 \\(b_zero_point\\) must be UINT8"):
        op_tester.run("MatMulInteger", [a, b, np.array(1, np.uint8), np.array(1, np.int8)], opset=10)
    sc = np.array(0.1, np.float32)
    with pytest.raises(popart.popart_exception, match="input 1 \\(a_scale\\) must be FLOAT or FLOAT16"):
        op_tester.run("QLinearMatMul", [a, sc.astype(np.float64), a[0, :1], b, sc, b[0, :1], sc, a[0, :1]], opset=10)
    with pytest.raises(popart.popart_exception, match="input 6 \\(y_scale\\) must be FLOAT with one value"):
        op_tester.run("QLinearMatMul", [a, sc, a[0, :1], b, sc, b[0, :1], np.ones(2, np.float32), a[0, :1]],
                      opset=10)
    with pytest.raises(popart.popart_exception, match="input 4 \\(b_scale\\) must be FLOAT with one value or \\[4\\]"):
        op_tester.run("QLinearMatMul", [a, sc, a[0, :1], b, np.ones(3, np.float32), b[0, :1], sc, a[0, :1]],
                      opset=10)
    with pytest.raises(popart.popart_exception, match="input 7 \\(y_zero_point\\) must be given, INT8 or UINT8"):
        op_tester.run("QLinearMatMul", [a, sc, a[0, :1], b, sc, b[0, :1], sc, np.array([1], np.int32)], opset=10)
