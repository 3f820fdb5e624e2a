"""Random ops with concurrent replicas: replica r of micro-batch m draws as if
the replicas ran one after the other (counter m x R + r), whatever the thread
timing."""
import numpy as np

import popart

SHAPE = [8, 16]


def dropout_masks(replicas, bps, seed=7):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", SHAPE), "x")
    w = b.addInitializedInputTensor(np.ones(SHAPE, np.float32), "w")
    y = b.aiOnnx.dropout([b.aiOnnx.mul([x, w])], num_outputs=1, ratio=0.5)[0]
    loss = b.aiOnnx.reducesum([y], keepdims=0)
    opts = popart.SessionOptions()
    if replicas > 1:
        opts.enableReplicatedGraphs = True
        opts.replicatedGraphCount = replicas
    s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(bps, {y: popart.AnchorReturnType("All")}),
                               loss=loss, optimizer=popart.ConstSGD(0.0), userOptions=opts,
                               deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.setRandomSeed(seed)
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    lead = [d for d in (bps, replicas) if d > 1]
    s.run(popart.PyStepIO({"x": np.ones(lead + SHAPE, np.float32)}, anchors))
    return anchors[y].reshape([-1] + SHAPE) != 0


def test_replicas_draw_like_sequential_micro_batches():
    concurrent = dropout_masks(replicas=2, bps=2)    # [bps, replicas] = counters 0, 1, 2, 3
    sequential = dropout_masks(replicas=1, bps=4)    # micro-batches 0 .. 3
    np.testing.assert_array_equal(concurrent, sequential)
    assert not np.array_equal(concurrent[0], concurrent[1])  # replicas get different masks
    assert 0.3 < concurrent.mean() < 0.7


def test_replica_draws_repeat_for_a_seed():
    for _ in range(3):
        np.testing.assert_array_equal(dropout_masks(4, 1), dropout_masks(4, 1))
