"""A small MLP trained with popart for the replication tests (also imported by
the MPI worker script): weights after each step, for R local replicas, gradient
accumulation, SGD with momentum or Adam, and (under MPI) global replication."""
import numpy as np

import popart

IN, HID, OUT = 6, 8, 4


def initial_weights(seed=0):
    rng = np.random.RandomState(seed)
    return {"W1": rng.standard_normal((IN, HID)).astype(np.float32) * 0.5,
            "B1": np.zeros(HID, np.float32),
            "W2": rng.standard_normal((HID, OUT)).astype(np.float32) * 0.5}


def large_weights(seed=0, hidden=1024):
    """The same MLP with W1 [6, hidden] and W2 [hidden, 4] large enough for the
    replicas to share them (cpu/shared_update.hpp: >= 4096 elements); B1 is not."""
    rng = np.random.RandomState(seed)
    return {"W1": rng.standard_normal((IN, hidden)).astype(np.float32) * 0.5, "B1": np.zeros(hidden, np.float32),
            "W2": rng.standard_normal((hidden, OUT)).astype(np.float32) * 0.05}


def shared_line(s, in_place=False, products=False):
    """(tensors, MB) of the report's line on the weights the replicas share, or None;
    in_place: also the number of gradients the other replicas read in place;
    products: also the number of weight gradients made from every replica's activations."""
    import re
    m = re.search(r"shared by the replicas: (\d+) weight and optimizer state tensor\(s\), ([\d.]+) MB.*; "
                  r"(\d+) gradient\(s\) read in place.*; (\d+) weight gradient\(s\) made from every replica",
                  s.getSummaryReport())
    if not m:
        return None
    return ((int(m.group(1)), float(m.group(2))) + ((int(m.group(3)),) if in_place else ()) +
            ((int(m.group(4)),) if products else ()))


def make_data(steps, micro, replicas, batch, seed=1):
    """Per step: x [micro, replicas, batch, IN], label [micro, replicas, batch]."""
    rng = np.random.RandomState(seed)
    return [{"x": rng.standard_normal((micro, replicas, batch, IN)).astype(np.float32),
             "label": rng.randint(0, OUT, (micro, replicas, batch)).astype(np.int32)} for _ in range(steps)]


def optimizer(name):
    if name == "sgd":
        return popart.SGD({"defaultLearningRate": (0.1, False), "defaultMomentum": (0.9, True),
                           "defaultWeightDecay": (0.01, True)})
    return popart.Adam({"defaultLearningRate": (0.02, False), "defaultBeta1": (0.9, True),
                        "defaultBeta2": (0.99, True), "defaultEps": (1e-6, True)})


def build(batch, weights):
    b = popart.Builder()
    w = {k: b.addInitializedInputTensor(v, k) for k, v in weights.items()}
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [batch, IN]), "x")
    label = b.addInputTensor(popart.TensorInfo("INT32", [batch]), "label")
    h = b.aiOnnx.relu([b.aiOnnx.add([b.aiOnnx.matmul([x, w["W1"]]), w["B1"]])])
    p = b.aiOnnx.softmax([b.aiOnnx.matmul([h, w["W2"]])], axis=1)
    loss = b.aiGraphcore.nllloss([p, label], reduction=popart.ReductionType.Mean)
    return b.getModelProto(), loss


def session(batch, micro, replicas, opt, weights=None, global_replicas=None, offset=0, threads_report=False,
            merge_allreduce=False, rts_min=None, model=None, reduction="Mean"):
    weights = initial_weights() if weights is None else weights
    proto, loss = build(batch, weights)
    proto = model if model is not None else proto
    opts = popart.SessionOptions()
    if rts_min is not None:  # optimizer state sharded over the replicas from rts_min elements
        loc = popart.TensorLocation(popart.TensorStorage.OnChip, popart.ReplicatedTensorSharding.On)
        opts.optimizerStateTensorLocationSettings = popart.TensorLocationSettings(loc, 2, rts_min)
    # Mean over micro-batches and replicas: R replicas x k micro-batches of B = one batch of R k B.
    opts.accumulationAndReplicationReductionType = getattr(popart.ReductionType, reduction)
    if micro > 1:
        opts.enableGradientAccumulation = True
        opts.accumulationFactor = micro
    if replicas > 1:
        opts.enableReplicatedGraphs = True
        opts.replicatedGraphCount = replicas
    opts.replicatedCollectivesSettings.mergeAllReduceCollectives = merge_allreduce
    if global_replicas is not None:
        opts.enableDistributedReplicatedGraphs = True
        opts.globalReplicationFactor = global_replicas
        opts.globalReplicaOffset = offset
    s = popart.TrainingSession(fnModel=proto, dataFlow=popart.DataFlow(1, {loss: popart.AnchorReturnType("All")}),
                               loss=loss, optimizer=optimizer(opt), userOptions=opts,
                               deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    return s


def feed(step_data, micro, replicas):
    """Drops the size-1 leading axes, as the anchor/input layout does."""
    out = {}
    for k, v in step_data.items():
        shape = tuple(d for d in (micro, replicas) if d > 1) + v.shape[2:]
        out[k] = np.ascontiguousarray(v.reshape(shape))
    return out


def train(s, data, micro, replicas, like=None):
    """Runs one step per data entry; returns the weights after the last step (those named in `like`,
    default initial_weights(), with their shapes)."""
    anchors = s.initAnchorArrays()
    for d in data:
        s.run(popart.PyStepIO(feed(d, micro, replicas), anchors))
    s.weightsToHost()
    out = {k: np.zeros(v.shape, np.float32) for k, v in (like or initial_weights()).items()}
    s.readWeights(popart.PyWeightsIO(out))
    return out


def merged(data, replicas):
    """The same samples as one replica with a replicas-times larger batch."""
    return [{k: v.reshape((v.shape[0], 1, replicas * v.shape[2]) + v.shape[3:]) for k, v in d.items()} for d in data]


def max_rel_diff(a, b):
    """max over weights of max|a - b| / max|b| (relative to the tensor's scale)."""
    return max(float(np.max(np.abs(a[k] - b[k])) / max(float(np.max(np.abs(b[k]))), 1e-12)) for k in a)
