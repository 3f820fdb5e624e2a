"""MaxUnpool (opsets 9, 11, 22) against torch's max_unpool1d/2d/3d and onnxruntime: 1-3 spatial
dims, strides, pads, an output_shape input, float16/32/64; error cases. Indices are ONNX's (flat
over the whole output), torch's are per (n, c) plane: plane * plane_size is added."""
import os
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import ort_run  # noqa: E402

CASES = [  # x shape (of the pooled input), kernel, strides, pads (torch: symmetric), output size or None
    ((2, 3, 8), [2], [2], [0], None),
    ((1, 2, 9), [3], [2], [1], [10]),
    ((2, 2, 4, 4), [2, 2], [2, 2], [0, 0], None),
    ((1, 3, 7, 6), [3, 2], [2, 2], [1, 0], None),
    ((1, 1, 5, 5), [2, 2], [2, 2], [0, 0], [5, 5]),
    ((1, 2, 4, 6, 4), [2, 2, 2], [2, 2, 2], [0, 0, 0], None),
    ((1, 2, 5, 5, 5), [2, 3, 2], [2, 2, 2], [0, 1, 0], [5, 5, 5]),
]


def pooled(x_shape, k, s, pads, out_size, dtype):
    """X, I (ONNX, flat) and the torch reference Y for one case."""
    r = len(k)
    src = torch.tensor(np.random.RandomState(0).permutation(int(np.prod(x_shape))).reshape(x_shape) / 8.0)
    pool = [F.max_pool1d, F.max_pool2d, F.max_pool3d][r - 1]
    unpool = [F.max_unpool1d, F.max_unpool2d, F.max_unpool3d][r - 1]
    vals, idx = pool(src, k, s, pads, return_indices=True)
    vals = torch.tensor(vals.numpy().astype(dtype).astype(np.float64))
    size = list(out_size) if out_size else None
    want = unpool(vals, idx, k, s, pads, output_size=size).numpy().astype(dtype)
    plane = int(np.prod(want.shape[2:]))
    flat = idx.numpy() + np.arange(idx.shape[0] * idx.shape[1]).reshape(idx.shape[:2] + (1,) * r) * plane
    return vals.numpy().astype(dtype), flat.astype(np.int64), want


@pytest.mark.parametrize("x_shape,k,s,pads,out_size", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("opset", [9, 11, 22])
def test_max_unpool(op_tester, x_shape, k, s, pads, out_size, dtype, opset):
    x, idx, want = pooled(x_shape, k, s, pads, out_size, dtype)
    attrs = {"kernel_shape": k, "strides": s, "pads": pads + pads}
    inputs = [x, idx] + ([op_tester.const(np.array(want.shape, np.int64))] if out_size else [])
    op_tester.check("MaxUnpool", inputs, reference=lambda *a: want, attrs=attrs, opset=opset, rtol=0, atol=0)
    if dtype == np.float32:  # onnxruntime reads the indices the same way
        ref = ort_run("MaxUnpool", [x, idx] + ([np.array(want.shape, np.int64)] if out_size else []), attrs, 11)[0]
        np.testing.assert_array_equal(ref, want)


def test_max_unpool_asymmetric_pads(op_tester):
    x = np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3)
    idx = np.array([0, 2, 4, 10, 12, 14], np.int64).reshape(1, 1, 2, 3)
    attrs = {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [1, 0, 0, 1]}  # out (2-1)*2-1+2 = 3, (3-1)*2-1+2 = 5
    want = np.zeros(15, np.float32)
    want[idx.ravel()] = x.ravel()
    op_tester.check("MaxUnpool", [x, idx], reference=lambda *a: want.reshape(1, 1, 3, 5), attrs=attrs, opset=11)


def test_max_unpool_errors(op_tester):
    x = np.ones((1, 1, 2, 2), np.float32)
    idx = np.array([0, 3, 8, 15], np.int64).reshape(1, 1, 2, 2)
    attrs = {"kernel_shape": [2, 2], "strides": [2, 2]}
    with pytest.raises(popart.popart_exception, match="MaxUnpool.*input 1 \\(I\\) must be INT64 of X's shape"):
        op_tester.run("MaxUnpool", [x, idx.astype(np.int32)], attrs=attrs, opset=11)
    with pytest.raises(popart.popart_exception, match="input 1 \\(I\\) must be INT64 of X's shape"):
        op_tester.run("MaxUnpool", [x, idx.reshape(1, 1, 4)], attrs=attrs, opset=11)
    with pytest.raises(popart.popart_exception, match="kernel_shape is required"):
        op_tester.run("MaxUnpool", [x, idx], opset=11)
    with pytest.raises(popart.popart_exception, match="attribute strides has 1 values, expected 2"):
        op_tester.run("MaxUnpool", [x, idx], attrs={"kernel_shape": [2, 2], "strides": [2]}, opset=11)
    with pytest.raises(popart.popart_exception, match="output_shape.*must have 4 values starting with X's N and C"):
        op_tester.run("MaxUnpool", [x, idx, op_tester.const(np.array([1, 2, 4, 4], np.int64))], attrs=attrs,
                      opset=11)
    with pytest.raises(popart.popart_exception, match="input 2 .* must be a constant known at compile time"):
        op_tester.run("MaxUnpool", [x, idx, np.array([1, 1, 4, 4], np.int64)], attrs=attrs, opset=11)
    with pytest.raises(popart.popart_exception, match="non-positive dimension"):
        op_tester.run("MaxUnpool", [x, idx], attrs=dict(attrs, pads=[2, 2, 2, 2]), opset=11)
    with pytest.raises(popart.popart_exception, match="I\\[3\\] = 16 is out of range for an output of 16 elements"):
        op_tester.run("MaxUnpool", [x, np.array([0, 3, 8, 16], np.int64).reshape(1, 1, 2, 2)], attrs=attrs, opset=11)
    with pytest.raises(popart.popart_exception, match="MaxUnpool.*INT32"):
        op_tester.run("MaxUnpool", [x.astype(np.int32), idx], attrs=attrs, opset=11)
