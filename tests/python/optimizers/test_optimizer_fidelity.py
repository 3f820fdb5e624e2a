"""PopART's optimizer surface beyond the per-optimizer tests: clip-norm groups with
every optimizer and mode, mixed const/non-const hyper-parameters in each
optimizer's dictionary, float16 weights, and the optimizer state named by
popart.reserved*Prefix() with PopART's shapes and types. References: the
documented formulas (float64) with the documented clip."""
import numpy as np
import pytest

import popart
from _optim_helpers import (FormulaOpt, assert_histories_close, build, initial_weights, make_data, schedule,
                            train_popart, train_reference)
from test_adam import adam_formula, popart_adam
from test_adaptive import adaptive_formula, popart_adaptive
from test_sgd import popart_sgd, sgd_formula

STEPS = 4
ADAM_MODES = ["Adam", "AdamNoBias", "AdaMax", "Lamb", "LambNoBias"]
ADAPTIVE_MODES = ["AdaGrad", "RMSProp", "CenteredRMSProp", "AdaDelta"]
SGD_H = {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.01}
ADAM_H = {"lr": 0.02, "b1": 0.9, "b2": 0.99, "eps": 1e-3, "wd": 0.01}
ADAPTIVE_H = {"lr": 0.02, "alpha": 0.9, "mm": 0.5, "eps": 1e-3, "wd": 0.01}
TWO_GROUPS = [(["W1"], 0.05), (["W2"], 0.02)]


def clip_settings(groups):
    return [popart.ClipNormSettings.clipWeights(ids, norm) for ids, norm in groups]


def family(name):
    """(popart optimizer from (h, **kw), reference optimizer factory, hyper-parameters)."""
    kind, _, mode = name.partition(":")
    if kind == "SGD":
        am = getattr(popart.SGDAccumulatorAndMomentum, mode)
        return (lambda h, **kw: popart_sgd(h, am, **kw)), (lambda ps, h: FormulaOpt(sgd_formula, ps, h)), SGD_H
    if kind == "Adam":
        return ((lambda h, **kw: popart_adam(h, mode, "Decay", **kw)),
                (lambda ps, h: FormulaOpt(adam_formula(mode, False), ps, h)), ADAM_H)
    # Without momentum a const 0 (a non-const momentum, even 0, keeps a momentum buffer).
    no_mm = mode in ("AdaDelta", "AdaGrad")
    h = dict(ADAPTIVE_H, mm=0.0) if no_mm else ADAPTIVE_H
    return ((lambda h, **kw: popart_adaptive(h, mode, "Decay", **{"const": ("mm",) if no_mm else (), **kw})),
            (lambda ps, h: FormulaOpt(adaptive_formula(mode, False), ps, h)), h)


ALL = ["SGD:Combined", "SGD:Separate"] + [f"Adam:{m}" for m in ADAM_MODES] + [f"Adaptive:{m}" for m in ADAPTIVE_MODES]


@pytest.mark.parametrize("name", ALL)
def test_clip_norm_with_every_optimizer(name):
    make, ref, h = family(name)
    data = make_data(STEPS)
    got = train_popart([make(h, clip_norm_settings=clip_settings(TWO_GROUPS))] * STEPS, STEPS, data)
    want = train_reference(ref, [h] * STEPS, STEPS, data, clip=TWO_GROUPS)
    assert_histories_close(got, want)
    plain = train_popart([make(h)] * STEPS, STEPS, data)
    assert not np.allclose(plain[-1]["W1"], got[-1]["W1"], rtol=1e-4), "the clip had no effect"


@pytest.mark.parametrize("name", ["SGD:Separate", "Adam:Lamb", "Adaptive:RMSProp"])
def test_clip_all_weights_with_accumulation(name):
    """The norm is over the accumulated gradients of every weight."""
    make, ref, h = family(name)
    data = make_data(STEPS, micro=2)
    got = train_popart([make(h, clip_norm_settings=[popart.ClipNormSettings.clipAllWeights(0.03)])] * STEPS, STEPS,
                       data, micro=2)
    want = train_reference(ref, [h] * STEPS, STEPS, data, micro=2, clip=[(["W1", "W2"], 0.03)])
    assert_histories_close(got, want)


def test_adaptive_clip_settings_are_kept_and_fixed():
    clip = clip_settings(TWO_GROUPS)
    a = popart.Adaptive({}, clip_norm_settings=clip)
    assert [c.weightIds for c in a.getClipNormSettings()] == [["W1"], ["W2"]]
    make = lambda c: popart_adaptive(ADAPTIVE_H, "RMSProp", clip_norm_settings=c)
    with pytest.raises(popart.popart_exception, match="clip-norm settings"):
        train_popart([make(clip), make([])], 2, make_data(2))


