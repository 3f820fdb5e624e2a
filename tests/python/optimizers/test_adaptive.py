"""Adaptive (AdaGrad, RMSProp, CenteredRMSProp, AdaDelta) against torch.optim
(Adagrad, RMSprop, Adadelta; L2 weight decay) and the formulas of
popart/adaptive.hpp (decoupled weight decay, AdaGrad momentum, TF RMSProp)."""
import numpy as np
import pytest
import torch

import popart
from _optim_helpers import FormulaOpt, TorchOpt, assert_histories_close, make_data, schedule, train_popart, \
    train_reference

STEPS = 4
MODES = ["AdaGrad", "RMSProp", "CenteredRMSProp", "AdaDelta"]
H0 = {"lr": 0.02, "alpha": 0.9, "mm": 0.0, "eps": 1e-6, "wd": 0.01}
H1 = {"lr": 0.01, "alpha": 0.8, "mm": 0.0, "eps": 1e-5, "wd": 0.05}


def popart_adaptive(h, mode, wdm="L2Regularization", const=(), **kw):
    keys = {"lr": "defaultLearningRate", "alpha": "defaultAlpha", "mm": "defaultMomentum", "eps": "defaultEps",
            "wd": "defaultWeightDecay", "ls": "lossScaling"}
    return popart.Adaptive({keys[k]: (float(v), k in const) for k, v in h.items()},
                           mode=getattr(popart.AdaptiveMode, mode),
                           weight_decay_mode=getattr(popart.WeightDecayMode, wdm), **kw)


def adaptive_formula(mode, l2, tf=False):
    def update(w, g, st, h):
        lr, a, mm, eps, wd = h["lr"], h["alpha"], h["mm"], h["eps"], h["wd"]
        gt = g + wd * w if l2 else g
        v1 = st.get("v1", 1.0 if tf and "RMSProp" in mode else 0.0)
        v1 = st["v1"] = v1 + gt * gt if mode == "AdaGrad" else a * v1 + (1 - a) * gt * gt
        if mode == "AdaDelta":
            u = gt * np.sqrt(st.get("v2", 0.0) + eps) / np.sqrt(v1 + eps)
            st["v2"] = a * st.get("v2", 0.0) + (1 - a) * u * u
        else:
            ms = v1
            if mode == "CenteredRMSProp":
                st["v2"] = a * st.get("v2", 0.0) + (1 - a) * gt
                ms = v1 - st["v2"] ** 2
            u = gt / (np.sqrt(ms + eps) if tf else np.sqrt(ms) + eps)
            u = st["v3"] = mm * st.get("v3", 0.0) + u
        if not l2:
            u = u + wd * w
        return w - lr * u
    return update


def torch_hyper(mode, h):
    t = {"lr": h["lr"], "eps": h["eps"], "weight_decay": h["wd"]}
    if mode == "AdaDelta":
        t["rho"] = h["alpha"]
    elif mode != "AdaGrad":
        t.update(alpha=h["alpha"], momentum=h["mm"])
    return t


def torch_ref(mode):
    cls = {"AdaGrad": torch.optim.Adagrad, "AdaDelta": torch.optim.Adadelta}.get(mode, torch.optim.RMSprop)
    fixed = {"centered": True} if mode == "CenteredRMSProp" else {}

    class Ref(TorchOpt):
        def __init__(self, ps, h):
            super().__init__(cls, ps, torch_hyper(mode, h), **fixed)

        def set(self, h):
            super().set(torch_hyper(mode, h))
    return Ref


@pytest.mark.parametrize("mode", MODES)
def test_adaptive_vs_torch(mode):
    hypers = schedule(STEPS, H0, H0, H1)
    data = make_data(STEPS)
    got = train_popart([popart_adaptive(h, mode) for h in hypers], STEPS, data)
    ref = train_reference(torch_ref(mode), hypers, STEPS, data)
    assert_histories_close(got, ref)


@pytest.mark.parametrize("mode", ["RMSProp", "CenteredRMSProp"])
def test_rmsprop_momentum_vs_torch(mode):
    hypers = schedule(STEPS, dict(H0, mm=0.9), dict(H1, mm=0.5))
    data = make_data(STEPS)
    got = train_popart([popart_adaptive(h, mode) for h in hypers], STEPS, data)
    ref = train_reference(torch_ref(mode), hypers, STEPS, data)
    assert_histories_close(got, ref)


@pytest.mark.parametrize("wdm", ["Decay", "L2Regularization"])
@pytest.mark.parametrize("mode", MODES)
def test_adaptive_formula(mode, wdm):
    """Both weight-decay modes, with momentum where the mode has it."""
    mm = 0.0 if mode == "AdaDelta" else 0.7
    hypers = schedule(STEPS, dict(H0, mm=mm), dict(H0, mm=mm), dict(H1, mm=mm / 2))
    data = make_data(STEPS)
    got = train_popart([popart_adaptive(h, mode, wdm) for h in hypers], STEPS, data)
    ref = train_reference(lambda ps, h: FormulaOpt(adaptive_formula(mode, wdm == "L2Regularization"), ps, h), hypers,
                          STEPS, data)
    assert_histories_close(got, ref)


@pytest.mark.parametrize("mode", ["RMSProp", "CenteredRMSProp"])
def test_rmsprop_tf_variant(mode):
    """TensorFlow's RMSProp: eps inside the square root, mean square starting at 1."""
    hypers = schedule(STEPS, dict(H0, mm=0.5, eps=1e-2), dict(H1, mm=0.5, eps=1e-2))
    data = make_data(STEPS)
    got = train_popart([popart_adaptive(h, mode, rmsprop_tf_variant=True) for h in hypers], STEPS, data,
                       read={"Accl1___W1": ((5, 6), np.float32)})
    ref = train_reference(lambda ps, h: FormulaOpt(adaptive_formula(mode, True, tf=True), ps, h), hypers, STEPS, data)
    assert_histories_close(got, ref)


@pytest.mark.parametrize("mode", MODES)
def test_state_tensors(mode):
    names = {"AdaGrad": ["Accl1___W1"], "RMSProp": ["Accl1___W1", "Accl3___W1"],
             "CenteredRMSProp": ["Accl1___W1", "Accl2___W1", "Accl3___W1"], "AdaDelta": ["Accl1___W1", "Accl2___W1"]}
    data = make_data(2)
    h = dict(H0, mm=0.9 if mode != "AdaGrad" else 0.0)
    got = train_popart([popart_adaptive(h, mode)] * 2, 2, data,
                       read={n: ((5, 6), np.float32) for n in names[mode]})
    for n in names[mode]:
        assert np.any(got[-1][n] != 0), n


@pytest.mark.parametrize("mode", MODES)
def test_float16_state(mode):
    data = make_data(STEPS)
    f16 = popart.DataType.FLOAT16
    h = dict(H0, eps=1e-3, mm=0.0 if mode == "AdaDelta" else 0.5)
    got = train_popart([popart_adaptive(h, mode, accl1_type=f16, accl2_type=f16, accl3_type=f16)] * STEPS, STEPS,
                       data, read={"Accl1___W1": ((5, 6), np.float16)})
    ref = train_reference(lambda ps, h: FormulaOpt(adaptive_formula(mode, True), ps, h), [h] * STEPS, STEPS, data)
    assert_histories_close(got, ref, rtol=3e-3, atol=3e-3)
