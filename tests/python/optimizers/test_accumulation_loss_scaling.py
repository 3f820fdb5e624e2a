"""Gradient accumulation with factor k equals one step on the k-times larger
batch (Mean and Sum reductions), and loss scaling changes nothing in exact
arithmetic (power-of-two scales are exact), for each optimizer family."""
import numpy as np
import pytest
import torch

import popart
from _optim_helpers import BATCH, TorchOpt, assert_histories_close, make_data, train_popart, train_reference
from test_adam import popart_adam
from test_adaptive import popart_adaptive

STEPS = 3
K = 3


def optimizers(ls=1.0, ls_const=True):
    """name -> (optimizer for step 0, optimizer from step 1: non-const values changed)."""
    def sgd(lr):
        return popart.SGD({"defaultLearningRate": (lr, False), "defaultMomentum": (0.9, True),
                           "defaultWeightDecay": (0.01, True), "lossScaling": (ls, ls_const)})

    def adam(lr, mode):
        return popart_adam({"lr": lr, "b1": 0.9, "b2": 0.99, "eps": 1e-6, "wd": 0.01, "ls": ls}, mode,
                           const=("ls",) if ls_const else ())

    def adaptive(lr, mode):
        return popart_adaptive({"lr": lr, "alpha": 0.9, "mm": 0.5 if mode != "AdaDelta" else 0.0, "eps": 1e-6,
                                "wd": 0.01, "ls": ls}, mode, const=("ls",) if ls_const else ())
    out = {"SGD": (sgd(0.1), sgd(0.05))}
    for mode in ("Adam", "AdamNoBias", "AdaMax", "Lamb", "LambNoBias"):
        out[mode] = (adam(0.02, mode), adam(0.01, mode))
    for mode in ("AdaGrad", "RMSProp", "CenteredRMSProp", "AdaDelta"):
        out[mode] = (adaptive(0.02, mode), adaptive(0.01, mode))
    return out


NAMES = sorted(optimizers())


def big_batch(data):
    return [{k: v.reshape(-1) for k, v in d.items()} for d in data]


@pytest.mark.parametrize("reduction", ["Mean", "Sum"])
@pytest.mark.parametrize("name", NAMES)
def test_accumulation_equals_larger_batch(name, reduction):
    first, later = optimizers()[name]
    opts = [first] + [later] * (STEPS - 1)
    data = make_data(STEPS, micro=K)
    accumulated = train_popart(opts, STEPS, data, micro=K, reduction=reduction)
    large = train_popart(opts, STEPS, big_batch(data), batch=K * BATCH, reduction=reduction)
    assert_histories_close(accumulated, large, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["Mean", "Sum"])
def test_accumulation_vs_torch_larger_batch(reduction):
    data = make_data(STEPS, micro=K)
    opt = popart.SGD({"defaultLearningRate": (0.1, False), "defaultMomentum": (0.9, True)})
    got = train_popart([opt] * STEPS, STEPS, data, micro=K, reduction=reduction)
    h = {"lr": 0.1, "momentum": 0.9}
    ref = train_reference(lambda ps, h: TorchOpt(torch.optim.SGD, ps, h), [h] * STEPS, STEPS, big_batch(data),
                          reduction=reduction)
    assert_histories_close(got, ref)


def test_accumulation_counts_micro_batches():
    """Weights change once per k micro-batches: with lr 0 after step 0 nothing moves."""
    data = make_data(2, micro=K)
    opt0 = popart.SGD({"defaultLearningRate": (0.1, False)})
    opt1 = popart.SGD({"defaultLearningRate": (0.0, False)})
    got = train_popart([opt0, opt1], 2, data, micro=K)
    np.testing.assert_array_equal(got[0]["W1"], got[1]["W1"])


@pytest.mark.parametrize("name", NAMES)
def test_loss_scaling_changes_nothing(name):
    data = make_data(STEPS)
    runs = []
    for ls, const in [(1.0, True), (1024.0, True), (64.0, False)]:
        first, later = optimizers(ls, const)[name]
        runs.append(train_popart([first] + [later] * (STEPS - 1), STEPS, data))
    assert_histories_close(runs[1], runs[0], rtol=1e-6, atol=1e-7)
    assert_histories_close(runs[2], runs[0], rtol=1e-6, atol=1e-7)


def test_non_const_loss_scaling_update():
    """lossScaling (non-const) changed between steps by updateOptimizerFromHost."""
    data = make_data(STEPS)
    mk = lambda ls: popart.SGD({"defaultLearningRate": (0.1, True), "defaultMomentum": (0.9, True),
                                "lossScaling": (ls, False)})
    got = train_popart([mk(1.0), mk(512.0), mk(8.0)], STEPS, data)
    ref = train_popart([mk(1.0)] * STEPS, STEPS, data)
    assert_histories_close(got, ref, rtol=1e-6, atol=1e-7)
