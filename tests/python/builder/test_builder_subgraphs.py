# Sub-graph builders: call, logical_if, loop, scan, packedDataBlock, multiconv,
# and models run in onnxruntime against numpy.
import numpy as np
import onnx
import popart
import pytest

import onnxruntime as ort


def run_ort(builder, feeds):
    sess = ort.InferenceSession(builder.getModelProto(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def test_call_subgraph(to_onnx):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2])
    sub = b.createSubgraphBuilder()
    sub.setGraphName("body")
    si = sub.addInputTensor("FLOAT", [2])
    sub.addOutputTensor(sub.aiOnnx.relu([si]))
    outs = b.aiGraphcore.call([x], 1, sub)
    assert len(outs) == 1
    m = to_onnx(b)
    call = m.graph.node[0]
    assert (call.op_type, call.domain) == ("Call", "ai.graphcore")
    g = call.attribute[0]
    assert g.name == "callee" and g.type == onnx.AttributeProto.GRAPH
    assert g.g.name == "body" and g.g.node[0].op_type == "Relu"
    assert g.g.output[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT


def test_add_input_from_parent(to_onnx):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [3])
    sub = b.createSubgraphBuilder()
    sub.addInputTensorFromParentGraph(x)
    assert sub.getInputTensorIds() == [x]
    assert sub.getTensorShape(x) == [3]
    with pytest.raises(popart.popart_exception):
        sub.addInputTensorFromParentGraph("not_there")
    with pytest.raises(popart.popart_exception):
        b.addInputTensorFromParentGraph(x)


def test_logical_if_runs():
    b = popart.Builder()
    cond = b.addInputTensor("BOOL", [])
    x = b.addInputTensor("FLOAT", [3])
    then_b = b.createSubgraphBuilder()
    then_b.addOutputTensor(then_b.aiOnnx.relu([x]))
    else_b = b.createSubgraphBuilder()
    else_b.addOutputTensor(else_b.aiOnnx.neg([x]))
    out = b.aiOnnx.logical_if([cond], 1, else_b, then_b)[0]
    b.addOutputTensor(out)
    model = onnx.load_from_string(b.getModelProto())
    onnx.checker.check_model(model, full_check=True)
    xv = np.array([-1, 0, 2], np.float32)
    np.testing.assert_array_equal(run_ort(b, {cond: np.array(True), x: xv})[0], np.maximum(xv, 0))
    np.testing.assert_array_equal(run_ort(b, {cond: np.array(False), x: xv})[0], -xv)


def test_loop_runs():
    b = popart.Builder()
    trips = b.addInputTensor("INT64", [])
    cond0 = b.addInputTensor("BOOL", [])
    x0 = b.addInputTensor("FLOAT", [2])
    body = b.createSubgraphBuilder()
    body.addInputTensor("INT64", [], "iter")
    c = body.addInputTensor("BOOL", [], "cond")
    xi = body.addInputTensor("FLOAT", [2], "x")
    body.addOutputTensor(body.aiOnnx.identity([c]))
    body.addOutputTensor(body.aiOnnx.add([xi, body.aiOnnx.constant(np.ones(2, np.float32))]))
    out = b.aiOnnx.loop([trips, cond0, x0], 1, body)[0]
    b.addOutputTensor(out)
    # onnx infers only the element type of loop-carried outputs (no shape), so
    # onnx.checker cannot accept the output; onnxruntime validates the model instead.
    body_graph = onnx.load_from_string(b.getModelProto()).graph.node[0].attribute[0].g
    assert [o.type.tensor_type.elem_type for o in body_graph.output] == [onnx.TensorProto.BOOL, onnx.TensorProto.FLOAT]
    got = run_ort(b, {trips: np.array(4, np.int64), cond0: np.array(True), x0: np.zeros(2, np.float32)})[0]
    np.testing.assert_array_equal(got, [4, 4])


