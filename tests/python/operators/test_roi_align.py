"""RoiAlign (opsets 10, 16, 22) against onnxruntime (float32, float64) and the onnx reference
evaluator (float16): avg and max modes, both coordinate transformation modes, sampling ratios,
spatial scales, rois partly outside the image or malformed; error cases."""
import os
import sys

import numpy as np
import onnx.helper as oh
import pytest
from onnx.reference import ReferenceEvaluator

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import ort_run  # noqa: E402

ROIS = np.array([[0, 0, 9, 9], [0, 5, 4, 9], [5, 5, 9, 9], [-3, -2, 4, 3], [7, 1, 14, 12],
                 [2.5, 1.25, 6.75, 8.5], [6, 6, 2, 3], [1, 1, 1.2, 1.1]], np.float32)


def rois_for(n):
    batch = np.arange(len(ROIS), dtype=np.int64) % n
    return ROIS, batch


def onnx_reference(attrs, opset):
    def ref(x, rois, batch):
        node = oh.make_node("RoiAlign", ["x", "rois", "batch"], ["y"], **attrs)
        graph = oh.make_graph([node], "g", [oh.make_tensor_value_info(n, oh.np_dtype_to_tensor_dtype(a.dtype), a.shape)
                                             for n, a in zip(["x", "rois", "batch"], [x, rois, batch])],
                              [oh.make_empty_tensor_value_info("y")])
        model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset)])
        return ReferenceEvaluator(model).run(None, {"x": x, "rois": rois, "batch": batch})[0]
    return ref


ATTRS = [
    {},
    {"mode": "max"},
    {"output_height": 3, "output_width": 4, "sampling_ratio": 2},
    {"output_height": 5, "output_width": 2, "spatial_scale": 0.5, "mode": "max"},
    {"output_height": 2, "output_width": 3, "coordinate_transformation_mode": "output_half_pixel"},
    {"output_height": 4, "output_width": 4, "sampling_ratio": 1, "spatial_scale": 2.0,
     "coordinate_transformation_mode": "output_half_pixel", "mode": "max"},
]


@pytest.mark.parametrize("attrs", ATTRS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1, 10, 10), (2, 3, 12, 9)])
def test_roi_align_vs_onnxruntime(op_tester, attrs, dtype, shape):
    x = np.random.RandomState(0).randn(*shape).astype(dtype)
    rois, batch = rois_for(shape[0])
    want = ort_run("RoiAlign", [x.astype(np.float32), rois, batch], attrs, 16)[0]
    op_tester.check("RoiAlign", [x, rois.astype(dtype), batch], reference=lambda *a: want.astype(dtype), attrs=attrs,
                    opset=16, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("attrs", ATTRS)
def test_roi_align_float16(op_tester, attrs):
    x = np.random.RandomState(1).randn(2, 3, 10, 11).astype(np.float16)
    rois, batch = rois_for(2)
    ref = onnx_reference(attrs, 22)
    op_tester.check("RoiAlign", [x, rois.astype(np.float16), batch],
                    reference=lambda x, r, b: ref(x.astype(np.float32), r.astype(np.float32), b).astype(np.float16),
                    attrs=attrs, opset=22, rtol=1e-2, atol=1e-2)


def test_roi_align_opset10_default_is_output_half_pixel(op_tester):
    x = np.random.RandomState(2).randn(1, 2, 10, 10).astype(np.float32)
    rois, batch = rois_for(1)
    attrs = {"output_height": 3, "output_width": 3}
    want = ort_run("RoiAlign", [x, rois, batch], attrs, 10)[0]
    op_tester.check("RoiAlign", [x, rois, batch], reference=lambda *a: want, attrs=attrs, opset=10, rtol=1e-5,
                    atol=1e-6)
    half = ort_run("RoiAlign", [x, rois, batch], attrs, 16)[0]
    assert not np.allclose(want, half)


def test_roi_align_errors(op_tester):
    x = np.zeros((1, 2, 4, 4), np.float32)
    rois, batch = np.zeros((2, 4), np.float32), np.zeros(2, np.int64)
    run = lambda inputs, attrs=None: op_tester.run("RoiAlign", inputs, attrs=attrs, opset=16)  # noqa: E731
    with pytest.raises(popart.popart_exception, match="RoiAlign.*input 0 \\(X\\) must be \\[N, C, H, W\\]"):
        run([x[0], rois, batch])
    with pytest.raises(popart.popart_exception, match="input 1 \\(rois\\) must be \\[num_rois, 4\\] of X's type"):
        run([x, rois[:, :3].copy(), batch])
    with pytest.raises(popart.popart_exception, match="input 1 \\(rois\\) must be \\[num_rois, 4\\] of X's type"):
        run([x, rois.astype(np.float64), batch])
    with pytest.raises(popart.popart_exception, match="input 2 \\(batch_indices\\) must be INT64 \\[2\\]"):
        run([x, rois, batch[:1].copy()])
    with pytest.raises(popart.popart_exception, match="attribute mode must be 'avg' or 'max', got 'min'"):
        run([x, rois, batch], {"mode": "min"})
    with pytest.raises(popart.popart_exception, match="coordinate_transformation_mode must be"):
        run([x, rois, batch], {"coordinate_transformation_mode": "align_corners"})
    with pytest.raises(popart.popart_exception, match="output_height=0 and output_width=1 must be positive"):
        run([x, rois, batch], {"output_height": 0})
    with pytest.raises(popart.popart_exception, match="sampling_ratio=-1 must be >= 0"):
        run([x, rois, batch], {"sampling_ratio": -1})
    with pytest.raises(popart.popart_exception, match="batch_indices\\[1\\] = 1 is out of range for 1 images"):
        run([x, rois, np.array([0, 1], np.int64)])
    with pytest.raises(popart.popart_exception, match="RoiAlign.*INT32"):
        run([x.astype(np.int32), rois.astype(np.int32), batch])
