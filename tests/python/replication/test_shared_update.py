"""Local replicas share the buffers of their larger trained weights and
optimizer state, and each reduces and updates one slice of them
(cpu/shared_update.hpp): the weights are those of one replica on the
replicas-times larger batch, and the report shows what the replicas share."""
import numpy as np
import pytest

import popart
from replication._replica_models import large_weights as weights
from replication._replica_models import feed, make_data, max_rel_diff, merged, session, shared_line
from replication._replica_models import train as train_steps

BATCH, STEPS, HID = 4, 3, 1024  # W1 [6, 1024] and W2 [1024, 4] are shared (>= 4096 elements), B1 [1024] is not


def op_types(s):
    """The op types of the session's per-op time table (ops that ran)."""
    report = s.getSummaryReport()
    return report[report.index("time by op type"):]


def train(s, data, micro, replicas):
    return train_steps(s, data, micro, replicas, like=weights())


@pytest.mark.parametrize("opt,states", [("sgd", 1), ("adam", 2)])
@pytest.mark.parametrize("micro", [1, 3])
@pytest.mark.parametrize("replicas", [2, 4])
def test_shared_weights_train_as_one_replica_on_the_larger_batch(opt, states, micro, replicas, monkeypatch):
    data = make_data(STEPS, micro, replicas, BATCH)
    s = session(BATCH, micro, replicas, opt, weights=weights())
    # W1 and W2 with their elementwise state (SGD: velocity; Adam: m, v; not Adam's step count) and,
    # with accumulation, their gradient accumulators.
    held = 1 + states + (micro > 1)
    assert shared_line(s) == (2 * held, pytest.approx(held * (6 + 4) * HID * 4 / 1e6, abs=1e-3))
    got = train(s, data, micro, replicas)
    # The gradient reductions merged into one all-reduce are sliced as well.
    merged_s = session(BATCH, micro, replicas, opt, weights=weights(), merge_allreduce=True)
    assert shared_line(merged_s) == shared_line(s)
    # Without accumulation, each replica makes its slice of W1's and W2's reduced gradient as one
    # product over every replica's activations (A^T dY over all their samples), merged reductions
    # or not: no MatMulRhsGrad runs on its own. With accumulation, each micro-batch every replica
    # adds its rows of that product to the accumulator they share, which then holds the reduced
    # gradient: nothing is reduced, nor read in place.
    assert shared_line(s, products=True)[2] == 2
    assert shared_line(merged_s, products=True)[2] == 2
    assert shared_line(s, in_place=True)[2] == 0
    assert shared_line(merged_s, in_place=True)[2] == 0
    assert ("MatMulRhsGrad" in op_types(s)) == (micro > 1)  # (MatMulRhsGradAccumulate with accumulation)
    assert ("MatMulRhsGrad" in op_types(merged_s)) == (micro > 1)
    fused = train(merged_s, data, micro, replicas)
    # The same as replicas with a copy each up to summation order (the products over all
    # replicas' samples replace the reduction of each replica's product) ...
    monkeypatch.setenv("POPART_SHARED_WEIGHTS", "0")
    copies = session(BATCH, micro, replicas, opt, weights=weights())
    assert shared_line(copies) is None
    assert "MatMulRhsGrad" in op_types(copies)
    unshared = train(copies, data, micro, replicas)
    monkeypatch.delenv("POPART_SHARED_WEIGHTS")
    for k in got:
        np.testing.assert_array_equal(fused[k], got[k])  # the same products, the same reductions
        assert max_rel_diff({k: got[k]}, {k: unshared[k]}) <= (1e-6 if opt == "sgd" else 1e-5)
    # ... and one replica on the larger batch up to summation order (which Adam's
    # normalisation amplifies where a gradient is near 0).
    want = train(session(replicas * BATCH, micro, 1, opt, weights=weights()), merged(data, replicas), micro, 1)
    assert max_rel_diff(got, want) <= (1e-6 if opt == "sgd" else 1e-5)
    start = train(session(BATCH, micro, 1, opt, weights=weights()), [], micro, 1)
    assert max_rel_diff(got, start) > 1e-3  # the weights did train


