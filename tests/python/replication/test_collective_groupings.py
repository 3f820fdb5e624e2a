"""The Builder's replicated collectives over a popart.ReplicaGrouping (groups
whose members are `stride` apart), against numpy: all replicas, consecutive,
orthogonal and strided groups, with 2, 4 and 8 replicas."""
import numpy as np
import pytest

import popart

OPS = {"Add": np.sum, "Mean": np.mean, "Max": np.max}


def groups(replicas, stride, size):
    """The groups of ReplicaGrouping(replicas, stride, size), from its definition: blocks of
    stride * size replicas, in each block `stride` groups {o, o + stride, ...}."""
    out = []
    for block in range(0, replicas, stride * size):
        for o in range(stride):
            out.append([block + o + j * stride for j in range(size)])
    return out


# (replicas, stride, group size): all, consecutive, orthogonal, strided, single replicas.
GROUPINGS = [(2, 1, 2), (2, 1, 1), (4, 1, 4), (4, 1, 2), (4, 2, 2), (8, 2, 2), (8, 4, 2), (8, 2, 4), (4, 1, 1)]
IDS = [f"R{r}-stride{s}-size{k}" for r, s, k in GROUPINGS]


def run(replicas, build, x):
    b = popart.Builder()
    t = b.addInputTensor(popart.TensorInfo(x[0]), "x")
    y = build(b, t)
    opts = popart.SessionOptions()
    opts.enableReplicatedGraphs = True
    opts.replicatedGraphCount = replicas
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, {y: popart.AnchorReturnType("All")}),
                                popart.DeviceManager().createCpuDevice(), userOptions=opts)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, anchors))
    return anchors[y]


def data(replicas, shape, dtype, seed=0):
    return np.random.RandomState(seed).uniform(0.5, 1.5, (replicas,) + shape).astype(dtype)


@pytest.mark.parametrize("replicas,stride,size", GROUPINGS, ids=IDS)
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_all_reduce(replicas, stride, size, op, dtype):
    x = data(replicas, (3, 2), dtype)
    rg = popart.ReplicaGrouping(replicas, stride, size)
    y = run(replicas, lambda b, t: b.aiGraphcore.replicatedallreduce(
        [t], collectiveOperator=getattr(popart.CollectiveOperator, op), replicaGrouping=rg), x)
    assert y.dtype == dtype and y.shape == x.shape
    want = np.empty(x.shape, np.float64)
    for g in groups(replicas, stride, size):
        want[g] = OPS[op](x[g].astype(np.float64), axis=0)
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=2e-3 if dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("replicas,stride,size", GROUPINGS, ids=IDS)
def test_all_reduce_takes_the_grouping_in_comm_groups_place(replicas, stride, size):
    """As PopART's overload (args, collectiveOperator, grouping): positionally, third."""
    x = data(replicas, (4,), np.float32)
    y = run(replicas, lambda b, t: b.aiGraphcore.replicatedallreduce(
        [t], popart.CollectiveOperator.Add, popart.ReplicaGrouping(replicas, stride, size)), x)
    for g in groups(replicas, stride, size):
        np.testing.assert_allclose(y[g], np.broadcast_to(x[g].sum(0), x[g].shape), rtol=1e-6)


@pytest.mark.parametrize("replicas,stride,size", GROUPINGS, ids=IDS)
@pytest.mark.parametrize("n", [8, 5])
def test_reduce_scatter(replicas, stride, size, n):
    x = data(replicas, (n,), np.float32)
    y = run(replicas, lambda b, t: b.aiGraphcore.replicatedreducescatter(
        [t], replicaGrouping=popart.ReplicaGrouping(replicas, stride, size)), x)
    shard = -(-n // size)
    assert y.shape == (replicas, shard) and y.dtype == np.float32
    for g in groups(replicas, stride, size):
        padded = np.zeros((size, size * shard), np.float64)
        padded[:, :n] = x[g]
        total = padded.sum(0)
        for k, r in enumerate(g):
            np.testing.assert_allclose(y[r], total[k * shard:(k + 1) * shard], rtol=1e-6)


@pytest.mark.parametrize("replicas,stride,size", GROUPINGS, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_all_gather(replicas, stride, size, dtype):
    x = (data(replicas, (3,), np.float32) * 10).astype(dtype)
    y = run(replicas, lambda b, t: b.aiGraphcore.replicatedallgather(
        [t], replicaGrouping=popart.ReplicaGrouping(replicas, stride, size)), x)
    assert y.dtype == dtype and y.shape == (replicas, 3 * size)
    for g in groups(replicas, stride, size):
        for r in g:
            np.testing.assert_array_equal(y[r], np.concatenate([x[q] for q in g]))


@pytest.mark.parametrize("kind,size", [("All", 0), ("Consecutive", 2), ("Orthogonal", 2)])
def test_all_gather_over_a_comm_group_matches_its_replica_grouping(kind, size):
    x = data(4, (2,), np.float32)
    cg = popart.CommGroup(getattr(popart.CommGroupType, kind), size)
    by_comm_group = run(4, lambda b, t: b.aiGraphcore.replicatedallgather([t], commGroup=cg), x)
    by_grouping = run(4, lambda b, t: b.aiGraphcore.replicatedallgather(
        [t], replicaGrouping=cg.toReplicaGrouping(4)), x)
    np.testing.assert_array_equal(by_comm_group, by_grouping)


@pytest.mark.parametrize("replicas,stride,size", GROUPINGS, ids=IDS)
@pytest.mark.parametrize("op", ["Add", "Max"])
def test_all_reduce_inplace(replicas, stride, size, op):
    """ReplicatedAllReduceInplace (no Builder method: customOp, or an ONNX file) over a grouping."""
    x = data(replicas, (5,), np.float32)
    attrs = {"__collectiveReplicaGrouping": [stride, size],
             "__collectiveOperator": int(getattr(popart.CollectiveOperator, op))}
    y = run(replicas, lambda b, t: b.customOp(opName="ReplicatedAllReduceInplace", opVersion=1,
                                              domain="ai.graphcore", inputs=[b.aiOnnx.identity([t])],
                                              attributes=attrs)[0], x)
    for g in groups(replicas, stride, size):
        np.testing.assert_allclose(y[g], np.broadcast_to(OPS[op](x[g], axis=0), x[g].shape), rtol=1e-6)


def _gradient_of_w(replicas, collective, x, c):
    """loss = sum_r c_r . collective(x_r * w); returns each replica's gradient of w."""
    b = popart.Builder()
    w = b.addInitializedInputTensor(np.ones(x.shape[1:], np.float32), "w")
    xt = b.addInputTensor(popart.TensorInfo(x[0]), "x")
    ct = b.addInputTensor(popart.TensorInfo(c[0]), "c")
    y = collective(b, b.aiOnnx.mul([xt, w]))
    loss = b.aiOnnx.reducesum([b.aiOnnx.mul([y, ct])], keepdims=0)
    gw = popart.reservedGradientPrefix() + w
    opts = popart.SessionOptions()
    opts.enableReplicatedGraphs = True
    opts.replicatedGraphCount = replicas
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, {gw: popart.AnchorReturnType("All")}), loss,
                               popart.ConstSGD(0.0), popart.DeviceManager().createCpuDevice(), userOptions=opts)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x, "c": c}, anchors))
    return anchors[gw]


