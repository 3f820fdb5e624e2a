"""Slice: opset 1 attributes and opset 10+ inputs; negative indices, clamping, steps."""
import numpy as np
import onnx
import onnx.helper
import pytest
from onnx import numpy_helper

import popart

BIG = np.iinfo(np.int64).max
SMALL = np.iinfo(np.int64).min


def data(shape, dtype=np.float32):
    x = np.arange(int(np.prod(shape))).reshape(shape)
    return (x % 3 == 1) if dtype == np.bool_ else x.astype(dtype)


def np_slice(starts, ends, axes=None, steps=None):
    axes = list(range(len(starts))) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps

    def ref(x, *unused):
        idx = [slice(None)] * x.ndim
        for s, e, a, st in zip(starts, ends, axes, steps):
            idx[a] = slice(s, e, st)  # numpy clamps exactly as ONNX does
        return x[tuple(idx)]
    return ref


def consts(op_tester, *arrays):
    return [None if a is None else op_tester.const(np.array(a, np.int64)) for a in arrays]


CASES = [  # starts, ends, axes, steps
    ([1, 0], [2, 3], [0, 1], None),
    ([0, 1], [-1, 1000], None, None),
    ([-3], [BIG], [2], None),
    ([0, 0, 3], [20, 10, 4], [0, 1, 2], None),
    ([-100], [100], [1], None),
    ([2], [1], [1], None),                      # empty
    ([0, 1], [3, 5], [0, 1], [2, 3]),
    ([-1], [SMALL], [2], [-1]),                 # full reverse
    ([4, -2], [0, -100], [2, 1], [-2, -1]),
    ([10], [-10], [2], [-3]),
    ([1], [BIG], [-1], [2]),                    # negative axis
    ([5], [0], [2], [1]),                       # empty
]


@pytest.mark.parametrize("starts,ends,axes,steps", CASES)
@pytest.mark.parametrize("opset", [10, 11, 13])
def test_slice_inputs(op_tester, starts, ends, axes, steps, opset):
    x = data((3, 4, 5))
    ins = [x] + consts(op_tester, starts, ends, axes, steps)
    while ins[-1] is None:
        ins.pop()
    op_tester.check("Slice", ins, reference=np_slice(starts, ends, axes, steps), opset=opset)


@pytest.mark.parametrize("starts,ends,axes,steps", [c for c in CASES if c[3] is None and c[1][0] != BIG])
def test_slice_opset1(op_tester, starts, ends, axes, steps):
    attrs = {"starts": starts, "ends": ends}
    if axes is not None:
        attrs["axes"] = axes
    op_tester.check("Slice", [data((3, 4, 5))], reference=np_slice(starts, ends, axes), attrs=attrs, opset=1)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.int32, np.int64, np.bool_])
def test_slice_dtypes(op_tester, dtype):
    ins = [data((6, 7), dtype)] + consts(op_tester, [1, -1], [5, 0], [0, 1], [2, -2])
    op_tester.check("Slice", ins, reference=np_slice([1, -1], [5, 0], [0, 1], [2, -2]))


def test_slice_int32_indices(op_tester):
    ins = [data((6, 7)), op_tester.const(np.array([1], np.int32)), op_tester.const(np.array([4], np.int32)),
           op_tester.const(np.array([1], np.int32))]
    op_tester.check("Slice", ins, reference=lambda x, *r: x[:, 1:4])


def test_slice_large(op_tester):
    x = np.random.RandomState(0).randn(64, 128, 33).astype(np.float32)
    ins = [x] + consts(op_tester, [3, 100, 0], [60, 1, 33], [0, 1, 2], [1, -1, 1])
    op_tester.check("Slice", ins, reference=lambda x, *r: x[3:60, 100:1:-1, :])


