"""Col2Im (opset 18) against torch.nn.functional.fold (2-D, symmetric pads)
and the ONNX reference implementation (1-D/3-D, asymmetric pads)."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch
import torch.nn.functional as F
from onnx.reference import ReferenceEvaluator

import popart


def cols(image, block, dil, stride, pads):
    nd = len(image)
    return int(np.prod([(image[a] + pads[a] + pads[a + nd] - dil[a] * (block[a] - 1) - 1) // stride[a] + 1
                        for a in range(nd)]))


def onnx_ref(attrs):
    def ref(x, image, block):
        node = oh.make_node("Col2Im", ["x", "i", "b"], ["y"], **attrs)
        t = oh.np_dtype_to_tensor_dtype(x.dtype)
        graph = oh.make_graph([node], "g", [oh.make_tensor_value_info("x", t, None),
                                            oh.make_tensor_value_info("i", onnx.TensorProto.INT64, None),
                                            oh.make_tensor_value_info("b", onnx.TensorProto.INT64, None)],
                              [oh.make_empty_tensor_value_info("y")])
        model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 18)])
        return ReferenceEvaluator(model).run(None, {"x": x, "i": image, "b": block})[0]
    return ref


@pytest.mark.parametrize("image,block,dil,stride,pad", [
    ((5, 5), (2, 2), (1, 1), (1, 1), (0, 0)), ((6, 7), (3, 2), (2, 1), (1, 2), (1, 0)),
    ((8, 5), (2, 3), (1, 2), (2, 1), (1, 2))])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_col2im_against_torch_fold(op_tester, image, block, dil, stride, pad, dtype):
    pads = list(pad) * 2
    n, c = 2, 3
    x = np.random.RandomState(0).randn(n, c * int(np.prod(block)), cols(image, block, dil, stride, pads)).astype(dtype)

    def ref(x, _i, _b):
        return F.fold(torch.from_numpy(x.astype(np.float64)), image, block, dilation=dil, padding=pad,
                      stride=stride).numpy().astype(dtype)
    tol = 1e-2 if dtype == np.float16 else 1e-6
    op_tester.check("Col2Im", [x, op_tester.const(np.array(image, np.int64)), op_tester.const(np.array(block, np.int64))],
                    reference=ref, attrs={"dilations": list(dil), "strides": list(stride), "pads": pads}, opset=18,
                    rtol=tol, atol=tol)


@pytest.mark.parametrize("image,block,attrs", [
    ((7,), (3,), {"pads": [2, 1], "strides": [2]}), ((4, 3, 5), (2, 2, 3), {}),
    ((4, 6), (2, 2), {"pads": [0, 1, 2, 0], "dilations": [1, 2]})])
def test_col2im_onnx_reference(op_tester, image, block, attrs):
    nd = len(image)
    pads = attrs.get("pads", [0] * 2 * nd)
    l = cols(image, block, attrs.get("dilations", [1] * nd), attrs.get("strides", [1] * nd), pads)
    x = np.random.RandomState(1).randn(1, 2 * int(np.prod(block)), l).astype(np.float32)
    op_tester.check("Col2Im", [x, op_tester.const(np.array(image, np.int64)), op_tester.const(np.array(block, np.int64))],
                    reference=onnx_ref(attrs), attrs=attrs, opset=18, rtol=1e-5, atol=1e-5)


def test_col2im_errors(op_tester):
    x = np.zeros((1, 4, 16), np.float32)
    i, b = op_tester.const(np.array([5, 5], np.int64)), op_tester.const(np.array([2, 2], np.int64))
    with pytest.raises(popart.popart_exception, match="must be \\[N, C \\* 4, 16\\]"):
        op_tester.run("Col2Im", [np.zeros((1, 4, 15), np.float32), i, b], opset=18)
    with pytest.raises(popart.popart_exception, match="attribute strides must have 2 values"):
        op_tester.run("Col2Im", [x, i, b], attrs={"strides": [1]}, opset=18)
    with pytest.raises(popart.popart_exception, match="same non-zero length"):
        op_tester.run("Col2Im", [x, i, op_tester.const(np.array([2], np.int64))], opset=18)
