"""HannWindow/HammingWindow/BlackmanWindow (opset 17) against torch's window
functions and onnxruntime; Det (opset 11/22) against numpy.linalg.det."""
import os
import sys

import numpy as np
import pytest
import torch

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import ort_run  # noqa: E402  (float inputs run in float32)

TORCH = {"HannWindow": torch.hann_window, "HammingWindow": torch.hamming_window,
         "BlackmanWindow": torch.blackman_window}


def torch_window(op, periodic, dtype):
    def ref(size):
        w = TORCH[op](int(size), periodic=bool(periodic), dtype=torch.float64)
        if op == "HammingWindow":  # ONNX uses alpha = 25/46 (torch: 0.54)
            n = np.arange(int(size))
            m = int(size) if periodic else int(size) - 1
            w = torch.from_numpy(25 / 46 - 21 / 46 * np.cos(2 * np.pi * n / max(m, 1)))
        return w.numpy().astype(dtype)
    return ref


@pytest.mark.parametrize("op", sorted(TORCH))
@pytest.mark.parametrize("size", [2, 8, 33])  # size 1: torch returns [1], ONNX's formula 1 - 1 = 0
@pytest.mark.parametrize("periodic", [0, 1])
@pytest.mark.parametrize("dtype,onnx_type", [(np.float32, 1), (np.float16, 10), (np.float64, 11)])
def test_windows(op_tester, op, size, periodic, dtype, onnx_type):
    size_in = op_tester.const(np.array(size, np.int64))
    op_tester.check(op, [size_in], reference=torch_window(op, periodic, dtype),
                    attrs={"periodic": periodic, "output_datatype": onnx_type}, opset=17, atol=1e-6 if dtype != np.float16 else 1e-3)


def test_windows_onnxruntime_and_int_output(op_tester):
    for op in sorted(TORCH):
        ins = [op_tester.const(np.array(10, np.int32))]
        want = ort_run(op, [np.array(10, np.int32)], attrs={"periodic": 0}, opset=17)[0]
        (got,) = op_tester.run(op, ins, attrs={"periodic": 0}, opset=17)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    (got,) = op_tester.run("HannWindow", ins, attrs={"output_datatype": 7}, opset=17)  # INT64
    assert got.dtype == np.int64 and got.shape == (10,)


def test_window_errors(op_tester):
    with pytest.raises(popart.popart_exception, match="must be a constant"):
        op_tester.run("HannWindow", [np.array(4, np.int64)], opset=17)
    with pytest.raises(popart.popart_exception, match="attribute periodic must be 0 or 1"):
        op_tester.run("HannWindow", [op_tester.const(np.array(4, np.int64))], attrs={"periodic": 3}, opset=17)


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 4, 4), (2, 3, 5, 5), (0, 2, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("opset", [11, 22])
def test_det(op_tester, shape, dtype, opset):
    x = np.random.RandomState(0).randn(*shape).astype(dtype)
    tol = 1e-2 if dtype == np.float16 else 1e-5
    op_tester.check("Det", [x], reference=lambda x: np.linalg.det(x.astype(np.float64)).astype(dtype),
                    opset=opset, rtol=tol, atol=tol)


def test_det_singular_and_permuted(op_tester):
    x = np.array([[[1, 2], [2, 4]], [[0, 1], [1, 0]], [[0, 0], [0, 0]]], np.float32)
    op_tester.check("Det", [x], reference=lambda x: np.array([0, -1, 0], np.float32), opset=11)


def test_det_errors(op_tester):
    with pytest.raises(popart.popart_exception, match="square matrices"):
        op_tester.run("Det", [np.zeros((2, 3), np.float32)], opset=11)
    with pytest.raises(popart.popart_exception, match="square matrices"):
        op_tester.run("Det", [np.zeros(4, np.float32)], opset=11)
