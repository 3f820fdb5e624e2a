"""Comparisons, logical and bitwise ops (ai.onnx and ai.graphcore), IsNaN/IsInf, against numpy."""
import numpy as np
import pytest

import popart

GC = "ai.graphcore"
SHAPES = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((2, 3, 4), (3, 1)), ((2, 1, 4), (1, 3, 1)), ((5,), ()),
          ((), (2, 3)), ((300, 70), (70,))]
COMPARE = {"Equal": np.equal, "Greater": np.greater, "Less": np.less, "GreaterOrEqual": np.greater_equal,
           "LessOrEqual": np.less_equal}
OPSETS = {"Equal": [7, 11, 13, 19], "Greater": [7, 9, 13], "Less": [7, 9, 13], "GreaterOrEqual": [12, 16],
          "LessOrEqual": [12, 16]}


def rand(shape, dtype, seed=0):
    r = np.random.RandomState(seed)
    if dtype == np.bool_:
        return r.rand(*shape) > 0.5 if shape else np.bool_(r.rand() > 0.5)
    return np.asarray(r.randint(0 if np.issubdtype(dtype, np.unsignedinteger) else -3, 4, size=shape)).astype(dtype)


@pytest.mark.parametrize("op", sorted(COMPARE))
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_compare_broadcast(op_tester, op, sa, sb):
    a, b = rand(sa, np.float32), rand(sb, np.float32, 1)
    op_tester.check(op, [a, b], reference=COMPARE[op], opset=OPSETS[op][-1])


@pytest.mark.parametrize("op", sorted(COMPARE))
@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.int32, np.int64, np.uint8, np.uint64])
def test_compare_dtypes(op_tester, op, dtype):
    a, b = rand((4, 6), dtype), rand((6,), dtype, 1)
    for opset in OPSETS[op]:
        op_tester.check(op, [a, b], reference=COMPARE[op], opset=opset)


def test_equal_bool(op_tester):
    a, b = rand((3, 5), np.bool_), rand((5,), np.bool_, 1)
    op_tester.check("Equal", [a, b], reference=np.equal, opset=11)


def test_compare_nan(op_tester):
    a = np.array([np.nan, 1.0, np.nan, 2.0], np.float32)
    b = np.array([np.nan, np.nan, 1.0, 2.0], np.float32)
    for op in COMPARE:
        op_tester.check(op, [a, b], reference=COMPARE[op], opset=OPSETS[op][-1])


@pytest.mark.parametrize("op", ["Equal", "Greater", "Less", "And", "Or", "Xor"])
def test_opset1_legacy_broadcast(op_tester, op):
    fn = {"And": np.logical_and, "Or": np.logical_or, "Xor": np.logical_xor, **COMPARE}[op]
    dtype = np.bool_ if op in ("And", "Or", "Xor") else (np.int32 if op == "Equal" else np.float32)
    a, b = rand((2, 3, 4), dtype), rand((3,), dtype, 1)
    op_tester.check(op, [a, b], reference=lambda a, b: fn(a, b[None, :, None]), attrs={"broadcast": 1, "axis": 1},
                    opset=1)
    b2 = rand((3, 4), dtype, 2)
    op_tester.check(op, [a, b2], reference=fn, attrs={"broadcast": 1}, opset=1)
    with pytest.raises(popart.popart_exception, match="broadcast=0"):
        op_tester.run(op, [a, b2], opset=1)


def test_compare_type_mismatch(op_tester):
    with pytest.raises(popart.popart_exception, match="different types"):
        op_tester.run("Equal", [np.zeros(3, np.float32), np.zeros(3, np.int32)])


def test_compare_bad_shapes(op_tester):
    with pytest.raises(popart.popart_exception):
        op_tester.run("Less", [np.zeros((3, 4), np.float32), np.zeros((5,), np.float32)])


LOGICAL = {"And": np.logical_and, "Or": np.logical_or, "Xor": np.logical_xor}


@pytest.mark.parametrize("op", sorted(LOGICAL))
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_logical(op_tester, op, sa, sb):
    a, b = rand(sa, np.bool_), rand(sb, np.bool_, 1)
    op_tester.check(op, [a, b], reference=LOGICAL[op], opset=7)


