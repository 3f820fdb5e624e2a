"""A loss op's `reduction` is a STRING attribute in PopART's ONNX files
("Sum", "Mean", "NoReduction"): the Builder writes it that way, and files
holding either the STRING or the older INT form load and compute the same."""
import numpy as np
import onnx
import pytest
from onnx import helper

import popart


def _nll_builder(reduction):
    b = popart.Builder()
    probs = b.addInputTensor(popart.TensorInfo("FLOAT", [3, 4]), "probs")
    label = b.addInputTensor(popart.TensorInfo("INT32", [3]), "label")
    loss = b.aiGraphcore.nllloss([probs, label], reduction=reduction)
    b.addOutputTensor(loss)
    return b, loss


def _reduction_attr(proto, op_type="Nll"):
    node = next(n for n in onnx.load_from_string(proto).graph.node if n.op_type == op_type)
    return next(a for a in node.attribute if a.name == "reduction")


@pytest.mark.parametrize("reduction,text", [(popart.ReductionType.Sum, "Sum"), (popart.ReductionType.Mean, "Mean"),
                                            (popart.ReductionType.NoReduction, "NoReduction")])
def test_builder_writes_reduction_as_string(reduction, text):
    b, _ = _nll_builder(reduction)
    attr = _reduction_attr(b.getModelProto())
    assert attr.type == onnx.AttributeProto.STRING and attr.s.decode() == text


@pytest.mark.parametrize("op", ["l1loss", "identityloss"])
def test_other_losses_write_string_reductions(op):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [3]))
    if op == "l1loss":
        b.aiGraphcore.l1loss([x], 0.5, reduction=popart.ReductionType.Sum)
    else:
        b.aiGraphcore.identityloss([x], reduction=popart.ReductionType.Sum)
    attr = _reduction_attr(b.getModelProto(), "L1" if op == "l1loss" else "IdentityLoss")
    assert attr.type == onnx.AttributeProto.STRING and attr.s.decode() == "Sum"


def _run(proto, loss):
    probs = np.array([[0.1, 0.2, 0.3, 0.4], [0.25] * 4, [0.7, 0.1, 0.1, 0.1]], np.float32)
    label = np.array([3, 1, 0], np.int32)
    s = popart.InferenceSession(proto, popart.DataFlow(1, {loss: popart.AnchorReturnType("All")}),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({"probs": probs, "label": label}, anchors))
    return anchors[loss], -np.log(probs[np.arange(3), label])


@pytest.mark.parametrize("encoding", ["string", "int"])
@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_both_encodings_load(encoding, reduction):
    b, loss = _nll_builder(popart.ReductionType(reduction))
    m = onnx.load_from_string(b.getModelProto())
    node = next(n for n in m.graph.node if n.op_type == "Nll")
    if encoding == "int":  # the form older files hold
        keep = [a for a in node.attribute if a.name != "reduction"]
        del node.attribute[:]
        node.attribute.extend(keep + [helper.make_attribute("reduction", reduction)])
    got, per_sample = _run(m.SerializeToString(), loss)
    expected = [per_sample.sum(), per_sample.mean(), per_sample][reduction]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_bad_string_reduction_is_named():
    b, loss = _nll_builder(popart.ReductionType.Sum)
    m = onnx.load_from_string(b.getModelProto())
    node = next(n for n in m.graph.node if n.op_type == "Nll")
    for a in node.attribute:
        if a.name == "reduction":
            a.s = b"Average"
    with pytest.raises(popart.popart_exception, match='reduction must be "Sum", "Mean" or "NoReduction", got "Average"'):
        _run(m.SerializeToString(), loss)


def test_core_builder_takes_the_int_form_and_writes_the_string():
    """C++ programs pass ReductionType (an INT) to addOp: it is written as PopART's STRING."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [3]))
    [y] = b._impl.addOp("ai.graphcore", "L1", 1, [x], 1, {"lambda": 1.0, "reduction": 2}, "")
    attr = _reduction_attr(b.getModelProto(), "L1")
    assert attr.type == onnx.AttributeProto.STRING and attr.s.decode() == "NoReduction"
    with pytest.raises(popart.popart_exception, match="reduction must be 0 \\(Sum\\), 1 \\(Mean\\) or 2"):
        b._impl.addOp("ai.graphcore", "L1", 1, [x], 1, {"lambda": 1.0, "reduction": 7}, "")
