"""Gradients of the view ops (Reshape, Flatten, Squeeze, Unsqueeze): dx = dy reshaped back."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart
from _grad_util import tol, weighted_loss

DTYPES = [np.float32, np.float16, np.float64]


def rand(shape, dtype, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,target", [((2, 3, 4), [4, -1]), ((6,), [2, 3]), ((2, 1, 3), [0, 3, -1]),
                                          ((5,), [1, 5, 1])])
def test_reshape_grad(op_tester, dtype, shape, target):
    x = rand(shape, dtype)
    op_tester.check_grad("Reshape", [x, op_tester.const(np.array(target, np.int64))],
                         reference=lambda x, s: x.reshape([d if d else x.shape[i] for i, d in enumerate(s)]),
                         opset=13, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_flatten_grad(op_tester, dtype, axis):
    x = rand((2, 3, 4), dtype)
    a = axis % 3 if axis < 0 else axis
    op_tester.check_grad("Flatten", [x], reference=lambda x: x.reshape(int(np.prod(x.shape[:a])), -1),
                         attrs={"axis": axis}, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axes", [None, [1], [-1], [1, -1]])
@pytest.mark.parametrize("opset", [11, 13])
def test_squeeze_grad(op_tester, dtype, axes, opset):
    x = rand((3, 1, 4, 1), dtype)
    ref = lambda x, *a: np.squeeze(x, axis=None if axes is None else tuple(axes))
    if axes is None:
        op_tester.check_grad("Squeeze", [x], reference=ref, opset=opset, **tol(dtype))
    elif opset >= 13:
        op_tester.check_grad("Squeeze", [x, op_tester.const(np.array(axes, np.int64))], reference=ref, opset=opset,
                             **tol(dtype))
    else:
        op_tester.check_grad("Squeeze", [x], reference=ref, attrs={"axes": axes}, opset=opset, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axes", [[0], [-1], [1, 3]])
def test_unsqueeze_grad(op_tester, dtype, axes):
    x = rand((3, 4), dtype)

    def ref(x, a):
        for ax in sorted(int(v) % (x.ndim + len(axes)) for v in a):
            x = np.expand_dims(x, ax)
        return x
    op_tester.check_grad("Unsqueeze", [x, op_tester.const(np.array(axes, np.int64))], reference=ref, opset=13,
                         **tol(dtype))


def test_view_grad_chain_with_anchored_intermediates():
    # w -> Reshape -> Transpose -> Flatten -> sum(. * cot); the view gradients
    # alias their inputs, so anchoring each of them must still give its own value.
    rng = np.random.RandomState(4)
    w = rng.randn(6, 4).astype(np.float32)
    cot = rng.randn(4, 6).astype(np.float32)
    nodes = [oh.make_node("Constant", [], ["shape"], value=onnx.numpy_helper.from_array(np.array([2, 3, 4]), "s")),
             oh.make_node("Reshape", ["w", "shape"], ["r"]),
             oh.make_node("Transpose", ["r"], ["t"], perm=[2, 0, 1]),
             oh.make_node("Flatten", ["t"], ["f"], axis=1)] + weighted_loss("f", cot)
    graph = oh.make_graph(nodes, "g", [], [oh.make_tensor_value_info("loss", onnx.TensorProto.FLOAT, [])],
                          initializer=[onnx.numpy_helper.from_array(w, "w")])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13), oh.make_opsetid("ai.graphcore", 1)])
    model.ir_version = min(model.ir_version, 10)
    names = ["f", "t", "r", "w"]
    anchors = [popart.reservedGradientPrefix() + n for n in names]
    s = popart.TrainingSession(model.SerializeToString(), popart.DataFlow(1, anchors), "loss",
                               popart.ConstSGD(0.0), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, res))
    g = dict(zip(names, (res[a] for a in anchors)))
    np.testing.assert_array_equal(g["f"], cot)
    np.testing.assert_array_equal(g["t"], cot.reshape(4, 2, 3))
    np.testing.assert_array_equal(g["r"], np.transpose(cot.reshape(4, 2, 3), [1, 2, 0]))
    np.testing.assert_array_equal(g["w"], g["r"].reshape(6, 4))
