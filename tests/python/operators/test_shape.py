"""Shape (start/end from opset 15), ConstantOfShape, and the Shape->Gather->
Unsqueeze->Concat->Reshape chain torch.onnx exports for flatten, folded at import."""
import json

import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.int64, np.bool_])
@pytest.mark.parametrize("opset", [1, 13, 15])
def test_shape(op_tester, dtype, opset):
    x = np.zeros((2, 3, 4), dtype)
    op_tester.check("Shape", [x], reference=lambda x: np.array(x.shape, np.int64), opset=opset)


def test_shape_of_scalar(op_tester):
    op_tester.check("Shape", [np.float32(1.0)], reference=lambda x: np.zeros((0,), np.int64))


@pytest.mark.parametrize("start,end", [(None, -1), (-1, None), (1, 2), (-100, 100), (2, 1), (0, 0), (3, None)])
def test_shape_start_end(op_tester, start, end):
    x = np.zeros((2, 3, 4), np.float32)
    attrs = {k: v for k, v in (("start", start), ("end", end)) if v is not None}
    ref = lambda x: np.array(x.shape[slice(start, end)], np.int64)
    op_tester.check("Shape", [x], reference=ref, attrs=attrs, opset=15)
    op_tester.check("Shape", [x], reference=ref, attrs=attrs, opset=21)


def test_shape_start_needs_opset15(op_tester):
    with pytest.raises(popart.popart_exception, match="need opset 15"):
        op_tester.run("Shape", [np.zeros((2, 3), np.float32)], attrs={"start": 1}, opset=13)


def _const_value(arr):
    return onnx.numpy_helper.from_array(np.array(arr).reshape(1), "value")


@pytest.mark.parametrize("value", [None, np.float32(2.5), np.float16(-1.5), np.float64(3.25), np.int32(-7),
                                   np.int64(1 << 40), np.int8(5), np.uint8(200), np.bool_(True)])
@pytest.mark.parametrize("opset", [9, 20])
def test_constant_of_shape(op_tester, value, opset):
    shape = op_tester.const(np.array([2, 3, 4], np.int64))
    attrs = {} if value is None else {"value": _const_value(value)}
    want = np.zeros((2, 3, 4), np.float32) if value is None else np.full((2, 3, 4), value)
    got = op_tester.check("ConstantOfShape", [shape], reference=lambda s: want, attrs=attrs, opset=opset)
    assert got[0].dtype == want.dtype


def test_constant_of_shape_empty_and_scalar(op_tester):
    op_tester.check("ConstantOfShape", [op_tester.const(np.array([3, 0], np.int64))],
                    reference=lambda s: np.zeros((3, 0), np.float32))
    op_tester.check("ConstantOfShape", [op_tester.const(np.zeros((0,), np.int64))],
                    reference=lambda s: np.array(0, np.float32))


def test_constant_of_shape_errors(op_tester):
    with pytest.raises(popart.popart_exception, match="negative dimension"):
        op_tester.run("ConstantOfShape", [op_tester.const(np.array([2, -1], np.int64))])
    with pytest.raises(popart.popart_exception, match="must have one element"):
        op_tester.run("ConstantOfShape", [op_tester.const(np.array([2], np.int64))],
                      attrs={"value": onnx.numpy_helper.from_array(np.zeros(2, np.float32), "value")})
    with pytest.raises(popart.popart_exception, match="(?i)constant"):
        op_tester.run("ConstantOfShape", [np.array([2], np.int64)])


def _ints(name, v):
    dims = [len(v)] if isinstance(v, list) else []
    return oh.make_tensor(name, onnx.TensorProto.INT64, dims, v if isinstance(v, list) else [v])


def _flatten_chain_model(shape_source):
    """x.flatten(1) as torch.onnx (opset 11) exports it: Reshape's target shape
    is computed by Shape->Gather->Unsqueeze->Concat, which the importer folds.
    `shape_source` is the Shape node, or a Constant standing in for it."""
    nodes = [
        shape_source,
        oh.make_node("Constant", [], ["zero"], value=_ints("zero", 0)),
        oh.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
        oh.make_node("Unsqueeze", ["batch"], ["batch1"], axes=[0]),
        oh.make_node("Constant", [], ["minus1"], value=_ints("minus1", [-1])),
        oh.make_node("Concat", ["batch1", "minus1"], ["target"], axis=0),
        oh.make_node("Reshape", ["x", "target"], ["flat"]),
        oh.make_node("Relu", ["flat"], ["y"]),
    ]
    graph = oh.make_graph(nodes, "flatten", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3, 4])],
                          [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)])
    model.ir_version = 6
    return model.SerializeToString()


def _check_folded_flatten(model):
    df = popart.DataFlow(1, {"y": popart.AnchorReturnType("All")})
    s = popart.InferenceSession(model, df, popart.DeviceManager().createCpuDevice())
    ir = json.loads(s.getSerializedGraph())
    types = [op["type"] for graph in ir.values() for op in graph]
    assert types == ["Reshape", "Relu"], types
    s.prepareDevice()
    x = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32)
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, out))
    np.testing.assert_array_equal(out["y"], np.maximum(x.reshape(2, 12), 0))


def test_constant_shape_chain_is_folded_at_import():
    _check_folded_flatten(_flatten_chain_model(oh.make_node("Constant", [], ["shape"], value=_ints("s", [2, 3, 4]))))


def test_shape_chain_is_folded_at_import():
    _check_folded_flatten(_flatten_chain_model(oh.make_node("Shape", ["x"], ["shape"])))