def test_slice_errors(op_tester):
    x = data((3, 4))
    with pytest.raises(popart.popart_exception, match="contain 0"):
        op_tester.run("Slice", [x] + consts(op_tester, [0], [2], [0], [0]))
    with pytest.raises(popart.popart_exception, match="same length"):
        op_tester.run("Slice", [x] + consts(op_tester, [0, 1], [2], None, None)[:2])
    with pytest.raises(popart.popart_exception, match="out of range for rank 2"):
        op_tester.run("Slice", [x] + consts(op_tester, [0], [2], [2]))
    with pytest.raises(popart.popart_exception, match="more than once"):
        op_tester.run("Slice", [x] + consts(op_tester, [0, 0], [2, 2], [1, -1]))
    with pytest.raises(popart.popart_exception, match="(?i)constant"):
        op_tester.run("Slice", [x, np.array([0], np.int64), np.array([1], np.int64)])
    with pytest.raises(popart.popart_exception, match="input since opset 10"):
        op_tester.run("Slice", [x] + consts(op_tester, [0], [2]), attrs={"axes": [0]})


# ---- starts computed at run time, ends = starts + constant (x[i : i + k]) ----

def dynamic_slice_model(k, axes, index_type=onnx.TensorProto.INT64, via_cast=False):
    """y = Slice(x, i, i + k, axes) where i is a graph input; with via_cast, i is a
    scalar INT32 input turned into starts/ends by Cast + Unsqueeze on both sides."""
    h = onnx.helper
    nodes = [h.make_node("Constant", [], ["k"], value=numpy_helper.from_array(np.array(k, np.int64)))]
    if via_cast:
        nodes += [h.make_node("Constant", [], ["k32"], value=numpy_helper.from_array(np.array(k[0], np.int32))),
                  h.make_node("Add", ["i", "k32"], ["e32"]),
                  h.make_node("Constant", [], ["ax1"], value=numpy_helper.from_array(np.array([0], np.int64))),
                  h.make_node("Constant", [], ["ax2"], value=numpy_helper.from_array(np.array([0], np.int64))),
                  h.make_node("Cast", ["i"], ["i64"], to=onnx.TensorProto.INT64),
                  h.make_node("Cast", ["e32"], ["e64"], to=onnx.TensorProto.INT64),
                  h.make_node("Unsqueeze", ["i64", "ax1"], ["starts"]),
                  h.make_node("Unsqueeze", ["e64", "ax2"], ["ends"])]
        i_shape = []
    else:
        nodes += [h.make_node("Cast", ["k"], ["kc"], to=index_type),
                  h.make_node("Add", ["kc", "i"], ["ends"]),
                  h.make_node("Identity", ["i"], ["starts"])]
        i_shape = [len(k)]
    nodes += [h.make_node("Constant", [], ["axes"], value=numpy_helper.from_array(np.array(axes, np.int64))),
              h.make_node("Slice", ["x", "starts", "ends", "axes"], ["y"])]
    graph = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [5, 6, 4]),
                                      h.make_tensor_value_info("i", index_type, i_shape)],
                         [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]).SerializeToString()


