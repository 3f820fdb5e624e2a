import os
import sys

import numpy as np
import pytest

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import tolerance  # noqa: E402

SHAPES = [
    ((3, 4), (4, 5)),
    ((4,), (4, 5)),            # 1-D A
    ((3, 4), (4,)),            # 1-D B
    ((4,), (4,)),              # dot product -> scalar
    ((2, 3, 4), (4, 5)),       # batched A, 2-D B (flattened)
    ((3, 4), (2, 4, 5)),       # broadcast A over B's batch
    ((2, 1, 3, 4), (1, 5, 4, 6)),  # both broadcast
    ((2, 3, 4), (2, 4, 6)),
    ((5,), (2, 5, 3)),
    ((2, 3, 5), (5,)),
    ((1, 1), (1, 1)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("a_shape,b_shape", SHAPES)
def test_matmul_float(op_tester, dtype, a_shape, b_shape):
    rs = np.random.RandomState(0)
    a, b = rs.randn(*a_shape).astype(dtype), rs.randn(*b_shape).astype(dtype)
    rtol, atol = tolerance(dtype)
    op_tester.check("MatMul", [a, b], opset=13, rtol=rtol, atol=atol,
                    reference=lambda a, b: np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(dtype))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64])
def test_matmul_int(op_tester, dtype):
    rs = np.random.RandomState(1)
    a, b = rs.randint(0, 10, (2, 3, 4)).astype(dtype), rs.randint(0, 10, (4, 5)).astype(dtype)
    op_tester.check("MatMul", [a, b], opset=9, reference=np.matmul)


@pytest.mark.parametrize("opset", [1, 9, 13])
def test_matmul_versions(op_tester, opset):
    rs = np.random.RandomState(2)
    a, b = rs.randn(3, 7).astype(np.float32), rs.randn(7, 2).astype(np.float32)
    op_tester.check("MatMul", [a, b], opset=opset, reference=np.matmul, rtol=1e-5, atol=1e-5)


def test_matmul_large(op_tester):
    rs = np.random.RandomState(3)
    a, b = rs.randn(4, 128, 96).astype(np.float32), rs.randn(96, 80).astype(np.float32)
    op_tester.check("MatMul", [a, b], reference=np.matmul, rtol=1e-4, atol=1e-4)


def test_matmul_constant_weights(op_tester):
    rs = np.random.RandomState(4)
    a, b = rs.randn(2, 5, 6).astype(np.float32), rs.randn(6, 3).astype(np.float32)
    op_tester.check("MatMul", [a, op_tester.const(b)], reference=np.matmul, rtol=1e-5, atol=1e-5)


def test_matmul_bad_contraction(op_tester):
    with pytest.raises(popart.popart_exception, match="contraction dimensions differ"):
        op_tester.run("MatMul", [np.zeros((3, 4), np.float32), np.zeros((5, 2), np.float32)])


def test_matmul_bad_batch(op_tester):
    with pytest.raises(popart.popart_exception, match="cannot be broadcast"):
        op_tester.run("MatMul", [np.zeros((2, 3, 4), np.float32), np.zeros((3, 4, 2), np.float32)])


def test_matmul_mixed_types(op_tester):
    with pytest.raises(popart.popart_exception, match="different types"):
        op_tester.run("MatMul", [np.zeros((3, 4), np.float32), np.zeros((4, 2), np.float64)])


def test_matmul_rejects_bool(op_tester):
    with pytest.raises(popart.popart_exception, match="BOOL"):
        op_tester.run("MatMul", [np.zeros((3, 4), bool), np.zeros((4, 2), bool)])


def test_matmul_constant_folded(op_tester):  # all inputs constant: evaluated at import by the same kernel
    rs = np.random.RandomState(5)
    a, b = rs.randn(3, 4).astype(np.float32), rs.randn(4, 2).astype(np.float32)
    op_tester.check("MatMul", [op_tester.const(a), op_tester.const(b)], reference=np.matmul, rtol=1e-5, atol=1e-5)


# Products with many rows (>= 512) or a wide B (>= 1536 columns) reorder a row-major B into
# oneDNN's packed layout before the product; smaller ones read it in place: both sides of
# the thresholds, B fed at run time or a constant (packed once per host write).
@pytest.mark.parametrize("a_shape,b_shape", [
    ((2, 256, 24), (24, 40)),      # 512 rows: packed
    ((511, 24), (24, 40)),         # 511 rows: in place
    ((3, 20), (20, 1536)),         # wide B: packed
    ((3, 20), (20, 1535)),
])
@pytest.mark.parametrize("constant_b", [False, True])
def test_matmul_packed_b(op_tester, a_shape, b_shape, constant_b):
    rs = np.random.RandomState(5)
    a, b = rs.randn(*a_shape).astype(np.float32), rs.randn(*b_shape).astype(np.float32)
    op_tester.check("MatMul", [a, op_tester.const(b) if constant_b else b], reference=np.matmul,
                    rtol=1e-4, atol=1e-4)


def test_matmul_packed_weight_follows_host_writes():
    """A packed weight B is reordered again after each weightsFromHost (writeWeights)."""
    rs = np.random.RandomState(6)
    w0, w1 = rs.randn(16, 1600).astype(np.float32), rs.randn(16, 1600).astype(np.float32)
    x = rs.randn(4, 16).astype(np.float32)
    builder = popart.Builder()
    xi = builder.addInputTensor(popart.TensorInfo("FLOAT", [4, 16]))
    wi = builder.addInitializedInputTensor(w0)
    y = builder.aiOnnx.matmul([xi, wi])
    session = popart.InferenceSession(builder.getModelProto(), popart.DataFlow(1, [y]),
                                      popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    session.weightsFromHost()
    out = session.initAnchorArrays()
    session.run(popart.PyStepIO({xi: x}, out))
    np.testing.assert_allclose(out[y], x @ w0, rtol=1e-4, atol=1e-4)
    session.writeWeights(popart.PyWeightsIO({wi: w1}))
    session.weightsFromHost()
    session.run(popart.PyStepIO({xi: x}, out))
    np.testing.assert_allclose(out[y], x @ w1, rtol=1e-4, atol=1e-4)
