"""getTensorShape/getTensorDtypeString after ai.graphcore ops (which ONNX's
shape inference does not know): each answer is checked against the shape and
type of the tensor a session computes."""
import numpy as np
import pytest

import popart


def _graphcore_cases():
    """name -> function(builder, x[2,3,4] float32, i[2,3] int32) returning the output id."""
    gc = lambda b: b.aiGraphcore  # noqa: E731
    return {
        "gelu": lambda b, x, i: gc(b).gelu([x]),
        "detach": lambda b, x, i: gc(b).detach([x]),
        "l1loss_none": lambda b, x, i: gc(b).l1loss([x], 0.5, reduction=popart.ReductionType.NoReduction),
        "l1loss_sum": lambda b, x, i: gc(b).l1loss([x], 0.5, reduction=popart.ReductionType.Sum),
        "identityloss": lambda b, x, i: gc(b).identityloss([x], reduction=popart.ReductionType.Mean),
        "nllloss": lambda b, x, i: gc(b).nllloss([gc(b).detach([x]), i], reduction=popart.ReductionType.NoReduction),
        "dynamicslice": lambda b, x, i: gc(b).dynamicslice(
            [x, b.aiOnnx.constant(np.array([1], np.uint32))], axes=[2], sizes=[2]),
        "scale": lambda b, x, i: gc(b).scale([x], 2.0),
        "init": lambda b, x, i: gc(b).init([4, 5], popart.DataType.FLOAT, popart.InitType.Zero),
        "expm1": lambda b, x, i: gc(b).expm1([x]),
        "atan2": lambda b, x, i: gc(b).atan2([x, x]),
        "reshape": lambda b, x, i: gc(b).reshape([x], [4, 6]),
        "bitwisenot": lambda b, x, i: gc(b).bitwisenot([i]),
        "scatterreduce": lambda b, x, i: gc(b).scatterreduce(
            [x, b.aiOnnx.constant(np.zeros((2, 3, 4), np.int32))], axis_size=5, axis=2),
    }


CASES = _graphcore_cases()


@pytest.mark.parametrize("case", sorted(CASES))
def test_graphcore_op_shapes_match_the_session(case):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3, 4]), "x")
    i = b.addInputTensor(popart.TensorInfo("INT32", [2, 3]), "i")
    y = CASES[case](b, x, i)
    shape, dtype = b.getTensorShape(y), b.getTensorDtypeString(y)
    b.addOutputTensor(y)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, {y: popart.AnchorReturnType("All")}),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    feeds = {"x": np.ones((2, 3, 4), np.float32), "i": np.ones((2, 3), np.int32)}
    s.run(popart.PyStepIO({k: v for k, v in feeds.items() if k in s_inputs(b)}, anchors))
    assert list(anchors[y].shape) == shape
    assert anchors[y].dtype == np.dtype(dtype)


def s_inputs(builder):
    return set(builder.getInputTensorIds())


def test_untyped_input_leaves_later_tensors_unknown():
    b = popart.Builder()
    u = b.addUntypedInputTensor()
    y = b.aiGraphcore.gelu([u])
    with pytest.raises(popart.popart_exception, match=f"no shape is known for tensor '{y}'"):
        b.getTensorShape(y)
