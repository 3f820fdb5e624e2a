"""Models the mutation fuzzer (tests/fuzz) found to crash or hang popart, reduced to the mutation that
mattered; each now gives a popart error or the numpy answer."""
import time

import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart
from _reliability_models import model, run, session, vinfo


def test_graph_typed_attribute_without_graph_raises():
    # fuzz case 1:772: an attribute whose type says GRAPH but holds none (SIGSEGV at import)
    node = oh.make_node("ArgMax", ["x"], ["y"], keepdims=1)
    node.attribute[0].type = onnx.AttributeProto.GRAPH
    proto = model([node], [vinfo("x", shape=(2, 3))], [vinfo("y", onnx.TensorProto.INT64, shape=())])
    with pytest.raises(popart.popart_exception, match="'keepdims' has type GRAPH but holds no graph"):
        session(proto, ["y"])


@pytest.mark.parametrize("attr", ["kernel_shape", "strides", "dilations", "pads"])
def test_pool_window_values_beyond_limit_raise(attr):
    # fuzz case 1:814: kernel_shape 2^62 with auto_pad SAME (an endless loop; larger values overflow)
    attrs = {"kernel_shape": [2, 2], "strides": [1, 1], "dilations": [1, 1], "pads": [0, 0, 0, 0]}
    attrs[attr] = [2 ** 62] + attrs[attr][1:]
    if attr != "pads":
        attrs["auto_pad"] = "SAME_UPPER"
        del attrs["pads"]
    proto = model([oh.make_node("MaxPool", ["x"], ["y"], **attrs)], [vinfo("x", shape=(1, 1, 5, 4))],
                  [vinfo("y", shape=())], opset=12)
    with pytest.raises(popart.popart_exception, match="window too large"):
        session(proto, ["y"])


def _clipped_pool_reference(op, x, k1):
    """A kernel taller than any padding: every window covers all rows (SAME_UPPER along the last axis)."""
    pe = k1 - 1  # SAME_UPPER with stride 1: total pad k1 - 1, begin (k1 - 1) // 2
    pb = pe // 2
    padded = np.pad(x, [(0, 0), (0, 0), (0, 0), (pb, pe - pb)], constant_values=np.nan)
    out = np.empty(x.shape)
    for ox in range(x.shape[3]):
        win = padded[:, :, :, ox:ox + k1]
        if op == "MaxPool":
            out[:, :, :, ox] = np.nanmax(win, axis=(2, 3))[:, :, None]
        else:
            out[:, :, :, ox] = np.nanmean(win, axis=(2, 3))[:, :, None]
    return out


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
def test_pool_huge_kernel_visits_only_taps_inside_the_input(op):
    # A kernel of 2^31 rows with SAME padding is legal: only the taps inside the input are visited, so it
    # runs as fast as a small kernel (it looped over all 2^31 * 2 taps per output before).
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 4)).astype(np.float32)
    node = oh.make_node(op, ["x"], ["y"], kernel_shape=[2 ** 31, 3], auto_pad="SAME_UPPER")
    t0 = time.monotonic()
    y = run(model([node], [vinfo("x", shape=x.shape)], [vinfo("y", shape=())], opset=12), {"x": x}, ["y"])["y"]
    assert time.monotonic() - t0 < 30
    np.testing.assert_allclose(y, _clipped_pool_reference(op, x.astype(np.float64), 3), rtol=1e-6)


@pytest.mark.parametrize("field,dtype", [("float_data", onnx.TensorProto.INT64), ("double_data", onnx.TensorProto.FLOAT),
                                         ("int64_data", onnx.TensorProto.DOUBLE),
                                         ("uint64_data", onnx.TensorProto.INT64)])
def test_values_in_another_types_field_raise(field, dtype):
    # fuzz case 3:9129: a Loop trip count (INT64 scalar) given as two NaN float_data values was read as
    # the bits 0x7fc000007fc00000 (a loop of 9e18 iterations)
    t = onnx.TensorProto()
    t.name, t.data_type = "w", dtype
    getattr(t, field).extend([1, 2] if field != "float_data" else [float("nan")] * 2)
    if field in ("double_data", "int64_data", "uint64_data"):
        del getattr(t, field)[1:]  # one 8-byte value: the byte count would match an 8-byte type
    proto = model([oh.make_node("Identity", ["w"], ["y"])], [], [vinfo("y", dtype, shape=())], [t])
    with pytest.raises(popart.popart_exception, match=f"keeps its values in {field}"):
        session(proto, ["y"])


def test_loop_trip_count_in_float_data_raises():
    t = onnx.TensorProto()
    t.name, t.data_type = "trip", onnx.TensorProto.INT64
    t.float_data.extend([float("nan")] * 2)
    body = oh.make_graph([oh.make_node("Identity", ["cond"], ["cond2"]), oh.make_node("Identity", ["acc"], ["acc2"])],
                         "body", [vinfo("i", onnx.TensorProto.INT64, ()), vinfo("cond", onnx.TensorProto.BOOL, ()),
                                  vinfo("acc", shape=(3,))],
                         [vinfo("cond2", onnx.TensorProto.BOOL, ()), vinfo("acc2", shape=(3,))])
    proto = model([oh.make_node("Loop", ["trip", "", "x"], ["z"], body=body)], [vinfo("x", shape=(3,))],
                  [vinfo("z", shape=(3,))], [t])
    with pytest.raises(popart.popart_exception, match="'trip' of type INT64 keeps its values in float_data"):
        session(proto, ["z"])


def test_transpose_of_empty_tensor_moving_a_unit_axis():
    # fuzz case 4:17086: TransposeToIdentityOrReshape turned it into Reshape [2, 0, 1], which reads the 0
    # as "copy", failed setup and then reported the error through the erased op (SIGSEGV)
    x = np.zeros((2, 1, 0), np.float32)
    proto = model([oh.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 1])], [vinfo("x", shape=x.shape)],
                  [vinfo("y", shape=())])
    y = run(proto, {"x": x}, ["y"])["y"]
    assert y.shape == (2, 0, 1) and y.dtype == np.float32
