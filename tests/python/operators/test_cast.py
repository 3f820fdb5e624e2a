import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart


def onnx_type(dtype):
    return oh.np_dtype_to_tensor_dtype(np.dtype(dtype))


TYPES = [np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64,
         np.uint8, np.uint16, np.uint32, np.uint64, np.bool_]


def values(dtype):
    if dtype == np.bool_:
        return np.array([True, False, True, True])
    if np.issubdtype(dtype, np.unsignedinteger):
        return np.array([0, 1, 7, 100], dtype=dtype)
    if np.issubdtype(dtype, np.integer):
        return np.array([-100, 0, 1, 7], dtype=dtype)
    return np.array([-100.75, 0.0, 1.5, 7.25], dtype=dtype)


@pytest.mark.parametrize("src", TYPES)
@pytest.mark.parametrize("dst", TYPES)
def test_cast_all_pairs(op_tester, src, dst):
    x = values(src)
    if np.issubdtype(dst, np.unsignedinteger) and not np.issubdtype(src, np.unsignedinteger) and src != np.bool_:
        x = np.abs(x)  # negative -> unsigned is implementation-defined

    def ref(x):
        if dst == np.bool_:
            return x != 0
        if np.issubdtype(dst, np.integer) and np.issubdtype(x.dtype, np.floating):
            return np.trunc(x.astype(np.float64)).astype(dst)
        return x.astype(dst)

    op_tester.check("Cast", [x], reference=ref, attrs={"to": onnx_type(dst)}, opset=13)


def test_cast_opset1_string_to(op_tester):
    x = values(np.float32)
    op_tester.check("Cast", [x], reference=lambda x: x.astype(np.int32), attrs={"to": "INT32"}, opset=1)


@pytest.mark.parametrize("opset", [6, 9, 19, 21])
def test_cast_versions(op_tester, opset):
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    op_tester.check("Cast", [x], reference=lambda x: x.astype(np.float32), attrs={"to": onnx.TensorProto.FLOAT},
                    opset=opset)


def test_cast_same_type(op_tester):
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    op_tester.check("Cast", [x], reference=lambda x: x, attrs={"to": onnx.TensorProto.FLOAT})


def test_cast_constant_folds(op_tester):
    x = op_tester.const(np.array([1, 2, 3], np.int64))
    op_tester.check("Cast", [x], reference=lambda x: x.astype(np.float16), attrs={"to": onnx.TensorProto.FLOAT16})


def test_cast_unsupported_target(op_tester):
    with pytest.raises(popart.popart_exception, match="Cast to STRING is not supported"):
        op_tester.run("Cast", [values(np.float32)], attrs={"to": onnx.TensorProto.STRING})


def test_cast_missing_to(op_tester):
    with pytest.raises(popart.popart_exception, match="'to'"):
        op_tester.run("Cast", [values(np.float32)])


@pytest.mark.parametrize("src,dst", [(np.float32, np.float16), (np.float16, np.float32)])
def test_cast_half_float_long(op_tester, src, dst):
    x = np.concatenate([np.linspace(-70000, 70000, 3001), [np.inf, -np.inf, np.nan, 1e-7, -6e-8, 65504, 65520]])
    with np.errstate(over="ignore"):  # out-of-range values become +-inf
        op_tester.check("Cast", [x.astype(src)], reference=lambda x: x.astype(dst), attrs={"to": onnx_type(dst)})
