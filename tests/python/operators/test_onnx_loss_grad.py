"""Gradients of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (ai.onnx 12/13)
against torch autograd (nll_loss / cross_entropy): class weights, ignore_index,
every reduction, [N, C] and [N, C, d1, d2] inputs, float32/float16/float64; and
one training step with the ONNX loss as the session's loss."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch

import popart
from _grad_util import tol, weight_grads

OPS = {"NegativeLogLikelihoodLoss": torch.nn.functional.nll_loss,
       "SoftmaxCrossEntropyLoss": torch.nn.functional.cross_entropy}


def _const(name, value):
    return oh.make_node("Constant", [], [name], value=onnx.numpy_helper.from_array(value, name))


def _case(shape, dtype, weighted, ignore, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(*shape).astype(dtype)
    target = rng.randint(0, shape[1], (shape[0],) + shape[2:]).astype(np.int64)
    if ignore is not None:
        target.flat[::3] = ignore
    w = rng.uniform(0.5, 2.0, shape[1]).astype(dtype) if weighted else None
    return x, target, w


def _popart_grad(op, x, target, w, reduction, ignore, cot):
    attrs = {"reduction": reduction}
    if ignore is not None:
        attrs["ignore_index"] = ignore
    ins = ["x", "t"] + (["w"] if w is not None else [])
    nodes = [_const("t", target)] + ([_const("w", w)] if w is not None else [])
    out = "l" if reduction == "none" else "loss"
    nodes.append(oh.make_node(op, ins, [out], **attrs))
    if reduction == "none":
        nodes += [_const("cot", cot), oh.make_node("Mul", ["l", "cot"], ["lc"]),
                  oh.make_node("IdentityLoss", ["lc"], ["loss"], domain="ai.graphcore", reduction=0)]
    return weight_grads(nodes, {"x": x}, "loss", opset=13)["x"]


def _torch_grad(op, x, target, w, reduction, ignore, cot):
    xt = torch.tensor(x.astype(np.float64), requires_grad=True)
    kw = {"reduction": reduction, "weight": None if w is None else torch.tensor(w.astype(np.float64))}
    if ignore is not None:
        kw["ignore_index"] = ignore
    loss = OPS[op](xt, torch.tensor(target), **kw)
    (loss * torch.tensor(cot) if reduction == "none" else loss).sum().backward()
    return xt.grad.numpy()


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape,weighted,ignore", [((5, 4), False, None), ((5, 4), True, None),
                                                   ((3, 6, 2, 3), True, 2), ((4, 3), False, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_onnx_loss_grad(op, reduction, shape, weighted, ignore, dtype):
    x, target, w = _case(shape, dtype, weighted, ignore)
    cot = np.random.RandomState(1).uniform(0.5, 1.5, target.shape).astype(dtype)
    got = _popart_grad(op, x, target, w, reduction, ignore, cot)
    want = _torch_grad(op, x, target, w, reduction, ignore, cot)
    t = tol(dtype) or {"rtol": 1e-5, "atol": 1e-6}
    np.testing.assert_allclose(got.astype(np.float64), want, **t)


def test_softmax_cross_entropy_trains_like_torch():
    """A linear classifier trained 3 SGD steps with SoftmaxCrossEntropyLoss as the loss."""
    rng = np.random.RandomState(2)
    w0 = rng.randn(6, 4).astype(np.float32)
    xs = [rng.randn(8, 6).astype(np.float32) for _ in range(3)]
    ts = [rng.randint(0, 4, 8).astype(np.int64) for _ in range(3)]
    nodes = [oh.make_node("MatMul", ["x", "w"], ["logits"]),
             oh.make_node("SoftmaxCrossEntropyLoss", ["logits", "t"], ["loss"], reduction="mean")]
    graph = oh.make_graph(nodes, "sce", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [8, 6]),
                                         oh.make_tensor_value_info("t", onnx.TensorProto.INT64, [8])],
                          [oh.make_tensor_value_info("loss", onnx.TensorProto.FLOAT, [])],
                          initializer=[onnx.numpy_helper.from_array(w0, "w")])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)])
    model.ir_version = 8
    s = popart.TrainingSession(model.SerializeToString(), popart.DataFlow(1, ["loss"]), "loss",
                               popart.ConstSGD(0.1), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    wt = torch.tensor(w0, requires_grad=True)
    opt = torch.optim.SGD([wt], lr=0.1)
    for x, t in zip(xs, ts):
        s.run(popart.PyStepIO({"x": x, "t": t}, s.initAnchorArrays()))
        opt.zero_grad()
        torch.nn.functional.cross_entropy(torch.tensor(x) @ wt, torch.tensor(t)).backward()
        opt.step()
    got = {"w": np.zeros_like(w0)}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO(got))
    np.testing.assert_allclose(got["w"], wt.detach().numpy(), rtol=1e-5, atol=1e-6)
