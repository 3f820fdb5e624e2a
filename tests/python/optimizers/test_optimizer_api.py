"""Optimizer construction, accessors and updateOptimizerFromHost rules."""
import numpy as np
import pytest

import popart
from _optim_helpers import make_data, train_popart


def test_adam_dict_and_accessors():
    a = popart.Adam({"defaultLearningRate": (0.01, False), "defaultBeta1": (0.8, True), "defaultBeta2": (0.95, False),
                     "defaultEps": (1e-5, True), "defaultWeightDecay": (0.1, False), "lossScaling": (8.0, True),
                     "maxWeightNorm": (3.0, False)},
                    mode=popart.AdamMode.Lamb, weight_decay_mode=popart.WeightDecayMode.L2Regularization,
                    accum_type=popart.DataType.FLOAT16, accl1_type=popart.DataType.FLOAT16,
                    accl2_type=popart.DataType.FLOAT, scaled_optimizer_state=True)
    assert a.learningRates().getDefault().val() == pytest.approx(0.01)
    assert not a.learningRates().getDefault().isConst()
    assert a.beta1s().getDefault().val() == pytest.approx(0.8) and a.beta1s().getDefault().isConst()
    assert a.beta2s().getDefault().val() == pytest.approx(0.95)
    assert a.epss().getDefault().val() == pytest.approx(1e-5)
    assert a.weightDecays().getDefault().val() == pytest.approx(0.1)
    assert a.maxWeightNorms().getDefault().val() == pytest.approx(3.0)
    assert a.getLossScalingVal() == 8.0
    assert a.getMode() == popart.AdamMode.Lamb
    assert a.getWeightDecayMode() == popart.WeightDecayMode.L2Regularization
    assert a.getAccumType() == popart.DataType.FLOAT16 and a.getAccl1Type() == popart.DataType.FLOAT16
    assert a.scaledOptimizerState()
    a.insertSpecific("w", {"learningRate": (0.5, False), "beta2": (0.9, True)})
    assert a.learningRates().get("w").val() == 0.5 and a.learningRates().hasSpecific("w")
    assert a.beta2s().get("w").val() == pytest.approx(0.9)
    assert a.beta1s().get("w").val() == pytest.approx(0.8)  # unspecified: the default
    assert a.learningRates().get("other").val() == pytest.approx(0.01)


def test_adam_defaults():
    a = popart.Adam({})
    assert a.getMode() == popart.AdamMode.Adam and a.getWeightDecayMode() == popart.WeightDecayMode.Decay
    vals = [m().getDefault().val() for m in (a.learningRates, a.beta1s, a.beta2s, a.epss, a.weightDecays)]
    assert vals == pytest.approx([0.1, 0.9, 0.999, 1e-6, 0.0])
    assert a.getAccl1Type() == popart.DataType.FLOAT and a.getAccumType() == popart.DataType.UNDEFINED


def test_adaptive_dict_and_accessors():
    a = popart.Adaptive({"defaultLearningRate": (0.01, False), "defaultAlpha": (0.95, True),
                         "defaultMomentum": (0.5, False), "defaultEps": (1e-4, True),
                         "defaultWeightDecay": (0.2, False), "lossScaling": (4.0, False)},
                        mode=popart.AdaptiveMode.CenteredRMSProp,
                        weight_decay_mode=popart.WeightDecayMode.L2Regularization, rmsprop_tf_variant=True)
    assert a.alphas().getDefault().val() == pytest.approx(0.95)
    assert a.momentums().getDefault().val() == pytest.approx(0.5) and not a.momentums().getDefault().isConst()
    assert a.epss().getDefault().val() == pytest.approx(1e-4)
    assert a.weightDecays().getDefault().val() == pytest.approx(0.2)
    assert a.learningRates().getDefault().val() == pytest.approx(0.01)
    assert a.getMode() == popart.AdaptiveMode.CenteredRMSProp and a.rmspropTFVariant()
    a.insertSpecific("w", {"alpha": (0.5, True)})
    assert a.alphas().get("w").val() == 0.5


def test_enums():
    assert {m.name for m in popart.AdamMode.__members__.values()} == {
        "Adam", "AdamNoBias", "Lamb", "LambNoBias", "AdaMax"}
    assert set(popart.AdaptiveMode.__members__) == {"AdaGrad", "RMSProp", "CenteredRMSProp", "AdaDelta"}
    assert set(popart.WeightDecayMode.__members__) == {"Decay", "L2Regularization"}
    assert set(popart.SGDAccumulatorAndMomentum.__members__) == {"Combined", "Separate"}


def test_sgd_options():
    s = popart.SGD({"defaultLearningRate": (0.1, False)}, [], popart.SGDAccumulatorAndMomentum.Separate,
                   accumType=popart.DataType.FLOAT16, accl1Type=popart.DataType.FLOAT)
    assert s.getSGDAccumulatorAndMomentum() == popart.SGDAccumulatorAndMomentum.Separate
    assert s.getAccumType() == popart.DataType.FLOAT16 and s.getAccl1Type() == popart.DataType.FLOAT
    s.insertSpecific("w", {"momentum": (0.9, True), "nesterov": (1, True)})
    assert s.momentums().get("w").val() == pytest.approx(0.9) and s.nesterov().get("w").val() == 1


