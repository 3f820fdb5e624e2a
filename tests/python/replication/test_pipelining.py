"""Pipelining (enablePipelining with pipelineStage / virtualGraph annotations):
the stages run concurrently on their own threads, and training gives exactly
the weights of the same model without pipelining (same accumulation)."""
import re

import numpy as np
import pytest

import popart
from replication._replica_models import IN, HID, OUT, initial_weights, optimizer

BATCH = 4


def build(stages):
    """The MLP of _replica_models, layer 1 on stage 0 and layer 2 + loss on stage 1 (stages=2),
    or without annotations (stages=1)."""
    w0 = initial_weights()
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [BATCH, IN]), "x")
    label = b.addInputTensor(popart.TensorInfo("INT32", [BATCH]), "label")

    def stage(s):
        if stages == 1:  # no annotations
            import contextlib
            return contextlib.nullcontext(), contextlib.nullcontext()
        return b.pipelineStage(s), b.virtualGraph(s)

    p0, v0 = stage(0)
    with p0, v0:
        w = {k: b.addInitializedInputTensor(v, k) for k, v in w0.items()}
        h = b.aiOnnx.relu([b.aiOnnx.add([b.aiOnnx.matmul([x, w["W1"]]), w["B1"]])])
    p1, v1 = stage(1)
    with p1, v1:
        p = b.aiOnnx.softmax([b.aiOnnx.matmul([h, w["W2"]])], axis=1)
        loss = b.aiGraphcore.nllloss([p, label], reduction=popart.ReductionType.Mean)
    return b.getModelProto(), loss, p


def run(pipelined, micro, opt, steps=3, training=True, bps=1, auto=False, replicas=1):
    proto, loss, p = build(1 if auto else 2)
    opts = popart.SessionOptions()
    if replicas > 1:
        opts.enableReplicatedGraphs = True
        opts.replicatedGraphCount = replicas
    opts.enablePipelining = pipelined
    opts.virtualGraphMode = popart.VirtualGraphMode.Auto if auto else popart.VirtualGraphMode.Manual
    opts.accumulationAndReplicationReductionType = popart.ReductionType.Mean
    if micro > 1:
        opts.enableGradientAccumulation = True
        opts.accumulationFactor = micro
    device = popart.DeviceManager().createIpuModelDevice({"numIPUs": 2})
    df = popart.DataFlow(bps, {loss: popart.AnchorReturnType("All"), p: popart.AnchorReturnType("All")})
    if training:
        s = popart.TrainingSession(fnModel=proto, dataFlow=df, loss=loss, optimizer=optimizer(opt),
                                   userOptions=opts, deviceInfo=device)
    else:
        s = popart.InferenceSession(fnModel=proto, dataFlow=df, userOptions=opts, deviceInfo=device)
    s.prepareDevice()
    s.weightsFromHost()
    rng = np.random.RandomState(1)
    lead = [d for d in (bps, micro, replicas) if d > 1]
    losses = []
    for _ in range(steps):
        feeds = {"x": rng.standard_normal(lead + [BATCH, IN]).astype(np.float32),
                 "label": rng.randint(0, OUT, lead + [BATCH]).astype(np.int32)}
        anchors = s.initAnchorArrays()
        s.run(popart.PyStepIO(feeds, anchors))
        losses.append((anchors[loss].copy(), anchors[p].copy()))
    out = {k: np.zeros(v.shape, np.float32) for k, v in initial_weights().items()}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO(out))
    return out, losses, s


@pytest.mark.parametrize("opt", ["sgd", "adam"])
@pytest.mark.parametrize("micro", [2, 5])
def test_pipelined_training_equals_unpipelined(opt, micro):
    got, got_losses, s = run(True, micro, opt)
    want, want_losses, _ = run(False, micro, opt)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
    for (la, pa), (lb, pb) in zip(got_losses, want_losses):
        np.testing.assert_array_equal(la, lb)
        np.testing.assert_array_equal(pa, pb)
    report = s.getSummaryReport()
    assert "pipeline: 2 stage(s)" in report, report  # the stages really ran as a pipeline