def test_scan_runs():
    b = popart.Builder()
    s0 = b.addInputTensor("FLOAT", [2])
    xs = b.addInputTensor("FLOAT", [3, 2])
    body = b.createSubgraphBuilder()
    s = body.addInputTensor("FLOAT", [2])
    xt = body.addInputTensor("FLOAT", [2])
    acc = body.aiOnnx.add([s, xt])
    body.addOutputTensor(acc)
    body.addOutputTensor(body.aiOnnx.identity([acc]))
    final, seq = b.aiOnnx.scan([s0, xs], 2, body, 1)
    b.addOutputTensor(final)
    b.addOutputTensor(seq)
    node = onnx.load_from_string(b.getModelProto()).graph.node[0]
    assert node.op_type == "Scan" and [a.name for a in node.attribute] == ["body", "num_scan_inputs"]
    xv = np.arange(6, dtype=np.float32).reshape(3, 2)
    got_final, got_seq = run_ort(b, {s0: np.zeros(2, np.float32), xs: xv})
    np.testing.assert_array_equal(got_seq, np.cumsum(xv, axis=0))
    np.testing.assert_array_equal(got_final, xv.sum(0))
    b8 = popart.Builder(opsets={"ai.onnx": 8})
    assert "directions" in popart.AiOnnx8.scan.__code__.co_varnames
    assert b8.aiOnnx.version == 8


def test_multiconv_and_packed_data_block(to_onnx):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [1, 1, 4, 4])
    w = b.addInputTensor("FLOAT", [1, 1, 2, 2])
    bias = b.addInputTensor("FLOAT", [1])
    outs = b.aiGraphcore.multiconv([[x, w], [x, w, bias]], strides=[[1, 1], [2, 2]],
                                   availableMemoryProportions=[0.5, 0.5], planType="parallel")
    assert len(outs) == 2
    node = to_onnx(b).graph.node[0]
    assert list(node.input) == [x, w, "", x, w, bias]
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    assert attrs["strides"] == [1, 1, 2, 2] and attrs["planType"] == b"parallel"
    cb = b.createSubgraphBuilder()
    ci = cb.addInputTensor("FLOAT", [1, 4, 2])  # [callbackBatchSize, maxSequenceLengths[0], ...]
    cb.addOutputTensor(cb.aiOnnx.relu([ci]))
    data = b.addInputTensor("FLOAT", [4, 2])
    index = [b.addInputTensor("INT32", [3]) for _ in range(4)]  # offsets, lengths, resultOffsets, resultLengths
    out = b.aiGraphcore.packedDataBlock([data] + index, [4], 4, 1, cb)
    assert isinstance(out, str)
    node = to_onnx(b).graph.node[-1]
    assert node.op_type == "PackedDataBlock" and list(node.input) == [data] + index
    assert {a.name for a in node.attribute} == {"maxSequenceLengths", "resultSize", "callbackBatchSize", "callback"}


def test_numerics_in_onnxruntime():
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [1, 2, 5, 5])
    wv = np.random.default_rng(0).standard_normal((3, 2, 3, 3)).astype(np.float32)
    bv = np.array([0.1, -0.2, 0.3], np.float32)
    w = b.addInitializedInputTensor(wv)
    bias = b.addInitializedInputTensor(bv)
    conv = b.aiOnnx.conv([x, w, bias], pads=[1, 1, 1, 1])
    relu = b.aiOnnx.relu([conv])
    flat = b.reshape_const(b.aiOnnx, [relu], [1, 75])
    m = b.addInitializedInputTensor(np.full((75, 4), 0.01, np.float32))
    out = b.aiOnnx.add([b.aiOnnx.matmul([flat, m]), b.aiOnnx.constant(np.array([1.0], np.float32))])
    b.addOutputTensor(out)
    onnx.checker.check_model(onnx.load_from_string(b.getModelProto()), full_check=True)
    xv = np.random.default_rng(1).standard_normal((1, 2, 5, 5)).astype(np.float32)
    # numpy reference: direct convolution
    padded = np.pad(xv, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((1, 3, 5, 5), np.float32)
    for i in range(5):
        for j in range(5):
            ref[0, :, i, j] = np.tensordot(wv, padded[0, :, i:i + 3, j:j + 3], axes=3) + bv
    ref = np.maximum(ref, 0).reshape(1, 75) @ np.full((75, 4), 0.01, np.float32) + 1.0
    np.testing.assert_allclose(run_ort(b, {x: xv})[0], ref, rtol=1e-5, atol=1e-5)
