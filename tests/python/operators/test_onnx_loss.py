"""NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (ai.onnx 12/13/22)
against torch (nll_loss, cross_entropy, log_softmax) and onnxruntime."""
import os
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import popart

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _ort_reference import ort_run  # noqa: E402  (float inputs run in float32)

SHAPES = [(4, 3), (2, 5, 3), (2, 3, 2, 4)]


def inputs(shape, dtype, weighted, ignore, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(*shape).astype(dtype)
    target = rng.randint(0, shape[1], (shape[0],) + shape[2:]).astype(np.int64)
    if ignore is not None:
        target.reshape(-1)[::3] = ignore
    w = rng.uniform(0.2, 2.0, shape[1]).astype(dtype) if weighted else None
    return x, target, w


def attrs(reduction, ignore):
    a = {"reduction": reduction}
    if ignore is not None:
        a["ignore_index"] = ignore
    return a


def torch_loss(fn, reduction, ignore):
    def ref(x, target, w=None):
        t = torch.from_numpy(target)
        kw = {"reduction": reduction, "ignore_index": -100 if ignore is None else ignore}
        if ignore is not None and ignore < 0:  # torch needs the ignored targets in range: mask them
            t = torch.where(t == ignore, torch.full_like(t, -100), t)
            kw["ignore_index"] = -100
        xw = torch.from_numpy(x.astype(np.float64))
        ww = None if w is None else torch.from_numpy(w.astype(np.float64))
        return fn(xw, t, weight=ww, **kw).numpy().astype(x.dtype)
    return ref


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted,ignore", [(False, None), (True, None), (True, 1), (False, -1)])
def test_nll_loss(op_tester, shape, dtype, reduction, weighted, ignore):
    x, target, w = inputs(shape, dtype, weighted, ignore)
    ins = [x, target] + ([w] if weighted else [])
    op_tester.check("NegativeLogLikelihoodLoss", ins, reference=torch_loss(F.nll_loss, reduction, ignore),
                    attrs=attrs(reduction, ignore), opset=13)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted,ignore", [(False, None), (True, 2), (False, -5)])
def test_softmax_cross_entropy_loss(op_tester, shape, dtype, reduction, weighted, ignore):
    x, target, w = inputs(shape, dtype, weighted, ignore, seed=1)
    ins = [x, target] + ([w] if weighted else [])
    loss = torch_loss(F.cross_entropy, reduction, ignore)

    def ref(x, target, w=None):
        logp = F.log_softmax(torch.from_numpy(x.astype(np.float64)), dim=1).numpy().astype(x.dtype)
        return loss(x, target, w), logp
    op_tester.check("SoftmaxCrossEntropyLoss", ins, reference=ref, attrs=attrs(reduction, ignore), opset=13,
                    num_outputs=2)


def test_int32_targets_and_onnxruntime(op_tester):
    x, target, w = inputs((3, 4, 5), np.float32, True, None, seed=2)
    for op in ["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"]:
        for reduction in ["none", "mean"]:
            ins = [x, target.astype(np.int32), w]
            want = ort_run(op, ins, attrs={"reduction": reduction}, opset=13)[0]
            (got,) = op_tester.run(op, ins, attrs={"reduction": reduction}, opset=13)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_bad_inputs(op_tester):
    x, target, _ = inputs((4, 3), np.float32, False, None)
    with pytest.raises(popart.popart_exception, match="reduction must be 'none', 'sum' or 'mean'"):
        op_tester.run("NegativeLogLikelihoodLoss", [x, target], attrs={"reduction": "avg"}, opset=13)
    with pytest.raises(popart.popart_exception, match="input 1 \\(target\\) must have shape"):
        op_tester.run("SoftmaxCrossEntropyLoss", [x, target[:2]], opset=13)
    with pytest.raises(popart.popart_exception, match="input 2 \\(weight\\)"):
        op_tester.run("NegativeLogLikelihoodLoss", [x, target, np.ones(4, np.float32)], opset=13)
    with pytest.raises(popart.popart_exception, match="target 7 at position 0 is outside"):
        op_tester.run("NegativeLogLikelihoodLoss", [x, np.full(4, 7, np.int64)], opset=13)
