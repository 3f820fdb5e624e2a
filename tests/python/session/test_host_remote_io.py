"""Explicit host and remote-buffer IO: the ai.graphcore HostLoad/HostStore and
RemoteLoad/RemoteStore ops, SessionOptions.useHostCopyOps, and AddLhsInplace."""
import numpy as np
import pytest

import popart

RNG = np.random.default_rng(7)
W = RNG.standard_normal((3, 5)).astype(np.float32)


def mlp_model():
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 3]), "x")
    lbl = b.addInputTensor(popart.TensorInfo("INT32", [4]), "lbl")
    w = b.addInitializedInputTensor(W, "w")
    y = b.aiOnnx.relu([b.aiOnnx.matmul([x, w])])
    probs = b.aiOnnx.softmax([y], axis=1)
    loss = b.aiGraphcore.nllloss([probs, lbl])
    return b, x, lbl, w, y, loss


def feeds(steps, bps):
    return [{"x": RNG.standard_normal((bps, 4, 3)).astype(np.float32).squeeze(0 if bps == 1 else None),
             "lbl": RNG.integers(0, 5, (bps, 4)).astype(np.int32).squeeze(0 if bps == 1 else None)}
            for _ in range(steps)]


def run_inference(host_copy_ops, art, bps, data):
    b, x, lbl, w, y, loss = mlp_model()
    opts = popart.SessionOptions()
    opts.useHostCopyOps = host_copy_ops
    session = popart.InferenceSession(b.getModelProto(), popart.DataFlow(bps, {y: art, loss: art}),
                                      popart.DeviceManager().createCpuDevice(), userOptions=opts)
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    outs = []
    for feed in data:
        session.run(popart.PyStepIO(feed, anchors))
        outs.append({k: v.copy() for k, v in anchors.items()})
    return outs


@pytest.mark.parametrize("art", ["All", "Final", "Sum", "EveryN"])
@pytest.mark.parametrize("bps", [1, 4])
def test_host_copy_ops_match_implicit_streams(art, bps):
    art = popart.AnchorReturnType(art, bps // 2 or 1) if art == "EveryN" else popart.AnchorReturnType(art)
    data = feeds(2, bps)
    implicit = run_inference(False, art, bps, data)
    explicit = run_inference(True, art, bps, data)
    for a, e in zip(implicit, explicit):
        assert a.keys() == e.keys()
        for k in a:
            np.testing.assert_array_equal(a[k], e[k])


def test_host_copy_ops_training_matches():
    data = feeds(3, 2)
    results = []
    for host_copy_ops in (False, True):
        b, x, lbl, w, y, loss = mlp_model()
        opts = popart.SessionOptions()
        opts.useHostCopyOps = host_copy_ops
        session = popart.TrainingSession(b.getModelProto(), popart.DataFlow(2, {loss: popart.AnchorReturnType("All")}),
                                         loss, popart.SGD({"defaultLearningRate": (0.1, False)}),
                                         popart.DeviceManager().createCpuDevice(), userOptions=opts)
        session.prepareDevice()
        session.weightsFromHost()
        anchors = session.initAnchorArrays()
        losses = []
        for feed in data:
            session.run(popart.PyStepIO(feed, anchors))
            losses.append(anchors[loss].copy())
        weights = {w: np.zeros((3, 5), np.float32)}
        session.weightsToHost()
        session.readWeights(popart.PyWeightsIO(weights))
        results.append((losses, weights[w]))
    np.testing.assert_array_equal(np.array(results[0][0]), np.array(results[1][0]))
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_host_copy_ops_synthetic_data():
    b, x, lbl, w, y, loss = mlp_model()
    opts = popart.SessionOptions()
    opts.useHostCopyOps = True
    opts.syntheticDataMode = popart.SyntheticDataMode.Zeros
    session = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, {y: popart.AnchorReturnType("All")}),
                                      popart.DeviceManager().createCpuDevice(), userOptions=opts)
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    session.run(popart.PyStepIO({}, anchors))
    np.testing.assert_array_equal(anchors[y], np.zeros((4, 5), np.float32))


def explicit_io_session(builder, anchors, bps=1):
    return popart.InferenceSession(builder.getModelProto(), popart.DataFlow(bps, anchors),
                                   popart.DeviceManager().createCpuDevice())


