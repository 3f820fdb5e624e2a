"""Ctc loss (ai.graphcore) against torch.nn.functional.ctc_loss: per-sample losses, Sum and
Mean reductions (both divide each loss by its target length for 'mean'), zeroInfinity,
float16 inputs, and the gradient through a TrainingSession built with Builder.ctcloss.

Gradient convention: popart differentiates the loss with respect to the log-probabilities
as independent inputs, d loss / d lp = -posterior. torch's ctc_loss backward adds exp(lp)
(it assumes lp = log_softmax(logits) and returns the gradient with respect to the logits);
both agree once a LogSoftmax is in the graph, which is how the training tests compare.

CtcBeamSearchDecoder against a numpy prefix beam search written below."""
import numpy as np
import pytest
import torch

import popart

REDUCTIONS = {"Sum": ("sum", popart.ReductionType.Sum), "Mean": ("mean", popart.ReductionType.Mean),
              "NoReduction": ("none", popart.ReductionType.NoReduction)}


def problem(T=12, N=4, C=6, S=5, blank=0, seed=0, dtype=np.float32):
    rng = np.random.RandomState(seed)
    logits = rng.randn(T, N, C).astype(np.float32) * 2
    lp = torch.log_softmax(torch.tensor(logits), 2).numpy().astype(dtype)
    labels = [c for c in range(C) if c != blank]
    targets = rng.choice(labels, (N, S)).astype(np.uint32)
    targets[0, 1] = targets[0, 2]  # a repeated label: needs a blank between
    in_lens = np.array([T, T - 3, T - 1, 5][:N], np.uint32)
    tgt_lens = np.array([S, 3, 0, 2][:N], np.uint32)
    return logits, lp, targets, in_lens, tgt_lens


def build(lp_info, targets, in_lens, tgt_lens, reduction, blank=0, out_type="UNDEFINED", zero_inf=False,
          weights=None):
    b = popart.Builder()
    if weights is not None:
        w = b.addInitializedInputTensor(weights, "logits")
        lp = b.aiOnnx.logsoftmax([w], axis=2)
    else:
        lp = b.addInputTensor(popart.TensorInfo(*lp_info), "lp")
    ids = [b.addInputTensor(popart.TensorInfo("UINT32", list(x.shape)), n)
           for n, x in [("targets", targets), ("in_lens", in_lens), ("tgt_lens", tgt_lens)]]
    loss = b.aiGraphcore.ctcloss([lp, *ids], reduction=REDUCTIONS[reduction][1], blank=blank, outDataType=out_type,
                                 zeroInfinity=zero_inf)
    return b, loss


def run_loss(lp, targets, in_lens, tgt_lens, reduction, **kw):
    dtype = "FLOAT16" if lp.dtype == np.float16 else "FLOAT"
    b, loss = build((dtype, list(lp.shape)), targets, in_lens, tgt_lens, reduction, **kw)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [loss]), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({"lp": lp, "targets": targets, "in_lens": in_lens, "tgt_lens": tgt_lens}, res))
    return res[loss]


def torch_loss(lp, targets, in_lens, tgt_lens, reduction, blank=0, zero_inf=False):
    """lp: an array (compared in float64) or a float64 tensor (for autograd)."""
    lp = lp if isinstance(lp, torch.Tensor) else torch.tensor(lp.astype(np.float64))
    return torch.nn.functional.ctc_loss(lp, torch.tensor(targets.astype(np.int64)),
                                        torch.tensor(in_lens.astype(np.int64)), torch.tensor(tgt_lens.astype(np.int64)),
                                        blank=blank, reduction=REDUCTIONS[reduction][0], zero_infinity=zero_inf)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("blank", [0, 3])
def test_ctc_loss(reduction, blank):
    _, lp, targets, in_lens, tgt_lens = problem(blank=blank)
    got = run_loss(lp, targets, in_lens, tgt_lens, reduction, blank=blank)
    want = torch_loss(lp, targets, in_lens, tgt_lens, reduction, blank).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("out_type", ["UNDEFINED", "FLOAT"])