def run_model(proto, feeds, output="y"):
    session = popart.InferenceSession(proto, popart.DataFlow(1, {output: popart.AnchorReturnType("All")}),
                                      popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    session.run(popart.PyStepIO(feeds, anchors))
    return anchors[output]


X = np.random.default_rng(3).standard_normal((5, 6, 4)).astype(np.float32)


@pytest.mark.parametrize("k,axes,starts", [
    ([2], [1], [0]), ([2], [1], [4]), ([2], [1], [-3]), ([1, 3], [0, 2], [4, 1]), ([0], [0], [2]),
    ([6], [-2], [0]), ([3, 1], [2, 0], [-4, -2]),
])
@pytest.mark.parametrize("index_type", [onnx.TensorProto.INT64, onnx.TensorProto.INT32])
def test_slice_run_time_starts(k, axes, starts, index_type):
    dtype = np.int64 if index_type == onnx.TensorProto.INT64 else np.int32
    y = run_model(dynamic_slice_model(k, axes, index_type), {"x": X, "i": np.array(starts, dtype)})
    idx = [slice(None)] * 3
    for s, n, a in zip(starts, k, axes):
        idx[a] = slice(s, s + n)
    np.testing.assert_array_equal(y, X[tuple(idx)])


@pytest.mark.parametrize("start", [0, 2, 3])
def test_slice_run_time_starts_through_cast_and_unsqueeze(start):
    y = run_model(dynamic_slice_model([2], [0], onnx.TensorProto.INT32, via_cast=True),
                  {"x": X, "i": np.array(start, np.int32)})
    np.testing.assert_array_equal(y, X[start:start + 2])


@pytest.mark.parametrize("start", [5, -1, 7, -9])
def test_slice_run_time_starts_out_of_range(start):
    proto = dynamic_slice_model([2], [1])
    with pytest.raises(popart.popart_exception, match=f"Slice start {start} on axis 1 of size 6 leaves"):
        run_model(proto, {"x": X, "i": np.array([start], np.int64)})


def test_slice_run_time_starts_errors():
    h = onnx.helper
    base = [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [5, 6, 4]),
            h.make_tensor_value_info("i", onnx.TensorProto.INT64, [1]),
            h.make_tensor_value_info("j", onnx.TensorProto.INT64, [1])]

    def model(nodes):
        graph = h.make_graph(nodes, "g", base, [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)])
        return h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]).SerializeToString()

    unrelated = model([h.make_node("Slice", ["x", "i", "j"], ["y"])])
    with pytest.raises(popart.popart_exception, match="must be a constant known at compile time, or ends - starts a constant"):
        run_model(unrelated, {"x": X, "i": np.array([0]), "j": np.array([1])})
    k = numpy_helper.from_array(np.array([7], np.int64))
    too_long = model([h.make_node("Constant", [], ["k"], value=k), h.make_node("Add", ["i", "k"], ["e"]),
                      h.make_node("Slice", ["x", "i", "e"], ["y"])])
    with pytest.raises(popart.popart_exception, match="ends - starts is 7 on axis 0 of size 5"):
        run_model(too_long, {"x": X, "i": np.array([0]), "j": np.array([1])})
    two = numpy_helper.from_array(np.array([2], np.int64))
    stepped = model([h.make_node("Constant", [], ["k"], value=two), h.make_node("Add", ["i", "k"], ["e"]),
                     h.make_node("Constant", [], ["ax"], value=numpy_helper.from_array(np.array([0], np.int64))),
                     h.make_node("Constant", [], ["st"], value=two),
                     h.make_node("Slice", ["x", "i", "e", "ax", "st"], ["y"])])
    with pytest.raises(popart.popart_exception, match="steps must be 1"):
        run_model(stepped, {"x": X, "i": np.array([0]), "j": np.array([1])})


def test_slice_run_time_starts_has_no_gradient():
    b = popart.Builder(opsets={"ai.onnx": 11, "ai.graphcore": 1})
    x = b.addInitializedInputTensor(X, "w")
    i = b.addInputTensor(popart.TensorInfo("INT64", [1]), "i")
    e = b.aiOnnx.add([i, b.aiOnnx.constant(np.array([2], np.int64))])
    y = b.aiOnnx.slice([x, i, e, b.aiOnnx.constant(np.array([0], np.int64))])
    loss = b.aiGraphcore.l1loss([y], 1.0)
    with pytest.raises(popart.popart_exception, match="no gradient for a Slice whose starts"):
        popart.TrainingSession(fnModel=b.getModelProto(), loss=loss, optimizer=popart.ConstSGD(0.1),
                               dataFlow=popart.DataFlow(1, {loss: popart.AnchorReturnType("All")}),
                               deviceInfo=popart.DeviceManager().createCpuDevice())
