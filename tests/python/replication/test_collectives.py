"""The replicated collective ops against numpy, over replica groupings: each
replica feeds its own x, the anchors return every replica's y."""
import numpy as np
import pytest

import popart

R = 4
OPS = {"Add": np.sum, "Mean": np.mean, "Mul": np.prod, "Min": np.min, "Max": np.max}


def groups(kind, size, replicas=R):
    """The replica groups of a CommGroup, written out from the definition."""
    if kind == "All":
        return [list(range(replicas))]
    if kind == "Ungrouped":
        return [[r] for r in range(replicas)]
    if kind == "Consecutive":
        return [list(range(g * size, (g + 1) * size)) for g in range(replicas // size)]
    m = replicas // size  # Orthogonal: groups {g, g + m, g + 2m, ...}
    return [[g + j * m for j in range(size)] for g in range(m)]


GROUPINGS = [("All", 0), ("Consecutive", 2), ("Orthogonal", 2), ("Ungrouped", 0), ("Consecutive", 4)]


def run_replicated(build, feeds, replicas=R):
    """build(builder) -> output id; feeds: {id: array [replicas, ...]}; returns [replicas, ...]."""
    b = popart.Builder()
    y = build(b)
    opts = popart.SessionOptions()
    opts.enableReplicatedGraphs = True
    opts.replicatedGraphCount = replicas
    s = popart.InferenceSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, {y: popart.AnchorReturnType("All")}),
                                deviceInfo=popart.DeviceManager().createCpuDevice(), userOptions=opts)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO(dict(feeds), anchors))
    return anchors[y], s


def comm_group(kind, size):
    return popart.CommGroup(getattr(popart.CommGroupType, kind), size)


def data(shape, dtype, seed=0):
    rng = np.random.RandomState(seed)
    if np.dtype(dtype).kind == "f":
        return rng.uniform(0.5, 1.5, (R,) + shape).astype(dtype)
    return rng.randint(-5, 6, (R,) + shape).astype(dtype)


@pytest.mark.parametrize("kind,size", GROUPINGS)
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_all_reduce(kind, size, op, dtype):
    x = data((3, 2), dtype)

    def build(b):
        t = b.addInputTensor(popart.TensorInfo(x[0]), "x")
        return b.aiGraphcore.replicatedallreduce([t], collectiveOperator=getattr(popart.CollectiveOperator, op),
                                                commGroup=comm_group(kind, size))
    y, _ = run_replicated(build, {"x": x})
    assert y.dtype == dtype and y.shape == x.shape
    want = np.empty_like(x)
    for g in groups(kind, size):
        red = OPS[op](x[g].astype(np.float64), axis=0)
        want[g] = (np.trunc(red) if np.dtype(dtype).kind == "i" else red).astype(dtype)  # integer Mean truncates
    rtol = 2e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(y.astype(np.float64), want.astype(np.float64), rtol=rtol)


def test_all_reduce_default_is_sum_over_all():
    x = data((5,), np.float32)
    y, _ = run_replicated(lambda b: b.aiGraphcore.replicatedallreduce([b.addInputTensor(popart.TensorInfo(x[0]), "x")]),
                          {"x": x})
    np.testing.assert_allclose(y, np.broadcast_to(x.sum(0), x.shape), rtol=1e-6)


def test_all_reduce_results_are_identical_across_replicas():
    x = np.random.RandomState(3).standard_normal((R, 1000)).astype(np.float32)
    y, _ = run_replicated(lambda b: b.aiGraphcore.replicatedallreduce([b.addInputTensor(popart.TensorInfo(x[0]), "x")]),
                          {"x": x})
    for r in range(1, R):
        assert np.array_equal(y[0], y[r])