def test_all_reduce_gradient_over_a_strided_grouping():
    """The gradient of w on replica r is x_r * (the sum of c over r's group)."""
    replicas, stride, size = 8, 2, 2
    x, c = data(replicas, (4,), np.float32, 1), data(replicas, (4,), np.float32, 2)
    gw = _gradient_of_w(replicas, lambda b, t: b.aiGraphcore.replicatedallreduce(
        [t], replicaGrouping=popart.ReplicaGrouping(replicas, stride, size)), x, c)
    for g in groups(replicas, stride, size):
        for r in g:
            np.testing.assert_allclose(gw[r], x[r] * c[g].sum(0), rtol=1e-5)


@pytest.mark.parametrize("replicas,stride,size", [(4, 2, 2), (8, 2, 2), (8, 1, 4)])
def test_all_gather_gradient_over_a_grouping(replicas, stride, size):
    """y_r = the group's x concatenated: the gradient of w on replica q is x_q * (the
    sum over q's group of each member's c at q's place in the concatenation)."""
    n = 3
    x, c = data(replicas, (n,), np.float32, 1), data(replicas, (size * n,), np.float32, 2)
    gw = _gradient_of_w(replicas, lambda b, t: b.aiGraphcore.replicatedallgather(
        [t], replicaGrouping=popart.ReplicaGrouping(replicas, stride, size)), x, c)
    for g in groups(replicas, stride, size):
        for k, q in enumerate(g):
            np.testing.assert_allclose(gw[q], x[q] * c[g][:, k * n:(k + 1) * n].sum(0), rtol=1e-5)


def _builder_and_input():
    b = popart.Builder()
    return b, b.addInputTensor(popart.TensorInfo("FLOAT", [4]), "x")


@pytest.mark.parametrize("method", ["replicatedallreduce", "replicatedreducescatter", "replicatedallgather"])
def test_bad_grouping_arguments_are_named(method):
    b, x = _builder_and_input()
    op = getattr(b.aiGraphcore, method)
    rg = popart.ReplicaGrouping(4, 2, 2)
    with pytest.raises(popart.popart_exception, match=f"{method}: give commGroup or replicaGrouping, not both"):
        op([x], commGroup=popart.CommGroup(), replicaGrouping=rg)
    with pytest.raises(popart.popart_exception, match=f"{method}: got two replica groupings"):
        op([x], commGroup=rg, replicaGrouping=rg)
    with pytest.raises(TypeError, match=f"{method}: commGroup must be a popart.CommGroup or popart.ReplicaGrouping"):
        op([x], commGroup="All")
    with pytest.raises(TypeError, match=f"{method}: replicaGrouping must be a popart.ReplicaGrouping, got tuple"):
        op([x], replicaGrouping=(2, 2))
    with pytest.raises(popart.popart_exception, match=f"{method}: commGroup of type Orthogonal needs a "
                                                      "replicaGroupSize of at least 1, got 0"):
        op([x], commGroup=popart.CommGroup(popart.CommGroupType.Orthogonal, 0))


def test_collective_operator_must_be_a_collective_operator():
    b, x = _builder_and_input()
    with pytest.raises(TypeError, match="replicatedallreduce: collectiveOperator must be a popart.CollectiveOperator"):
        b.aiGraphcore.replicatedallreduce([x], collectiveOperator="Add")


def test_grouping_made_for_other_replicas_is_rejected_at_prepare():
    x = data(4, (4,), np.float32)
    with pytest.raises(popart.popart_exception,
                       match=r"ReplicatedAllReduce.*is over 8 replicas, but the session runs 4 \(global\) replicas"):
        run(4, lambda b, t: b.aiGraphcore.replicatedallreduce([t], replicaGrouping=popart.ReplicaGrouping(8, 2, 2)),
            x)


def test_replica_grouping_checks_its_own_arguments():
    with pytest.raises(popart.popart_exception, match="stride \\* groupSize must divide"):
        popart.ReplicaGrouping(4, 3, 2)
