"""NonMaxSuppression (opsets 10, 11; FLOAT only, as the schema) against onnxruntime and the onnx
reference evaluator: corner and center boxes, several batches and classes, each optional input
present or absent, random box sets. Every input is a Constant node: the output size depends on
the values. Error cases."""
import numpy as np
import onnx.helper as oh
import onnxruntime as ort
import pytest
from onnx import numpy_helper
from onnx.reference import ReferenceEvaluator

import popart

NAMES = ["boxes", "scores", "max_out", "iou", "score_thr"]


def nms_model(inputs, center, opset):
    """A model whose inputs (None: absent) are Constant nodes feeding one NonMaxSuppression."""
    nodes = [oh.make_node("Constant", [], [n], value=numpy_helper.from_array(v, n))
             for n, v in zip(NAMES, inputs) if v is not None]
    used = [n if v is not None else "" for n, v in zip(NAMES, inputs)]
    while used and used[-1] == "":
        used.pop()
    nodes.append(oh.make_node("NonMaxSuppression", used, ["y"], center_point_box=center))
    graph = oh.make_graph(nodes, "g", [], [oh.make_empty_tensor_value_info("y")])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset)])
    model.ir_version = min(model.ir_version, 9)
    return model


def run_popart(model):
    s = popart.InferenceSession(model.SerializeToString(), popart.DataFlow(1, ["y"]),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, anchors))
    return anchors["y"]


def check(inputs, center=0, opset=11):
    model = nms_model(inputs, center, opset)
    got = run_popart(model)
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {})[0]
    assert got.dtype == np.int64 and got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)
    if inputs[2] is not None and inputs[3] is not None:  # the reference evaluator needs both
        np.testing.assert_array_equal(got, ReferenceEvaluator(model).run(None, {})[0])
    return got


def random_boxes(batches, n, center, seed=0):
    rng = np.random.RandomState(seed)
    if center:
        xy, wh = rng.uniform(0, 10, (batches, n, 2)), rng.uniform(0.5, 4, (batches, n, 2))
        return np.concatenate([xy, wh], axis=2).astype(np.float32)
    a, b = rng.uniform(0, 10, (batches, n, 2)), rng.uniform(0, 10, (batches, n, 2))  # corners in any order
    return np.stack([a[..., 0], a[..., 1], np.clip(a[..., 0] + b[..., 0] - 5, 0, 10), b[..., 1]], 2).astype(np.float32)


@pytest.mark.parametrize("center", [0, 1])
@pytest.mark.parametrize("batches,classes,n", [(1, 1, 6), (2, 3, 40), (3, 2, 200)])
@pytest.mark.parametrize("max_out,iou,score", [(3, 0.5, None), (1000, 0.3, 0.4), (5, 0.0, 0.2), (50, 1.0, None)])
@pytest.mark.parametrize("opset", [10, 11])
def test_nms_random(center, batches, classes, n, max_out, iou, score, opset):
    boxes = random_boxes(batches, n, center)
    scores = np.random.RandomState(1).uniform(0, 1, (batches, classes, n)).astype(np.float32)
    scores.reshape(-1)[::7] = 0.5  # ties: the lower box index goes first
    check([boxes, scores, np.array([max_out], np.int64), np.array([iou], np.float32),
           None if score is None else np.array([score], np.float32)], center, opset)


def test_nms_optional_inputs():
    boxes = random_boxes(1, 10, 0, seed=3)
    scores = np.random.RandomState(4).uniform(0, 1, (1, 2, 10)).astype(np.float32)
    assert check([boxes, scores, None, None, None]).shape == (0, 3)  # max_output_boxes_per_class absent: 0
    check([boxes, scores, np.array(4, np.int64), None, None])        # scalar inputs, iou_threshold 0
    check([boxes, scores, np.array([10], np.int64), None, np.array([0.5], np.float32)])


def test_nms_iou_boundary_and_identical_boxes():
    boxes = np.array([[[0, 0, 1, 1], [0, 0.5, 1, 1.5], [0, 0, 1, 1], [0, 0, 1, 1]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.7, 0.95]]], np.float32)
    # IoU of boxes 0 and 1 is exactly 1/3: kept at threshold 1/3, suppressed below
    check([boxes, scores, np.array([4], np.int64), np.array([1 / 3], np.float32), None])
    check([boxes, scores, np.array([4], np.int64), np.array([0.3], np.float32), None])


def test_nms_nan_scores_are_skipped():
    boxes = random_boxes(1, 5, 0, seed=5)
    scores = np.array([[[0.9, np.nan, 0.7, np.nan, 0.2]]], np.float32)
    got = run_popart(nms_model([boxes, scores, np.array([5], np.int64), np.array([1.0], np.float32), None], 0, 11))
    np.testing.assert_array_equal(got, [[0, 0, 0], [0, 0, 2], [0, 0, 4]])


def test_nms_errors():
    boxes = random_boxes(1, 4, 0)
    scores = np.ones((1, 1, 4), np.float32)
    m = np.array([2], np.int64)
    with pytest.raises(popart.popart_exception, match="NonMaxSuppression.*input 0 \\(boxes\\) must be"):
        run_popart(nms_model([boxes[:, :, :3].copy(), scores, m, None, None], 0, 11))
    with pytest.raises(popart.popart_exception, match="input 1 \\(scores\\) must be \\[1, classes, 4\\]"):
        run_popart(nms_model([boxes, np.ones((1, 1, 5), np.float32), m, None, None], 0, 11))
    with pytest.raises(popart.popart_exception, match="center_point_box=2 must be 0 or 1"):
        run_popart(nms_model([boxes, scores, m, None, None], 2, 11))
    with pytest.raises(popart.popart_exception, match="input 2 \\(max_output_boxes_per_class\\) must be one INT64"):
        run_popart(nms_model([boxes, scores, np.array([2], np.int32), None, None], 0, 11))
    with pytest.raises(popart.popart_exception, match="input 3 \\(iou_threshold\\) must be one FLOAT"):
        run_popart(nms_model([boxes, scores, m, np.array([0.5, 0.5], np.float32), None], 0, 11))
    with pytest.raises(popart.popart_exception, match="input 3 \\(iou_threshold\\) must be in \\[0, 1\\], got 1.5"):
        run_popart(nms_model([boxes, scores, m, np.array([1.5], np.float32), None], 0, 11))
    with pytest.raises(popart.popart_exception, match="NonMaxSuppression.*FLOAT16"):
        run_popart(nms_model([boxes.astype(np.float16), scores.astype(np.float16), m, None, None], 0, 11))


def test_nms_needs_constant_inputs(op_tester):
    boxes = random_boxes(1, 4, 0)
    with pytest.raises(popart.popart_exception, match="input 0 \\('in0'\\) must be a constant known at compile time"):
        op_tester.run("NonMaxSuppression", [boxes, np.ones((1, 1, 4), np.float32)], opset=11)
