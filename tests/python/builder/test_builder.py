# popart.Builder methods: inputs, initialisers, outputs, queries, loading,
# external initialisers, custom ops, constants and error cases.
import os

import numpy as np
import onnx
import popart
import pytest
from onnx import numpy_helper


def test_ids_and_inputs(to_onnx):
    b = popart.Builder()
    a = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3]))
    c = b.addInputTensor("INT32", [4], "named")
    d = b.addInputTensor(popart.TensorInfo("FLOAT16", [1]), popart.InputSettings(popart.ReplicatedStreamMode.Broadcast))
    e = b.addUntypedInputTensor(popart.DebugContext("untyped"))
    assert (a, c, d, e) == ("input", "named", "input/1", "untyped")
    assert b.getInputTensorIds() == [a, c, d, e]
    assert b.getTensorShape(c) == [4]
    assert b.getTensorDtypeString(c) == "int32"
    assert b.getTensorDtypeString(d) == "float16"
    m = to_onnx(b)
    assert not m.graph.input[3].HasField("type")
    assert any(p.key.startswith("__input_settings/") for p in m.metadata_props)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int8, np.int16, np.int32,
                                   np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_])
def test_initialized_input_all_dtypes(dtype, to_onnx):
    b = popart.Builder()
    value = (np.arange(6).reshape(2, 3) % 2 == 1) if dtype is np.bool_ else np.arange(6, dtype=dtype).reshape(2, 3)
    w = b.addInitializedInputTensor(value.astype(dtype), "weight")
    assert w == "weight"
    assert b.isInitializer(w)
    assert b.getTensorShape(w) == [2, 3]
    m = to_onnx(b)
    got = numpy_helper.to_array(m.graph.initializer[0])
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, value)
    trainable = b.getTrainableTensorIds()
    assert trainable == ([w] if np.dtype(dtype).kind == "f" else [])


def test_initialized_variable_settings(to_onnx):
    b = popart.Builder()
    vs = popart.VariableSettings(popart.CommGroup(popart.CommGroupType.Consecutive, 2),
                                 popart.VariableRetrievalMode.AllReplicas)
    w = b.addInitializedInputTensor(np.zeros(3, np.float32), vs, "w")
    assert vs.getGroupCount(4) == 2 and vs.numReplicasReturningVariable(4) == 4
    props = {p.key: p.value for p in to_onnx(b).metadata_props}
    assert props["__variable_settings/" + w] == "1,2,2"


def test_output_types_and_intermediate_shapes(to_onnx):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2, 3])
    w = b.addInitializedInputTensor(np.ones((3, 4), np.float32))
    y = b.aiOnnx.relu([b.aiOnnx.matmul([x, w])])
    assert b.getTensorShape(y) == [2, 4]  # from shape inference
    assert b.getTensorDtypeString(y) == "float32"
    b.addOutputTensor(y)
    assert b.getOutputTensorIds() == [y]
    assert y in b.getValueTensorIds()
    m = to_onnx(b)
    assert m.ir_version == 6 and m.producer_name == "popart-cpu"
    onnx.checker.check_model(m, full_check=True)


def test_opset_versions_and_ir_version(to_onnx):
    for version, ir in [(6, 3), (7, 3), (8, 3), (9, 4), (10, 5), (11, 6), (12, 7), (14, 7), (15, 8),
                        (18, 8), (19, 9), (20, 9), (21, 10)]:
        b = popart.Builder(opsets={"ai.onnx": version})
        x = b.addInputTensor("FLOAT", [2])
        b.addOutputTensor(b.aiOnnx.abs([x]))
        m = to_onnx(b)
        assert m.ir_version == ir
        assert [(o.domain, o.version) for o in m.opset_import] == [("", version)]
    with pytest.raises(ValueError):
        popart.Builder(opsets={"ai.onnx": 22})
    with pytest.raises(ValueError):
        popart.AiGraphcore(popart.Builder(), 2)
    with pytest.raises(ValueError):
        popart.AiOnnxMl(popart.Builder(), 3)


