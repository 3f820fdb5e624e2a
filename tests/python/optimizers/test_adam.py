"""Adam in every AdamMode and WeightDecayMode against torch.optim.Adam/AdamW/Adamax
and the documented formulas (AdamNoBias, Lamb, LambNoBias, AdaMax)."""
import numpy as np
import pytest
import torch

import popart
from _optim_helpers import (FormulaOpt, TorchOpt, assert_histories_close, initial_weights, make_data, schedule,
                            train_popart, train_reference)

STEPS = 4
MODES = ["Adam", "AdamNoBias", "AdaMax", "Lamb", "LambNoBias"]
H0 = {"lr": 0.02, "b1": 0.9, "b2": 0.99, "eps": 1e-6, "wd": 0.01}
H1 = {"lr": 0.01, "b1": 0.8, "b2": 0.999, "eps": 1e-5, "wd": 0.05}


def popart_adam(h, mode="Adam", wdm="Decay", const=(), specific=None, **kw):
    keys = {"lr": "defaultLearningRate", "b1": "defaultBeta1", "b2": "defaultBeta2", "eps": "defaultEps",
            "wd": "defaultWeightDecay", "mwn": "maxWeightNorm", "ls": "lossScaling"}
    opt = popart.Adam({keys[k]: (float(v), k in const) for k, v in h.items()}, mode=getattr(popart.AdamMode, mode),
                      weight_decay_mode=getattr(popart.WeightDecayMode, wdm), **kw)
    for w, d in (specific or {}).items():
        opt.insertSpecific(w, d)
    return opt


def adam_formula(mode, l2):
    """The PopART documentation's update (section 13.4, normative): AdaMax keeps
    v = max(b2 v, |g|) but is bias-corrected and square-rooted like Adam, which is
    not torch's Adamax (m^ / (v + eps)): there is no torch comparison for it."""
    def update(w, g, st, h):
        lr, wd, b1, b2, eps, mwn = h["lr"], h.get("wd", 0.0), h["b1"], h["b2"], h["eps"], h.get("mwn", 10.0)
        gt = g + wd * w if l2 else g
        t = st["t"] = st.get("t", 0) + 1
        m = st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * gt
        if mode == "AdaMax":
            v = st["v"] = np.maximum(b2 * st.get("v", 0.0), np.abs(gt))
        else:
            v = st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * gt * gt
        bias = mode in ("Adam", "Lamb", "AdaMax")
        mt = m / (1 - b1 ** t) if bias else m
        u = mt / (np.sqrt(v / (1 - b2 ** t) if bias else v) + eps)
        if not l2:
            u = u + wd * w
        if mode.startswith("Lamb"):
            r1, r2 = min(np.linalg.norm(w), mwn), np.linalg.norm(u)
            return w - (r1 / r2 if r1 > 0 and r2 > 0 else 1.0) * lr * u
        return w - lr * u
    return update


def formula_ref(mode, wdm):
    return lambda ps, h: FormulaOpt(adam_formula(mode, wdm == "L2Regularization"), ps, h)


def torch_h(h):
    return {"lr": h["lr"], "betas": (h["b1"], h["b2"]), "eps": h["eps"], "weight_decay": h["wd"]}


@pytest.mark.parametrize("wdm", ["Decay", "L2Regularization"])
@pytest.mark.parametrize("mode", MODES)
def test_adam_modes_formula(mode, wdm):
    hypers = schedule(STEPS, H0, H0, H1)
    data = make_data(STEPS)
    got = train_popart([popart_adam(h, mode, wdm) for h in hypers], STEPS, data)
    ref = train_reference(formula_ref(mode, wdm), hypers, STEPS, data)
    assert_histories_close(got, ref)


@pytest.mark.parametrize("wdm, cls", [("L2Regularization", torch.optim.Adam), ("Decay", torch.optim.AdamW)])
def test_adam_vs_torch(wdm, cls):
    hypers = schedule(STEPS, H0, H0, H1)
    data = make_data(STEPS)
    got = train_popart([popart_adam(h, "Adam", wdm) for h in hypers], STEPS, data)
    ref = train_reference(lambda ps, h: TorchOpt(cls, ps, h), [torch_h(h) for h in hypers], STEPS, data)
    assert_histories_close(got, ref)


@pytest.mark.parametrize("mode", ["Lamb", "LambNoBias"])
def test_lamb_max_weight_norm(mode):
    """mwn below |W| caps the trust ratio's numerator (|W1| ~ 5.5, |W2| ~ 4.2)."""
    hypers = schedule(STEPS, dict(H0, mwn=2.0), dict(H1, mwn=5.0))
    data = make_data(STEPS)
    got = train_popart([popart_adam(h, mode) for h in hypers], STEPS, data)
    ref = train_reference(formula_ref(mode, "Decay"), hypers, STEPS, data)
    assert_histories_close(got, ref)


