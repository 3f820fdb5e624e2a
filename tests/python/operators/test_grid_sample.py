"""GridSample (opset 16/20/22) against torch.nn.functional.grid_sample (2-D and
3-D, nearest/linear, zeros/border/reflection, align_corners; cubic with zeros
padding) and the ONNX reference implementation (cubic with border/reflection
padding, whose tap handling differs from torch's)."""
import numpy as np
import onnx.helper as oh
import pytest
import torch
import torch.nn.functional as F
from onnx.reference import ReferenceEvaluator

import popart

TORCH_MODE = {"nearest": "nearest", "linear": "bilinear", "cubic": "bicubic"}


def torch_ref(mode, padding, align):
    def ref(x, grid):
        out = F.grid_sample(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(grid.astype(np.float64)),
                            mode=TORCH_MODE[mode], padding_mode=padding, align_corners=bool(align))
        return out.numpy().astype(x.dtype)
    return ref


def onnx_ref(attrs):
    def ref(x, grid):
        node = oh.make_node("GridSample", ["x", "g"], ["y"], **attrs)
        t = oh.np_dtype_to_tensor_dtype(x.dtype)
        graph = oh.make_graph([node], "g", [oh.make_tensor_value_info("x", t, None),
                                            oh.make_tensor_value_info("g", t, None)],
                              [oh.make_empty_tensor_value_info("y")])
        model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 22)])
        return ReferenceEvaluator(model).run(None, {"x": x, "g": grid})[0]
    return ref


def data(x_shape, grid_shape, dtype, seed=0):
    rng = np.random.RandomState(seed)
    return rng.randn(*x_shape).astype(dtype), rng.uniform(-1.3, 1.3, grid_shape).astype(dtype)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("x_shape,grid_shape", [((2, 3, 5, 4), (2, 6, 7, 2)), ((1, 2, 3, 4, 5), (1, 2, 3, 4, 3))])
def test_grid_sample_against_torch(op_tester, mode, padding, align, x_shape, grid_shape):
    x, grid = data(x_shape, grid_shape, np.float32)
    attrs = {"mode": mode, "padding_mode": padding, "align_corners": align}
    op_tester.check("GridSample", [x, grid], reference=torch_ref(mode, padding, align), attrs=attrs, opset=22,
                    rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("align", [0, 1])
def test_grid_sample_cubic_and_dtypes(op_tester, dtype, align):
    x, grid = data((2, 2, 6, 5), (2, 4, 3, 2), dtype, seed=1)
    tol = 2e-2 if dtype == np.float16 else 1e-5
    op_tester.check("GridSample", [x, grid], reference=torch_ref("cubic", "zeros", align),
                    attrs={"mode": "cubic", "align_corners": align}, opset=22, rtol=tol, atol=tol)
    op_tester.check("GridSample", [x, grid], reference=torch_ref("linear", "border", align),
                    attrs={"mode": "linear", "padding_mode": "border", "align_corners": align}, opset=20,
                    rtol=tol, atol=tol)


@pytest.mark.parametrize("padding", ["border", "reflection"])
def test_grid_sample_cubic_padding_onnx_reference(op_tester, padding):
    x, grid = data((1, 2, 4, 5), (1, 3, 6, 2), np.float32, seed=2)
    attrs = {"mode": "cubic", "padding_mode": padding}
    op_tester.check("GridSample", [x, grid], reference=onnx_ref(attrs), attrs=attrs, opset=22, rtol=1e-5, atol=1e-5)


def test_grid_sample_opset16_names(op_tester):
    x, grid = data((1, 1, 4, 4), (1, 3, 3, 2), np.float32, seed=3)
    op_tester.check("GridSample", [x, grid], reference=torch_ref("cubic", "zeros", 0), attrs={"mode": "bicubic"},
                    opset=16, rtol=1e-5, atol=1e-5)
    op_tester.check("GridSample", [x, grid], reference=torch_ref("linear", "zeros", 0), opset=16, rtol=1e-5, atol=1e-5)


def test_grid_sample_errors(op_tester):
    x, grid = data((1, 1, 4, 4), (1, 3, 3, 2), np.float32)
    with pytest.raises(popart.popart_exception, match="attribute mode 'linear' is not supported"):
        op_tester.run("GridSample", [x, grid], attrs={"mode": "linear"}, opset=16)
    with pytest.raises(popart.popart_exception, match="padding_mode must be zeros, border or reflection"):
        op_tester.run("GridSample", [x, grid], attrs={"padding_mode": "wrap"}, opset=22)
    with pytest.raises(popart.popart_exception, match="input 1 \\(grid\\) must be"):
        op_tester.run("GridSample", [x, grid[..., :1]], opset=22)
    x3, g3 = data((1, 1, 2, 3, 4), (1, 2, 2, 2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="cubic for 2-D only"):
        op_tester.run("GridSample", [x3, g3], attrs={"mode": "cubic"}, opset=22)
