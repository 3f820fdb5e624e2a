import os
import sys

import numpy as np
import pytest

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import ort_run, reference, tolerance  # noqa: E402

WINDOWS = [  # x shape, attrs
    ((2, 3, 8, 8), {"kernel_shape": [2, 2], "strides": [2, 2]}),
    ((1, 2, 9, 7), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ((1, 2, 9, 7), {"kernel_shape": [3, 2], "strides": [2, 3], "pads": [1, 0, 0, 1], "ceil_mode": 1}),
    ((1, 2, 10, 10), {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
    ((1, 2, 9, 8), {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ((1, 2, 9, 8), {"kernel_shape": [2, 3], "strides": [2, 2], "auto_pad": "SAME_LOWER"}),
    ((1, 2, 9, 8), {"kernel_shape": [3, 3], "strides": [2, 1], "auto_pad": "VALID"}),
    ((2, 3, 12), {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),                  # 1-D
    ((1, 2, 6, 7, 5), {"kernel_shape": [2, 3, 2], "strides": [2, 1, 2], "pads": [0, 1, 1, 1, 1, 0]}),  # 3-D
    ((8, 64, 112, 112), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),  # ResNet
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("x_shape,attrs", WINDOWS)
def test_maxpool(op_tester, dtype, x_shape, attrs):
    x = np.random.RandomState(0).randn(*x_shape).astype(dtype)
    rtol, atol = tolerance(dtype)
    op_tester.check("MaxPool", [x], attrs=attrs, opset=12, reference=reference("MaxPool", attrs, 12),
                    rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("x_shape,attrs", WINDOWS[:-1])
@pytest.mark.parametrize("count_include_pad", [0, 1])
def test_averagepool(op_tester, dtype, x_shape, attrs, count_include_pad):
    x = np.random.RandomState(1).randn(*x_shape).astype(dtype)
    attrs = dict(attrs, count_include_pad=count_include_pad)
    rtol, atol = tolerance(dtype)
    op_tester.check("AveragePool", [x], attrs=attrs, opset=11, reference=reference("AveragePool", attrs, 11),
                    rtol=rtol, atol=atol)


@pytest.mark.parametrize("attrs", [
    {"kernel_shape": [3, 3], "dilations": [2, 2]},
    {"kernel_shape": [2, 3], "dilations": [2, 1], "strides": [2, 2], "pads": [1, 1, 1, 1]},
    {"kernel_shape": [3, 3], "dilations": [2, 2], "strides": [2, 2], "ceil_mode": 1},
])
@pytest.mark.parametrize("op,opset", [("MaxPool", 12), ("AveragePool", 19)])
def test_pool_dilations(op_tester, attrs, op, opset):
    x = np.random.RandomState(2).randn(1, 2, 11, 10).astype(np.float32)
    op_tester.check(op, [x], attrs=attrs, opset=opset, reference=reference(op, attrs, opset), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_maxpool_int8(op_tester, dtype):
    x = np.random.RandomState(3).randint(0, 100, (1, 2, 6, 6)).astype(dtype)
    attrs = {"kernel_shape": [2, 2], "strides": [2, 2]}
    op_tester.check("MaxPool", [x], attrs=attrs, opset=12, reference=reference("MaxPool", attrs, 12))


@pytest.mark.parametrize("storage_order", [0, 1])
@pytest.mark.parametrize("x_shape,attrs", [WINDOWS[1], WINDOWS[2], WINDOWS[7]])
def test_maxpool_indices(op_tester, storage_order, x_shape, attrs):
    x = np.random.RandomState(4).randn(*x_shape).astype(np.float32)
    attrs = dict(attrs, storage_order=storage_order)
    y, idx = op_tester.run("MaxPool", [x], attrs=attrs, opset=12, num_outputs=2)
    ry, ridx = ort_run("MaxPool", [x], attrs, 12, num_outputs=2)
    np.testing.assert_allclose(y, ry)
    np.testing.assert_array_equal(idx, ridx)


@pytest.mark.parametrize("opset", [1, 8, 10, 11, 12])
def test_maxpool_versions(op_tester, opset):
    x = np.random.RandomState(5).randn(1, 1, 5, 5).astype(np.float32)
    attrs = {"kernel_shape": [2, 2], "pads": [1, 1, 0, 0]}
    op_tester.check("MaxPool", [x], attrs=attrs, opset=opset, reference=reference("MaxPool", attrs, opset))


@pytest.mark.parametrize("opset", [1, 7, 10, 11, 19])
def test_averagepool_versions(op_tester, opset):
    x = np.random.RandomState(6).randn(1, 1, 5, 5).astype(np.float32)
    attrs = {"kernel_shape": [2, 2], "pads": [1, 1, 0, 0]}
    op_tester.check("AveragePool", [x], attrs=attrs, opset=opset, rtol=1e-6,
                    reference=reference("AveragePool", attrs, max(opset, 7)))  # onnxruntime lacks opset 1


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("shape", [(2, 3, 5, 4), (1, 4, 7), (2, 2, 3, 4, 5), (8, 512, 7, 7)])
@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
def test_global_pool(op_tester, dtype, shape, op):
    x = np.random.RandomState(7).randn(*shape).astype(dtype)
    axes = tuple(range(2, len(shape)))
    fn = np.mean if op == "GlobalAveragePool" else np.max
    rtol, atol = tolerance(dtype)
    op_tester.check(op, [x], reference=lambda x: fn(x.astype(np.float64), axis=axes, keepdims=True).astype(dtype),
                    rtol=rtol, atol=atol)


def test_pool_missing_kernel_shape(op_tester):
    with pytest.raises(popart.popart_exception, match="kernel_shape is required"):
        op_tester.run("MaxPool", [np.zeros((1, 1, 4, 4), np.float32)])


def test_averagepool_dilations_need_opset19(op_tester):
    with pytest.raises(popart.popart_exception, match="dilations needs AveragePool opset 19"):
        op_tester.run("AveragePool", [np.zeros((1, 1, 6, 6), np.float32)],
                      attrs={"kernel_shape": [2, 2], "dilations": [2, 2]}, opset=11)


def test_pool_bad_rank(op_tester):
    with pytest.raises(popart.popart_exception, match="rank >= 3"):
        op_tester.run("GlobalAveragePool", [np.zeros((2, 3), np.float32)])
    for op, opset in [("MaxPool", 12), ("AveragePool", 11), ("LpPool", 18)]:
        with pytest.raises(popart.popart_exception, match=f"{op}.*1 to 3 spatial dimensions"):
            op_tester.run(op, [np.zeros((1, 1, 2, 2, 2, 2), np.float32)], attrs={"kernel_shape": [1, 1, 1, 1]},
                          opset=opset)


def test_pool_bad_ceil_mode(op_tester):
    with pytest.raises(popart.popart_exception, match="ceil_mode must be 0 or 1"):
        op_tester.run("MaxPool", [np.zeros((1, 1, 4, 4), np.float32)], attrs={"kernel_shape": [2, 2], "ceil_mode": 2},
                      opset=12)


def test_averagepool_rejects_int(op_tester):
    with pytest.raises(popart.popart_exception, match="INT32"):
        op_tester.run("AveragePool", [np.zeros((1, 1, 4, 4), np.int32)], attrs={"kernel_shape": [2, 2]})


def lppool_ref(p, attrs, opset):
    """onnxruntime's LpPool (float32) in the input's dtype; opset 1 (a FLOAT p) is run as opset 2."""
    return reference("LpPool", dict(attrs, p=int(p)), max(opset, 2))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("x_shape,attrs", WINDOWS[:-1])
@pytest.mark.parametrize("p", [1, 2, 3])
def test_lppool(op_tester, dtype, x_shape, attrs, p):
    x = np.random.RandomState(8).randn(*x_shape).astype(dtype)
    rtol, atol = tolerance(dtype)
    op_tester.check("LpPool", [x], attrs=dict(attrs, p=p), opset=18, reference=lppool_ref(p, attrs, 18),
                    rtol=rtol, atol=atol)


@pytest.mark.parametrize("opset", [1, 2, 11, 18, 22])
def test_lppool_versions(op_tester, opset):
    x = np.random.RandomState(9).randn(1, 2, 6, 5).astype(np.float32)
    attrs = {"kernel_shape": [3, 2], "pads": [1, 0, 1, 1], "strides": [2, 1]}
    p = 3.0 if opset == 1 else 3
    op_tester.check("LpPool", [x], attrs=dict(attrs, p=p), opset=opset, reference=lppool_ref(p, attrs, opset),
                    rtol=1e-5, atol=1e-6)


def test_lppool_dilations_default_p(op_tester):
    x = np.random.RandomState(10).randn(1, 2, 11, 10).astype(np.float64)
    attrs = {"kernel_shape": [3, 3], "dilations": [2, 2], "strides": [2, 2], "ceil_mode": 1}
    want = np.zeros((1, 2, 4, 4))  # p = 2: root of the sum of squares over the dilated in-bounds taps
    for i in range(4):
        for j in range(4):
            w = x[:, :, 2 * i:2 * i + 5:2, 2 * j:2 * j + 5:2]
            want[:, :, i, j] = np.sqrt((w * w).sum(axis=(2, 3)))
    op_tester.check("LpPool", [x], attrs=attrs, opset=18, reference=lambda x: want, rtol=1e-12, atol=1e-12)


def test_lppool_errors(op_tester):
    x = np.zeros((1, 1, 6, 6), np.float32)
    with pytest.raises(popart.popart_exception, match="LpPool.*attribute p=0 must be positive"):
        op_tester.run("LpPool", [x], attrs={"kernel_shape": [2, 2], "p": 0}, opset=18)
    with pytest.raises(popart.popart_exception, match="LpPool.*attribute p=-1.5 must be positive"):
        op_tester.run("LpPool", [x], attrs={"kernel_shape": [2, 2], "p": -1.5}, opset=1)
    with pytest.raises(popart.popart_exception, match="dilations needs LpPool opset 18"):
        op_tester.run("LpPool", [x], attrs={"kernel_shape": [2, 2], "dilations": [2, 2]}, opset=11)
    with pytest.raises(popart.popart_exception, match="ceil_mode needs LpPool opset 18"):
        op_tester.run("LpPool", [x], attrs={"kernel_shape": [2, 2], "ceil_mode": 1}, opset=11)
    with pytest.raises(popart.popart_exception, match="kernel_shape is required"):
        op_tester.run("LpPool", [x], opset=18)
    with pytest.raises(popart.popart_exception, match="LpPool.*INT32"):
        op_tester.run("LpPool", [x.astype(np.int32)], attrs={"kernel_shape": [2, 2]}, opset=18)
    with pytest.raises(popart.popart_exception, match="LpPool has a single output"):
        op_tester.run("LpPool", [x], attrs={"kernel_shape": [2, 2]}, opset=18, num_outputs=2)