def test_logical_rejects_float(op_tester):
    with pytest.raises(popart.popart_exception, match="And.*FLOAT"):
        op_tester.run("And", [np.zeros(3, np.float32), np.zeros(3, np.float32)], opset=7)


def test_not(op_tester):
    x = rand((4, 5), np.bool_)
    op_tester.check("Not", [x], reference=np.logical_not, opset=1)
    with pytest.raises(popart.popart_exception, match="Not.*INT32"):
        op_tester.run("Not", [np.zeros(3, np.int32)])


BITWISE = {"BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or, "BitwiseXor": np.bitwise_xor}
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def rand_bits(shape, dtype, seed=0):
    info = np.iinfo(dtype)
    return np.random.RandomState(seed).randint(max(info.min, -2**31), min(info.max, 2**31 - 1), size=shape,
                                               dtype=np.int64).astype(dtype)


@pytest.mark.parametrize("op", sorted(BITWISE))
@pytest.mark.parametrize("dtype", INTS)
def test_bitwise(op_tester, op, dtype):
    a, b = rand_bits((3, 8), dtype), rand_bits((8,), dtype, 1)
    op_tester.check(op, [a, b], reference=BITWISE[op], opset=18)
    op_tester.check(op, [a, b], reference=BITWISE[op], domain=GC)


@pytest.mark.parametrize("dtype", INTS)
def test_bitwise_not_xnor(op_tester, dtype):
    a, b = rand_bits((3, 8), dtype), rand_bits((3, 1), dtype, 1)
    op_tester.check("BitwiseNot", [a], reference=np.invert, opset=18)
    op_tester.check("BitwiseNot", [a], reference=np.invert, domain=GC)
    op_tester.check("BitwiseXnor", [a, b], reference=lambda a, b: np.invert(np.bitwise_xor(a, b)), domain=GC)


def test_bitwise_rejects_float(op_tester):
    with pytest.raises(popart.popart_exception, match="BitwiseAnd.*FLOAT"):
        op_tester.run("BitwiseAnd", [np.zeros(3, np.float32), np.zeros(3, np.float32)], opset=18)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
def test_bitshift(op_tester, dtype, direction):
    bits = np.iinfo(dtype).bits
    x = np.array([[1, 2, 3, 255], [16, 7, 128, 9]], dtype)
    s = np.array([0, 1, 2, bits - 1], dtype)
    fn = np.left_shift if direction == "LEFT" else np.right_shift
    op_tester.check("BitShift", [x, s], reference=fn, attrs={"direction": direction})
    big = np.array([bits, bits + 3], dtype)  # shifting out every bit gives 0
    op_tester.check("BitShift", [np.array([5, 6], dtype), big], reference=lambda x, s: np.zeros(2, dtype),
                    attrs={"direction": direction})


def test_bitshift_errors(op_tester):
    x = np.array([1, 2], np.uint8)
    with pytest.raises(popart.popart_exception, match="direction='UP'"):
        op_tester.run("BitShift", [x, x], attrs={"direction": "UP"})
    with pytest.raises(popart.popart_exception, match="BitShift.*INT32"):
        op_tester.run("BitShift", [x.astype(np.int32), x.astype(np.int32)], attrs={"direction": "LEFT"})


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("opset", [9, 13, 20])
def test_isnan(op_tester, dtype, opset):
    x = np.array([[np.nan, 1.0, -np.inf], [np.inf, 0.0, np.nan]], dtype)
    op_tester.check("IsNaN", [x], reference=np.isnan, opset=opset)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("neg,pos", [(1, 1), (0, 1), (1, 0), (0, 0)])
def test_isinf(op_tester, dtype, neg, pos):
    x = np.array([[np.nan, 1.0, -np.inf], [np.inf, 0.0, 65504.0]], dtype)
    ref = lambda x: (np.isposinf(x) & bool(pos)) | (np.isneginf(x) & bool(neg))  # noqa: E731
    op_tester.check("IsInf", [x], reference=ref, attrs={"detect_negative": neg, "detect_positive": pos}, opset=10)


def test_isnan_rejects_int(op_tester):
    with pytest.raises(popart.popart_exception, match="IsNaN.*INT32"):
        op_tester.run("IsNaN", [np.zeros(3, np.int32)])
