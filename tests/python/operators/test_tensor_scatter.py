"""TensorScatter (opset 24, KV-cache update) against a numpy reference and the
ONNX reference implementation: linear and circular modes, axes, dtypes."""
import numpy as np
import onnx.helper as oh
import pytest
from onnx.reference import ReferenceEvaluator

import popart


def numpy_ref(axis, circular):
    def ref(cache, update, w=None):
        out = cache.copy()
        ax = axis % cache.ndim
        starts = np.zeros(cache.shape[0], np.int64) if w is None else w
        for b in range(cache.shape[0]):
            pos = starts[b] + np.arange(update.shape[ax])
            if circular:
                pos %= cache.shape[ax]
            np.moveaxis(out[b], ax - 1, 0)[pos] = np.moveaxis(update[b], ax - 1, 0)  # views: writes into out
        return out
    return ref


def onnx_ref(attrs):
    def ref(cache, update, w):
        node = oh.make_node("TensorScatter", ["c", "u", "w"], ["y"], **attrs)
        infos = [oh.make_tensor_value_info(n, oh.np_dtype_to_tensor_dtype(x.dtype), None)
                 for n, x in zip("cuw", (cache, update, w))]
        graph = oh.make_graph([node], "g", infos, [oh.make_empty_tensor_value_info("y")])
        model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 24)])
        return ReferenceEvaluator(model).run(None, {"c": cache, "u": update, "w": w})[0]
    return ref


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.uint8])
@pytest.mark.parametrize("shape,upd_len,axis", [((2, 3, 8, 4), 3, -2), ((3, 6, 5), 2, 1), ((2, 4, 7), 7, 2)])
@pytest.mark.parametrize("mode", ["linear", "circular"])
def test_tensor_scatter(op_tester, dtype, shape, upd_len, axis, mode):
    rng = np.random.RandomState(0)
    ax = axis % len(shape)
    cache = (rng.randn(*shape) * 10).astype(dtype)
    ushape = list(shape)
    ushape[ax] = upd_len
    update = (rng.randn(*ushape) * 10).astype(dtype)
    hi = shape[ax] - upd_len + 1 if mode == "linear" else shape[ax] + 3
    w = rng.randint(0, hi, shape[0]).astype(np.int64)
    attrs = {"axis": axis, "mode": mode}
    op_tester.check("TensorScatter", [cache, update, w], reference=numpy_ref(axis, mode == "circular"),
                    attrs=attrs, opset=24)
    if dtype == np.float32:
        op_tester.check("TensorScatter", [cache, update, w], reference=onnx_ref(attrs), attrs=attrs, opset=24)


def test_tensor_scatter_default_indices(op_tester):
    cache, update = np.zeros((2, 5, 3), np.float32), np.ones((2, 2, 3), np.float32)
    op_tester.check("TensorScatter", [cache, update], reference=numpy_ref(-2, False), opset=24)


def test_tensor_scatter_errors(op_tester):
    cache, update = np.zeros((2, 5, 3), np.float32), np.ones((2, 2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="does not fit a cache of length 5"):
        op_tester.run("TensorScatter", [cache, update, np.array([0, 4], np.int64)], opset=24)
    with pytest.raises(popart.popart_exception, match="must match past_cache"):
        op_tester.run("TensorScatter", [cache, np.ones((2, 2, 4), np.float32)], opset=24)
    with pytest.raises(popart.popart_exception, match="attribute mode must be linear or circular"):
        op_tester.run("TensorScatter", [cache, update], attrs={"mode": "ring"}, opset=24)
    with pytest.raises(popart.popart_exception, match="non-batch axis"):
        op_tester.run("TensorScatter", [cache, update], attrs={"axis": 0}, opset=24)
