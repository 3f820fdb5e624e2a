import os
import sys

import numpy as np
import pytest

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import tolerance  # noqa: E402


def bn_ref(epsilon=1e-5, spatial=True):
    def ref(x, scale, b, mean, var):
        shape = (1, -1) + (1,) * (x.ndim - 2) if spatial else (1,) + x.shape[1:]
        p = [np.asarray(a, np.float64).reshape(shape) for a in (scale, b, mean, var)]
        return ((x - p[2]) / np.sqrt(p[3] + epsilon) * p[0] + p[1]).astype(x.dtype)
    return ref


def params(rs, c, dtype):
    return [rs.randn(c).astype(dtype), rs.randn(c).astype(dtype), rs.randn(c).astype(dtype),
            rs.rand(c).astype(dtype) + 0.5]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 5), (2, 4, 5, 6), (1, 3, 2, 3, 4), (8, 64, 56, 56)])
@pytest.mark.parametrize("opset", [7, 9, 14, 15])
def test_batchnorm(op_tester, dtype, shape, opset):
    rs = np.random.RandomState(0)
    x = rs.randn(*shape).astype(dtype)
    rtol, atol = tolerance(dtype)
    op_tester.check("BatchNormalization", [x] + params(rs, shape[1], dtype), attrs={"epsilon": 1e-3}, opset=opset,
                    reference=bn_ref(1e-3), rtol=rtol, atol=atol * 10)


def test_batchnorm_constant_params(op_tester):
    rs = np.random.RandomState(1)
    x = rs.randn(2, 3, 4, 4).astype(np.float32)
    op_tester.check("BatchNormalization", [x] + [op_tester.const(p) for p in params(rs, 3, np.float32)],
                    opset=9, reference=bn_ref(), rtol=1e-5, atol=1e-5)


def test_batchnorm_opset15_mixed_types(op_tester):
    rs = np.random.RandomState(2)
    x = rs.randn(2, 3, 4).astype(np.float16)
    p = params(rs, 3, np.float32)
    op_tester.check("BatchNormalization", [x] + p, opset=15, reference=bn_ref(), rtol=1e-2, atol=1e-2)


def test_batchnorm_opset6_per_activation(op_tester):
    rs = np.random.RandomState(3)
    x = rs.randn(2, 3, 2, 2).astype(np.float32)
    p = [a.reshape(3, 2, 2) for a in params(rs, 12, np.float32)]
    op_tester.check("BatchNormalization", [x] + p, attrs={"spatial": 0}, opset=7, reference=bn_ref(spatial=False),
                    rtol=1e-5, atol=1e-5)
    op_tester.check("BatchNormalization", [x] + params(rs, 3, np.float32), attrs={"spatial": 1, "is_test": 1},
                    opset=6, reference=bn_ref(), rtol=1e-5, atol=1e-5)


def test_batchnorm_training_output_limits(op_tester):
    # training itself is tested in test_batchnorm_train.py; here only the output counts
    rs = np.random.RandomState(4)
    x = rs.randn(2, 3, 4).astype(np.float32)
    with pytest.raises(popart.popart_exception, match="training mode has at most 3"):
        op_tester.run("BatchNormalization", [x] + params(rs, 3, np.float32), attrs={"training_mode": 1}, opset=14,
                      num_outputs=4)
    with pytest.raises(popart.popart_exception, match="inference mode has at most 1"):
        op_tester.run("BatchNormalization", [x] + params(rs, 3, np.float32), attrs={"training_mode": 0}, opset=15,
                      num_outputs=3)


def test_batchnorm_bad_param_shape(op_tester):
    rs = np.random.RandomState(6)
    x = rs.randn(2, 3, 4).astype(np.float32)
    p = params(rs, 4, np.float32)
    with pytest.raises(popart.popart_exception, match="scale .* must have shape \\[3\\]"):
        op_tester.run("BatchNormalization", [x] + p, opset=9)


def test_batchnorm_rejects_int(op_tester):
    x = np.zeros((2, 3), np.int32)
    with pytest.raises(popart.popart_exception, match="INT32"):
        op_tester.run("BatchNormalization", [x] + [np.ones(3, np.int32)] * 4, opset=9)
