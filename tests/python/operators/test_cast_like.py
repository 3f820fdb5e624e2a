"""CastLike (opset 15/19/21): x cast to the type of the second input, against numpy."""
import os
import sys

import numpy as np
import pytest

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import ort_run  # noqa: E402  (float inputs run in float32)

TYPES = [np.float32, np.float16, np.float64, np.int8, np.int32, np.int64, np.uint8, np.uint16, np.bool_]


def sample(dtype, shape):
    rng = np.random.RandomState(0)
    if dtype == np.bool_:
        return rng.rand(*shape) > 0.5
    if np.issubdtype(dtype, np.unsignedinteger):
        return rng.randint(0, 100, shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.randint(-100, 100, shape).astype(dtype)
    return np.asarray(rng.randn(*shape) * 50).astype(dtype)


def reference(x, like):
    dst = like.dtype
    if dst == np.bool_:
        return x != 0
    if np.issubdtype(dst, np.integer) and np.issubdtype(x.dtype, np.floating):
        return np.trunc(x.astype(np.float64)).astype(dst)
    return x.astype(dst)


@pytest.mark.parametrize("src", TYPES)
@pytest.mark.parametrize("dst", TYPES)
def test_castlike_pairs(op_tester, src, dst, opset=15):
    x = sample(src, (3, 4))
    if np.issubdtype(dst, np.unsignedinteger) and src != np.bool_:
        x = np.abs(x)  # negative -> unsigned is implementation-defined
    if np.issubdtype(dst, np.integer) and np.issubdtype(src, np.floating):
        x = np.clip(x, -100, 100)
    like = sample(dst, (2,))
    op_tester.check("CastLike", [x, like], reference=reference, opset=opset)


@pytest.mark.parametrize("opset", [19, 21])
@pytest.mark.parametrize("shape", [(), (7,), (2, 3, 5)])
def test_castlike_shapes_and_constant_target(op_tester, shape, opset):
    x = sample(np.float32, shape)
    for like in [np.zeros((1,), np.float16), np.zeros((), np.int32), np.zeros((2, 2), np.float64)]:
        op_tester.check("CastLike", [x, op_tester.const(like)], reference=reference, opset=opset)


def test_castlike_same_type_and_onnxruntime(op_tester):
    for src, dst in [(np.float32, np.float32), (np.float32, np.uint8), (np.int64, np.float32),
                     (np.float32, np.int32)]:
        x, like = sample(src, (4, 5)), sample(dst, (3,))
        want = ort_run("CastLike", [x, like], opset=19)[0]
        (got,) = op_tester.run("CastLike", [x, like], opset=19)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_castlike_grad(op_tester):
    # the loss multiplies by a cotangent of x's type, so the target type is x's type here
    x = np.random.RandomState(1).randn(3, 4).astype(np.float32)
    like = op_tester.const(np.zeros((1,), np.float32))
    op_tester.check_grad("CastLike", [x, like], reference=lambda x, like: x.astype(np.float64),
                         wrt=[0], opset=15)


def test_castlike_rejects_string_target(op_tester):
    import onnx.helper as oh
    import onnx
    node = oh.make_node("CastLike", ["x", "like"], ["y"])
    graph = oh.make_graph([node], "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2]),
                                        oh.make_tensor_value_info("like", onnx.TensorProto.STRING, [1])],
                          [oh.make_tensor_value_info("y", onnx.TensorProto.STRING, [2])])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 15)])
    with pytest.raises(popart.popart_exception, match="CastLike.*target_type"):
        popart.InferenceSession(model.SerializeToString(), popart.DataFlow(1, ["y"]),
                                popart.DeviceManager().createCpuDevice())
