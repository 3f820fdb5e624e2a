"""LayerNormFusion pattern in training graphs: a LayerNorm exported as nine ops (mean, centre, variance, eps,
sqrt, divide, scale, shift) becomes one LayerNormalization, so autodiff builds one LayerNormalizationGrad;
the loss and the gradients of the input's weight, the scale and the bias match torch's."""

import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch

import popart

from _pattern_step import train

TYPES = {np.float32: onnx.TensorProto.FLOAT, np.float16: onnx.TensorProto.FLOAT16}
GRADS = ["Gradient___w", "Gradient___gamma", "Gradient___beta"]


def layernorm_model(dtype, shape, w, gamma, beta, cot, eps=1e-5, axes=(-1,)):
    """h = x * w; y = LayerNorm(h) written as torch exports it (axes of the ReduceMeans given); loss = sum(y * cot)."""
    t = TYPES[dtype]
    inits = [onnx.numpy_helper.from_array(a, n) for a, n in ((w, "w"), (gamma, "gamma"), (beta, "beta"), (cot, "cot"))]
    nodes = [oh.make_node("Constant", [], ["eps"], value=onnx.numpy_helper.from_array(np.array(eps, dtype), "eps")),
             oh.make_node("Mul", ["x", "w"], ["h"]),
             oh.make_node("ReduceMean", ["h"], ["m"], axes=list(axes), keepdims=1),
             oh.make_node("Sub", ["h", "m"], ["c"]),
             oh.make_node("Mul", ["c", "c"], ["c2"]),
             oh.make_node("ReduceMean", ["c2"], ["v"], axes=list(axes), keepdims=1),
             oh.make_node("Add", ["v", "eps"], ["ve"]),
             oh.make_node("Sqrt", ["ve"], ["sd"]),
             oh.make_node("Div", ["c", "sd"], ["n"]),
             oh.make_node("Mul", ["n", "gamma"], ["s"]),
             oh.make_node("Add", ["s", "beta"], ["y"]),
             oh.make_node("Mul", ["y", "cot"], ["yc"]),
             oh.make_node("ReduceSum", ["yc"], ["loss"], keepdims=0)]
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", t, list(shape))],
                          [oh.make_tensor_value_info("loss", t, [])], initializer=inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)]).SerializeToString()


def inputs(dtype, shape, seed=0):
    rs = np.random.RandomState(seed)
    d = shape[-1]
    return [(rs.randn(*shape) * 3 + 1).astype(dtype), (1 + 0.1 * rs.randn(d)).astype(dtype),
            (1 + 0.1 * rs.randn(d)).astype(dtype), (0.1 * rs.randn(d)).astype(dtype), rs.randn(*shape).astype(dtype)]


def torch_reference(x, w, gamma, beta, cot, eps=1e-5):
    t = {k: torch.tensor(v.astype(np.float64), requires_grad=k != "x")
         for k, v in dict(x=x, w=w, gamma=gamma, beta=beta).items()}
    h = t["x"] * t["w"]
    y = torch.nn.functional.layer_norm(h, (h.shape[-1],), t["gamma"], t["beta"], eps)
    loss = (y * torch.tensor(cot.astype(np.float64))).sum()
    loss.backward()
    return loss.item(), [t[k].grad.numpy() for k in ("w", "gamma", "beta")]


@pytest.mark.parametrize("dtype,shape,axes", [(np.float32, (3, 5, 24), (-1,)), (np.float32, (7, 40), (1,)),
                                              (np.float16, (4, 32), (-1,))])
def test_layernorm_chain_becomes_one_op(dtype, shape, axes):
    x, w, gamma, beta, cot = inputs(dtype, shape)
    out, types = train(layernorm_model(dtype, shape, w, gamma, beta, cot, axes=axes), x, GRADS)
    assert "LayerNormalization" in types and "LayerNormalizationGrad" in types
    assert not {"ReduceMean", "Sqrt", "Div", "Sub", "ReduceMeanGrad"} & set(types), types
    loss, grads = torch_reference(x, w, gamma, beta, cot)
    rtol, atol = (1e-5, 1e-4) if dtype == np.float32 else (1e-2, 0.3)
    assert out["loss"].dtype == dtype
    np.testing.assert_allclose(float(out["loss"]), loss, rtol=rtol, atol=atol)
    for name, want in zip(GRADS, grads):
        assert out[name].dtype == dtype and out[name].shape == want.shape
        np.testing.assert_allclose(out[name].astype(np.float64), want, rtol=rtol * 10, atol=atol, err_msg=name)


def test_layernorm_fusion_disabled_keeps_the_chain():
    x, w, gamma, beta, cot = inputs(np.float32, (6, 16), seed=1)
    model = layernorm_model(np.float32, x.shape, w, gamma, beta, cot)
    patterns = popart.Patterns()
    patterns.enablePattern("LayerNormFusion", False)
    plain, types = train(model, x, GRADS, patterns)
    assert "ReduceMean" in types and "LayerNormalization" not in types
    fused, _ = train(model, x, GRADS)
    for name in GRADS:
        np.testing.assert_allclose(fused[name], plain[name], rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("anchor,axes", [("c", (-1,)), ("sd", (-1,)), (None, (0,))])
def test_layernorm_variants_not_fused(anchor, axes):
    """An anchored intermediate, or statistics over another axis, keep the nine ops."""
    x, w, gamma, beta, cot = inputs(np.float32, (6, 16), seed=2)
    out, types = train(layernorm_model(np.float32, x.shape, w, gamma, beta, cot, axes=axes), x,
                       [anchor] if anchor else [])
    assert "ReduceMean" in types and "LayerNormalization" not in types
    if anchor == "c":
        h = x * w
        np.testing.assert_allclose(out["c"], h - h.mean(-1, keepdims=True), rtol=1e-5, atol=1e-5)
