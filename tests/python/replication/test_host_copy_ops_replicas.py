"""Programs with host IO ops (SessionOptions.useHostCopyOps) run their replicas
at once, each reading and writing the host streams through its own view of the
step IO: a collective between the replicas works (replicas running one after
the other could not exchange data), and training gives numpy's weights and
losses, as the implicit streams do."""
import numpy as np
import pytest

import popart

RNG = np.random.default_rng(15)


def _options(replicas, host_copy_ops, accum=1):
    opts = popart.SessionOptions()
    opts.useHostCopyOps = host_copy_ops
    opts.enableReplicatedGraphs = replicas > 1
    opts.replicatedGraphCount = replicas
    if accum > 1:
        opts.enableGradientAccumulation = True
        opts.accumulationFactor = accum
    opts.accumulationAndReplicationReductionType = popart.ReductionType.Mean
    return opts


@pytest.mark.parametrize("replicas", [2, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_replicated_all_reduce_in_a_host_copy_ops_program(replicas, dtype):
    bps = 3
    x = RNG.standard_normal((bps, replicas, 2, 3)).astype(dtype)
    b = popart.Builder()
    xt = b.addInputTensor(popart.TensorInfo(x[0, 0]), "x")
    y = b.aiGraphcore.replicatedallreduce([b.aiOnnx.add([xt, xt])])
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(bps, {y: popart.AnchorReturnType("All")}),
                                popart.DeviceManager().createCpuDevice(), userOptions=_options(replicas, True))
    assert '"HostLoad"' in s.getSerializedGraph().decode()  # the option's effect: loads are ops of the program
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, anchors))
    assert anchors[y].dtype == dtype and anchors[y].shape == x.shape
    want = np.broadcast_to((2 * x.astype(np.float64)).sum(axis=1, keepdims=True), x.shape)
    np.testing.assert_allclose(anchors[y].astype(np.float64), want, rtol=2e-3 if dtype == np.float16 else 1e-6)


