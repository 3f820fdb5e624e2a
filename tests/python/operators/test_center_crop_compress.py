"""CenterCropPad (opset 18) against the ONNX reference implementation and
Compress (opset 9/11) against numpy.compress; gradients by finite differences."""
import numpy as np
import pytest
import onnx
import onnx.helper as oh
from onnx.reference import ReferenceEvaluator

import popart


def crop_pad_ref(axes):
    def ref(x, shape):
        node = oh.make_node("CenterCropPad", ["x", "s"], ["y"], **({} if axes is None else {"axes": axes}))
        t = oh.np_dtype_to_tensor_dtype(x.dtype)
        graph = oh.make_graph([node], "g", [oh.make_tensor_value_info("x", t, None),
                                            oh.make_tensor_value_info("s", onnx.TensorProto.INT64, None)],
                              [oh.make_tensor_value_info("y", t, None)])
        model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 18)])
        return ReferenceEvaluator(model).run(None, {"x": x, "s": np.asarray(shape, np.int64)})[0]
    return ref


@pytest.mark.parametrize("in_shape,shape,axes", [
    ((5, 6), (3, 4), None), ((5, 6), (8, 9), None), ((4, 7, 3), (6, 2), [0, 1]),
    ((4, 7, 3), (5, 2), [-1, 1]), ((2, 3, 4, 5), (1, 7), [1, 3]), ((3, 3), (3, 3), None), ((6,), (0,), None)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.uint8, np.bool_])
def test_center_crop_pad(op_tester, in_shape, shape, axes, dtype):
    x = (np.random.RandomState(0).randn(*in_shape) * 10).astype(dtype)
    s = op_tester.const(np.array(shape, np.int64))
    op_tester.check("CenterCropPad", [x, s], reference=crop_pad_ref(axes),
                    attrs={} if axes is None else {"axes": axes}, opset=18)


@pytest.mark.parametrize("in_shape,shape,axes", [((5, 6), (3, 9), None), ((2, 4, 3), (7, 2), [1, 2])])
def test_center_crop_pad_grad(op_tester, in_shape, shape, axes):
    x = np.random.RandomState(1).randn(*in_shape)
    op_tester.check_grad("CenterCropPad", [x, op_tester.const(np.array(shape, np.int64))],
                         reference=crop_pad_ref(axes), wrt=[0], attrs={} if axes is None else {"axes": axes},
                         opset=18)


def test_center_crop_pad_errors(op_tester):
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(popart.popart_exception, match="input 1 \\(shape\\) has 1 values for 2 axes"):
        op_tester.run("CenterCropPad", [x, op_tester.const(np.array([2], np.int64))], opset=18)
    with pytest.raises(popart.popart_exception, match="must be a constant"):
        op_tester.run("CenterCropPad", [x, np.array([2, 2], np.int64)], opset=18)
    with pytest.raises(popart.popart_exception, match="attribute axes"):
        op_tester.run("CenterCropPad", [x, op_tester.const(np.array([2], np.int64))], attrs={"axes": [5]}, opset=18)


COMPRESS_CASES = [((3, 2), [0, 1, 1], 0), ((3, 2), [0, 1], 1), ((3, 2), [0, 1, 0, 0, 1, 1], None),
                  ((3, 2), [1], -2), ((2, 5, 3), [1, 0, 1, 1], 1), ((2, 5, 3), [0, 0, 0], 2),
                  ((4,), [True, False, True, True], 0)]


@pytest.mark.parametrize("opset,shape,cond,axis", [  # negative axes exist from opset 11
    (opset, *case) for opset in (9, 11) for case in COMPRESS_CASES if opset >= 11 or (case[2] or 0) >= 0])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int32, np.bool_])
def test_compress(op_tester, shape, cond, axis, dtype, opset):
    x = (np.random.RandomState(2).randn(*shape) * 10).astype(dtype)
    c = op_tester.const(np.array(cond, np.bool_))
    op_tester.check("Compress", [x, c], reference=lambda x, c: np.compress(c, x, axis=axis),
                    attrs={} if axis is None else {"axis": axis}, opset=opset)


@pytest.mark.parametrize("cond,axis", [([1, 0, 1, 1], 1), ([0, 1, 1, 0, 0, 1, 1], None)])
def test_compress_grad(op_tester, cond, axis):
    x = np.random.RandomState(3).randn(2, 4, 3)
    c = op_tester.const(np.array(cond, np.bool_))
    op_tester.check_grad("Compress", [x, c], reference=lambda x, c: np.compress(c, x, axis=axis), wrt=[0],
                         attrs={} if axis is None else {"axis": axis}, opset=11)


def test_compress_errors(op_tester):
    x = np.zeros((3, 2), np.float32)
    with pytest.raises(popart.popart_exception, match="more than the 3 along the axis"):
        op_tester.run("Compress", [x, op_tester.const(np.ones(4, np.bool_))], attrs={"axis": 0}, opset=11)
    with pytest.raises(popart.popart_exception, match="attribute axis 2 is out of range"):
        op_tester.run("Compress", [x, op_tester.const(np.ones(2, np.bool_))], attrs={"axis": 2}, opset=11)
