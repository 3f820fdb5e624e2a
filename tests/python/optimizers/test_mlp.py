"""A dense model (MatMul, Add, Relu, Softmax, Nll): every weight element gets a
gradient every step. Each optimizer family trained against torch/the formulas,
and gradient accumulation against the larger batch. Skips while an op of the
model has no gradient yet."""
import numpy as np
import pytest
import torch

import popart
from _optim_helpers import FormulaOpt, TorchOpt, assert_histories_close
from test_adam import adam_formula, popart_adam, torch_h
from test_adaptive import adaptive_formula, popart_adaptive

STEPS = 3
B, D, H, K = 4, 3, 8, 5
SHAPES = {"W1": (D, H), "b1": (H,), "W2": (H, K), "b2": (K,)}


def init(seed=0):
    rng = np.random.RandomState(seed)
    return {k: (rng.randn(*s) * 0.5).astype(np.float32) for k, s in SHAPES.items()}


def data(steps, micro=1, seed=1):
    rng = np.random.RandomState(seed)
    lead = (micro, B) if micro > 1 else (B,)
    return [{"x": rng.randn(*lead, D).astype(np.float32), "label": rng.randint(0, K, lead).astype(np.int32)}
            for _ in range(steps)]


def train_popart(opts, d, micro=1, batch=B, reduction="Mean"):
    w0 = init()
    b = popart.Builder()
    ids = {k: b.addInitializedInputTensor(v, k) for k, v in w0.items()}
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [batch, D]), "x")
    label = b.addInputTensor(popart.TensorInfo("INT32", [batch]), "label")
    h = b.aiOnnx.relu([b.aiOnnx.add([b.aiOnnx.matmul([x, ids["W1"]]), ids["b1"]])])
    p = b.aiOnnx.softmax([b.aiOnnx.add([b.aiOnnx.matmul([h, ids["W2"]]), ids["b2"]])], 1)
    loss = b.aiGraphcore.nllloss([p, label], reduction=getattr(popart.ReductionType, reduction))
    so = popart.SessionOptions()
    if micro > 1:
        so.enableGradientAccumulation = True
        so.accumulationFactor = micro
        so.accumulationAndReplicationReductionType = getattr(popart.ReductionType, reduction)
    try:
        s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, {}), loss=loss,
                                   optimizer=opts[0], deviceInfo=popart.DeviceManager().createCpuDevice(),
                                   userOptions=so)
    except popart.popart_exception as e:
        if "not differentiable" in str(e):
            pytest.skip(str(e))
        raise
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


def train_torch(make_opt, hypers, d, reduction="Mean"):
    ps = {k: torch.tensor(v, requires_grad=True) for k, v in init().items()}
    opt = make_opt(list(ps.values()), hypers[0])
    out = []
    for step, batch_data in enumerate(d):
        if step and hypers[step] is not hypers[step - 1]:
            opt.set(hypers[step])
        for p in ps.values():
            p.grad = None
        x, label = torch.tensor(batch_data["x"].reshape(-1, D)), torch.tensor(batch_data["label"].reshape(-1)).long()
        logits = torch.relu(x @ ps["W1"] + ps["b1"]) @ ps["W2"] + ps["b2"]
        torch.nn.functional.nll_loss(torch.log_softmax(logits, 1), label, reduction=reduction.lower()).backward()
        opt.step()
        out.append({k: p.detach().numpy().copy() for k, p in ps.items()})
    return out


H0 = {"lr": 0.05, "b1": 0.9, "b2": 0.99, "eps": 1e-6, "wd": 0.01}
H1 = {"lr": 0.02, "b1": 0.8, "b2": 0.999, "eps": 1e-6, "wd": 0.02}


@pytest.mark.parametrize("mode", ["Adam", "AdamNoBias", "AdaMax", "Lamb", "LambNoBias"])
def test_mlp_adam(mode):
    hypers = [H0, H1, H1]
    got = train_popart([popart_adam(h, mode) for h in hypers], data(STEPS))
    ref = train_torch(lambda ps, h: FormulaOpt(adam_formula(mode, False), ps, h), hypers, data(STEPS))
    assert_histories_close(got, ref, rtol=1e-5, atol=1e-6)


def test_mlp_adamw_vs_torch():
    hypers = [H0, H1, H1]
    got = train_popart([popart_adam(h) for h in hypers], data(STEPS))
    ref = train_torch(lambda ps, h: TorchOpt(torch.optim.AdamW, ps, torch_h(h)), hypers, data(STEPS))
    assert_histories_close(got, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["AdaGrad", "RMSProp", "CenteredRMSProp", "AdaDelta"])
def test_mlp_adaptive(mode):
    h = {"lr": 0.02, "alpha": 0.9, "mm": 0.0 if mode == "AdaDelta" else 0.5, "eps": 1e-6, "wd": 0.01}
    got = train_popart([popart_adaptive(h, mode, "Decay")] * STEPS, data(STEPS))
    ref = train_torch(lambda ps, h: FormulaOpt(adaptive_formula(mode, False), ps, h), [h] * STEPS, data(STEPS))
    assert_histories_close(got, ref, rtol=1e-5, atol=1e-6)


def test_mlp_sgd_nesterov_vs_torch():
    opt = popart.SGD({"defaultLearningRate": (0.1, False), "defaultMomentum": (0.9, True),
                      "defaultWeightDecay": (0.01, True), "nesterov": (True, True)})
    got = train_popart([opt] * STEPS, data(STEPS))
    h = {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.01, "nesterov": True}
    ref = train_torch(lambda ps, h: TorchOpt(torch.optim.SGD, ps, h), [h] * STEPS, data(STEPS))
    assert_histories_close(got, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["Mean", "Sum"])
@pytest.mark.parametrize("mode", ["Adam", "Lamb"])
def test_mlp_accumulation_equals_larger_batch(mode, reduction):
    micro = 3
    d = data(STEPS, micro)
    big = [{k: v.reshape((-1,) + v.shape[2:]) for k, v in x.items()} for x in d]
    opts = [popart_adam(H0, mode)] * STEPS
    got = train_popart(opts, d, micro=micro, reduction=reduction)
    want = train_popart(opts, big, batch=micro * B, reduction=reduction)
    assert_histories_close(got, want, rtol=1e-5, atol=1e-6)
