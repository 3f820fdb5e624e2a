# GENERATED coverage: every ai.onnx op of opsets 6..11 and every ai.graphcore
# op is built once through its Builder method. ai.onnx models must pass
# onnx.checker (full check); graphcore models are checked node by node.
import numpy as np
import onnx
import popart
import pytest
from popart import _builder_ops as ops

F = ("FLOAT", [2, 3])
SPECIAL = {"constant", "logical_if", "loop", "scan"}


def i64(*values):
    return ("const", np.array(values, dtype=np.int64))


def f32c(*values):
    return ("const", np.array(values, dtype=np.float32))


def rnn(gates):
    return dict(inputs=[("FLOAT", [2, 1, 3]), ("FLOAT", [1, gates * 2, 3]), ("FLOAT", [1, gates * 2, 2])],
                attrs={"hidden_size": 2}, num_outputs=1)


POOL = dict(inputs=[("FLOAT", [1, 1, 4, 4])], attrs={"kernel_shape": [2, 2]})
CONV = dict(inputs=[("FLOAT", [1, 1, 4, 4]), ("FLOAT", [1, 1, 2, 2])])
BOOL2 = dict(inputs=[("BOOL", [2, 3]), ("BOOL", [2, 3])])
U8 = ("UINT8", [])
SCALE = ("FLOAT", [])