@pytest.mark.parametrize("mode", MODES)
def test_scaled_optimizer_state(mode):
    """The state holds loss-scaled values (m*ls, v*ls^2, AdaMax v*ls); the update is unchanged."""
    h = dict(H0, ls=64.0)
    data = make_data(STEPS)
    read = {"Accl1___W1": ((5, 6), np.float32), "Accl2___W1": ((5, 6), np.float32)}
    got = train_popart([popart_adam(h, mode, scaled_optimizer_state=True)] * STEPS, STEPS, data, read=read)
    plain = train_popart([popart_adam(h, mode)] * STEPS, STEPS, data, read=read)
    ref = train_reference(formula_ref(mode, "Decay"), [h] * STEPS, STEPS, data)
    assert_histories_close(got, ref)
    np.testing.assert_allclose(got[-1]["Accl1___W1"], 64 * plain[-1]["Accl1___W1"], rtol=1e-5, atol=1e-7)
    v_scale = 64 if mode == "AdaMax" else 64 * 64
    np.testing.assert_allclose(got[-1]["Accl2___W1"], v_scale * plain[-1]["Accl2___W1"], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("mode", ["Adam", "Lamb"])
@pytest.mark.parametrize("types", [("FLOAT16", "FLOAT16"), ("FLOAT", "FLOAT16"), ("FLOAT16", "FLOAT")])
def test_state_types(mode, types):
    """accl1/accl2 in float16: float16 tensors, close to the float32 formula."""
    t1, t2 = (getattr(popart.DataType, t) for t in types)
    data = make_data(STEPS)
    np_t = {"FLOAT16": np.float16, "FLOAT": np.float32}
    read = {"Accl1___W1": ((5, 6), np_t[types[0]]), "Accl2___W1": ((5, 6), np_t[types[1]])}
    h = dict(H0, eps=1e-3)
    got = train_popart([popart_adam(h, mode, accl1_type=t1, accl2_type=t2)] * STEPS, STEPS, data, read=read)
    ref = train_reference(formula_ref(mode, "Decay"), [h] * STEPS, STEPS, data)
    assert_histories_close(got, ref, rtol=2e-3, atol=2e-4)


def test_accum_type_float16():
    data = make_data(STEPS, micro=2)
    got = train_popart([popart_adam(H0, accum_type=popart.DataType.FLOAT16)] * STEPS, STEPS, data, micro=2,
                       read={"Accum___W1": ((5, 6), np.float16)})
    ref = train_reference(formula_ref("Adam", "Decay"), [H0] * STEPS, STEPS, data, micro=2)
    assert_histories_close(got, ref, rtol=2e-3, atol=2e-4)


def test_float16_weights_float_state():
    w16 = initial_weights(np.float16)
    data = make_data(STEPS)
    got = train_popart([popart_adam(H0)] * STEPS, STEPS, data, weights=w16,
                       read={"Accl1___W1": ((5, 6), np.float32)})
    ref = train_reference(formula_ref("Adam", "Decay"), [H0] * STEPS, STEPS, data, weights=w16)
    assert_histories_close(got, ref, rtol=5e-3, atol=5e-3)


def test_step_counter_and_state_names():
    data = make_data(3)
    read = {"Step___W1": ((), np.float32), "Accl1___W2": ((3, 6), np.float32), "Accl2___W2": ((3, 6), np.float32)}
    got = train_popart([popart_adam(H0)] * 3, 3, data, read=read)
    assert [float(h["Step___W1"]) for h in got] == [1.0, 2.0, 3.0]
    assert np.any(got[-1]["Accl1___W2"] != 0) and np.all(got[-1]["Accl2___W2"] >= 0)


def test_weight_specific_values():
    data = make_data(STEPS)
    spec = {"W2": {"learningRate": (0.005, False), "beta1": (0.5, True), "weightDecay": (0.2, True)}}
    got = train_popart([popart_adam(H0, specific=spec)] * STEPS, STEPS, data)
    groups = lambda ps: [{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.005, "betas": (0.5, H0["b2"]),
                                                "weight_decay": 0.2}]
    ref = train_reference(lambda ps, h: TorchOpt(torch.optim.AdamW, groups(ps), h), [torch_h(H0)] * STEPS, STEPS,
                          data)
    assert_histories_close(got, ref)


def test_weight_specific_values_updated_from_host():
    """Non-const weight-specific values change between steps like the defaults."""
    data = make_data(STEPS)
    opts = []
    for lr2 in (0.005, 0.005, 0.03, 0.03):
        opts.append(popart_adam(H0, specific={"W2": {"learningRate": (lr2, False)}}))
    got = train_popart(opts, STEPS, data)

    class Ref(TorchOpt):
        def set(self, h):
            self.opt.param_groups[1]["lr"] = h

    ref = train_reference(lambda ps, h: Ref(torch.optim.AdamW, [{"params": [ps[0]]}, {"params": [ps[1]], "lr": h}],
                                            torch_h(H0)), [0.005, 0.005, 0.03, 0.03], STEPS, data)
    assert_histories_close(got, ref)
