"""Unique (opset 11) against numpy.unique: flattened and along an axis, sorted
and in order of first occurrence, all four outputs, several dtypes."""
import numpy as np
import onnx.helper as oh
import pytest
from onnx import numpy_helper

import popart


def run_unique(x, attrs):
    """Unique of x given as a Constant node (float initializers would be weights, not constants)."""
    nodes = [oh.make_node("Constant", [], ["x"], value=numpy_helper.from_array(x, "x")),
             oh.make_node("Unique", ["x"], ["y", "idx", "inv", "cnt"], **attrs)]
    outs = ["y", "idx", "inv", "cnt"]
    graph = oh.make_graph(nodes, "g", [], [oh.make_empty_tensor_value_info(o) for o in outs])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)])
    model.ir_version = min(model.ir_version, 10)
    s = popart.InferenceSession(model.SerializeToString(), popart.DataFlow(1, outs),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, anchors))
    return [anchors[o] for o in outs]


def check(x, attrs, ref):
    got = run_unique(x, attrs)
    for g, w in zip(got, ref(x)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def unique_ref(axis, sorted_):
    def ref(x):
        y, idx, inv, cnt = np.unique(x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
        inv = inv.reshape(-1)
        if not sorted_:
            order = np.argsort(idx, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            y, idx, cnt, inv = np.take(y, order, axis=0 if axis is None else axis), idx[order], cnt[order], rank[inv]
        return y, idx.astype(np.int64), inv.astype(np.int64), cnt.astype(np.int64)
    return ref


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("sorted_", [0, 1])
def test_unique(op_tester, dtype, axis, sorted_):
    x = np.random.RandomState(0).randint(0, 3, (4, 3, 2)).astype(dtype)
    x[2] = x[0]  # repeated slices along axis 0
    attrs = {"sorted": sorted_} if axis is None else {"sorted": sorted_, "axis": axis}
    check(x, attrs, unique_ref(axis, sorted_))


def test_unique_single_and_all_equal(op_tester):
    for x in [np.array([7.5], np.float32), np.full((3, 3), 2, np.int64)]:
        check(x, {}, unique_ref(None, 1))


def test_unique_errors(op_tester):
    with pytest.raises(popart.popart_exception, match="must be a constant"):
        op_tester.run("Unique", [np.zeros(3, np.float32)], opset=11)
    with pytest.raises(popart.popart_exception, match="attribute axis 2 is out of range"):
        run_unique(np.zeros((2, 2), np.float32), {"axis": 2})
