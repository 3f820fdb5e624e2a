"""Training harness for the optimizer tests: one small model trained in popart
and in a torch reference (torch.optim, or the documented formulas where torch
has no equivalent) from identical weights and data, weights compared after
every step.

The model: two weights W1 [5, C] and W2 [3, C] concatenated into a table,
rows gathered by an index input, p = Relu(rows), loss = nll(p, label) with
probabilities (Mean or Sum over the batch). Every weight is shared by the
batch, so k micro-batches of gradient accumulation equal one k-times larger
batch."""
import numpy as np
import torch

import popart

C = 6
BATCH = 6
SHAPES = {"W1": (5, C), "W2": (3, C)}
NP = {popart.DataType.FLOAT: np.float32, popart.DataType.FLOAT16: np.float16}


def initial_weights(dtype=np.float32, seed=0):
    rng = np.random.RandomState(seed)
    return {k: rng.uniform(0.5, 1.5, s).astype(dtype) for k, s in SHAPES.items()}


def make_data(steps, micro=1, batch=BATCH, seed=1):
    """Per step: idx and label of shape [micro, batch] (no micro axis when micro == 1)."""
    rng = np.random.RandomState(seed)
    rows = sum(s[0] for s in SHAPES.values())
    shape = (micro, batch) if micro > 1 else (batch,)
    return [{"idx": rng.randint(0, rows, shape).astype(np.int32),
             "label": rng.randint(0, C, shape).astype(np.int32)} for _ in range(steps)]


def build(weights, batch=BATCH, reduction="Mean"):
    b = popart.Builder()
    ids = {k: b.addInitializedInputTensor(v, k) for k, v in weights.items()}
    idx = b.addInputTensor(popart.TensorInfo("INT32", [batch]), "idx")
    label = b.addInputTensor(popart.TensorInfo("INT32", [batch]), "label")
    table = b.aiOnnx.concat([ids["W1"], ids["W2"]], 0)
    p = b.aiOnnx.relu([b.aiOnnx.gather([table, idx], 0)])
    loss = b.aiGraphcore.nllloss([p, label], reduction=getattr(popart.ReductionType, reduction))
    return b.getModelProto(), loss


def train_popart(optimizers, steps, data, weights=None, micro=1, reduction="Mean", accum_reduction=None,
                 batch=BATCH, read=(), replicas=1, strategy=None):
    """optimizers[s] is the optimizer for step s (updateOptimizerFromHost when it changes).
    Data has a leading [micro, replicas] shape (each when > 1). `strategy`: the
    mean reduction strategy name (Post, Running). Returns the weights after
    every step (plus the `read` tensors, e.g. optimizer state)."""
    weights = initial_weights() if weights is None else weights
    proto, loss = build(weights, batch, reduction)
    opts = popart.SessionOptions()
    opts.accumulationAndReplicationReductionType = getattr(popart.ReductionType, accum_reduction or reduction)
    if strategy is not None:
        opts.meanAccumulationAndReplicationReductionStrategy = getattr(popart.MeanReductionStrategy, strategy)
    if micro > 1:
        opts.enableGradientAccumulation = True
        opts.accumulationFactor = micro
    if replicas > 1:
        opts.enableReplicatedGraphs = True
        opts.replicatedGraphCount = replicas
    s = popart.TrainingSession(fnModel=proto, dataFlow=popart.DataFlow(1, {loss: popart.AnchorReturnType("All")}),
                               loss=loss, optimizer=optimizers[0],
                               deviceInfo=popart.DeviceManager().createCpuDevice(), userOptions=opts)
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    history = []
    for step in range(steps):
        if step > 0 and optimizers[step] is not optimizers[step - 1]:
            s.updateOptimizerFromHost(optimizers[step])
        s.run(popart.PyStepIO(dict(data[step]), anchors))
        s.weightsToHost()
        out = {k: np.zeros(v.shape, v.dtype) for k, v in weights.items()}
        for name, (shape, dtype) in dict(read).items():
            out[name] = np.zeros(shape, dtype)
        s.readWeights(popart.PyWeightsIO(out))
        history.append(out)
    return history