# Mixed const (True) / non-const (False) entries in each dictionary; the second
# optimizer changes only the non-const values, as updateOptimizerFromHost allows.
MIXED = {
    "SGD:Combined": (("momentum", "nesterov"), {"lr": 0.02, "weight_decay": 0.05}),
    "SGD:Separate": (("lr", "nesterov"), {"momentum": 0.5, "weight_decay": 0.05}),
    "Adam:Adam": (("b1", "eps"), {"lr": 0.01, "b2": 0.999, "wd": 0.05}),
    "Adam:Lamb": (("lr", "b2"), {"b1": 0.8, "eps": 1e-4, "wd": 0.03}),
    "Adam:AdaMax": (("wd",), {"lr": 0.01, "b1": 0.7, "b2": 0.9, "eps": 1e-2}),
    "Adaptive:RMSProp": (("alpha", "eps"), {"lr": 0.01, "mm": 0.8, "wd": 0.05}),
    "Adaptive:CenteredRMSProp": (("lr", "mm"), {"alpha": 0.8, "eps": 1e-4, "wd": 0.05}),
    "Adaptive:AdaDelta": (("wd", "mm"), {"lr": 0.05, "alpha": 0.8, "eps": 1e-2}),
    "Adaptive:AdaGrad": (("eps", "mm"), {"lr": 0.05, "wd": 0.02}),
}


@pytest.mark.parametrize("name", sorted(MIXED))
def test_mixed_const_and_non_const(name):
    make, ref, h0 = family(name)
    const, change = MIXED[name]
    h0 = dict(h0, nesterov=True) if name.startswith("SGD") else h0
    h1 = dict(h0, **change)
    hypers = schedule(STEPS, h0, h0, h1)
    first, second = make(h0, const=const), make(h1, const=const)
    for opt in (first, second):  # the dictionary's flags reach the optimizer
        maps = {k: getattr(opt, m)() for k, m in (("lr", "learningRates"), ("momentum", "momentums"),
                                                   ("mm", "momentums"), ("b1", "beta1s"), ("eps", "epss"))
                if hasattr(opt, m) and k in h0}
        for k, m in maps.items():
            assert m.getDefault().isConst() == (k in const), k
    data = make_data(STEPS)
    got = train_popart([first, first, second, second], STEPS, data)
    want = train_reference(ref, hypers, STEPS, data)
    assert_histories_close(got, want)
    # Changing a const value needs a new session.
    key = const[0]
    bumped = make(dict(h0, **{key: h0[key] * 0.5 if key != "nesterov" else False}), const=const)
    with pytest.raises(popart.popart_exception, match="const|nesterov"):
        train_popart([first, bumped], 2, data)


@pytest.mark.parametrize("name", ALL)
def test_float16_weights(name):
    """Weights, gradients and (unless the optimizer says otherwise) state in float16."""
    make, ref, h = family(name)
    w16 = initial_weights(np.float16)
    data = make_data(STEPS)
    state = expected_state(name, weight_type=np.float16)
    got = train_popart([make(h)] * STEPS, STEPS, data, weights=w16,
                       read={k: v for k, v in state.items() if k.endswith("W1")})
    for k in ("W1", "W2"):
        assert got[-1][k].dtype == np.float16
    want = train_reference(ref, [h] * STEPS, STEPS, data, weights=w16)
    assert_histories_close(got, want, rtol=1e-2, atol=1e-2)
    assert not np.allclose(got[-1]["W1"], w16["W1"], atol=1e-3), "no update happened"


def expected_state(name, weight_type=np.float32, micro=1):
    """PopART's optimizer state of W1 and W2: name -> (shape, numpy type)."""
    kind, _, mode = name.partition(":")
    per = []
    if kind == "SGD":
        per = [(popart.reservedAcclPrefix(), weight_type, False)]
        if micro > 1:  # PopART's Combined accumulates into Accl___ itself (a README difference)
            per.append((popart.reservedAccumPrefix(), weight_type, False))
    elif kind == "Adam":  # accl1/accl2 default to FLOAT; the step counter is a FLOAT scalar
        per = [(popart.reservedAccl1Prefix(), np.float32, False), (popart.reservedAccl2Prefix(), np.float32, False)]
        if mode in ("Adam", "Lamb", "AdaMax"):
            per.append((popart.reservedStepPrefix(), np.float32, True))
        if micro > 1:
            per.append((popart.reservedAccumPrefix(), weight_type, False))
    else:
        per = [(popart.reservedAccl1Prefix(), weight_type, False)]
        if mode in ("CenteredRMSProp", "AdaDelta"):
            per.append((popart.reservedAccl2Prefix(), weight_type, False))
        if mode in ("RMSProp", "CenteredRMSProp"):  # momentum 0.5
            per.append((popart.reservedAccl3Prefix(), weight_type, False))
        if micro > 1:
            per.append((popart.reservedAccumPrefix(), weight_type, False))
    shapes = {"W1": (5, 6), "W2": (3, 6)}
    return {p + w: (() if scalar else shape, t) for p, t, scalar in per for w, shape in shapes.items()}