@pytest.mark.parametrize("opt", ["sgd", "adam"])
@pytest.mark.parametrize("reduction", ["Mean", "Sum"])
@pytest.mark.parametrize("micro", [1, 3])
def test_weight_gradients_from_every_replica_over_partial_rows(opt, reduction, micro, monkeypatch):
    """Three replicas (a mean over 3), W1 [6, 1030]: the replicas' slices end inside rows, which
    two replicas then both compute (each writes its own copy of the row), or, adding to the
    accumulator they share (micro > 1), only one of them adds. Sum: the gradients of the replicas'
    losses add up, as one replica's loss summed over the whole batch."""
    w = weights(hidden=1030)
    data = make_data(STEPS if micro == 1 else 1, micro, 3, BATCH)  # (a sum over 9 micro-batches diverges in 3)
    s = session(BATCH, micro, 3, opt, weights=w, reduction=reduction)
    assert shared_line(s, products=True)[2] == 2
    got = train_steps(s, data, micro, 3, like=w)
    monkeypatch.setenv("POPART_SHARED_WEIGHTS", "0")
    unshared = train_steps(session(BATCH, micro, 3, opt, weights=w, reduction=reduction), data, micro, 3, like=w)
    monkeypatch.delenv("POPART_SHARED_WEIGHTS")
    tolerance = 1e-6 if opt == "sgd" else 1e-5
    assert max_rel_diff(got, unshared) <= tolerance
    if reduction == "Mean":
        want = train_steps(session(3 * BATCH, micro, 1, opt, weights=w), merged(data, 3), micro, 1, like=w)
        assert max_rel_diff(got, want) <= tolerance
    assert max_rel_diff(got, train_steps(session(BATCH, micro, 1, opt, weights=w), [], micro, 1, like=w)) > 1e-3


def test_large_batches_exchange_gradients_not_activations():
    """With more rows of samples per replica than 2 K N / (K + N), the operands of a weight's gradient
    product would be more than twice the gradient: the replicas reduce their products."""
    big = 1024  # W1 [6, 1024]: 1024 x 1030 > 2 x 6144; W2 [1024, 4]: 1024 x 1028 > 2 x 4096
    data = make_data(1, 1, 2, big)
    s = session(big, 1, 2, "sgd", weights=weights())
    assert shared_line(s, products=True)[2] == 0
    assert "MatMulRhsGrad" in op_types(s)
    got = train(s, data, 1, 2)
    want = train(session(2 * big, 1, 1, "sgd", weights=weights()), merged(data, 2), 1, 1)
    assert max_rel_diff(got, want) <= 1e-6
    assert shared_line(session(big // 256, 1, 2, "sgd", weights=weights()), products=True)[2] == 2


def test_small_weights_keep_a_copy_per_replica():
    # The replication tests' small MLP: every weight is below the threshold.
    assert shared_line(session(BATCH, 1, 2, "sgd")) is None
    assert shared_line(session(BATCH, 1, 1, "sgd", weights=weights())) is None


def test_shared_weights_read_write_and_broadcast():
    s = session(BATCH, 1, 2, "sgd", weights=weights())
    new = {k: v + 1 for k, v in weights().items()}
    s.writeWeights(popart.PyWeightsIO(new))
    s.weightsFromHost()
    s.broadcastWeights(0)  # process 0 (its first replica): the shared buffers are their own source
    data = make_data(1, 1, 2, BATCH)
    got = train(s, data, 1, 2)
    want = train(session(2 * BATCH, 1, 1, "sgd", weights=new), merged(data, 2), 1, 1)
    assert max_rel_diff(got, want) <= 1e-6


def nll_session(b, y, label, replicas):
    """A training session (SGD with momentum, mean over the replicas) of mean NLL on softmax(y)."""
    loss = b.aiGraphcore.nllloss([b.aiOnnx.softmax([y], axis=1), label], reduction=popart.ReductionType.Mean)
    opts = popart.SessionOptions()
    opts.accumulationAndReplicationReductionType = popart.ReductionType.Mean
    if replicas > 1:
        opts.enableReplicatedGraphs = True
        opts.replicatedGraphCount = replicas
    s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, {loss: popart.AnchorReturnType("All")}),
                               loss=loss, optimizer=popart.SGD({"defaultLearningRate": (0.1, False),
                                                                "defaultMomentum": (0.9, True)}),
                               userOptions=opts, deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    return s


def batched_session(batch, replicas, weights):
    """x [batch, 3, 6] through W1 [6, 1024] and W2 [1024, 4]: the weights' products contract over
    batch x 3 rows of samples; mean NLL over them."""
    b = popart.Builder()
    w = {k: b.addInitializedInputTensor(v, k) for k, v in weights.items()}
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [batch, 3, 6]), "x")
    label = b.addInputTensor(popart.TensorInfo("INT32", [batch * 3]), "label")
    h = b.aiOnnx.relu([b.aiOnnx.matmul([x, w["W1"]])])
    y = b.reshape_const(b.aiOnnx, [b.aiOnnx.matmul([h, w["W2"]])], [batch * 3, 4])
    return nll_session(b, y, label, replicas)


