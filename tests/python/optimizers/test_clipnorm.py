"""ClipNormSettings: the gradients of a group are scaled by maxNorm / max(|g|, maxNorm),
|g| the group's global L2 norm, before the optimizer uses them."""
import numpy as np
import pytest
import torch

import popart
from _optim_helpers import FormulaOpt, TorchOpt, assert_histories_close, make_data, train_popart, train_reference
from test_adam import adam_formula, popart_adam

STEPS = 4
SGD_H = {"lr": 0.1, "momentum": 0.9}


def sgd(clip, h=SGD_H):
    return popart.SGD({"defaultLearningRate": (h["lr"], False), "defaultMomentum": (h["momentum"], False)}, clip)


CLIPS = {
    "all_active": ([popart.ClipNormSettings.clipAllWeights(0.1)], [(["W1", "W2"], 0.1)]),
    "all_inactive": ([popart.ClipNormSettings.clipAllWeights(100.0)], [(["W1", "W2"], 100.0)]),
    "one_group": ([popart.ClipNormSettings.clipWeights(["W1"], 0.05)], [(["W1"], 0.05)]),
    "two_groups": ([popart.ClipNormSettings.clipWeights(["W1"], 0.05),
                    popart.ClipNormSettings.clipWeights(["W2"], 0.02)], [(["W1"], 0.05), (["W2"], 0.02)]),
}


@pytest.mark.parametrize("case", sorted(CLIPS))
def test_sgd_clip_vs_torch(case):
    clip, ref_clip = CLIPS[case]
    data = make_data(STEPS)
    got = train_popart([sgd(clip)] * STEPS, STEPS, data)
    ref = train_reference(lambda ps, h: TorchOpt(torch.optim.SGD, ps, h), [SGD_H] * STEPS, STEPS, data, clip=ref_clip)
    assert_histories_close(got, ref)


def test_clip_changes_the_result():
    data = make_data(STEPS)
    clipped = train_popart([sgd(CLIPS["all_active"][0])] * STEPS, STEPS, data)
    plain = train_popart([sgd([])] * STEPS, STEPS, data)
    assert not np.allclose(clipped[-1]["W1"], plain[-1]["W1"], rtol=1e-3)


@pytest.mark.parametrize("reduction", ["Mean", "Sum"])
def test_clip_with_accumulation_and_loss_scaling(reduction):
    """The norm is taken of the accumulated, un-scaled gradient."""
    data = make_data(STEPS, micro=3)
    clip, ref_clip = CLIPS["two_groups"]
    opt = popart.SGD({"defaultLearningRate": (0.1, False), "defaultMomentum": (0.9, True), "lossScaling": (128, False)},
                     clip)
    got = train_popart([opt] * STEPS, STEPS, data, micro=3, reduction=reduction)
    ref = train_reference(lambda ps, h: TorchOpt(torch.optim.SGD, ps, h), [SGD_H] * STEPS, STEPS, data, micro=3,
                          reduction=reduction, clip=ref_clip)
    assert_histories_close(got, ref)


@pytest.mark.parametrize("mode", ["Adam", "Lamb"])
def test_adam_clip(mode):
    h = {"lr": 0.02, "b1": 0.9, "b2": 0.99, "eps": 1e-2, "wd": 0.01}
    data = make_data(STEPS)
    got = train_popart([popart_adam(h, mode, clip_norm_settings=CLIPS["all_active"][0])] * STEPS, STEPS, data)
    ref = train_reference(lambda ps, h: FormulaOpt(adam_formula(mode, False), ps, h), [h] * STEPS, STEPS, data,
                          clip=CLIPS["all_active"][1])
    assert_histories_close(got, ref)


def test_clip_unknown_weight():
    with pytest.raises(popart.popart_exception, match="'nope'.*not a trained weight"):
        train_popart([sgd([popart.ClipNormSettings.clipWeights(["nope"], 1.0)])], 1, make_data(1))


def test_clip_weight_in_two_groups():
    clip = [popart.ClipNormSettings.clipWeights(["W1"], 1.0), popart.ClipNormSettings.clipWeights(["W1", "W2"], 1.0)]
    with pytest.raises(popart.popart_exception, match="'W1' is in more than one clip-norm group"):
        train_popart([sgd(clip)], 1, make_data(1))


def test_clip_settings_fixed_at_compile_time():
    with pytest.raises(popart.popart_exception, match="clip-norm settings"):
        train_popart([sgd(CLIPS["one_group"][0]), sgd([popart.ClipNormSettings.clipWeights(["W1"], 0.5)])], 2,
                     make_data(2))


def test_clip_norm_settings_api():
    c = popart.ClipNormSettings.clipWeights(["a", "b"], 2.5)
    assert c.weightIds == ["a", "b"] and c.maxNorm == 2.5 and c.getMaxNorm() == 2.5
    assert popart.ClipNormSettings.clipAllWeights(1.0).weightIds == []
    assert len(sgd([c]).getClipNormSettings()) == 1
