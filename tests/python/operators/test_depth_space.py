import numpy as np
import pytest

import popart


def d2s(x, b, mode):
    n, c, h, w = x.shape
    if mode == "DCR":
        return x.reshape(n, b, b, c // b**2, h, w).transpose(0, 3, 4, 1, 5, 2).reshape(n, c // b**2, h * b, w * b)
    return x.reshape(n, c // b**2, b, b, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c // b**2, h * b, w * b)


def s2d(x, b):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4).reshape(n, c * b * b, h // b, w // b)


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
@pytest.mark.parametrize("shape,b", [((1, 8, 2, 3), 2), ((2, 18, 3, 1), 3), ((2, 4, 5, 5), 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.bool_])
def test_depth_to_space(op_tester, mode, shape, b, dtype):
    x = (np.arange(np.prod(shape)).reshape(shape) % 7).astype(dtype)
    op_tester.check("DepthToSpace", [x], reference=lambda x: d2s(x, b, mode), attrs={"blocksize": b, "mode": mode},
                    opset=13)


def test_depth_to_space_1_is_dcr(op_tester):
    x = np.random.default_rng(0).standard_normal((1, 8, 2, 3)).astype(np.float32)
    op_tester.check("DepthToSpace", [x], reference=lambda x: d2s(x, 2, "DCR"), attrs={"blocksize": 2}, opset=1)


@pytest.mark.parametrize("shape,b", [((1, 1, 4, 6), 2), ((2, 3, 6, 9), 3), ((2, 2, 2, 2), 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8])
@pytest.mark.parametrize("opset", [1, 13])
def test_space_to_depth(op_tester, shape, b, dtype, opset):
    x = (np.arange(np.prod(shape)).reshape(shape) % 11).astype(dtype)
    op_tester.check("SpaceToDepth", [x], reference=lambda x: s2d(x, b), attrs={"blocksize": b}, opset=opset)


def test_round_trip(op_tester):
    x = np.random.default_rng(1).standard_normal((2, 3, 8, 4)).astype(np.float32)
    y = op_tester.run("SpaceToDepth", [x], attrs={"blocksize": 2}, opset=13)[0]
    np.testing.assert_array_equal(op_tester.run("DepthToSpace", [y], attrs={"blocksize": 2}, opset=13)[0], x)


def test_depth_space_errors(op_tester):
    x = np.zeros((1, 8, 2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="mode='RCD'"):
        op_tester.run("DepthToSpace", [x], attrs={"blocksize": 2, "mode": "RCD"}, opset=13)
    with pytest.raises(popart.popart_exception, match="not a multiple of blocksize"):
        op_tester.run("DepthToSpace", [x], attrs={"blocksize": 3}, opset=13)
    with pytest.raises(popart.popart_exception, match="multiples of blocksize"):
        op_tester.run("SpaceToDepth", [x], attrs={"blocksize": 2}, opset=13)
    with pytest.raises(popart.popart_exception, match="rank 4"):
        op_tester.run("SpaceToDepth", [np.zeros((4, 4), np.float32)], attrs={"blocksize": 2}, opset=13)
    with pytest.raises(popart.popart_exception, match="blocksize=0"):
        op_tester.run("SpaceToDepth", [x], attrs={"blocksize": 0}, opset=13)