# Inputs ("dtype", shape) or ("const", array), attributes and output count for
# ops the generic recipe (FLOAT [2,3] inputs, 1 for required attributes) cannot build.
RECIPES = {
    "And": BOOL2, "Or": BOOL2, "Xor": BOOL2, "Not": dict(inputs=[("BOOL", [2, 3])]),
    "Equal": dict(inputs=[("INT32", [2, 3]), ("INT32", [2, 3])]),
    "AveragePool": POOL, "LpPool": POOL, "MaxPool": dict(POOL, num_outputs=1),
    "GlobalLpPool": dict(inputs=[("FLOAT", [1, 1, 4, 4])]),
    "Conv": CONV, "ConvTranspose": CONV,
    "ConvInteger": dict(inputs=[("UINT8", [1, 1, 4, 4]), ("UINT8", [1, 1, 2, 2])]),
    "MatMul": dict(inputs=[F, ("FLOAT", [3, 4])]),
    "MatMulInteger": dict(inputs=[("UINT8", [2, 3]), ("UINT8", [3, 4])]),
    "QLinearConv": dict(inputs=[("UINT8", [1, 1, 4, 4]), SCALE, U8, ("UINT8", [1, 1, 2, 2]), SCALE, U8, SCALE, U8]),
    "QLinearMatMul": dict(inputs=[("UINT8", [2, 3]), SCALE, U8, ("UINT8", [3, 4]), SCALE, U8, SCALE, U8]),
    "DequantizeLinear": dict(inputs=[("UINT8", [2, 3]), SCALE, U8]),
    "QuantizeLinear": dict(inputs=[F, SCALE, U8]),
    "DepthToSpace": dict(inputs=[("FLOAT", [1, 4, 2, 2])], attrs={"blocksize": 2}),
    "SpaceToDepth": dict(inputs=[("FLOAT", [1, 1, 4, 4])], attrs={"blocksize": 2}),
    "Expand": dict(inputs=[F, i64(2, 3)]),
    "Gather": dict(inputs=[F, ("INT64", [2])]),
    "GatherElements": dict(inputs=[F, ("INT64", [2, 3])]),
    "GatherND": dict(inputs=[F, ("INT64", [2, 1])]),
    "GRU": rnn(3), "LSTM": rnn(4), "RNN": rnn(1),
    "MaxRoiPool": dict(inputs=[("FLOAT", [1, 1, 4, 4]), ("FLOAT", [1, 5])], attrs={"pooled_shape": [2, 2]}),
    "MaxUnpool": dict(inputs=[("FLOAT", [1, 1, 2, 2]), ("INT64", [1, 1, 2, 2])],
                      attrs={"kernel_shape": [2, 2], "strides": [2, 2]}),
    "OneHot": dict(inputs=[("INT64", [3]), i64(4), ("FLOAT", [2])]),
    "Reshape": dict(inputs=[F, i64(3, 2)]),
    "Compress": dict(inputs=[F, ("BOOL", [2])], attrs={"axis": 0}, check=False),  # data-dependent shape
    "ConstantOfShape": dict(inputs=[i64(2, 3)]),
    "ReverseSequence": dict(inputs=[F, ("INT64", [3])]),
    "RoiAlign": dict(inputs=[("FLOAT", [1, 1, 4, 4]), ("FLOAT", [1, 4]), ("INT64", [1])]),
    "Scatter": dict(inputs=[F, ("INT64", [1, 3]), ("FLOAT", [1, 3])]),
    "ScatterElements": dict(inputs=[F, ("INT64", [1, 3]), ("FLOAT", [1, 3])]),
    "ScatterND": dict(inputs=[F, ("INT64", [1, 1]), ("FLOAT", [1, 3])]),
    "StringNormalizer": dict(inputs=[("STRING", [3])]),
    "TfIdfVectorizer": dict(inputs=[("INT32", [12])], attrs=dict(
        mode="TF", min_gram_length=2, max_gram_length=2, max_skip_count=0, ngram_counts=[0, 4],
        ngram_indexes=[0, 1, 2, 3, 4, 5, 6], pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 6, 7])),
    "Tile": dict(inputs=[F, i64(1, 2)]),
    "Where": dict(inputs=[("BOOL", [2, 3]), F, F]),
    "BitShift": dict(inputs=[("UINT32", [2, 3]), ("UINT32", [2, 3])], attrs={"direction": "LEFT"}),
    "CumSum": dict(inputs=[F, ("const", np.array(0, dtype=np.int32))]),
    "Det": dict(inputs=[("FLOAT", [3, 3])]),
    "NonMaxSuppression": dict(inputs=[("FLOAT", [1, 2, 4]), ("FLOAT", [1, 1, 2])], check=False),
    "Range": dict(inputs=[("const", np.array(0, np.float32)), ("const", np.array(4, np.float32)),
                          ("const", np.array(1, np.float32))]),
    "Unique": dict(inputs=[("FLOAT", [5])], num_outputs=1),
    "Einsum": dict(inputs=[F, ("FLOAT", [3, 4])], attrs={"equation": "ij,jk->ik"}),
    "Gemm": dict(inputs=[F, ("FLOAT", [3, 4]), ("FLOAT", [2, 4])]),
    "Concat": dict(inputs=[F, F], attrs={"axis": 0}),
    "Split": dict(num_outputs=2, attrs={"axis": 1, "split": [1, 2]}),
    "Transpose": dict(attrs={"perm": [1, 0]}),
    "Squeeze": dict(inputs=[("FLOAT", [1, 3])], attrs={"axes": [0]}),
    "Unsqueeze": dict(attrs={"axes": [0]}),
    "Slice": dict(attrs={"starts": [0], "ends": [1]}),
    "Cast": dict(attrs={"to": "INT32"}),
    "EyeLike": dict(inputs=[("FLOAT", [3, 3])]),
    "RandomNormal": dict(attrs={"shape": [2, 3]}), "RandomUniform": dict(attrs={"shape": [2, 3]}),
    "Multinomial": dict(inputs=[("FLOAT", [2, 3])]),
    "InstanceNormalization": dict(inputs=[("FLOAT", [1, 2, 3]), ("FLOAT", [2]), ("FLOAT", [2])]),
    "BatchNormalization": dict(inputs=[("FLOAT", [1, 2, 3])] + [("FLOAT", [2])] * 4, num_outputs=1),
    "LpNormalization": {}, "LRN": dict(inputs=[("FLOAT", [1, 2, 3, 3])], attrs={"size": 3}),
    "MeanVarianceNormalization": dict(inputs=[("FLOAT", [1, 2, 3, 3])]),
    "Dropout": dict(num_outputs=1), "Upsample": dict(inputs=[("FLOAT", [1, 1, 2, 2])],
                                                     attrs={"scales": [1.0, 1.0, 2.0, 2.0]}),
    "Resize": dict(inputs=[("FLOAT", [1, 1, 2, 2]), f32c(1, 1, 2, 2)]),
    "TopK": dict(attrs={"k": 2}),
    "NonZero": dict(check=False), "Shape": {}, "Size": {},
    "SequenceConstruct": dict(inputs=[F, F]),
    "SplitToSequence": dict(inputs=[F]),
    "Pad": dict(attrs={"pads": [0, 1, 0, 1]}),
}
# Version-specific recipes: (op, first version) -> recipe.
VERSIONED = {
    ("Upsample", 9): dict(inputs=[("FLOAT", [1, 1, 2, 2]), f32c(1, 1, 2, 2)]),
    ("Resize", 11): dict(inputs=[("FLOAT", [1, 1, 2, 2]), f32c(), f32c(1, 1, 2, 2)]),
    ("Slice", 10): dict(inputs=[F, i64(0), i64(1)]),
    ("TopK", 10): dict(inputs=[F, i64(2)]),
    ("Pad", 11): dict(inputs=[F, i64(0, 1, 0, 1)]),
}
# Sequence ops need a sequence built first.
SEQUENCE_CHAINS = {
    "SequenceAt": lambda b, ai, x: ai.sequenceat([ai.sequenceconstruct([x, x]), ai.constant(np.array(0, np.int64))]),
    "SequenceErase": lambda b, ai, x: ai.sequenceerase([ai.sequenceconstruct([x, x])]),
    "SequenceInsert": lambda b, ai, x: ai.sequenceinsert([ai.sequenceconstruct([x]), x]),
    "SequenceLength": lambda b, ai, x: ai.sequencelength([ai.sequenceconstruct([x])]),
    "ConcatFromSequence": lambda b, ai, x: ai.concatfromsequence([ai.sequenceconstruct([x, x])], axis=0),
    "SequenceEmpty": lambda b, ai, x: ai.sequenceempty(),
}