@pytest.mark.parametrize("opt,micro,bps", [("sgd", 2, 1), ("adam", 4, 2)])
def test_pipelined_replicas_train_as_unpipelined_replicas(opt, micro, bps):
    """2 replicas, each with its own 2-stage pipeline, concurrently; the gradients
    are reduced between accumulation cycles: the same weights, losses and
    outputs (in the same [batch, micro-batch, replica] layout) as without pipelining."""
    got, got_out, s = run(True, micro, opt, bps=bps, replicas=2)
    want, want_out, _ = run(False, micro, opt, bps=bps, replicas=2)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
    for (la, pa), (lb, pb) in zip(got_out, want_out):
        assert la.shape[-1] == 2 and pa.shape[-3] == 2  # the replica axis
        np.testing.assert_array_equal(la, lb)
        np.testing.assert_array_equal(pa, pb)
    report = s.getSummaryReport()
    assert "pipeline: 2 stage(s)" in report and "2 replicas at once" in report, report
    start, _, _ = run(False, micro, opt, steps=0, replicas=2)
    assert max(np.abs(got[k] - start[k]).max() for k in got) > 1e-3  # it trained


def test_pipelined_replicated_inference_equals_unpipelined():
    _, got, s = run(True, 1, "sgd", steps=2, training=False, bps=4, replicas=2)
    _, want, _ = run(False, 1, "sgd", steps=2, training=False, bps=4, replicas=2)
    for (la, pa), (lb, pb) in zip(got, want):
        np.testing.assert_array_equal(la, lb)
        np.testing.assert_array_equal(pa, pb)
    assert "2 replicas at once" in s.getSummaryReport()


def test_pipelined_inference_equals_unpipelined():
    _, got, s = run(True, 1, "sgd", steps=2, training=False, bps=6)
    _, want, _ = run(False, 1, "sgd", steps=2, training=False, bps=6)
    for (la, pa), (lb, pb) in zip(got, want):
        np.testing.assert_array_equal(la, lb)
        np.testing.assert_array_equal(pa, pb)
    assert "pipeline: 2 stage(s)" in s.getSummaryReport()


def test_training_without_accumulation_runs_unpipelined():
    got, _, s = run(True, 1, "sgd")
    want, _, _ = run(False, 1, "sgd")
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
    assert "pipeline:" not in s.getSummaryReport()


def test_auto_virtual_graphs_split_an_unannotated_model():
    """VirtualGraphMode.Auto places the ops on the device's 2 IPUs (stages) itself."""
    got, got_losses, s = run(True, 4, "sgd", auto=True)
    want, want_losses, _ = run(False, 4, "sgd")
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
    report = s.getSummaryReport()
    assert "pipeline: 2 stage(s)" in report, report
    assert "[stage 1:" in report


def test_bad_input_in_a_pipelined_run_raises_and_the_session_recovers():
    proto, loss, p = build(2)
    opts = popart.SessionOptions()
    opts.enablePipelining = True
    opts.virtualGraphMode = popart.VirtualGraphMode.Manual
    opts.enableGradientAccumulation = True
    opts.accumulationFactor = 4
    s = popart.TrainingSession(fnModel=proto, dataFlow=popart.DataFlow(1, {loss: popart.AnchorReturnType("All")}),
                               loss=loss, optimizer=optimizer("sgd"), userOptions=opts,
                               deviceInfo=popart.DeviceManager().createIpuModelDevice({"numIPUs": 2}))
    s.prepareDevice()
    s.weightsFromHost()
    rng = np.random.RandomState(0)
    good = {"x": rng.standard_normal((4, BATCH, IN)).astype(np.float32),
            "label": rng.randint(0, OUT, (4, BATCH)).astype(np.int32)}
    bad = dict(good, label=good["label"].copy())
    bad["label"][2, 0] = 99  # micro-batch 2 fails inside stage 1 while others are in flight
    with pytest.raises(popart.popart_exception):
        s.run(popart.PyStepIO(bad, s.initAnchorArrays()))
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO(good, anchors))
    assert np.all(np.isfinite(anchors[loss]))


def segments(report):
    """The stages of the pipeline's segments, in program order, from the summary report."""
    return [int(s) for s in re.findall(r"\[stage (\d+): \d+ ops\]", report)]


@pytest.mark.parametrize("opt", ["sgd", "adam"])
def test_each_stage_runs_its_work_in_one_segment_per_phase(opt):
    """The gradient accumulation ops run on their gradients' stage and the schedule keeps
    each stage's ops together: stage 0 forward, stage 1 forward and backward (its
    weights' accumulation included), stage 0 backward: two hand-offs per micro-batch
    and no trailing segment of stage 1 after stage 0's backward."""
    _, _, s = run(True, 4, opt)
    report = s.getSummaryReport()
    assert segments(report) == [0, 1, 0], report


