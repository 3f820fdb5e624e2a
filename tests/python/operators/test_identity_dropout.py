import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart


def run_graph(nodes, feeds, output, opset):
    """Runs a multi-node float32 model (inputs = feeds) and returns `output`."""
    ins = [oh.make_tensor_value_info(k, onnx.TensorProto.FLOAT, v.shape) for k, v in feeds.items()]
    g = oh.make_graph(nodes, "g", ins, [oh.make_tensor_value_info(output, onnx.TensorProto.FLOAT, None)])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", opset)])
    m.ir_version = min(m.ir_version, 10)
    df = popart.DataFlow(1, {output: popart.AnchorReturnType("All")})
    s = popart.InferenceSession(m.SerializeToString(), df, popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, out))
    return out[output]


@pytest.mark.parametrize("opset", [1, 13, 14, 16, 21])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.bool_])
def test_identity(op_tester, opset, dtype):
    x = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    op_tester.check("Identity", [x], reference=lambda x: x, opset=opset)


def test_identity_of_initializer(op_tester):
    op_tester.check("Identity", [op_tester.const(np.arange(5, dtype=np.float32))], reference=lambda x: x)


def test_identity_chain_with_inplace_consumer():
    # Identity is a view: an in-place op after it must not clobber x, which is read again.
    nodes = [oh.make_node("Identity", ["x"], ["i"]), oh.make_node("Exp", ["i"], ["e"]),
             oh.make_node("Add", ["e", "x"], ["y"])]
    x = np.linspace(-1, 1, 8).astype(np.float32)
    y = run_graph(nodes, {"x": x}, "y", 13)
    np.testing.assert_allclose(y, np.exp(x) + x, rtol=1e-6)


@pytest.mark.parametrize("opset", [6, 7, 10])
def test_dropout_attr_versions(op_tester, opset):
    x = np.random.RandomState(0).randn(4, 5).astype(np.float32)
    attrs = {"ratio": 0.3}
    if opset == 6:
        attrs["is_test"] = 1
    op_tester.check("Dropout", [x], reference=lambda x: x, attrs=attrs, opset=opset)


@pytest.mark.parametrize("opset,mask_dtype", [(7, np.float32), (10, np.bool_), (12, np.bool_), (13, np.bool_)])
def test_dropout_mask(op_tester, opset, mask_dtype):
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    inputs = [x] if opset < 12 else [x, op_tester.const(np.array(0.2, np.float32)), op_tester.const(np.array(False))]
    y, mask = op_tester.run("Dropout", inputs, opset=opset, num_outputs=2)
    np.testing.assert_array_equal(y, x)
    assert mask.dtype == mask_dtype and mask.shape == x.shape and np.all(mask)


def test_dropout_ratio_runtime_input(op_tester):
    x = np.arange(6, dtype=np.float16)
    op_tester.check("Dropout", [x, np.array(0.5, np.float32)], reference=lambda x, r: x, opset=12)


def test_dropout_bad_ratio(op_tester):
    with pytest.raises(popart.popart_exception, match="'ratio' = 1.5"):
        op_tester.run("Dropout", [np.zeros(3, np.float32)], attrs={"ratio": 1.5}, opset=10)


def test_dropout_int_rejected(op_tester):
    with pytest.raises(popart.popart_exception, match="type INT32"):
        op_tester.run("Dropout", [np.zeros(3, np.int32)], opset=10)
