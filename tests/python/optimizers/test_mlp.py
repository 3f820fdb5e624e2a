"""Dense models ending in Softmax + Nll: an MLP (MatMul, Add, Relu) and an
embedding (Gather, Mul, Add). Each optimizer family trained against torch/the
formulas, and gradient accumulation against the larger batch."""
import numpy as np
import pytest
import torch

import popart
from _optim_helpers import FormulaOpt, TorchOpt, assert_histories_close
from test_adam import adam_formula, popart_adam, torch_h
from test_adaptive import adaptive_formula, popart_adaptive

STEPS = 3
B, D, H, K, V = 4, 3, 8, 5, 7


class Mlp:
    """p = Softmax(Relu(x W1 + b1) W2 + b2)."""
    shapes = {"W1": (D, H), "b1": (H,), "W2": (H, K), "b2": (K,)}
    inputs = {"x": ("FLOAT", (D,))}

    @staticmethod
    def logits(b, ids, ins):
        h = b.aiOnnx.relu([b.aiOnnx.add([b.aiOnnx.matmul([ins["x"], ids["W1"]]), ids["b1"]])])
        return b.aiOnnx.add([b.aiOnnx.matmul([h, ids["W2"]]), ids["b2"]])

    @staticmethod
    def torch_logits(ps, d):
        x = torch.tensor(d["x"].reshape(-1, D))
        return torch.relu(x @ ps["W1"] + ps["b1"]) @ ps["W2"] + ps["b2"]


class Embed:
    """p = Softmax(E[idx] * x + b): every b element and every gathered row of E
    get a gradient (Gather, Mul, Add, Softmax, Nll)."""
    shapes = {"E": (V, K), "b": (K,)}
    inputs = {"idx": ("INT32", ()), "x": ("FLOAT", (1,))}

    @staticmethod
    def logits(b, ids, ins):
        return b.aiOnnx.add([b.aiOnnx.mul([b.aiOnnx.gather([ids["E"], ins["idx"]], 0), ins["x"]]), ids["b"]])

    @staticmethod
    def torch_logits(ps, d):
        rows = ps["E"][torch.tensor(d["idx"].reshape(-1)).long()]
        return rows * torch.tensor(d["x"].reshape(-1, 1)) + ps["b"]


MODELS = {"mlp": Mlp, "embed": Embed}


def init(model, seed=0):
    rng = np.random.RandomState(seed)
    return {k: (rng.randn(*s) * 0.5).astype(np.float32) for k, s in model.shapes.items()}


def data(model, steps, micro=1, seed=1):
    rng = np.random.RandomState(seed)
    lead = (micro, B) if micro > 1 else (B,)
    out = []
    for _ in range(steps):
        d = {"label": rng.randint(0, K, lead).astype(np.int32)}
        for name, (t, shape) in model.inputs.items():
            d[name] = rng.randint(0, V, lead + shape).astype(np.int32) if t == "INT32" else \
                rng.randn(*(lead + shape)).astype(np.float32)
        out.append(d)
    return out


def train_popart(model, opts, d, micro=1, batch=B, reduction="Mean"):
    w0 = init(model)
    b = popart.Builder()
    ids = {k: b.addInitializedInputTensor(v, k) for k, v in w0.items()}
    ins = {n: b.addInputTensor(popart.TensorInfo(t, [batch, *shape]), n) for n, (t, shape) in model.inputs.items()}
    label = b.addInputTensor(popart.TensorInfo("INT32", [batch]), "label")
    p = b.aiOnnx.softmax([model.logits(b, ids, ins)], 1)
    loss = b.aiGraphcore.nllloss([p, label], reduction=getattr(popart.ReductionType, reduction))
    so = popart.SessionOptions()
    if micro > 1:
        so.enableGradientAccumulation = True
        so.accumulationFactor = micro
        so.accumulationAndReplicationReductionType = getattr(popart.ReductionType, reduction)
    s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, {}), loss=loss,
                               optimizer=opts[0], deviceInfo=popart.DeviceManager().createCpuDevice(),
                               userOptions=so)
    s.prepareDevice()
    s.weightsFromHost()
    out = []
    for step, batch_data in enumerate(d):
        if step and opts[step] is not opts[step - 1]:
            s.updateOptimizerFromHost(opts[step])
        s.run(popart.PyStepIO(dict(batch_data), {}))
        s.weightsToHost()
        w = {k: np.zeros(v.shape, np.float32) for k, v in w0.items()}
        s.readWeights(popart.PyWeightsIO(w))
        out.append(w)
    return out


