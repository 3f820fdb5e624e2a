"""PopART's pattern names: accepted, toggled and queried by name and as attributes, with
PopART's level membership; mandatory ones are required at session creation unless runtime
asserts are off; the rewrites that change this IR change the op counts and not the numbers."""
import json

import numpy as np
import onnx.helper as oh
import onnx.numpy_helper as onh
import pytest

import popart
from _session_models import F32, make_model, run, session

POPART_NAMES = """AbsGradOp AllReduceToIdentity Atan2Arg0GradOp Atan2Arg1GradOp ConvDataGrad
ConvFlipWeightsDoubleFlip ConvFlipWeightsGradOp ConvTranspose CosGradOp CoshOp DecomposeBinaryConstScalar
DivArg0GradOp DivArg1GradOp ExpGradOp ExpandCast Expm1GradOp FmodArg0GradOp InitAccumulate LSTMOp
LambSerialisedWeight Log1pGradOp LogGradOp LoopScanOut MatMulLhsGradOp MatMulOp MatMulRhsGradOp MulArgGradOp
NegativeOneScale NlllWithSoftmaxGradDirect OpToIdentity PackedDataBlock PadSum PostNRepl PowArg0GradOp
PowArg1GradOp PreUniRepl RandomNormalLikeOpPattern RandomUniformLikeOpPattern ReciprocalGradOp
RemoveUnnecessaryLossGradCast ScanToLoop SinGradOp Slice2SliceSubsample SoftmaxGradDirect SplitGather
SplitGradOpToConcat SplitOp SqrtGradOp SubtractArg1GradOp SumToAdd TiedGather TiedGatherAccumulate
TransposeToIdentityOrReshapePattern UpsampleToResize ZerosLikeOpPattern""".split()

MANDATORY = ["MulArgGradOp", "SubtractArg1GradOp", "MatMulOp", "UpsampleToResize", "ZerosLikeOpPattern"]
DEFAULT_ONLY = ["PreUniRepl", "PostNRepl", "OpToIdentity", "SoftmaxGradDirect", "NegativeOneScale"]
ALL_ONLY = ["SplitGather", "PadSum", "SumToAdd"]


@pytest.mark.parametrize("name", POPART_NAMES)
def test_every_popart_name_is_accepted_toggled_and_queried(name):
    p = popart.Patterns(popart.PatternsLevel.NoPatterns)
    assert not p.isPatternEnabled(name) and not getattr(p, name)
    assert p.enablePattern(name, True) is p
    assert p.isPatternEnabled(name) and getattr(p, name)
    setattr(p, name, False)
    assert not p.isPatternEnabled(name)
    assert popart.Patterns([name]).isPatternEnabled(name)
    assert popart.Patterns(popart.PatternsLevel.All).isPatternEnabled(name)


def test_level_membership():
    none = popart.Patterns(popart.PatternsLevel.NoPatterns)
    minimal = popart.Patterns(popart.PatternsLevel.Minimal)
    default = popart.Patterns()
    for n in MANDATORY:
        assert not none.isPatternEnabled(n) and minimal.isPatternEnabled(n) and default.isPatternEnabled(n)
    for n in DEFAULT_ONLY:
        assert not minimal.isPatternEnabled(n) and default.isPatternEnabled(n)
    for n in ALL_ONLY:
        assert not default.isPatternEnabled(n) and popart.Patterns(popart.PatternsLevel.All).isPatternEnabled(n)
    assert default.InPlace and default.UpdateInplacePrioritiesForIpu
    assert not none.InPlace and not minimal.InPlace


def test_attribute_access_as_popart():
    p = popart.Patterns()
    assert p.PreUniRepl and p.SoftMaxGradDirect and p.NlllWithSoftMaxGradDirect
    p.InPlace = False
    p.PreUniRepl = False
    p.SoftMaxGradDirect = False
    assert not p.InPlace and not p.isPatternEnabled("PreUniRepl") and not p.isPatternEnabled("SoftmaxGradDirect")
    p.UpdateInplacePrioritiesForIpu = False
    assert not p.isPatternEnabled("UpdateInplacePrioritiesForIpu")
    with pytest.raises(AttributeError, match="NotAPattern"):
        p.NotAPattern
    with pytest.raises(AttributeError, match="NotAPattern"):
        p.NotAPattern = True
    assert "PreUniRepl" in dir(p)


def relu_model():
    return make_model([oh.make_node("Relu", ["x"], ["out"])], [("x", F32, [2, 3])], [("out", F32, [2, 3])])


