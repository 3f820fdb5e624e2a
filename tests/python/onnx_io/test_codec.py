# The C++ ONNX wire codec against the `onnx` package as oracle: every backend
# test model round-trips to an equal protobuf message, external data is loaded,
# and malformed or fuzzed bytes give popart_exception (or an equal model).
import glob
import os
import random
import time

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper, TensorProto

import popart_core

DATA_DIR = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
MODELS = sorted(
    os.path.relpath(p, DATA_DIR) for p in glob.glob(os.path.join(DATA_DIR, "**", "*.onnx"), recursive=True)
)


def _read(rel):
    with open(os.path.join(DATA_DIR, rel), "rb") as f:
        return f.read()


def test_backend_models_found():
    assert sum(p.endswith("model.onnx") for p in MODELS) > 1000


@pytest.mark.parametrize("rel", MODELS)
def test_backend_model_round_trips(rel):
    original = _read(rel)
    out = popart_core._onnxRoundTrip(original)
    assert onnx.load_from_string(out) == onnx.load_from_string(original)
    assert popart_core._onnxRoundTrip(out) == out  # re-serialisation is stable


def _model_with_unmodelled_fields():
    """Every message kind the C++ structs keep as raw bytes, plus presence corner cases."""
    tp = helper.make_tensor_type_proto
    types = {
        "seq": helper.make_sequence_type_proto(tp(TensorProto.FLOAT, [2, "n"])),
        "map": helper.make_map_type_proto(TensorProto.INT64, tp(TensorProto.FLOAT, [3])),
        "opt": helper.make_optional_type_proto(helper.make_sequence_type_proto(tp(TensorProto.INT32, None))),
        "sparse": helper.make_sparse_tensor_type_proto(TensorProto.FLOAT, [4, 4]),
    }
    inputs = [helper.make_value_info(name, t) for name, t in types.items()]
    opaque = onnx.TypeProto(denotation="IMAGE")
    opaque.opaque_type.domain, opaque.opaque_type.name = "d", "n"
    inputs.append(helper.make_value_info("opaque", opaque))
    sparse = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([1.5, -2.0], np.float32), "sp"),
        numpy_helper.from_array(np.array([1, 5], np.int64), "sp_idx"),
        [4, 4],
    )
    node = helper.make_node("Custom", ["seq"], ["out"], domain="my.domain", name="", zero=0, fzero=0.0)
    node.attribute.append(helper.make_attribute("tp", tp(TensorProto.FLOAT, [1])))
    node.attribute.append(helper.make_attribute("tps", [tp(TensorProto.INT8, [2]), opaque]))
    node.attribute.append(helper.make_attribute("sp", sparse))
    node.attribute.append(helper.make_attribute("sps", [sparse, sparse]))
    node.attribute.append(onnx.AttributeProto(name="ref", ref_attr_name="outer", type=onnx.AttributeProto.INT))
    helper.set_metadata_props(node, {"k": "", "": "v"})
    cfg = node.device_configurations.add(configuration_id="c0", pipeline_stage=2)
    spec = cfg.sharding_spec.add(tensor_name="seq", device=[0, -1])
    spec.index_to_device_group_map.add(key=3, value=[1, 2])
    spec.sharded_dim.add(axis=0).simple_sharding.add(dim_param="n", num_shards=2)
    seg = numpy_helper.from_array(np.arange(6, dtype=np.int32).reshape(2, 3), "seg")
    seg.segment.begin, seg.segment.end = 0, 0
    graph = helper.make_graph([node], "g", inputs, [helper.make_value_info("out", types["seq"])],
                              initializer=[seg], sparse_initializer=[sparse])
    graph.quantization_annotation.add(tensor_name="out").quant_parameter_tensor_names.add(key="SCALE", value="s")
    fn = helper.make_function("my.domain", "Custom", ["x"], ["y"], [helper.make_node("Identity", ["x"], ["y"])],
                              [helper.make_opsetid("", 18)], attributes=["a"])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("my.domain", 1)],
                              functions=[fn])
    info = model.training_info.add()
    info.algorithm.CopyFrom(helper.make_graph([], "algo", [], []))
    info.update_binding.add(key="w", value="w_new")
    model.configuration.add(name="c0", num_devices=2, device=["a", "b"])
    return model


def test_unmodelled_fields_round_trip():
    data = _model_with_unmodelled_fields().SerializeToString()
    assert onnx.load_from_string(popart_core._onnxRoundTrip(data)) == onnx.load_from_string(data)


def _field(tag, payload):
    n, length = len(payload), b""
    while n >= 0x80:
        length += bytes([n & 0x7F | 0x80])
        n >>= 7
    return bytes([tag]) + length + bytes([n]) + payload


def test_corrupt_unmodelled_message_is_rejected():
    with pytest.raises(popart_core.popart_exception, match="malformed ONNX model"):
        popart_core._onnxRoundTrip(b"\xca\x01\x03\x3a\x01\x2a")  # functions[0].node: truncated
    with pytest.raises(popart_core.popart_exception, match="FunctionProto"):
        popart_core._onnxRoundTrip(b"\xca\x01\x02\x38\x01")  # functions[0].node as a varint
    t = _field(0x0A, b"\x08\x01")  # TypeProto{tensor_type{elem_type: FLOAT}}
    for _ in range(2000):  # sequence_type { elem_type { ... } }
        t = _field(0x22, _field(0x0A, t))
    model = _field(0x3A, _field(0x5A, _field(0x0A, b"x") + _field(0x12, t)))
    with pytest.raises(popart_core.popart_exception, match="nested deeper"):
        popart_core._onnxRoundTrip(model)