@pytest.mark.parametrize("kind,size", GROUPINGS)
@pytest.mark.parametrize("op", ["Add", "Mean", "Max"])
@pytest.mark.parametrize("n", [8, 5])
def test_reduce_scatter(kind, size, op, n):
    x = data((n,), np.float32)

    def build(b):
        t = b.addInputTensor(popart.TensorInfo(x[0]), "x")
        return b.aiGraphcore.replicatedreducescatter([t], collectiveOperator=getattr(popart.CollectiveOperator, op),
                                                    commGroup=comm_group(kind, size))
    y, _ = run_replicated(build, {"x": x})
    G = len(groups(kind, size)[0])
    shard = -(-n // G)
    assert y.shape == (R, shard)
    for g in groups(kind, size):
        padded = np.zeros((len(g), G * shard), np.float32)
        padded[:, :n] = x[g]
        red = OPS[op](padded, axis=0)
        for k, r in enumerate(g):
            np.testing.assert_allclose(y[r], red[k * shard:(k + 1) * shard], rtol=1e-6)


@pytest.mark.parametrize("kind,size", GROUPINGS)
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_all_gather(kind, size, dtype):
    x = data((3,), dtype)
    attrs = {"__collectiveCommGroup": [int(getattr(popart.CommGroupType, kind)), size]}

    def build(b):
        t = b.addInputTensor(popart.TensorInfo(x[0]), "x")
        return b.customOp(opName="ReplicatedAllGather", opVersion=1, domain="ai.graphcore", inputs=[t],
                          attributes=attrs)[0]
    y, _ = run_replicated(build, {"x": x})
    assert y.dtype == dtype
    for g in groups(kind, size):
        for r in g:
            np.testing.assert_array_equal(y[r], np.concatenate([x[q] for q in g]))


def test_group_size_must_divide_replicas():
    x = data((2,), np.float32)
    with pytest.raises(popart.popart_exception, match="ReplicatedAllReduce"):
        run_replicated(lambda b: b.aiGraphcore.replicatedallreduce(
            [b.addInputTensor(popart.TensorInfo(x[0]), "x")], commGroup=comm_group("Consecutive", 3)), {"x": x})


def _gradients(build_y, x, c):
    """Training session: loss = sum(c_r * y_r) with y = build_y(b, x * w); returns
    the anchored gradient of w (per replica) and of x."""
    b = popart.Builder()
    w = b.addInitializedInputTensor(np.ones(x.shape[1:], np.float32), "w")
    xt = b.addInputTensor(popart.TensorInfo(x[0]), "x")
    y = build_y(b, b.aiOnnx.mul([xt, w]))
    ct = b.addInputTensor(popart.TensorInfo(c[0]), "c")
    loss = b.aiOnnx.reducesum([b.aiOnnx.mul([y, ct])], keepdims=0)
    gw = popart.reservedGradientPrefix() + w
    opts = popart.SessionOptions()
    opts.enableReplicatedGraphs = True
    opts.replicatedGraphCount = R
    s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, {gw: popart.AnchorReturnType("All")}),
                               loss=loss, optimizer=popart.ConstSGD(0.0), userOptions=opts,
                               deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x, "c": c}, anchors))
    return anchors[gw]


@pytest.mark.parametrize("kind,size", GROUPINGS)
@pytest.mark.parametrize("op", ["Add", "Mean", "Local"])
def test_all_reduce_gradient(kind, size, op):
    x, c = data((4,), np.float32, 1), data((4,), np.float32, 2)
    gw = _gradients(lambda b, t: b.aiGraphcore.replicatedallreduce(
        [t], collectiveOperator=getattr(popart.CollectiveOperator, op), commGroup=comm_group(kind, size)), x, c)
    for g in groups(kind, size):
        for r in g:
            dy = {"Add": c[g].sum(0), "Mean": c[g].mean(0), "Local": c[r]}[op]
            np.testing.assert_allclose(gw[r], x[r] * dy, rtol=1e-5)


@pytest.mark.parametrize("kind,size", GROUPINGS)
@pytest.mark.parametrize("n", [8, 6])
def test_reduce_scatter_gradient(kind, size, n):
    x = data((n,), np.float32, 1)
    G = len(groups(kind, size)[0])
    shard = -(-n // G)
    c = data((shard,), np.float32, 2)
    gw = _gradients(lambda b, t: b.aiGraphcore.replicatedreducescatter([t], commGroup=comm_group(kind, size)), x, c)
    for g in groups(kind, size):
        gathered = np.concatenate([c[q] for q in g])[:n]  # d(sum_r c_r . y_r)/dx_q
        for r in g:
            np.testing.assert_allclose(gw[r], x[r] * gathered, rtol=1e-5)


def test_all_gather_gradient():
    n = 3
    x = data((n,), np.float32, 1)
    c = data((R * n,), np.float32, 2)
    gw = _gradients(lambda b, t: b.customOp(opName="ReplicatedAllGather", opVersion=1, domain="ai.graphcore",
                                            inputs=[t])[0], x, c)
    for r in range(R):
        np.testing.assert_allclose(gw[r], x[r] * c[:, r * n:(r + 1) * n].sum(0), rtol=1e-5)


def test_max_has_no_gradient():
    x, c = data((4,), np.float32, 1), data((4,), np.float32, 2)
    with pytest.raises(popart.popart_exception, match="no gradient"):
        _gradients(lambda b, t: b.aiGraphcore.replicatedallreduce(
            [t], collectiveOperator=popart.CollectiveOperator.Max), x, c)