def _train(replicas, host_copy_ops, accum, art, data, w0, lr):
    """loss_r = sum((x_r @ w - t_r)^2); returns (the loss anchors of each step, w)."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 3]), "x")
    t = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 2]), "t")
    w = b.addInitializedInputTensor(w0, "w")
    d = b.aiOnnx.sub([b.aiOnnx.matmul([x, w]), t])
    loss = b.aiOnnx.reducesum([b.aiOnnx.mul([d, d])], keepdims=0)
    bps = data[0]["x"].shape[0]
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(bps, {loss: popart.AnchorReturnType(art)}), loss,
                               popart.SGD({"defaultLearningRate": (lr, False)}),
                               popart.DeviceManager().createCpuDevice(),
                               userOptions=_options(replicas, host_copy_ops, accum))
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    losses = []
    for feed in data:
        s.run(popart.PyStepIO(feed, anchors))
        losses.append(anchors[loss].copy())
    weights = {w: np.zeros_like(w0)}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO(weights))
    return np.array(losses), weights[w]


def _numpy_train(data, w0, lr, accum, art):
    """The same training in numpy: per batch, gradients averaged over the
    accumulated micro-batches and the replicas, then w -= lr * gradient."""
    w = w0.astype(np.float64)
    losses = []
    for feed in data:
        x, t = feed["x"].astype(np.float64), feed["t"].astype(np.float64)  # [bps, accum, R, ...]
        step = []
        for xb, tb in zip(x, t):
            d = xb @ w - tb
            step.append((d * d).sum(axis=(-2, -1)))
            grad = 2 * np.einsum("arki,arkj->ij", xb, d) / (xb.shape[0] * xb.shape[1])
            w = w - lr * grad
        step = np.array(step)
        losses.append(step.sum(axis=(0, 1)) if art == "Sum" else step)  # Sum: over the step
    return np.array(losses), w


@pytest.mark.parametrize("accum,art", [(1, "All"), (2, "All"), (2, "Sum")])
def test_training_with_host_copy_ops_matches_numpy_and_implicit_streams(accum, art):
    replicas, bps, steps, lr = 2, 2, 2, 0.01
    w0 = RNG.standard_normal((3, 2)).astype(np.float32)
    data = [{"x": RNG.standard_normal((bps, accum, replicas, 4, 3)).astype(np.float32),
             "t": RNG.standard_normal((bps, accum, replicas, 4, 2)).astype(np.float32)} for _ in range(steps)]
    feeds = [{k: v.reshape((bps,) + ((accum,) if accum > 1 else ()) + v.shape[2:]) for k, v in f.items()}
             for f in data]
    losses, w = _train(replicas, True, accum, art, feeds, w0, lr)
    want_losses, want_w = _numpy_train(data, w0, lr, accum, art)
    np.testing.assert_allclose(losses.reshape(want_losses.shape), want_losses, rtol=1e-5)
    np.testing.assert_allclose(w, want_w, rtol=1e-5)
    assert np.abs(w - w0).max() > 1e-3  # the weights did train
    # The implicit streams: the same up to the summation order.
    streams_losses, streams_w = _train(replicas, False, accum, art, feeds, w0, lr)
    np.testing.assert_allclose(losses, streams_losses, rtol=1e-6)
    np.testing.assert_allclose(w, streams_w, rtol=1e-6)


@pytest.mark.parametrize("art", ["All", "Final", "Sum", "EveryN"])
def test_each_replica_reads_and_returns_its_own_data(art):
    """Inference with every anchor return type: replica r's outputs of batch b
    come from its own input of batch b, at the places replicas running one after
    the other would have written them."""
    replicas, bps = 2, 4
    x = RNG.standard_normal((bps, replicas, 2, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 4)).astype(np.float32)
    b = popart.Builder()
    xt = b.addInputTensor(popart.TensorInfo(x[0, 0]), "x")
    y = b.aiOnnx.relu([b.aiOnnx.matmul([xt, b.aiOnnx.constant(w)])])
    anchor = popart.AnchorReturnType("EveryN", 2) if art == "EveryN" else popart.AnchorReturnType(art)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(bps, {y: anchor}),
                                popart.DeviceManager().createCpuDevice(), userOptions=_options(replicas, True))
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, anchors))
    every = np.maximum(x @ w, 0)  # [bps, R, 2, 4]
    want = {"All": every, "Final": every[-1], "Sum": every.sum(axis=0), "EveryN": every[1::2]}[art]
    np.testing.assert_allclose(anchors[y], want, rtol=1e-5, atol=1e-6)


def _subgraph_host_load_model(collective):
    """y = call(sub)(x) with sub: HostLoad('data') + x (+ an all-reduce of the sum)."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]), "x")
    sb = b.createSubgraphBuilder()
    sb.addInputTensorFromParentGraph(x)
    init = sb.aiGraphcore.init([2], popart.DataType.FLOAT, popart.InitType.Zero)
    loaded = sb.customOp(opName="HostLoad", opVersion=1, domain="ai.graphcore", inputs=[init],
                         attributes={"streamTensorId": "data"})[0]
    out = sb.aiOnnx.add([loaded, x])
    sb.addOutputTensor(sb.aiGraphcore.replicatedallreduce([out]) if collective else out)
    return b, b.aiGraphcore.call([x], 1, sb)[0]


def test_host_load_in_a_subgraph_runs_replicas_in_turn():
    """A HostLoad in a subgraph may read any number of times per micro-batch: the
    replicas read the stream in turn, as the data is laid out."""
    replicas, bps = 2, 3
    b, y = _subgraph_host_load_model(False)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(bps, {y: popart.AnchorReturnType("All")}),
                                popart.DeviceManager().createCpuDevice(), userOptions=_options(replicas, False))
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    x = RNG.standard_normal((bps, replicas, 2)).astype(np.float32)
    data = RNG.standard_normal((bps, replicas, 2)).astype(np.float32)
    s.run(popart.PyStepIO({"x": x, "data": data}, anchors))
    np.testing.assert_allclose(anchors[y], x + data, rtol=1e-6)


def test_host_load_in_a_subgraph_with_a_collective_is_refused():
    b, y = _subgraph_host_load_model(True)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, {y: popart.AnchorReturnType("All")}),
                                popart.DeviceManager().createCpuDevice(), userOptions=_options(2, False))
    with pytest.raises(popart.popart_exception, match="ReplicatedAllReduce.*exchanges data between replicas, but "
                                                      ".*HostLoad.* reads a host stream inside a subgraph"):
        s.prepareDevice()
