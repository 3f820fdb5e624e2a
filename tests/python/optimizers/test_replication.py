"""Replication (replicatedGraphCount > 1): each replica takes its own slice of
the data ([batchesPerStep, accumulationFactor, replicas, ...]) and the
replicas' gradients are reduced (Mean or Sum) before one update, so R
replicas equal one R-times larger batch; with accumulation too, R x k.
The Running mean strategy gives the Post strategy's numbers."""
import numpy as np
import pytest

import popart
import torch

from _optim_helpers import (BATCH, TorchOpt, assert_histories_close, build, initial_weights, make_data, train_popart,
                            train_reference)

STEPS = 3


def big_batch(data):
    return [{k: v.reshape(-1) for k, v in d.items()} for d in data]


def sgd(lr=0.1):
    return popart.SGD({"defaultLearningRate": (lr, False), "defaultMomentum": (0.9, True),
                       "defaultWeightDecay": (0.01, True)})


def adam():
    return popart.Adam({"defaultLearningRate": (0.02, False), "defaultBeta1": (0.9, True),
                        "defaultBeta2": (0.99, True), "defaultEps": (1e-6, True)})


@pytest.mark.parametrize("make_opt", [sgd, adam])
@pytest.mark.parametrize("reduction", ["Mean", "Sum"])
@pytest.mark.parametrize("replicas,micro", [(2, 1), (4, 1), (2, 3)])
def test_replicas_equal_larger_batch(make_opt, reduction, replicas, micro):
    data = make_data(STEPS, micro=micro * replicas)
    data = [{k: v.reshape((micro, replicas, BATCH) if micro > 1 else (replicas, BATCH)) for k, v in d.items()}
            for d in data]
    opt = make_opt()
    got = train_popart([opt] * STEPS, STEPS, data, micro=micro, replicas=replicas, reduction=reduction)
    want = train_popart([opt] * STEPS, STEPS, big_batch(data), batch=micro * replicas * BATCH, reduction=reduction)
    assert_histories_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["Mean", "Sum"])
@pytest.mark.parametrize("replicas,micro", [(2, 1), (3, 1), (2, 3)])
def test_replicas_vs_torch_larger_batch(reduction, replicas, micro):
    """An independent reference: torch.optim.SGD (momentum, weight decay) on the whole batch."""
    data = make_data(STEPS, micro=micro * replicas)
    data = [{k: v.reshape((micro, replicas, BATCH) if micro > 1 else (replicas, BATCH)) for k, v in d.items()}
            for d in data]
    got = train_popart([sgd()] * STEPS, STEPS, data, micro=micro, replicas=replicas, reduction=reduction)
    h = {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.01}
    want = train_reference(lambda ps, h: TorchOpt(torch.optim.SGD, ps, h), [h] * STEPS, STEPS, big_batch(data),
                           reduction=reduction)
    assert_histories_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("replicas,micro", [(1, 3), (2, 1), (2, 2)])
def test_running_mean_equals_post(replicas, micro):
    data = make_data(STEPS, micro=micro * replicas)
    shape = tuple(d for d in (micro, replicas) if d > 1) + (BATCH,)
    data = [{k: v.reshape(shape) for k, v in d.items()} for d in data]
    runs = [train_popart([sgd()] * STEPS, STEPS, data, micro=micro, replicas=replicas, strategy=strategy)
            for strategy in ("Post", "Running")]
    assert_histories_close(runs[0], runs[1], rtol=1e-5, atol=1e-6)


def _replicated_session(bps, replicas, art, training=True):
    proto, loss = build(initial_weights())
    opts = popart.SessionOptions()
    opts.enableReplicatedGraphs = True
    opts.replicatedGraphCount = replicas
    df = popart.DataFlow(bps, {loss: popart.AnchorReturnType(*art)})
    dev = popart.DeviceManager().createCpuDevice()
    if training:
        s = popart.TrainingSession(fnModel=proto, dataFlow=df, loss=loss, optimizer=popart.ConstSGD(0.0),
                                   deviceInfo=dev, userOptions=opts)
    else:
        s = popart.InferenceSession(fnModel=proto, dataFlow=df, deviceInfo=dev, userOptions=opts)
    s.prepareDevice()
    s.weightsFromHost()
    return s, loss


def _single_losses(data):
    """Per-micro-batch losses from a plain inference session."""
    s, loss = _replicated_session(1, 1, ("All",), training=False)
    out = []
    for idx, label in zip(data["idx"].reshape(-1, BATCH), data["label"].reshape(-1, BATCH)):
        a = s.initAnchorArrays()
        s.run(popart.PyStepIO({"idx": idx, "label": label}, a))
        out.append(float(a[loss]))
    return np.array(out)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("art,shape", [(("All",), (2, 3)), (("Final",), (3,)), (("Sum",), (3,)),
                                       (("EveryN", 2), (3,))])
def test_anchor_shapes_and_values(training, art, shape):
    bps, replicas = 2, 3
    data = make_data(1, micro=bps * replicas)[0]
    data = {k: v.reshape(bps, replicas, BATCH) for k, v in data.items()}
    s, loss = _replicated_session(bps, replicas, art, training)
    anchors = s.initAnchorArrays()
    assert anchors[loss].shape == shape
    s.run(popart.PyStepIO(dict(data), anchors))
    per = _single_losses(data).reshape(bps, replicas)
    want = {"All": per, "Final": per[-1], "Sum": per.sum(0), "EveryN": per[1]}[art[0]]
    np.testing.assert_allclose(anchors[loss], want, rtol=1e-5)


def test_wrong_input_size_names_replicas():
    s, loss = _replicated_session(1, 2, ("All",))
    data = make_data(1)[0]
    with pytest.raises(popart.popart_exception, match="idx"):
        s.run(popart.PyStepIO(dict(data), s.initAnchorArrays()))
