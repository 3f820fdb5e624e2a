"""Training through the LeakyRelu custom op (its LeakyReluGrad op and opx) with
popart.TrainingSession + SGD, step by step against torch autograd + torch.optim.SGD:
the anchored gradient Gradient___w and the weights after every step."""
import numpy as np
import pytest

import popart

import torch
F = torch.nn.functional

GRAD = popart.reservedGradientPrefix()


def leaky_relu_model(w0, alpha, loss_kind, idx_shape=None, lam=0.5):
    """w (weight) [-> Gather(w, idx), idx an INT32 input] -> LeakyRelu -> loss.
    loss_kind: "l1_sum", "l1_mean" (lam * |y| summed / averaged) or "identity" (sum y)."""
    b = popart.Builder()
    w = b.addInitializedInputTensor(w0, "w")
    h, idx = w, None
    if idx_shape is not None:
        idx = b.addInputTensor(popart.TensorInfo("INT32", list(idx_shape)), "idx")
        h = b.aiOnnx.gather([w, idx], axis=0)
    attributes = {} if alpha is None else {"alpha": alpha}
    y = b.customOp(opName="LeakyRelu", opVersion=6, domain="custom.ops", inputs=[h],
                   attributes=attributes)[0]
    if loss_kind == "identity":
        loss = b.aiGraphcore.identityloss([y], reduction=popart.ReductionType.Sum)
    else:
        reduction = popart.ReductionType.Sum if loss_kind == "l1_sum" else popart.ReductionType.Mean
        loss = b.aiGraphcore.l1loss([y], lam, reduction=reduction)
    return b.getModelProto(), w, idx, loss


def torch_loss(y, loss_kind, lam=0.5):
    if loss_kind == "identity":
        return y.sum()
    return lam * (y.abs().sum() if loss_kind == "l1_sum" else y.abs().mean())


def torch_training(w0, alpha, loss_kind, lr, feeds):
    """[(loss, grad, weights after the step)] for each idx in `feeds` (None: no Gather)."""
    w = torch.tensor(w0, requires_grad=True)
    opt = torch.optim.SGD([w], lr=lr)
    steps = []
    for idx in feeds:
        opt.zero_grad()
        h = w if idx is None else w[torch.from_numpy(idx.astype(np.int64))]
        loss = torch_loss(F.leaky_relu(h, 0.01 if alpha is None else alpha), loss_kind)
        loss.backward()
        grad = w.grad.detach().numpy().copy()
        opt.step()
        steps.append((loss.item(), grad, w.detach().numpy().copy()))
    return steps


def train(proto, w, idx, loss, lr, feeds, w0):
    """Runs one popart step per feed; returns [(loss, grad, weights after the step)]."""
    session = popart.TrainingSession(
        fnModel=proto, dataFlow=popart.DataFlow(1, [loss, GRAD + w]), loss=loss,
        optimizer=popart.SGD({"defaultLearningRate": (lr, False)}),
        deviceInfo=popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    steps = []
    for feed in feeds:
        session.run(popart.PyStepIO({} if idx is None else {idx: feed}, anchors))
        session.weightsToHost()
        weights = {w: np.zeros_like(w0)}
        session.readWeights(popart.PyWeightsIO(weights))
        steps.append((float(anchors[loss]), anchors[GRAD + w].copy(), weights[w]))
    return steps


def compare(got, expected, rtol=1e-6, atol=1e-6):
    for step, ((loss, grad, weights), (ref_loss, ref_grad, ref_weights)) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(grad, ref_grad, rtol=rtol, atol=atol, err_msg=f"gradient, step {step}")
        np.testing.assert_allclose(weights, ref_weights, rtol=rtol, atol=atol, err_msg=f"weights, step {step}")
        np.testing.assert_allclose(loss, ref_loss, rtol=max(rtol, 1e-5), atol=atol, err_msg=f"loss, step {step}")


@pytest.mark.parametrize("shape", [[5], [3, 4], [2, 3, 7]])
@pytest.mark.parametrize("alpha", [None, 0.02, 0.3, 2.0])
@pytest.mark.parametrize("loss_kind", ["l1_sum", "l1_mean", "identity"])
def test_train_weight_through_leaky_relu(leaky_relu_lib, shape, alpha, loss_kind):
    w0 = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    lr = 0.05
    feeds = [None] * 5
    got = train(*leaky_relu_model(w0, alpha, loss_kind), lr, feeds, w0)
    compare(got, torch_training(w0, alpha, loss_kind, lr, feeds))
    # |y| shrinks: the L1 loss decreases (identity: sum(y) too).
    losses = [loss for loss, _, _ in got]
    assert all(b < a for a, b in zip(losses, losses[1:])), losses


@pytest.mark.parametrize("rows,cols,batch", [(4, 3, [6]), (10, 5, [2, 4])])
@pytest.mark.parametrize("alpha", [0.1, 1.5])
@pytest.mark.parametrize("loss_kind", ["l1_sum", "identity"])
def test_train_embedding_through_leaky_relu(leaky_relu_lib, rows, cols, batch, alpha, loss_kind):
    # y = LeakyRelu(w[idx]) with new indices every step, repeated rows included:
    # the gradient of w scatters-adds through Gather's grad.
    rng = np.random.default_rng(rows)
    w0 = rng.standard_normal((rows, cols)).astype(np.float32)
    feeds = [rng.integers(0, rows, batch).astype(np.int32) for _ in range(4)]
    lr = 0.1
    got = train(*leaky_relu_model(w0, alpha, loss_kind, idx_shape=batch), lr, feeds, w0)
    compare(got, torch_training(w0, alpha, loss_kind, lr, feeds))


@pytest.mark.parametrize("loss_kind", ["l1_sum", "identity"])
def test_train_float16_weight(leaky_relu_lib, loss_kind):
    # float16 weights and gradients (the opxs compute in float); torch runs in float32
    # from the same float16 start, so the steps agree to float16 rounding.
    w0 = np.random.default_rng(7).standard_normal((4, 6)).astype(np.float16)
    feeds = [None] * 4
    got = train(*leaky_relu_model(w0, 0.2, loss_kind), 0.05, feeds, w0)
    assert got[0][1].dtype == np.float16 and got[0][2].dtype == np.float16
    compare(got, torch_training(w0.astype(np.float32), 0.2, loss_kind, 0.05, feeds), rtol=4e-3, atol=4e-3)


def test_updated_learning_rate_is_used(leaky_relu_lib):
    # A non-const learning rate changes without recompiling; the LeakyRelu path follows it.
    w0 = np.array([-2.0, -0.5, 0.5, 3.0], np.float32)
    proto, w, _, loss = leaky_relu_model(w0, 0.25, "identity")
    session = popart.TrainingSession(
        fnModel=proto, dataFlow=popart.DataFlow(1, [loss]), loss=loss,
        optimizer=popart.SGD({"defaultLearningRate": (0.1, False)}),
        deviceInfo=popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    session.run(popart.PyStepIO({}, anchors))
    session.updateOptimizerFromHost(popart.SGD({"defaultLearningRate": (1.0, False)}))
    session.run(popart.PyStepIO({}, anchors))
    session.weightsToHost()
    weights = {w: np.zeros(4, np.float32)}
    session.readWeights(popart.PyWeightsIO(weights))
    slope = np.where(w0 < 0, 0.25, 1.0)  # no sign change: the slope is the same in both steps
    np.testing.assert_allclose(weights[w], w0 - 0.1 * slope - 1.0 * slope, rtol=1e-6)