@pytest.mark.parametrize("patterns", [
    lambda: popart.Patterns(popart.PatternsLevel.NoPatterns),
    lambda: popart.Patterns(["InPlace"]),
    lambda: popart.Patterns().enablePattern("MulArgGradOp", False),
])
def test_mandatory_patterns_refuse_to_be_disabled(patterns):
    with pytest.raises(popart.popart_exception, match="mandatory pattern '.*' is disabled.*enableRuntimeAsserts"):
        session(relu_model(), ["out"], patterns=patterns())
    p = patterns().enableRuntimeAsserts(False)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(run(session(relu_model(), ["out"], patterns=p), {"x": x})["out"], np.maximum(x, 0))


def op_types(s):
    ir = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))
    return [op["type"] for op in ir["maingraph"]]


def compare(model, name, feeds, removed, added, anchors=("out",)):
    """Session with only `name` (and the mandatory ones) on vs off: op types change as named, numbers do not."""
    # IdentityRemoval off in both, so that the Identity ops a rewrite makes stay visible
    on = popart.Patterns(popart.PatternsLevel.Minimal).enablePattern(name, True)
    off = popart.Patterns(popart.PatternsLevel.Minimal).enablePattern(name, False).enableRuntimeAsserts(False)
    on.IdentityRemoval = off.IdentityRemoval = False
    s_on, s_off = session(model, list(anchors), patterns=on), session(model, list(anchors), patterns=off)
    t_on, t_off = op_types(s_on), op_types(s_off)
    for t in removed:
        assert t in t_off and t not in t_on, (t, t_on, t_off)
    for t in added:
        assert t_on.count(t) > t_off.count(t), (t, t_on, t_off)
    r_on, r_off = run(s_on, feeds), run(s_off, feeds)
    for a in anchors:
        assert r_on[a].dtype == r_off[a].dtype
        np.testing.assert_array_equal(r_on[a], r_off[a])
    return r_on


X = np.linspace(-2, 2, 24, dtype=np.float32).reshape(2, 3, 4)


def test_op_to_identity_pad_concat_sum():
    nodes = [oh.make_node("Pad", ["x", "pads"], ["p"]), oh.make_node("Concat", ["p"], ["c"], axis=0),
             oh.make_node("Sum", ["c"], ["s"]), oh.make_node("Relu", ["s"], ["out"])]
    model = make_model(nodes, [("x", F32, [2, 3, 4])], [("out", F32, [2, 3, 4])],
                       [("pads", np.zeros(6, np.int64))])
    r = compare(model, "OpToIdentity", {"x": X}, removed=["Pad", "Concat", "Sum"], added=["Identity"])
    np.testing.assert_array_equal(r["out"], np.maximum(X, 0))


def test_sum_to_add():
    model = make_model([oh.make_node("Sum", ["x", "y"], ["out"])], [("x", F32, [2, 3, 4]), ("y", F32, [3, 4])],
                       [("out", F32, [2, 3, 4])])
    y = np.arange(12, dtype=np.float32).reshape(3, 4)
    r = compare(model, "SumToAdd", {"x": X, "y": y}, removed=["Sum"], added=["Add"])
    np.testing.assert_array_equal(r["out"], X + y)


def test_pre_uni_repl_removes_a_single_input_sum():
    model = make_model([oh.make_node("Relu", ["x"], ["r"]), oh.make_node("Sum", ["r"], ["s"]),
                        oh.make_node("Neg", ["s"], ["out"])], [("x", F32, [2, 3, 4])], [("out", F32, [2, 3, 4])])
    r = compare(model, "PreUniRepl", {"x": X}, removed=["Sum"], added=[])
    np.testing.assert_array_equal(r["out"], -np.maximum(X, 0))


@pytest.mark.parametrize("perm,added", [([0, 1, 2], "Identity"), ([1, 0, 2, 3], "Reshape")])
def test_transpose_to_identity_or_reshape(perm, added):
    shape = [2, 3, 4] if len(perm) == 3 else [1, 6, 2, 2]
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    out_shape = [shape[p] for p in perm]
    model = make_model([oh.make_node("Transpose", ["x"], ["t"], perm=perm), oh.make_node("Relu", ["t"], ["out"])],
                       [("x", F32, shape)], [("out", F32, out_shape)])
    r = compare(model, "TransposeToIdentityOrReshapePattern", {"x": x}, removed=["Transpose"], added=[added])
    np.testing.assert_array_equal(r["out"], np.transpose(x, perm))