def test_report_shows_how_busy_each_stage_was():
    _, _, s = run(True, 4, "sgd", steps=2)
    report = s.getSummaryReport()
    m = re.search(r"busy stage 0 ([\d.]+)%, stage 1 ([\d.]+)% of ([\d.]+) ms", report)
    assert m, report
    busy0, busy1, ms = (float(g) for g in m.groups())
    assert 0 < busy0 <= 100 and 0 < busy1 <= 100 and ms > 0
    # resetProfile (the default) starts the count again: no pipelined run since
    assert "busy" not in s.getSummaryReport()


def test_stage_heavier_in_work_is_busier():
    """Busy shares follow the work: with a wide first layer, stage 0 works longer than stage 1."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [32, 512]), "x")
    label = b.addInputTensor(popart.TensorInfo("INT32", [32]), "label")
    rng = np.random.RandomState(0)
    with b.pipelineStage(0), b.virtualGraph(0):
        h = x
        for i in range(4):
            w = b.addInitializedInputTensor((rng.standard_normal((512, 512)) * 0.04).astype(np.float32), f"W{i}")
            h = b.aiOnnx.relu([b.aiOnnx.matmul([h, w])])
    with b.pipelineStage(1), b.virtualGraph(1):
        w = b.addInitializedInputTensor((rng.standard_normal((512, OUT)) * 0.04).astype(np.float32), "Wout")
        loss = b.aiGraphcore.nllloss([b.aiOnnx.softmax([b.aiOnnx.matmul([h, w])], axis=1), label])
    opts = popart.SessionOptions()
    opts.enablePipelining = True
    opts.virtualGraphMode = popart.VirtualGraphMode.Manual
    opts.enableGradientAccumulation = True
    opts.accumulationFactor = 8
    s = popart.TrainingSession(fnModel=b.getModelProto(),
                               dataFlow=popart.DataFlow(1, {loss: popart.AnchorReturnType("Final")}),
                               loss=loss, optimizer=optimizer("sgd"), userOptions=opts,
                               deviceInfo=popart.DeviceManager().createIpuModelDevice({"numIPUs": 2}))
    s.prepareDevice()
    s.weightsFromHost()
    feeds = {"x": rng.standard_normal((8, 32, 512)).astype(np.float32),
             "label": rng.randint(0, OUT, (8, 32)).astype(np.int32)}
    for _ in range(3):
        s.run(popart.PyStepIO(feeds, s.initAnchorArrays()))
    busy = re.search(r"busy stage 0 ([\d.]+)%, stage 1 ([\d.]+)%", s.getSummaryReport())
    busy0, busy1 = (float(g) for g in busy.groups())
    assert busy0 > 2 * busy1, (busy0, busy1)


def test_accumulation_ops_run_on_their_gradients_stage():
    """A bias added on stage 1 adds ops (its gradient's sum and accumulation) to stage 1 only:
    stage 0's segments hold as many ops as without it."""
    def op_counts(stage1_bias):
        b = popart.Builder()
        x = b.addInputTensor(popart.TensorInfo("FLOAT", [BATCH, IN]), "x")
        label = b.addInputTensor(popart.TensorInfo("INT32", [BATCH]), "label")
        w0 = initial_weights()
        with b.pipelineStage(0), b.virtualGraph(0):
            w1, b1 = b.addInitializedInputTensor(w0["W1"], "W1"), b.addInitializedInputTensor(w0["B1"], "B1")
            h = b.aiOnnx.relu([b.aiOnnx.add([b.aiOnnx.matmul([x, w1]), b1])])
        with b.pipelineStage(1), b.virtualGraph(1):
            y = b.aiOnnx.matmul([h, b.addInitializedInputTensor(w0["W2"], "W2")])
            if stage1_bias:
                y = b.aiOnnx.add([y, b.addInitializedInputTensor(np.zeros(OUT, np.float32), "B2")])
            loss = b.aiGraphcore.nllloss([b.aiOnnx.softmax([y], axis=1), label])
        opts = popart.SessionOptions()
        opts.enablePipelining = True
        opts.virtualGraphMode = popart.VirtualGraphMode.Manual
        opts.enableGradientAccumulation = True
        opts.accumulationFactor = 2
        s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, {}), loss=loss,
                                   optimizer=optimizer("sgd"), userOptions=opts,
                                   deviceInfo=popart.DeviceManager().createIpuModelDevice({"numIPUs": 2}))
        s.prepareDevice()
        return [(int(st), int(n)) for st, n in re.findall(r"\[stage (\d+): (\d+) ops\]", s.getSummaryReport())]

    without, with_bias = op_counts(False), op_counts(True)
    assert [st for st, _ in with_bias] == [0, 1, 0], with_bias
    assert with_bias[0] == without[0] and with_bias[2] == without[2], (without, with_bias)
    assert with_bias[1][1] > without[1][1]
