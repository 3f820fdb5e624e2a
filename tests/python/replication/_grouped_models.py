"""Helpers of the VariableSettings tests (also used by the MPI worker): the
groupings over R = 4 replicas, and a linear model trained with a grouped
weight by popart and by numpy."""
import numpy as np

import popart

R = 4  # replicas
MODE = popart.VariableRetrievalMode
CG = popart.CommGroup
CGT = popart.CommGroupType

# (settings, groups of replicas) over R = 4 replicas.
GROUPINGS = {
    "consecutive2": (lambda m: popart.VariableSettings(CG(CGT.Consecutive, 2), m), [[0, 1], [2, 3]]),
    "orthogonal2": (lambda m: popart.VariableSettings(CG(CGT.Orthogonal, 2), m), [[0, 2], [1, 3]]),
    "ungrouped": (lambda m: popart.VariableSettings(CG(CGT.Ungrouped, 0), m), [[0], [1], [2], [3]]),
    "stride2_size2": (lambda m: popart.VariableSettings(2, 2, m), [[0, 2], [1, 3]]),
    "stride1_size4": (lambda m: popart.VariableSettings(1, 4, m), [[0, 1, 2, 3]]),
}


def group_of(groups):
    return {r: g for g, members in enumerate(groups) for r in members}


def replicated(replicas=R):
    opts = popart.SessionOptions()
    opts.enableReplicatedGraphs = replicas > 1
    opts.replicatedGraphCount = replicas
    return opts


# Training: y = x W + b, loss = mean((y - t)^2) per replica, W one value per
# group, b shared by all replicas; SGD with momentum; Mean reduction over the
# accumulated micro-batches and the replicas sharing a value.
IN, OUT, B, LR, MOM = 3, 2, 4, 0.05, 0.9


def train_popart(settings, w0, b0, data, accum, local=R, offset=0):
    """Trains on data[step]["x"|"t"][accum, replica, B, ...] (this process's
    `local` replicas from global replica `offset`; all R when local = R)."""
    bld = popart.Builder()
    w = bld.addInitializedInputTensor(w0, settings, "W")
    b = bld.addInitializedInputTensor(b0, "b")
    x = bld.addInputTensor(popart.TensorInfo("FLOAT", [B, IN]), "x")
    t = bld.addInputTensor(popart.TensorInfo("FLOAT", [B, OUT]), "t")
    d = bld.aiOnnx.sub([bld.aiOnnx.add([bld.aiOnnx.matmul([x, w]), b]), t])
    loss = bld.aiOnnx.reducemean([bld.aiOnnx.mul([d, d])], keepdims=0)
    opts = replicated(local)
    if local < R:
        opts.enableDistributedReplicatedGraphs = True
        opts.globalReplicationFactor = R
        opts.globalReplicaOffset = offset
    opts.accumulationAndReplicationReductionType = popart.ReductionType.Mean
    if accum > 1:
        opts.enableGradientAccumulation = True
        opts.accumulationFactor = accum
    sgd = popart.SGD({"defaultLearningRate": (LR, False), "defaultMomentum": (MOM, True)})
    s = popart.TrainingSession(fnModel=bld.getModelProto(), dataFlow=popart.DataFlow(1, [loss]), loss=loss,
                               optimizer=sgd, userOptions=opts, deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    for step in data:
        feed = {k: v[:, offset:offset + local] for k, v in step.items()}
        feed = {k: np.ascontiguousarray((v if accum > 1 else v[0]) if local > 1 else (v[:, 0] if accum > 1 else v[0, 0]))
                for k, v in feed.items()}
        s.run(popart.PyStepIO(feed, anchors))
    s.weightsToHost()
    out = {w: np.zeros_like(w0), b: np.zeros_like(b0)}
    s.readWeights(popart.PyWeightsIO(out))
    return s, out[w], out[b]


def train_numpy(groups, w0, b0, data, accum):
    """PopART's SGD: v = momentum v + g; w -= lr v (dampening 0, no weight decay)."""
    w, b = w0.astype(np.float64).copy(), b0.astype(np.float64).copy()
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    g = group_of(groups)
    for step in data:
        gw, gb = np.zeros_like(w), np.zeros_like(b)
        for a in range(accum):
            for r in range(R):
                x, t = step["x"][a, r], step["t"][a, r]
                dy = 2 * (x @ w[g[r]] + b - t) / t.size
                gw[g[r]] += x.T @ dy / (accum * len(groups[g[r]]))
                gb += dy.sum(0) / (accum * R)
        vw, vb = MOM * vw + gw, MOM * vb + gb
        w, b = w - LR * vw, b - LR * vb
    return w, b


def grouped_problem(n_groups, accum, steps=3, seed=3):
    """Initial W (one per group) and b, and the data of `steps` steps."""
    rng = np.random.RandomState(seed)
    w0 = rng.standard_normal((n_groups, IN, OUT) if n_groups > 1 else (IN, OUT)).astype(np.float32)
    b0 = rng.standard_normal(OUT).astype(np.float32)
    data = [{"x": rng.standard_normal((accum, R, B, IN)).astype(np.float32),
             "t": rng.standard_normal((accum, R, B, OUT)).astype(np.float32)} for _ in range(steps)]
    return w0, b0, data