def test_op_ids_debug_names_and_outputs():
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [4, 2])
    assert b.aiOnnx.add([x, x]) == "Add:0"
    assert b.aiOnnx.add([x, x]) == "Add:0/1"
    assert b.aiOnnx.relu([x], "act") == "act:0"
    assert b.aiOnnx.relu([x], debugContext="act") == "act:0/1"
    assert b.aiOnnx.split([x], 2, axis=0) == ["Split:0", "Split:1"]
    assert b.aiOnnx.topk([x, b.aiOnnx.constant(np.array([1], np.int64))], axis=0) == ["TopK:0", "TopK:1"]
    assert b.aiOnnx.dropout([x], num_outputs=1, ratio=0.2) == ["Dropout:0"]
    with b.nameScope("outer"):
        with b.nameScope("inner"):
            assert b.getNameScope("n") == "outer/inner/n"
            assert b.aiOnnx.neg([x]) == "outer/inner/Neg:0"
    assert b.aiOnnx.neg([x]) == "Neg:0"


def test_constant_reshape_const_and_cast(to_onnx):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2, 3, 4])
    c = b.aiOnnx.constant(np.array([[1, 2]], np.float16), "c")
    assert b.getTensorShape(c) == [1, 2] and b.getTensorDtypeString(c) == "float16"
    r = b.reshape_const(b.aiOnnx, [x], [6, -1])
    assert b.getTensorShape(r) == [6, 4]
    i = b.aiOnnx.cast([r], "INT32")
    j = b.aiOnnx.cast([r], to=popart.DataType.FLOAT16)
    b.addOutputTensor(i)
    m = to_onnx(b)
    casts = [n for n in m.graph.node if n.op_type == "Cast"]
    assert [n.attribute[0].i for n in casts] == [onnx.TensorProto.INT32, onnx.TensorProto.FLOAT16]
    assert b.getTensorDtypeString(j) == "float16"
    g = popart.Builder()
    y = g.aiGraphcore.reshape(g.addInputTensor("FLOAT", [6]), [2, 3])
    assert g.getInt64VectorNodeAttribute("shape", {y}) == [2, 3]


def test_attribute_defaults_written_only_when_different(to_onnx):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [1, 1, 4, 4])
    w = b.addInputTensor("FLOAT", [1, 1, 3, 3])
    o = b.aiOnnx.conv([x, w], dilations=[1, 1], pads=[1, 1, 1, 1], strides=[1, 1])
    assert set(b.getAllNodeAttributeNames({o})) == {"dilations", "pads", "strides"}
    s = b.aiOnnx.softmax([x], axis=1)  # the default: not written
    assert b.getAllNodeAttributeNames({s}) == []
    s2 = b.aiOnnx.softmax([x], 2)
    assert b.getInt64NodeAttribute("axis", {s2}) == 2
    loss = b.aiGraphcore.identityloss([x], reduction=popart.ReductionType.Sum)
    assert b.getStringNodeAttribute("reduction", {loss}) == "Sum"  # graphcore attributes always written
    l1 = b.aiGraphcore.l1loss([x], 0.5)
    assert b.getFloatNodeAttribute("lambda", {l1}) == 0.5
    assert b.getStringNodeAttribute("reduction", {l1}) == "Mean"  # PopART's STRING encoding


def test_load_existing_model(tmp_path, to_onnx):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2])
    y = b.aiOnnx.sigmoid([x])
    b.addOutputTensor(y)
    proto = b.getModelProto()
    path = str(tmp_path / "model.onnx")
    b.saveModelProto(path)
    assert onnx.load(path).graph.node[0].op_type == "Sigmoid"
    for source in (proto, path):
        loaded = popart.Builder(source)
        assert loaded.getInputTensorIds() == [x]
        assert loaded.getOutputTensorIds() == [y]
        z = loaded.aiOnnx.exp([y])
        assert z != y and z == "Exp:0"
        loaded.addOutputTensor(z)
        m = to_onnx(loaded)
        assert [n.op_type for n in m.graph.node] == ["Sigmoid", "Exp"]
        onnx.checker.check_model(m, full_check=True)


