"""ai.graphcore Detach (identity view) and Abort (runtime error when reached or true)."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart

GC = "ai.graphcore"


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.bool_])
def test_detach(op_tester, dtype):
    x = (np.random.RandomState(0).randn(3, 4) * 5).astype(dtype)
    op_tester.check("Detach", [x], reference=lambda x: x, domain=GC)


def test_detach_constant_folds(op_tester):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    op_tester.check("Detach", [op_tester.const(x)], reference=lambda x: x, domain=GC)


def run_abort(cond):
    """y = Identity(x) plus Abort(cond) (or an unconditional Abort when cond is None)."""
    ins = [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])]
    feeds = {"x": np.ones(2, np.float32)}
    abort_in = []
    if cond is not None:
        ins.append(oh.make_tensor_value_info("c", onnx.TensorProto.BOOL, list(cond.shape)))
        feeds["c"] = cond
        abort_in = ["c"]
    nodes = [oh.make_node("Identity", ["x"], ["y"]), oh.make_node("Abort", abort_in, [], domain=GC)]
    g = oh.make_graph(nodes, "g", ins, [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 11), oh.make_opsetid(GC, 1)])
    m.ir_version = 8
    s = popart.InferenceSession(m.SerializeToString(), popart.DataFlow(1, {"y": popart.AnchorReturnType("All")}),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, out))
    return out["y"]


def test_abort_false_condition_runs():
    np.testing.assert_array_equal(run_abort(np.array(False)), [1, 1])
    np.testing.assert_array_equal(run_abort(np.array([False, False])), [1, 1])


def test_abort_true_condition_raises():
    with pytest.raises(popart.popart_runtime_error, match="Abort.*condition is true"):
        run_abort(np.array(True))
    with pytest.raises(popart.popart_runtime_error, match="condition is true"):
        run_abort(np.array([False, True]))


def test_abort_unconditional_raises():
    with pytest.raises(popart.popart_runtime_error, match="unconditional abort"):
        run_abort(None)


def test_detach_stops_the_gradient():
    """loss = sum(w * Detach(w)): d loss / d w = w (the detached factor is a constant), not 2 w."""
    w0 = np.array([1.0, -2.0, 3.0], np.float32)
    nodes = [oh.make_node("Detach", ["w"], ["d"], domain=GC), oh.make_node("Mul", ["w", "d"], ["p"]),
             oh.make_node("IdentityLoss", ["p"], ["loss"], domain=GC, reduction=0)]
    g = oh.make_graph(nodes, "g", [], [oh.make_tensor_value_info("loss", onnx.TensorProto.FLOAT, [])],
                      initializer=[onnx.numpy_helper.from_array(w0, "w")])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 11), oh.make_opsetid(GC, 1)])
    m.ir_version = 8
    s = popart.TrainingSession(m.SerializeToString(), popart.DataFlow(1, ["Gradient___w"]), "loss",
                               popart.ConstSGD(0.0), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, out))
    np.testing.assert_allclose(out["Gradient___w"], w0)