def test_transpose_that_moves_data_is_kept():
    model = make_model([oh.make_node("Transpose", ["x"], ["out"], perm=[2, 0, 1])], [("x", F32, [2, 3, 4])],
                       [("out", F32, [4, 2, 3])])
    s = session(model, ["out"], patterns=popart.Patterns(["TransposeToIdentityOrReshapePattern"])
                .enableRuntimeAsserts(False))
    assert "Transpose" in op_types(s)
    np.testing.assert_array_equal(run(s, {"x": X})["out"], np.transpose(X, [2, 0, 1]))


def test_expand_cast_casts_the_small_tensor():
    model = make_model([oh.make_node("Expand", ["x", "shape"], ["e"]),
                        oh.make_node("Cast", ["e"], ["out"], to=10)],
                       [("x", F32, [3, 1])], [("out", 10, [2, 3, 4])], [("shape", np.array([2, 3, 4], np.int64))])
    x = np.array([[1.5], [-2.25], [3.0]], np.float32)
    on = popart.Patterns(popart.PatternsLevel.Minimal).enablePattern("ExpandCast", True)
    s = session(model, ["out"], patterns=on)
    ir = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))["maingraph"]
    cast = next(op for op in ir if op["type"] == "Cast")
    assert cast["inputs"][0]["shape"] == "[3,1]"
    r = compare(model, "ExpandCast", {"x": x}, removed=[], added=[])
    assert r["out"].dtype == np.float16
    np.testing.assert_array_equal(r["out"], np.broadcast_to(x, (2, 3, 4)).astype(np.float16))


def test_negative_one_scale_becomes_neg():
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3, 4]))
    out = b.aiGraphcore.scale([x], -1.0)
    b.addOutputTensor(out)
    model = b.getModelProto()
    on = popart.Patterns(popart.PatternsLevel.Minimal).enablePattern("NegativeOneScale", True)
    off = popart.Patterns(popart.PatternsLevel.Minimal)
    s_on, s_off = session(model, [out], patterns=on), session(model, [out], patterns=off)
    assert "Neg" in op_types(s_on) and "Scale" not in op_types(s_on) and "Scale" in op_types(s_off)
    np.testing.assert_array_equal(run(s_on, {x: X})[out], run(s_off, {x: X})[out])
    np.testing.assert_array_equal(run(s_on, {x: X})[out], -X)


def test_upsample_to_resize():
    scales = onh.from_array(np.array([1, 1, 2, 3], np.float32), "scales")
    nodes = [oh.make_node("Constant", [], ["scales"], value=scales),
             oh.make_node("Upsample", ["x", "scales"], ["out"], mode="nearest")]
    model = make_model(nodes, [("x", F32, [1, 1, 2, 2])], [("out", F32, [1, 1, 4, 6])], opset=9)
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    r = compare(model, "UpsampleToResize", {"x": x}, removed=["Upsample"], added=["Resize"])
    np.testing.assert_array_equal(r["out"], x.repeat(2, axis=2).repeat(3, axis=3))


def test_zeros_like_becomes_a_constant():
    graph = oh.make_graph([oh.make_node("ZerosLike", ["x"], ["z"], domain="ai.graphcore"),
                           oh.make_node("Add", ["x", "z"], ["out"])], "zeros",
                          [oh.make_tensor_value_info("x", F32, [2, 3, 4])],
                          [oh.make_tensor_value_info("out", F32, [2, 3, 4])])
    proto = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11), oh.make_opsetid("ai.graphcore", 1)])
    proto.ir_version = 8
    model, x, out = proto.SerializeToString(), "x", "out"
    on = popart.Patterns(popart.PatternsLevel.Minimal)
    off = popart.Patterns(popart.PatternsLevel.Minimal).enablePattern("ZerosLikeOpPattern", False)
    off.enableRuntimeAsserts(False)
    s_on, s_off = session(model, [out], patterns=on), session(model, [out], patterns=off)
    assert "ZerosLike" in op_types(s_off) and "ZerosLike" not in op_types(s_on)
    np.testing.assert_array_equal(run(s_on, {x: X})[out], run(s_off, {x: X})[out])


def test_exclude_patterns_keeps_the_op():
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3, 4]))
    t = b.aiOnnx.transpose([x], [0, 1, 2])
    b.excludePatterns(t, ["TransposeToIdentityOrReshapePattern"])
    out = b.aiOnnx.relu([t])
    b.addOutputTensor(out)
    s = session(b.getModelProto(), [out], patterns=popart.Patterns())
    assert "Transpose" in op_types(s)
    np.testing.assert_array_equal(run(s, {x: X})[out], np.maximum(X, 0))