def test_save_initializers_externally(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    b = popart.Builder()
    w1 = b.addInitializedInputTensor(np.arange(4, dtype=np.float32))
    w2 = b.addInitializedInputTensor(np.arange(6, dtype=np.int64).reshape(2, 3))
    b.addOutputTensor(b.aiOnnx.identity([w1]))
    b.saveInitializersExternally([w1, w2], "weights.bin")
    assert os.path.getsize("weights.bin") == 16 + 48
    b.saveModelProto("model.onnx")
    m = onnx.load("model.onnx", load_external_data=False)
    assert all(t.data_location == onnx.TensorProto.EXTERNAL for t in m.graph.initializer)
    m = onnx.load("model.onnx")
    arrays = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    np.testing.assert_array_equal(arrays[w1], np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(arrays[w2], np.arange(6).reshape(2, 3))
    with pytest.raises(popart.popart_exception):
        b.saveInitializersExternally(["nope"], "other.bin")


def test_custom_op_and_embed_replication(to_onnx):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2])
    outs = b.customOp(opName="LeakyRelu", opVersion=6, domain="com.acme", inputs=[x],
                      attributes={"alpha": 0.02, "modes": ["a", "b"], "ks": [1, 2]}, numOutputs=2)
    assert outs == ["LeakyRelu:0", "LeakyRelu:1"]
    b.embedReplicationFactor(4)
    m = to_onnx(b)
    assert ("com.acme", 6) in [(o.domain, o.version) for o in m.opset_import]
    node = m.graph.node[0]
    assert node.domain == "com.acme"
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    assert attrs["modes"] == [b"a", b"b"] and attrs["ks"] == [1, 2]
    assert abs(attrs["alpha"] - 0.02) < 1e-7
    assert {p.key: p.value for p in m.metadata_props}["replicationFactor"] == "4"
    b.setGraphName("main")
    assert to_onnx(b).graph.name == "main"


def test_errors():
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2, 3])
    with pytest.raises(popart.popart_exception, match="unknown tensor id"):
        b.aiOnnx.add([x, "does_not_exist"])
    with pytest.raises(TypeError, match="Softmax.*axis"):
        b.aiOnnx.softmax([x], axis="one")
    with pytest.raises(TypeError, match="Conv.*pads"):
        b.aiOnnx.conv([x, x], pads=[1.5, 1])
    with pytest.raises(AttributeError, match="Resize is not available in ai.onnx opset 6"):
        b.aiOnnxOpset6.resize([x])
    with pytest.raises(popart.popart_exception, match="deprecated"):
        b.aiOnnxOpset10.upsample([x])
    with pytest.raises(TypeError, match="missing required attribute 'to'"):
        b.aiOnnx.cast([x])
    with pytest.raises(TypeError, match="unexpected argument 'bogus'"):
        b.aiOnnx.relu([x], bogus=1)
    with pytest.raises(TypeError, match="num_outputs"):
        b.aiOnnx.split([x], axis=0)
    with pytest.raises(popart.popart_exception, match="expects 2 to 2 inputs"):
        b.aiOnnx.add([x])
    with pytest.raises(popart.popart_exception):
        b.addInputTensor("NOT_A_TYPE", [2])
    with pytest.raises(popart.popart_exception, match="dtype 'object'"):
        b.addInitializedInputTensor(np.array(["a"], dtype=object))
    with pytest.raises(popart.popart_exception):
        b.addOutputTensor("nope")
    with pytest.raises(popart.popart_exception):
        b.getTensorShape("nope")
    b.aiOnnx.relu([x])
    with pytest.raises(popart.popart_exception, match="already uses version 11"):
        b.aiOnnxOpset10.relu([x])
    with pytest.raises(popart.popart_exception, match="Attribute 'axis' of op Softmax"):
        b._impl.addOp("", "Softmax", 11, [x], 1, {"axis": "s"}, "")