def recipe_for(op, version):
    chosen = RECIPES.get(op, {})
    for (name, since), r in sorted(VERSIONED.items(), key=lambda kv: kv[0][1]):
        if name == op and since <= version:
            chosen = r
    return chosen


def default_attr(attr):
    return {"INT": 1, "FLOAT": 1.0, "INTS": [1], "FLOATS": [1.0], "STRING": "a", "STRINGS": ["a"]}[attr.type]


def make_input(builder, ai, spec):
    if spec[0] == "const":  # Constant-1 (opsets < 9) holds only floats: use an initializer
        return ai.constant(spec[1]) if ai.version >= 9 else builder.addInitializedInputTensor(spec[1])
    return builder.addInputTensor(popart.TensorInfo(*spec))


def build_op(builder, ai, domain, op, version):
    spec = ops.spec_at(domain, op, version)
    name = ops.method_name(domain, op)
    if op in SEQUENCE_CHAINS:
        return [SEQUENCE_CHAINS[op](builder, ai, builder.addInputTensor(popart.TensorInfo(*F)))], True
    r = recipe_for(op, version)
    in_specs = r.get("inputs", [F] * max(spec.min_inputs, 1 if spec.max_inputs else 0))
    inputs = [make_input(builder, ai, s) for s in in_specs]
    attrs = {a.name: default_attr(a) for a in spec.attrs if a.required}
    attrs.update({k: v for k, v in r.get("attrs", {}).items() if spec.params().count(k)})
    pos = [r.get("num_outputs", spec.min_outputs or 1)] if spec.variable_outputs else []
    method = getattr(ai, name)
    out = method(inputs, *pos, **attrs) if spec.max_inputs else method(*pos, **attrs)
    return (out if isinstance(out, list) else [out]), r.get("check", True)