def torch_loss(params, idx, label, reduction="Mean"):
    table = torch.cat([params["W1"], params["W2"]], 0)
    p = torch.relu(table[torch.as_tensor(idx.reshape(-1), dtype=torch.long)])
    logp = torch.log(p[torch.arange(p.shape[0]), torch.as_tensor(label.reshape(-1), dtype=torch.long)])
    return -logp.mean() if reduction == "Mean" else -logp.sum()


def train_reference(make_opt, hypers, steps, data, weights=None, micro=1, reduction="Mean", accum_reduction=None,
                    clip=None):
    """make_opt(params list, hyper) -> object with step() and set(hyper). Gradients of
    micro-batches are summed (accumulation) and divided by `micro` for Mean
    accumulation. clip: list of (weight names, maxNorm) groups."""
    weights = initial_weights() if weights is None else weights
    params = {k: torch.tensor(v.astype(np.float32), requires_grad=True) for k, v in weights.items()}
    opt = make_opt([params["W1"], params["W2"]], hypers[0])
    history = []
    for step in range(steps):
        if step > 0 and hypers[step] is not hypers[step - 1]:
            opt.set(hypers[step])
        for p in params.values():
            p.grad = None
        batches = [(data[step]["idx"][m], data[step]["label"][m]) for m in range(micro)] if micro > 1 else \
            [(data[step]["idx"], data[step]["label"])]
        for idx, label in batches:
            torch_loss(params, idx, label, reduction).backward()
        if micro > 1 and (accum_reduction or reduction) == "Mean":
            for p in params.values():
                p.grad /= micro
        for names, max_norm in clip or []:
            clip_group([params[n] for n in names], max_norm)
        opt.step()
        history.append({k: p.detach().numpy().copy() for k, p in params.items()})
    return history


def clip_group(params, max_norm):
    """The documented clip: g *= maxNorm / max(|g|, maxNorm), |g| the group's global L2 norm."""
    norm = torch.sqrt(sum((p.grad.double() ** 2).sum() for p in params))
    scale = max_norm / max(float(norm), max_norm)
    for p in params:
        p.grad *= scale


def assert_histories_close(got, want, rtol=1e-5, atol=1e-6):
    assert len(got) == len(want)
    for step, (g, w) in enumerate(zip(got, want)):
        for k in w:
            np.testing.assert_allclose(g[k].astype(np.float64), w[k].astype(np.float64), rtol=rtol, atol=atol,
                                       err_msg=f"weight {k} after step {step}")


def schedule(steps, *hypers):
    """hypers[i] applies from step i on (the last one for the remaining steps); the
    same object is repeated so that train_* only update when it changes."""
    out = []
    for s in range(steps):
        out.append(hypers[min(s, len(hypers) - 1)])
    return out


class TorchOpt:
    """A torch.optim optimizer whose param_groups take the hyper dicts (keys of
    the torch constructor)."""

    def __init__(self, cls, params, hyper, **fixed):
        self.opt = cls(params, **fixed, **hyper)

    def set(self, hyper):
        for g in self.opt.param_groups:
            g.update(hyper)

    def step(self):
        self.opt.step()


class FormulaOpt:
    """Reference following the documented formulas in float64: `update(p, g, state,
    hyper)` returns the new weight; state is a per-parameter dict."""

    def __init__(self, update, params, hyper):
        self.update, self.params, self.hyper = update, params, dict(hyper)
        self.state = [dict() for _ in params]

    def set(self, hyper):
        self.hyper = dict(hyper)

    def step(self):
        with torch.no_grad():
            for p, st in zip(self.params, self.state):
                w = self.update(p.detach().double().numpy(), p.grad.double().numpy(), st, self.hyper)
                p.copy_(torch.from_numpy(w))