def train_torch(model, make_opt, hypers, d, reduction="Mean"):
    ps = {k: torch.tensor(v, requires_grad=True) for k, v in init(model).items()}
    opt = make_opt(list(ps.values()), hypers[0])
    out = []
    for step, batch_data in enumerate(d):
        if step and hypers[step] is not hypers[step - 1]:
            opt.set(hypers[step])
        for p in ps.values():
            p.grad = None
        label = torch.tensor(batch_data["label"].reshape(-1)).long()
        logp = torch.log_softmax(model.torch_logits(ps, batch_data), 1)
        torch.nn.functional.nll_loss(logp, label, reduction=reduction.lower()).backward()
        opt.step()
        out.append({k: p.detach().numpy().copy() for k, p in ps.items()})
    return out


# atol 5e-6 (1e-4 of a step): without bias correction m/sqrt(v) amplifies float32
# rounding where a gradient is close to eps.
H0 = {"lr": 0.05, "b1": 0.9, "b2": 0.99, "eps": 1e-6, "wd": 0.01}
H1 = {"lr": 0.02, "b1": 0.8, "b2": 0.999, "eps": 1e-6, "wd": 0.02}


@pytest.mark.parametrize("mode", ["Adam", "AdamNoBias", "AdaMax", "Lamb", "LambNoBias"])
@pytest.mark.parametrize("model", MODELS)
def test_adam(model, mode):
    hypers = [H0, H1, H1]
    got = train_popart(MODELS[model], [popart_adam(h, mode) for h in hypers], data(MODELS[model], STEPS))
    ref = train_torch(MODELS[model], lambda ps, h: FormulaOpt(adam_formula(mode, False), ps, h), hypers,
                      data(MODELS[model], STEPS))
    assert_histories_close(got, ref, rtol=1e-5, atol=5e-6)


@pytest.mark.parametrize("model", MODELS)
def test_adamw_vs_torch(model):
    hypers = [H0, H1, H1]
    got = train_popart(MODELS[model], [popart_adam(h) for h in hypers], data(MODELS[model], STEPS))
    ref = train_torch(MODELS[model], lambda ps, h: TorchOpt(torch.optim.AdamW, ps, h), [torch_h(h) for h in hypers],
                      data(MODELS[model], STEPS))
    assert_histories_close(got, ref, rtol=1e-5, atol=5e-6)


@pytest.mark.parametrize("mode", ["AdaGrad", "RMSProp", "CenteredRMSProp", "AdaDelta"])
@pytest.mark.parametrize("model", MODELS)
def test_adaptive(model, mode):
    h = {"lr": 0.02, "alpha": 0.9, "mm": 0.0 if mode == "AdaDelta" else 0.5, "eps": 1e-6, "wd": 0.01}
    got = train_popart(MODELS[model], [popart_adaptive(h, mode, "Decay")] * STEPS, data(MODELS[model], STEPS))
    ref = train_torch(MODELS[model], lambda ps, h: FormulaOpt(adaptive_formula(mode, False), ps, h), [h] * STEPS,
                      data(MODELS[model], STEPS))
    assert_histories_close(got, ref, rtol=1e-5, atol=5e-6)


@pytest.mark.parametrize("model", MODELS)
def test_sgd_nesterov_vs_torch(model):
    opt = popart.SGD({"defaultLearningRate": (0.1, False), "defaultMomentum": (0.9, True),
                      "defaultWeightDecay": (0.01, True), "nesterov": (True, True)})
    got = train_popart(MODELS[model], [opt] * STEPS, data(MODELS[model], STEPS))
    h = {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.01, "nesterov": True}
    ref = train_torch(MODELS[model], lambda ps, h: TorchOpt(torch.optim.SGD, ps, h), [h] * STEPS,
                      data(MODELS[model], STEPS))
    assert_histories_close(got, ref, rtol=1e-5, atol=5e-6)


@pytest.mark.parametrize("reduction", ["Mean", "Sum"])
@pytest.mark.parametrize("mode", ["Adam", "Lamb"])
@pytest.mark.parametrize("model", MODELS)
def test_accumulation_equals_larger_batch(model, mode, reduction):
    micro = 3
    d = data(MODELS[model], STEPS, micro)
    big = [{k: v.reshape((-1,) + v.shape[2:]) for k, v in x.items()} for x in d]
    opts = [popart_adam(H0, mode)] * STEPS
    got = train_popart(MODELS[model], opts, d, micro=micro, reduction=reduction)
    want = train_popart(MODELS[model], opts, big, batch=micro * B, reduction=reduction)
    assert_histories_close(got, want, rtol=1e-5, atol=5e-6)