def test_ctc_loss_float16(out_type):
    _, lp, targets, in_lens, tgt_lens = problem(dtype=np.float16, seed=1)
    got = run_loss(lp, targets, in_lens, tgt_lens, "NoReduction", out_type=out_type)
    assert got.dtype == (np.float16 if out_type == "UNDEFINED" else np.float32)
    want = torch_loss(lp, targets, in_lens, tgt_lens, "NoReduction").numpy()
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("zero_inf", [False, True])
def test_ctc_loss_infeasible(zero_inf):
    """Target [1, 1] needs three frames (a blank between the repeats): two give an infinite loss."""
    _, lp, targets, in_lens, tgt_lens = problem(N=2, seed=2)
    targets[1, :2] = 1
    in_lens[1], tgt_lens[1] = 2, 2
    got = run_loss(lp, targets, in_lens, tgt_lens, "NoReduction", zero_inf=zero_inf)
    want = torch_loss(lp, targets, in_lens, tgt_lens, "NoReduction", zero_inf=zero_inf).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def train_grad(logits, targets, in_lens, tgt_lens, reduction, blank=0, zero_inf=False, sample_weights=None,
               out_type="UNDEFINED"):
    """With sample_weights (reduction NoReduction), the loss is sum_n weights[n] * loss_n."""
    b, loss = build(None, targets, in_lens, tgt_lens, reduction, blank=blank, weights=logits, zero_inf=zero_inf,
                    out_type=out_type)
    if sample_weights is not None:
        c = b.aiOnnx.constant(sample_weights)
        loss = b.aiGraphcore.identityloss([b.aiOnnx.mul([loss, c])], reduction=popart.ReductionType.Sum)
    anchor = popart.reservedGradientPrefix() + "logits"
    s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [anchor, loss]), loss=loss,
                               optimizer=popart.ConstSGD(0.0), deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({"targets": targets, "in_lens": in_lens, "tgt_lens": tgt_lens}, res))
    return res[loss], res[anchor]


@pytest.mark.parametrize("reduction", ["Sum", "Mean"])
@pytest.mark.parametrize("blank", [0, 5])
def test_ctc_training_gradient(reduction, blank):
    logits, _, targets, in_lens, tgt_lens = problem(blank=blank, seed=3)
    loss, grad = train_grad(logits, targets, in_lens, tgt_lens, reduction, blank)
    w = torch.tensor(logits.astype(np.float64), requires_grad=True)
    want = torch_loss(torch.log_softmax(w, 2), targets, in_lens, tgt_lens, reduction, blank)
    want.backward()
    np.testing.assert_allclose(loss, want.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grad, w.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_ctc_training_per_sample_weights():
    """NoReduction: CtcGrad scales each sample's gradient by its own incoming gradient."""
    logits, _, targets, in_lens, tgt_lens = problem(seed=6)
    weights = np.array([0.5, -2.0, 1.5, 3.0], np.float32)
    loss, grad = train_grad(logits, targets, in_lens, tgt_lens, "NoReduction", sample_weights=weights)
    w = torch.tensor(logits.astype(np.float64), requires_grad=True)
    want = (torch_loss(torch.log_softmax(w, 2), targets, in_lens, tgt_lens, "NoReduction") *
            torch.tensor(weights.astype(np.float64))).sum()
    want.backward()
    np.testing.assert_allclose(loss, want.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grad, w.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_ctc_training_zero_infinity():
    """An infeasible sample contributes neither loss nor gradient with zeroInfinity."""
    logits, _, targets, in_lens, tgt_lens = problem(N=2, seed=7)
    targets[1, :2] = 1
    in_lens[1], tgt_lens[1] = 2, 2
    loss, grad = train_grad(logits, targets, in_lens, tgt_lens, "Mean", zero_inf=True)
    w = torch.tensor(logits.astype(np.float64), requires_grad=True)
    want = torch_loss(torch.log_softmax(w, 2), targets, in_lens, tgt_lens, "Mean", zero_inf=True)
    want.backward()
    np.testing.assert_allclose(loss, want.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grad, w.grad.numpy(), rtol=1e-4, atol=1e-6)
    assert not grad[:, 1].any()


def test_ctc_gradient_wrt_log_probs():
    """Without LogSoftmax: popart's d loss / d lp equals torch's minus exp(lp) on the valid frames."""
    logits, lp, targets, in_lens, tgt_lens = problem(seed=4)
    b = popart.Builder()
    w = b.addInitializedInputTensor(lp, "lp")
    ids = [b.addInputTensor(popart.TensorInfo("UINT32", list(x.shape)), n)
           for n, x in [("targets", targets), ("in_lens", in_lens), ("tgt_lens", tgt_lens)]]
    loss = b.aiGraphcore.ctcloss([w, *ids], reduction=popart.ReductionType.Sum)
    anchor = popart.reservedGradientPrefix() + "lp"
    s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [anchor]), loss=loss,
                               optimizer=popart.ConstSGD(0.0), deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({"targets": targets, "in_lens": in_lens, "tgt_lens": tgt_lens}, res))
    t = torch.tensor(lp.astype(np.float64), requires_grad=True)
    torch_loss(t, targets, in_lens, tgt_lens, "Sum").backward()
    valid = (np.arange(lp.shape[0])[:, None] < in_lens[None, :])[:, :, None]
    np.testing.assert_allclose(res[anchor], t.grad.numpy() - np.exp(lp.astype(np.float64)) * valid,
                               rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("out_type", ["UNDEFINED", "FLOAT"])
def test_ctc_float16_training(out_type):
    logits, _, targets, in_lens, tgt_lens = problem(seed=5)
    loss, grad = train_grad(logits.astype(np.float16), targets, in_lens, tgt_lens, "Mean", out_type=out_type)
    assert grad.dtype == np.float16 and loss.dtype == (np.float16 if out_type == "UNDEFINED" else np.float32)
    w = torch.tensor(logits.astype(np.float16).astype(np.float64), requires_grad=True)
    want = torch_loss(torch.log_softmax(w, 2), targets, in_lens, tgt_lens, "Mean")
    want.backward()
    np.testing.assert_allclose(loss.astype(np.float64), want.detach().numpy(), rtol=5e-3, atol=5e-3)
    np.testing.assert_allclose(grad.astype(np.float64), w.grad.numpy(), rtol=1e-2, atol=2e-3)


def test_ctc_errors():
    _, lp, targets, in_lens, tgt_lens = problem()
    with pytest.raises(popart.popart_exception, match="blank 9 out of range"):
        run_loss(lp, targets, in_lens, tgt_lens, "Sum", blank=9)
    bad = targets.copy()
    bad[1, 0] = 0
    with pytest.raises(popart.popart_exception, match="other than blank"):
        run_loss(lp, bad, in_lens, tgt_lens, "Sum")
    long = in_lens.copy()
    long[0] = 99
    with pytest.raises(popart.popart_exception, match="input length 99"):
        run_loss(lp, targets, long, tgt_lens, "Sum")
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 6]), "lp")
    ids = [b.addInputTensor(popart.TensorInfo("UINT32", s), n) for n, s in [("t", [4, 2]), ("i", [4]), ("l", [4])]]
    with pytest.raises(popart.popart_exception, match=r"logProbs\) must be \[T, N, C\]"):
        loss = b.aiGraphcore.ctcloss([x, *ids])
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [loss]), popart.DeviceManager().createCpuDevice())