def test_weight_gradients_from_every_replica_with_batched_activations(monkeypatch):
    rng = np.random.RandomState(3)
    w = {"W1": rng.standard_normal((6, 1024)).astype(np.float32) * 0.5,
         "W2": rng.standard_normal((1024, 4)).astype(np.float32) * 0.05}
    steps = [(rng.standard_normal((2, 2, 3, 6)).astype(np.float32), rng.randint(0, 4, (2, 6)).astype(np.int32))
             for _ in range(STEPS)]

    def run(s, merge):
        anchors = s.initAnchorArrays()
        for x, label in steps:
            feed = {"x": x.reshape(4, 3, 6), "label": label.reshape(12)} if merge else {"x": x, "label": label}
            s.run(popart.PyStepIO(feed, anchors))
        s.weightsToHost()
        out = {k: np.zeros(v.shape, np.float32) for k, v in w.items()}
        s.readWeights(popart.PyWeightsIO(out))
        return out

    s = batched_session(2, 2, w)
    assert shared_line(s, products=True)[2] == 2
    assert "MatMulRhsGrad" not in op_types(s)
    got = run(s, False)
    want = run(batched_session(4, 1, w), True)
    assert max_rel_diff(got, want) <= 1e-6
    monkeypatch.setenv("POPART_SHARED_WEIGHTS", "0")
    assert max_rel_diff(got, run(batched_session(2, 2, w), False)) <= 1e-6
    assert max_rel_diff(got, w) > 1e-3


def gemm_session(batch, replicas, weights, trans_b, alpha):
    """Two Gemm layers (torch's Linear is transB=1: W [out, in]) with alpha scaling the product."""
    b = popart.Builder()
    w = {k: b.addInitializedInputTensor(v, k) for k, v in weights.items()}
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [batch, 6]), "x")
    label = b.addInputTensor(popart.TensorInfo("INT32", [batch]), "label")
    h = b.aiOnnx.relu([b.aiOnnx.gemm([x, w["W1"], w["B1"]], alpha=alpha, transB=trans_b)])
    y = b.aiOnnx.gemm([h, w["W2"]], alpha=alpha, transB=trans_b)
    return nll_session(b, y, label, replicas)


@pytest.mark.parametrize("trans_b,alpha", [(1, 1.0), (0, 0.5)])
def test_gemm_weight_gradients_from_every_replica(trans_b, alpha, monkeypatch):
    """Gemm's B gradient (alpha A^T dY, or alpha dY^T A with transB) is made from every replica's
    activations too."""
    w = weights()
    w = {"W1": w["W1"].T.copy() if trans_b else w["W1"], "B1": w["B1"], "W2": w["W2"].T.copy() if trans_b else w["W2"]}
    data = make_data(STEPS, 1, 2, BATCH)

    def run(s, replicas):
        anchors = s.initAnchorArrays()
        for d in (data if replicas > 1 else merged(data, 2)):
            s.run(popart.PyStepIO(feed(d, 1, replicas), anchors))
        s.weightsToHost()
        out = {k: np.zeros(v.shape, np.float32) for k, v in w.items()}
        s.readWeights(popart.PyWeightsIO(out))
        return out

    s = gemm_session(BATCH, 2, w, trans_b, alpha)
    assert shared_line(s, products=True)[2] == 2
    assert "GemmGrad" in op_types(s)  # B1's and x's gradients; not W1's or W2's
    got = run(s, 2)
    assert max_rel_diff(got, run(gemm_session(2 * BATCH, 1, w, trans_b, alpha), 1)) <= 1e-6
    monkeypatch.setenv("POPART_SHARED_WEIGHTS", "0")
    assert max_rel_diff(got, run(gemm_session(BATCH, 2, w, trans_b, alpha), 2)) <= 1e-6
    assert max_rel_diff(got, w) > 1e-3
