"""SGD and ConstSGD trained against torch.optim.SGD (and the documented
formula where torch differs: dampening, which torch skips on the first step)."""
import numpy as np
import pytest
import torch

import popart
from _optim_helpers import (FormulaOpt, TorchOpt, assert_histories_close, make_data, schedule, train_popart,
                            train_reference)

STEPS = 4


def popart_sgd(h, accmom=popart.SGDAccumulatorAndMomentum.Combined, const=(), **kw):
    keys = {"lr": "defaultLearningRate", "momentum": "defaultMomentum", "weight_decay": "defaultWeightDecay",
            "dampening": "defaultDampening", "vs": "defaultVelocityScaling", "ls": "lossScaling",
            "nesterov": "nesterov"}
    d = {keys[k]: (float(v), k in const or k == "nesterov") for k, v in h.items()}
    return popart.SGD(d, accumulatorAndMomentum=accmom, **kw)


def torch_hyper(h):
    return {k: v for k, v in h.items() if k not in ("vs", "ls")}


def sgd_formula(w, g, st, h):
    """v' = v*mm + (1-dm)*(g + wd*w); w' = w - lr*v' (Nesterov: w - lr*(g + wd*w + mm*v'))."""
    mm, dm, wd = h.get("momentum", 0), h.get("dampening", 0), h.get("weight_decay", 0)
    gt = g + wd * w
    st["v"] = st.get("v", 0) * mm + (1 - dm) * gt
    return w - h["lr"] * (gt + mm * st["v"] if h.get("nesterov") else st["v"])


CASES = {
    "plain": ({"lr": 0.05}, {"lr": 0.02}),
    "momentum": ({"lr": 0.05, "momentum": 0.9}, {"lr": 0.03, "momentum": 0.8}),
    "nesterov": ({"lr": 0.05, "momentum": 0.9, "nesterov": True}, {"lr": 0.02, "momentum": 0.9, "nesterov": True}),
    "weight_decay": ({"lr": 0.05, "weight_decay": 0.1}, {"lr": 0.05, "weight_decay": 0.3}),
    "all": ({"lr": 0.04, "momentum": 0.7, "weight_decay": 0.05, "nesterov": True},
            {"lr": 0.02, "momentum": 0.5, "weight_decay": 0.1, "nesterov": True}),
    "velocity_scaling": ({"lr": 0.05, "momentum": 0.9, "vs": 8.0}, {"lr": 0.01, "momentum": 0.9, "vs": 8.0}),
    "loss_scaling": ({"lr": 0.05, "momentum": 0.9, "ls": 256.0}, {"lr": 0.02, "momentum": 0.9, "ls": 64.0}),
}


@pytest.mark.parametrize("accmom", ["Combined", "Separate"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_sgd_vs_torch(case, accmom):
    hypers = schedule(STEPS, *CASES[case])
    am = getattr(popart.SGDAccumulatorAndMomentum, accmom)
    data = make_data(STEPS)
    got = train_popart([popart_sgd(h, am) for h in hypers], STEPS, data)
    ref = train_reference(lambda ps, h: TorchOpt(torch.optim.SGD, ps, torch_hyper(h)), [torch_hyper(h) for h in hypers],
                          STEPS, data)
    assert_histories_close(got, ref)


@pytest.mark.parametrize("nesterov", [False, True])
def test_sgd_dampening_formula(nesterov):
    hypers = schedule(STEPS, {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01,
                              "nesterov": nesterov},
                      {"lr": 0.03, "momentum": 0.8, "dampening": 0.5, "weight_decay": 0.01, "nesterov": nesterov})
    data = make_data(STEPS)
    got = train_popart([popart_sgd(h) for h in hypers], STEPS, data)
    ref = train_reference(lambda ps, h: FormulaOpt(sgd_formula, ps, h), hypers, STEPS, data)
    assert_histories_close(got, ref)


def test_const_sgd():
    data = make_data(STEPS)
    opt = popart.ConstSGD(0.05, weight_decay=0.1)
    got = train_popart([opt] * STEPS, STEPS, data)
    ref = train_reference(lambda ps, h: TorchOpt(torch.optim.SGD, ps, h), [{"lr": 0.05, "weight_decay": 0.1}] * STEPS,
                          STEPS, data)
    assert_histories_close(got, ref)


def test_separate_equals_combined_with_accumulation():
    data = make_data(STEPS, micro=3)
    h = {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.01, "dampening": 0.1}
    runs = [train_popart([popart_sgd(h, getattr(popart.SGDAccumulatorAndMomentum, am))] * STEPS, STEPS, data,
                         micro=3, read={"Accl___W1": ((5, 6), np.float32)})
            for am in ("Combined", "Separate")]
    assert_histories_close(runs[1], runs[0], rtol=0, atol=0)


def test_sgd_weight_specific_values():
    data = make_data(STEPS)
    opt = popart_sgd({"lr": 0.05, "momentum": 0.9})
    opt.insertSpecific("W2", {"learningRate": (0.01, False), "momentum": (0.5, True)})
    got = train_popart([opt] * STEPS, STEPS, data)
    ref = train_reference(
        lambda ps, h: TorchOpt(torch.optim.SGD, [{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.01, "momentum": 0.5}],
                               {"lr": 0.05, "momentum": 0.9}), [None] * STEPS, STEPS, data)
    assert_histories_close(got, ref)


@pytest.mark.parametrize("types", [("FLOAT16", "FLOAT16"), ("FLOAT", "FLOAT16"), ("FLOAT16", "FLOAT")])
def test_sgd_state_types(types):
    """Accumulator and velocity in float16 (Separate): close to float32 training."""
    accum, accl1 = (getattr(popart.DataType, t) for t in types)
    data = make_data(STEPS, micro=2)
    h = {"lr": 0.05, "momentum": 0.9}
    got = train_popart([popart_sgd(h, popart.SGDAccumulatorAndMomentum.Separate, accumType=accum,
                                   accl1Type=accl1)] * STEPS, STEPS, data, micro=2,
                       read={"Accl___W1": ((5, 6), np.float16 if types[1] == "FLOAT16" else np.float32),
                             "Accum___W1": ((5, 6), np.float16 if types[0] == "FLOAT16" else np.float32)})
    ref = train_reference(lambda ps, h: TorchOpt(torch.optim.SGD, ps, h), [h] * STEPS, STEPS, data, micro=2)
    assert_histories_close(got, ref, rtol=2e-3, atol=2e-3)