@pytest.mark.parametrize("dtype,onnx_type", [(np.float32, "FLOAT"), (np.float16, "FLOAT16"), (np.int32, "INT32")])
def test_host_load_and_store_ops_from_the_builder(dtype, onnx_type):
    b = popart.Builder()
    init = b.aiGraphcore.init([2, 3], popart.DataType.__members__[onnx_type], popart.InitType.Zero)
    loaded = b.customOp(opName="HostLoad", opVersion=1, domain="ai.graphcore", inputs=[init],
                        attributes={"streamTensorId": "data"})[0]
    doubled = b.aiOnnx.add([loaded, loaded])
    b.customOp(opName="HostStore", opVersion=1, domain="ai.graphcore", inputs=[doubled],
               attributes={"streamTensorId": doubled}, numOutputs=0)
    session = explicit_io_session(b, {doubled: popart.AnchorReturnType("All")}, bps=3)
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    data = (RNG.standard_normal((3, 2, 3)) * 10).astype(dtype)
    session.run(popart.PyStepIO({"data": data}, anchors))
    np.testing.assert_array_equal(anchors[doubled], data + data)


def test_host_store_to_a_tensor_that_is_not_an_anchor():
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]), "x")
    y = b.aiOnnx.relu([x])
    z = b.aiOnnx.neg([x])
    b.customOp(opName="HostStore", opVersion=1, domain="ai.graphcore", inputs=[z],
               attributes={"streamTensorId": "nowhere"}, numOutputs=0)
    session = explicit_io_session(b, {y: popart.AnchorReturnType("All")})
    with pytest.raises(popart.popart_exception, match="'nowhere'.*not an anchor"):
        session.prepareDevice()


def test_host_load_needs_a_stream_name():
    b = popart.Builder()
    init = b.aiGraphcore.init([2], popart.DataType.FLOAT, popart.InitType.Zero)
    y = b.customOp(opName="HostLoad", opVersion=1, domain="ai.graphcore", inputs=[init],
                   attributes={"streamTensorId": ""})[0]
    with pytest.raises(popart.popart_exception, match="streamTensorId"):
        explicit_io_session(b, {y: popart.AnchorReturnType("All")})


def test_host_load_stream_missing_from_stepio():
    b = popart.Builder()
    init = b.aiGraphcore.init([2], popart.DataType.FLOAT, popart.InitType.Zero)
    y = b.customOp(opName="HostLoad", opVersion=1, domain="ai.graphcore", inputs=[init],
                   attributes={"streamTensorId": "data"})[0]
    session = explicit_io_session(b, {y: popart.AnchorReturnType("All")})
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    with pytest.raises(popart.popart_exception, match="data"):
        session.run(popart.PyStepIO({}, anchors))


def remote_model(dtype, shape):
    """Stores x at offset `s`, then loads the entry at offset `l` into y."""
    b = popart.Builder()
    onnx_type = {np.float32: "FLOAT", np.float16: "FLOAT16", np.int64: "INT64"}[dtype]
    x = b.addInputTensor(popart.TensorInfo(onnx_type, shape), "x")
    s = b.addInputTensor(popart.TensorInfo("INT32", []), "s")
    l = b.addInputTensor(popart.TensorInfo("INT32", []), "l")
    b.customOp(opName="RemoteStore", opVersion=1, domain="ai.graphcore", inputs=[x, s],
               attributes={"bufferid": 3}, numOutputs=0)
    template = b.aiOnnx.neg([x])  # only its type and shape matter
    y = b.customOp(opName="RemoteLoad", opVersion=1, domain="ai.graphcore", inputs=[template, l],
                   attributes={"bufferid": 3})[0]
    return b, y


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64])
@pytest.mark.parametrize("shape", [[3], [2, 4]])
def test_remote_buffer_persists_across_runs(dtype, shape):
    b, y = remote_model(dtype, shape)
    session = explicit_io_session(b, {y: popart.AnchorReturnType("All")})
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    values = [(RNG.standard_normal(shape) * 5).astype(dtype) for _ in range(3)]
    run = lambda v, s, l: session.run(popart.PyStepIO(  # noqa: E731
        {"x": v, "s": np.array(s, np.int32), "l": np.array(l, np.int32)}, anchors))
    run(values[0], 0, 0)
    np.testing.assert_array_equal(anchors[y], values[0])
    run(values[1], 2, 0)  # entry 0 comes from the previous run
    np.testing.assert_array_equal(anchors[y], values[0])
    run(values[2], 1, 2)
    np.testing.assert_array_equal(anchors[y], values[1])