# ---- beam search ----

def reference_beam_search(lp, length, blank, width):
    """Prefix beam search in log space: {prefix: (log p ending in blank, log p ending in a label)}."""
    beams = {(): (0.0, -np.inf)}
    for t in range(length):
        nxt = {}

        def add(prefix, pb=-np.inf, pnb=-np.inf):
            ob, onb = nxt.get(prefix, (-np.inf, -np.inf))
            nxt[prefix] = (np.logaddexp(ob, pb), np.logaddexp(onb, pnb))
        for prefix, (pb, pnb) in beams.items():
            total = np.logaddexp(pb, pnb)
            add(prefix, pb=total + lp[t, blank])
            if prefix:
                add(prefix, pnb=pnb + lp[t, prefix[-1]])
            for c in range(lp.shape[1]):
                if c != blank:
                    add(prefix + (c,), pnb=(pb if prefix and prefix[-1] == c else total) + lp[t, c])
        ranked = sorted(nxt.items(), key=lambda kv: -np.logaddexp(*kv[1]))
        beams = dict(ranked[:width])
    return sorted(((np.logaddexp(*v), k) for k, v in beams.items()), key=lambda x: -x[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("width,paths,blank", [(1, 1, 0), (3, 2, 0), (8, 3, 2), (16, 16, 4)])
def test_ctc_beam_search(dtype, width, paths, blank):
    T, N, C = 10, 3, 5
    rng = np.random.RandomState(width)
    lp = torch.log_softmax(torch.tensor(rng.randn(T, N, C) * 2), 2).numpy().astype(dtype)
    lens = np.array([T, 6, 1], np.uint32)
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT16" if dtype == np.float16 else "FLOAT", [T, N, C]), "lp")
    ln = b.addInputTensor(popart.TensorInfo("UINT32", [N]), "lens")
    outs = b.aiGraphcore.ctcbeamsearchdecoder([x, ln], blank=blank, beam_width=width, top_paths=paths)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, outs), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({"lp": lp, "lens": lens}, res))
    probs, lengths, labels = (res[o] for o in outs)
    assert probs.shape == (N, paths) and lengths.shape == (N, paths) and labels.shape == (N, paths, T)
    assert probs.dtype == dtype and lengths.dtype == np.uint32 and labels.dtype == np.uint32
    for n in range(N):
        want = reference_beam_search(lp[:, n].astype(np.float64), lens[n], blank, width)
        for p in range(paths):
            if p >= len(want):
                assert probs[n, p] == -np.inf and lengths[n, p] == 0
                continue
            score, prefix = want[p]
            np.testing.assert_allclose(float(probs[n, p]), score, rtol=2e-3 if dtype == np.float16 else 1e-5)
            assert lengths[n, p] == len(prefix)
            assert list(labels[n, p, :len(prefix)]) == list(prefix)
            assert not labels[n, p, len(prefix):].any()


def test_ctc_beam_search_errors():
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 2, 3]), "lp")
    ln = b.addInputTensor(popart.TensorInfo("UINT32", [2]), "lens")
    with pytest.raises(popart.popart_exception, match="top_paths must be in"):
        outs = b.aiGraphcore.ctcbeamsearchdecoder([x, ln], beam_width=2, top_paths=3)
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, outs), popart.DeviceManager().createCpuDevice())