def _model_with_initializers():
    rng = np.random.default_rng(0)
    inits = {
        "w_f32": rng.standard_normal((64, 33)).astype(np.float32),
        "w_i64": rng.integers(-(2**40), 2**40, size=(17,), dtype=np.int64),
        "w_f16": rng.standard_normal((5, 7)).astype(np.float16),
        "w_u8": rng.integers(0, 255, size=(300,), dtype=np.uint8),
    }
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 33])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [64, 33])
    node = helper.make_node("Add", ["x", "w_f32"], ["y"])
    graph = helper.make_graph(
        [node], "g", [x], [y], initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()]
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), inits


def test_external_data_is_loaded(tmp_path):
    model, inits = _model_with_initializers()
    path = str(tmp_path / "model.onnx")
    onnx.save_model(
        model, path, save_as_external_data=True, all_tensors_to_one_file=True, location="weights.bin",
        size_threshold=0,
    )
    saved = onnx.load(path, load_external_data=False)
    assert all(t.data_location == TensorProto.EXTERNAL for t in saved.graph.initializer)
    loaded = onnx.load_from_string(popart_core._onnxRoundTripFile(path))
    assert len(loaded.graph.initializer) == len(inits)
    for t in loaded.graph.initializer:
        assert t.data_location == TensorProto.DEFAULT and not t.external_data
        np.testing.assert_array_equal(numpy_helper.to_array(t), inits[t.name])
    # Without a folder the bytes are left external.
    with open(path, "rb") as f:
        unresolved = onnx.load_from_string(popart_core._onnxRoundTrip(f.read()))
    assert unresolved == saved


def test_external_data_missing_file_names_tensor_and_path(tmp_path):
    model, _ = _model_with_initializers()
    path = str(tmp_path / "model.onnx")
    onnx.save_model(model, path, save_as_external_data=True, location="weights.bin", size_threshold=0)
    os.remove(tmp_path / "weights.bin")
    with pytest.raises(popart_core.popart_exception, match=r"weights\.bin.*w_f32|w_f32.*weights\.bin"):
        popart_core._onnxRoundTripFile(path)


def test_unreadable_model_file_names_path(tmp_path):
    missing = str(tmp_path / "nope.onnx")
    with pytest.raises(popart_core.popart_exception, match="nope.onnx"):
        popart_core._onnxRoundTripFile(missing)


def _normalised(message):
    """StringStringEntryProto has no room for presence or unknown fields in the C++
    structs: key and value are always written. Mirror that before comparing."""
    if message.DESCRIPTOR.full_name == "onnx.StringStringEntryProto":
        for name in ("key", "value"):
            if not message.HasField(name):
                setattr(message, name, "")
        message.DiscardUnknownFields()
    for field, value in message.ListFields():
        if field.message_type is not None:
            for sub in value if field.is_repeated else [value]:
                _normalised(sub)
    return message


def _check_outcome(data):
    """Either popart_exception, or a model onnx reads as equal. Returns True if rejected."""
    try:
        out = popart_core._onnxRoundTrip(data)
    except popart_core.popart_exception as e:
        assert "malformed ONNX model" in str(e)
        return True
    assert _normalised(onnx.load_from_string(out)) == _normalised(onnx.load_from_string(data))
    assert popart_core._onnxRoundTrip(out) == out
    return False


def test_malformed_bytes_raise():
    for bad in [b"\x08\x80", b"\x3a\x05ab", b"\x0a\x00", b"\x0e", b"\x0f", b"\x0b\x0c",
                b"\x3a\xff\xff\xff\xff\xff\xff\xff\xff\x7f"]:
        with pytest.raises(popart_core.popart_exception, match="malformed ONNX model"):
            popart_core._onnxRoundTrip(bad)


def test_random_bytes():
    rng = random.Random(1)
    rejected = 0
    for _ in range(3000):
        data = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 80)))
        rejected += _check_outcome(data)
    assert rejected > 2000


def test_truncations_of_real_model():
    data = _read(os.path.join("node", "test_loop11", "model.onnx"))
    rejected = sum(_check_outcome(data[:n]) for n in range(len(data)))
    assert rejected > len(data) // 2


def _mutate(data, rng):
    b = bytearray(data)
    for _ in range(rng.randrange(1, 5)):
        at = rng.randrange(len(b)) if b else 0
        kind = rng.randrange(4)
        if kind == 0 and b:
            b[at] ^= 1 << rng.randrange(8)
        elif kind == 1:
            b.insert(at, rng.getrandbits(8))
        elif kind == 2 and b:
            del b[at : at + rng.randrange(1, 4)]
        elif b:
            b[at] = rng.getrandbits(8)
    return bytes(b)


def test_mutation_fuzz():
    seeds = [_read(os.path.join("node", name, "model.onnx")) for name in ("test_loop11", "test_if_seq", "test_conv_with_strides_padding")]
    rng = random.Random(2024)
    deadline = time.monotonic() + 5.0
    outcomes = [0, 0]
    while time.monotonic() < deadline:
        outcomes[_check_outcome(_mutate(rng.choice(seeds), rng))] += 1
    assert outcomes[0] > 0 and outcomes[1] > 0