def test_remote_load_before_any_store():
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]), "x")
    y = b.customOp(opName="RemoteLoad", opVersion=1, domain="ai.graphcore", inputs=[x],
                   attributes={"bufferid": 0})[0]
    session = explicit_io_session(b, {y: popart.AnchorReturnType("All")})
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    with pytest.raises(popart.popart_exception, match="remote buffer 0 is loaded before"):
        session.run(popart.PyStepIO({"x": np.zeros(2, np.float32)}, anchors))


def test_remote_load_offset_out_of_range():
    b, y = remote_model(np.float32, [2])
    session = explicit_io_session(b, {y: popart.AnchorReturnType("All")})
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    feed = {"x": np.ones(2, np.float32), "s": np.array(0, np.int32), "l": np.array(4, np.int32)}
    with pytest.raises(popart.popart_exception, match="offset 4 is out of range for remote buffer 3"):
        session.run(popart.PyStepIO(feed, anchors))
    feed["s"], feed["l"] = np.array(-1, np.int32), np.array(0, np.int32)
    with pytest.raises(popart.popart_exception, match="offset -1"):
        session.run(popart.PyStepIO(feed, anchors))


def test_remote_buffer_entry_type_mismatch():
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]), "x")
    z = b.addInputTensor(popart.TensorInfo("FLOAT", [3]), "z")
    b.customOp(opName="RemoteStore", opVersion=1, domain="ai.graphcore", inputs=[x],
               attributes={"bufferid": 1}, numOutputs=0)
    y = b.customOp(opName="RemoteLoad", opVersion=1, domain="ai.graphcore", inputs=[z],
                   attributes={"bufferid": 1})[0]
    session = explicit_io_session(b, {y: popart.AnchorReturnType("All")})
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    with pytest.raises(popart.popart_exception, match=r"remote buffer 1 holds entries of .*\[2\].*\[3\]"):
        session.run(popart.PyStepIO({"x": np.zeros(2, np.float32), "z": np.zeros(3, np.float32)}, anchors))


@pytest.mark.parametrize("attrs,inputs,match", [
    ({"bufferid": -1}, 1, "bufferid"),
    ({"bufferid": 0}, 2, "offset"),
])
def test_remote_op_attribute_and_offset_errors(attrs, inputs, match):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]), "x")
    bad_offset = b.addInputTensor(popart.TensorInfo("FLOAT", [2]), "o")
    y = b.customOp(opName="RemoteLoad", opVersion=1, domain="ai.graphcore", inputs=[x, bad_offset][:inputs],
                   attributes=attrs)[0]
    with pytest.raises(popart.popart_exception, match=match):
        explicit_io_session(b, {y: popart.AnchorReturnType("All")})


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("rhs_shape", [[2, 3], [3], [1, 1]])
def test_add_lhs_inplace(dtype, rhs_shape):
    b = popart.Builder()
    onnx_type = {np.float32: "FLOAT", np.float16: "FLOAT16", np.int32: "INT32"}[dtype]
    a = b.addInputTensor(popart.TensorInfo(onnx_type, [2, 3]), "a")
    c = b.addInputTensor(popart.TensorInfo(onnx_type, rhs_shape), "c")
    a2 = b.aiOnnx.identity([a])
    s = b.customOp(opName="AddLhsInplace", opVersion=1, domain="ai.graphcore", inputs=[a2, c])[0]
    later = b.aiOnnx.add([a2, a2])  # created after: must still read a2 before the in-place add
    session = explicit_io_session(b, {s: popart.AnchorReturnType("All"), later: popart.AnchorReturnType("All")})
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    av = (RNG.standard_normal((2, 3)) * 4).astype(dtype)
    cv = (RNG.standard_normal(rhs_shape) * 4).astype(dtype)
    session.run(popart.PyStepIO({"a": av, "c": cv}, anchors))
    np.testing.assert_array_equal(anchors[s], av + cv)
    np.testing.assert_array_equal(anchors[later], av + av)


def test_add_lhs_inplace_cannot_broadcast_its_lhs():
    b = popart.Builder()
    a = b.addInputTensor(popart.TensorInfo("FLOAT", [3]), "a")
    c = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3]), "c")
    s = b.customOp(opName="AddLhsInplace", opVersion=1, domain="ai.graphcore", inputs=[a, c])[0]
    with pytest.raises(popart.popart_exception, match="AddLhsInplace"):
        explicit_io_session(b, {s: popart.AnchorReturnType("All")})