@pytest.mark.parametrize("make, match", [
    (lambda: popart.Adam({"defaultBeta3": (0.1, True)}), "unknown Adam parameter 'defaultBeta3'"),
    (lambda: popart.Adaptive({"defaultBeta1": (0.1, True)}), "unknown Adaptive parameter 'defaultBeta1'"),
    (lambda: popart.SGD({"defaultLR": (0.1, True)}), "unknown SGD parameter 'defaultLR'"),
    (lambda: popart.Adam({}, accl1_type=popart.DataType.INT32), "accl1_type must be FLOAT, FLOAT16"),
    (lambda: popart.Adaptive({}, accl3_type=popart.DataType.INT8), "accl3_type must be FLOAT, FLOAT16"),
    (lambda: popart.SGD({}, accumType=popart.DataType.BOOL), "accumType must be FLOAT, FLOAT16"),
    (lambda: popart.Adam({}).insertSpecific("w", {"gamma": (1, True)}), "unknown Adam parameter 'gamma' for weight"),
])
def test_bad_construction(make, match):
    with pytest.raises(popart.popart_exception, match=match):
        make()


def adam(lr=(0.01, False), mode=popart.AdamMode.Adam, **kw):
    return popart.Adam({"defaultLearningRate": lr, "defaultBeta1": (0.9, True)}, mode=mode, **kw)


@pytest.mark.parametrize("second, match", [
    (adam((0.01, True)), "compiled as non-const"),
    (popart.Adam({"defaultLearningRate": (0.01, False), "defaultBeta1": (0.8, True)}),
     "cannot update the default beta1 from 0.9 to 0.8: it is const"),
    (adam(mode=popart.AdamMode.Lamb), "cannot change the Adam mode"),
    (adam(weight_decay_mode=popart.WeightDecayMode.L2Regularization), "cannot change the Adam weight decay mode"),
    (adam(accl1_type=popart.DataType.FLOAT16), "cannot change the Adam accl1_type"),
    (adam(scaled_optimizer_state=True), "scaled_optimizer_state"),
    (popart.SGD({"defaultLearningRate": (0.01, False)}), "cannot replace a Adam optimizer by a SGD optimizer"),
    (popart.Adaptive({"defaultLearningRate": (0.01, False)}), "cannot replace a Adam optimizer by a Adaptive"),
])
def test_update_optimizer_errors(second, match):
    with pytest.raises(popart.popart_exception, match=match):
        train_popart([adam(), second], 2, make_data(2))


def test_update_optimizer_errors_adaptive_and_sgd():
    ada = lambda **kw: popart.Adaptive({"defaultLearningRate": (0.01, False)}, **kw)
    with pytest.raises(popart.popart_exception, match="cannot change the Adaptive mode"):
        train_popart([ada(), ada(mode=popart.AdaptiveMode.AdaGrad)], 2, make_data(2))
    with pytest.raises(popart.popart_exception, match="rmspropTFVariant"):
        train_popart([ada(), ada(rmsprop_tf_variant=True)], 2, make_data(2))
    sgd = lambda am: popart.SGD({"defaultLearningRate": (0.01, False)}, [], am)
    with pytest.raises(popart.popart_exception, match="accumulator and momentum"):
        train_popart([sgd(popart.SGDAccumulatorAndMomentum.Combined), sgd(popart.SGDAccumulatorAndMomentum.Separate)],
                     2, make_data(2))


def test_scaled_state_loss_scaling_fixed():
    mk = lambda ls: popart.Adam({"defaultLearningRate": (0.01, False), "lossScaling": (ls, False)},
                                scaled_optimizer_state=True)
    with pytest.raises(popart.popart_exception, match="lossScaling from 2 to 4 with scaled_optimizer_state"):
        train_popart([mk(2.0), mk(4.0)], 2, make_data(2))
    train_popart([mk(2.0), popart.Adam({"defaultLearningRate": (0.02, False), "lossScaling": (2.0, False)},
                                       scaled_optimizer_state=True)], 2, make_data(2))


def test_weight_specific_entries_fixed():
    b = adam()
    b.insertSpecific("W1", {"learningRate": (0.5, False)})
    with pytest.raises(popart.popart_exception, match="weight-specific"):
        train_popart([adam(), b], 2, make_data(2))


def test_failed_update_keeps_the_old_optimizer():
    """A rejected update leaves the session training with the previous values."""
    data = make_data(3)
    first = adam((0.05, False))
    ok = train_popart([first] * 3, 3, data)
    import _optim_helpers as h
    proto, loss = h.build(h.initial_weights())
    s = popart.TrainingSession(fnModel=proto, dataFlow=popart.DataFlow(1, {loss: popart.AnchorReturnType("All")}),
                               loss=loss, optimizer=first, deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    for step in range(3):
        with pytest.raises(popart.popart_exception):
            s.updateOptimizerFromHost(adam((0.05, True)))
        s.run(popart.PyStepIO(dict(data[step]), anchors))
    s.weightsToHost()
    out = {"W1": np.zeros((5, 6), np.float32)}
    s.readWeights(popart.PyWeightsIO(out))
    np.testing.assert_allclose(out["W1"], ok[-1]["W1"], rtol=1e-6)


def test_step_counts_weight_updates_with_accumulation():
    got = train_popart([adam()] * 2, 2, make_data(2, micro=3), micro=3, read={"Step___W1": ((), np.float32)})
    assert [float(h["Step___W1"]) for h in got] == [1.0, 2.0]