def onnx_cases():
    for v in range(6, 12):
        for op in ops.ops_of_domain("ai.onnx"):
            try:
                ops.spec_at("ai.onnx", op, v)
            except popart.popart_exception:
                continue
            if ops.method_name("ai.onnx", op) not in SPECIAL:
                yield v, op


# onnx has no shape inference for these schema versions: outputs stay untyped,
# so only the structural check applies.
NO_INFERENCE = {(6, "GRU"), (6, "LSTM"), (6, "RNN"), (6, "Upsample")}


@pytest.mark.parametrize("version,op", list(onnx_cases()))
def test_onnx_op(version, op):
    builder = popart.Builder(opsets={"ai.onnx": version})
    outs, check = build_op(builder, builder.aiOnnx, "ai.onnx", op, version)
    for o in outs:
        builder.addOutputTensor(o)
    model = onnx.load_from_string(builder.getModelProto())
    assert model.opset_import[0].version == version
    assert op in [n.op_type for n in model.graph.node]
    if (version, op) in NO_INFERENCE:
        for out in model.graph.output:
            out.type.tensor_type.elem_type = onnx.TensorProto.FLOAT
            out.type.tensor_type.shape.SetInParent()
        onnx.checker.check_model(model)
    elif check:
        onnx.checker.check_model(model, full_check=True)


GRAPHCORE_SKIP = {"Call", "PackedDataBlock", "MultiConv"}  # sub-graph / nested-list ops: test_builder_subgraphs


@pytest.mark.parametrize("op", [op for op in ops.ops_of_domain("ai.graphcore") if op not in GRAPHCORE_SKIP])
def test_graphcore_op(op):
    builder = popart.Builder()
    spec = ops.spec_at("ai.graphcore", op, 1)
    name = ops.method_name("ai.graphcore", op)
    inputs = [builder.addInputTensor(popart.TensorInfo(*F)) for _ in range(spec.min_inputs)]
    attrs = {a.name: default_attr(a) for a in spec.attrs if a.required}
    pos = [spec.min_outputs] if spec.variable_outputs else []
    method = getattr(builder.aiGraphcore, name)
    if op == "Init":
        out = method([2, 3], popart.DataType.FLOAT, 1, 0)
    elif op == "PrintTensor":
        out = method(inputs, 0, "dbg", title="t")
    elif op in ("ReplicatedAllReduce", "ReplicatedReduceScatter"):
        out = method(inputs, popart.CollectiveOperator.Add, popart.CommGroup(popart.CommGroupType.All, 0))
    elif op == "ReplicatedAllGather":
        out = method(inputs, popart.CommGroup(popart.CommGroupType.All, 0))
    else:
        out = method(inputs, *pos, **attrs) if spec.max_inputs else method(*pos, **attrs)
    model = onnx.load_from_string(builder.getModelProto())
    node = [n for n in model.graph.node if n.op_type == op]
    assert len(node) == 1, op
    node = node[0]
    assert node.domain == "ai.graphcore"
    assert {o.domain: o.version for o in model.opset_import}["ai.graphcore"] == 1
    written = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    for a in spec.attrs:
        if a.required and op not in ("Init", "ReplicatedAllReduce", "ReplicatedReduceScatter", "ReplicatedAllGather"):
            assert a.name in written, (op, a.name)
    if op == "PrintTensor":
        assert written["title"] == b"t" and written["print_gradient"] == 0
        assert node.name == "dbg"
    if op.startswith("Replicated"):
        assert written["__collectiveCommGroup"] == [0, 0]
        assert written.get("__collectiveOperator") == (None if op == "ReplicatedAllGather" else 0)
    if op == "Init":
        assert written["shape"] == [2, 3] and written["batch_axis"] == 0
    if spec.max_outputs == 0:
        assert out is None
    elif op == "Ctc":
        assert isinstance(out, str) and len(node.output) == 2
    elif spec.max_outputs > 1:
        assert isinstance(out, list)
    else:
        assert isinstance(out, str)