def state_of_session(opt, micro=1):
    proto, loss = build(initial_weights())
    opts = popart.SessionOptions()
    if micro > 1:
        opts.enableGradientAccumulation = True
        opts.accumulationFactor = micro
    s = popart.TrainingSession(fnModel=proto, dataFlow=popart.DataFlow(1, {loss: popart.AnchorReturnType("All")}),
                               loss=loss, optimizer=opt, deviceInfo=popart.DeviceManager().createCpuDevice(),
                               userOptions=opts)
    state = {p + w for p in popart.reservedOptimizerStatePrefixes() for w in ("W1", "W2")}
    return {i: s.getInfo(i) for i in s.getTensorIds() if i in state}


@pytest.mark.parametrize("micro", [1, 2])
@pytest.mark.parametrize("name", ALL)
def test_state_tensor_names_shapes_and_types(name, micro):
    make, _, h = family(name)
    got = state_of_session(make(h), micro)
    want = expected_state(name, micro=micro)
    assert sorted(got) == sorted(want)
    for k, (shape, dtype) in want.items():
        assert tuple(got[k].shape()) == shape, k
        assert got[k].data_type() == {np.float32: "FLOAT", np.float16: "FLOAT16"}[dtype], k


def test_reserved_prefixes_are_popart_s():
    want = {"reservedGradientPrefix": "Gradient___", "reservedUpdatedVarPrefix": "UpdatedVar___",
            "reservedAccumPrefix": "Accum___", "reservedAcclPrefix": "Accl___", "reservedAccl1Prefix": "Accl1___",
            "reservedAccl2Prefix": "Accl2___", "reservedAccl3Prefix": "Accl3___", "reservedStepPrefix": "Step___",
            "reservedAcclToReducePrefix": "AcclToReduce___", "reservedAcclToUpdatePrefix": "AcclToUpdate___",
            "reservedAcclFinalOutPrefix": "AcclOut___", "reservedStashedPrefix": "Stashed___",
            "reservedRestoredPrefix": "Restored___", "reservedRandomSeedPrefix": "randomSeed___",
            "reservedLossScalingPrefix": "lossScaling_",
            "reservedDefaultLearningRatePrefix": "learningRate___default___",
            "reservedSpecificLearningRatePrefix": "learningRate___specific___",
            "reservedDefaultScaledLearningRate0Prefix": "scaledLearningRate0___default___",
            "reservedSpecificScaledMomentum1Prefix": "scaledMomentum1___specific___",
            "reservedDefaultAdamBeta1Prefix": "adamBeta1___default___",
            "reservedSpecificAdamEpsPrefix": "adamEps___specific___",
            "reservedDefaultMaxWeightNormPrefix": "maxWeightNorm___default___",
            "reservedDefaultAdaptiveAlphaPrefix": "adaptiveAlpha___default___",
            "reservedSpecificAdaptiveMomentumPrefix": "adaptiveMomentum___specific___"}
    for fn, value in want.items():
        assert getattr(popart, fn)() == value, fn
    every = [n for n in dir(popart) if n.startswith("reserved") and n.endswith("Prefix")]
    assert len(every) >= 70
    assert sorted(popart.reservedPrefixes()) == sorted(getattr(popart, n)() for n in every)
    state = popart.reservedOptimizerStatePrefixes()
    assert {popart.reservedAccl1Prefix(), popart.reservedStepPrefix(), popart.reservedAccumPrefix()} <= set(state)
    hyper = popart.reservedOptimizerPrefixes()
    assert popart.reservedDefaultAdamBeta2Prefix() in hyper and popart.reservedAccl1Prefix() not in hyper


def test_rmsprop_tf_variant_keyword():
    """PopART's keyword; the variant starts the mean square at one."""
    a = popart.Adaptive({}, mode=popart.AdaptiveMode.RMSProp, rmsprop_tf_variant=True)
    assert a.rmspropTFVariant()
    assert not popart.Adaptive({}).rmspropTFVariant()
    with pytest.raises(TypeError):
        popart.Adaptive({}, rmspropTFVariant=True)
    got = train_popart([popart_adaptive(dict(ADAPTIVE_H, lr=0.0), "RMSProp", rmsprop_tf_variant=True)], 1,
                       make_data(1), read={"Accl1___W1": ((5, 6), np.float32)})
    v1 = got[0]["Accl1___W1"]
    assert np.all(v1 >= ADAPTIVE_H["alpha"] - 1e-6)  # alpha * 1 + (1 - alpha) g^2
