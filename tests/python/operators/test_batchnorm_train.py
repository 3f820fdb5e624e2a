"""BatchNormalization in training mode against torch: batch statistics, running-statistic
updates (ai.onnx: biased variance, ai.graphcore: unbiased like torch), gradients with
torch autograd, and a Mul/Add/BatchNorm model trained with SGD for 3 steps."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch
import torch.nn.functional as F

import popart
from conftest import onnx_type, run_model

SHAPES = [(4, 3), (3, 2, 5), (2, 3, 4, 5)]
DTYPES = [np.float32, np.float16, np.float64]
EPS = 1e-5


def tols(dtype):
    return {"rtol": 2e-2, "atol": 2e-2} if dtype == np.float16 else {"rtol": 1e-4, "atol": 1e-5}


def params(shape, dtype, seed=0):
    rng = np.random.RandomState(seed)
    c = shape[1]
    x = rng.randn(*shape).astype(dtype) * 2 + 1
    p = [rng.uniform(0.5, 1.5, c), rng.randn(c), rng.randn(c) * 0.3, rng.uniform(0.5, 2.0, c)]
    return x, [v.astype(dtype) for v in p]


def model(nodes, inputs, outputs, inits, opset=9):
    graph = oh.make_graph(nodes, "bn", [oh.make_tensor_value_info(k, onnx_type(v.dtype), list(v.shape))
                                        for k, v in inputs.items()],
                          [oh.make_tensor_value_info(o, onnx.TensorProto.UNDEFINED, None) for o in outputs],
                          initializer=[onnx.numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset), oh.make_opsetid("ai.graphcore", 1)])
    m.ir_version = min(m.ir_version, 10)
    return m.SerializeToString()


def numpy_train_bn(x, scale, bias, mean, var, momentum, unbiased=False):
    axes = (0,) + tuple(range(2, x.ndim))
    x64 = x.astype(np.float64)
    m, v = x64.mean(axes), x64.var(axes)
    bshape = (1, -1) + (1,) * (x.ndim - 2)
    y = (x64 - m.reshape(bshape)) / np.sqrt(v.reshape(bshape) + EPS) * scale.reshape(bshape) + bias.reshape(bshape)
    count = x.size // x.shape[1]
    rv = v * count / (count - 1) if unbiased else v
    return y, mean * momentum + m * (1 - momentum), var * momentum + rv * (1 - momentum), m, v


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_five_outputs_use_batch_statistics(shape, dtype):
    x, (scale, bias, mean, var) = params(shape, dtype)
    outs = ["y", "rm", "rv", "sm", "sv"]
    node = oh.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], outs, momentum=0.8, epsilon=EPS)
    res = run_model(model([node], {"x": x}, outs, {"s": scale, "b": bias, "m": mean, "v": var}), {"x": x}, outs)
    want = numpy_train_bn(x, scale, bias, mean, var, 0.8)
    for o, w in zip(outs, want):
        assert res[o].dtype == dtype
        np.testing.assert_allclose(res[o].astype(np.float64), w, **tols(dtype), err_msg=o)


def test_spatial_zero_statistics_per_element():
    # opset 7 spatial=0: statistics over the batch only, one per [C, D] element
    rng = np.random.RandomState(10)
    x = rng.randn(5, 2, 3).astype(np.float32)
    scale, bias, mean, var = (rng.uniform(0.5, 1.5, (2, 3)).astype(np.float32) for _ in range(4))
    outs = ["y", "rm", "rv", "sm", "sv"]
    node = oh.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], outs, momentum=0.7, spatial=0)
    res = run_model(model([node], {"x": x}, outs, {"s": scale, "b": bias, "m": mean, "v": var}, 7), {"x": x}, outs)
    m, v = x.astype(np.float64).mean(0), x.astype(np.float64).var(0)
    want = [(x - m) / np.sqrt(v + EPS) * scale + bias, mean * 0.7 + m * 0.3, var * 0.7 + v * 0.3, m, v]
    for o, w in zip(outs, want):
        np.testing.assert_allclose(res[o], w, rtol=1e-5, atol=1e-5, err_msg=o)


@pytest.mark.parametrize("opset", [14, 15])
def test_training_mode_attribute(opset):
    x, (scale, bias, mean, var) = params((5, 3, 4), np.float32, seed=1)
    outs = ["y", "rm", "rv"]
    node = oh.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], outs, momentum=0.7, training_mode=1)
    res = run_model(model([node], {"x": x}, outs, {"s": scale, "b": bias, "m": mean, "v": var}, opset), {"x": x},
                    outs)
    for o, w in zip(outs, numpy_train_bn(x, scale, bias, mean, var, 0.7)):
        np.testing.assert_allclose(res[o], w, rtol=1e-5, atol=1e-5, err_msg=o)


def test_opset15_parameter_types_differ_from_x():
    # X float16, scale/B float64, mean/var float32: each output and gradient keeps its input's type
    x, (scale, bias, mean, var) = params((6, 3, 2), np.float16, seed=6)
    scale, bias, mean, var = scale.astype(np.float64), bias.astype(np.float64), mean.astype(np.float32), var.astype(
        np.float32)
    outs = ["y", "rm", "rv"]
    node = oh.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], outs, momentum=0.6, training_mode=1)
    res = run_model(model([node], {"x": x}, outs, {"s": scale, "b": bias, "m": mean, "v": var}, 15), {"x": x}, outs)
    for o, w, t in zip(outs, numpy_train_bn(x, scale, bias, mean, var, 0.6), (np.float16, np.float32, np.float32)):
        assert res[o].dtype == t
        np.testing.assert_allclose(res[o].astype(np.float64), w, **tols(np.float16), err_msg=o)
    cot = np.random.RandomState(8).uniform(-1.5, 1.5, x.shape)
    got = popart_grads(x, scale, bias, mean, var, cot, opset=15, attrs={"training_mode": 1})
    want = torch_grads(x, scale, bias, mean, var, cot.astype(np.float16).astype(np.float64), training=True)
    for name, g, w, t in zip("x s b".split(), got, want, (np.float16, np.float64, np.float64)):
        assert g.dtype == t
        np.testing.assert_allclose(g.astype(np.float64), w, **tols(np.float16), err_msg=name)


def test_training_mode_zero_rejects_statistics_outputs():
    x, (scale, bias, mean, var) = params((2, 3), np.float32)
    node = oh.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"], training_mode=0)
    with pytest.raises(popart.popart_exception, match="inference mode has at most 1"):
        run_model(model([node], {"x": x}, ["y"], {"s": scale, "b": bias, "m": mean, "v": var}, 15), {"x": x}, ["y"])


def test_bad_momentum_and_rank():
    x, (scale, bias, mean, var) = params((2, 3), np.float32)
    node = oh.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm"], momentum=1.5)
    with pytest.raises(popart.popart_exception, match="momentum"):
        run_model(model([node], {"x": x}, ["y"], {"s": scale, "b": bias, "m": mean, "v": var}), {"x": x}, ["y"])
    x1 = np.ones(3, np.float32)
    node = oh.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])
    with pytest.raises(popart.popart_exception, match="rank >= 2"):
        run_model(model([node], {"x": x1}, ["y"], {"s": scale, "b": bias, "m": mean, "v": var}), {"x": x1}, ["y"])


def popart_grads(x, scale, bias, mean, var, cot, opset=9, attrs=None):
    """Gradients of sum(BN(x) * cot) w.r.t. x, scale, B from a TrainingSession (learning rate 0)."""
    dtype = x.dtype
    nodes = [oh.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], epsilon=EPS, **(attrs or {})),
             oh.make_node("Constant", [], ["c"], value=onnx.numpy_helper.from_array(cot.astype(dtype), "c")),
             oh.make_node("Mul", ["y", "c"], ["yc"]),
             oh.make_node("IdentityLoss", ["yc"], ["loss"], domain="ai.graphcore", reduction=0)]
    proto = model(nodes, {}, ["loss"], {"x": x, "s": scale, "b": bias, "m": mean, "v": var}, opset)
    anchors = [popart.reservedGradientPrefix() + k for k in ("x", "s", "b")]
    s = popart.TrainingSession(proto, popart.DataFlow(1, anchors), "loss", popart.ConstSGD(0.0),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, res))
    return [res[a] for a in anchors]


def torch_grads(x, scale, bias, mean, var, cot, training):
    t = [torch.tensor(v.astype(np.float64), requires_grad=True) for v in (x, scale, bias)]
    y = F.batch_norm(t[0], torch.tensor(mean, dtype=torch.float64), torch.tensor(var, dtype=torch.float64),
                     t[1], t[2], training=training, eps=EPS)
    (y * torch.tensor(cot)).sum().backward()
    return [v.grad.numpy() for v in t]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_gradients_with_batch_statistics(shape, dtype):
    x, (scale, bias, mean, var) = params(shape, dtype, seed=2)
    cot = np.random.RandomState(3).uniform(-1.5, 1.5, shape)
    got = popart_grads(x, scale, bias, mean, var, cot)
    want = torch_grads(x, scale, bias, mean, var, cot.astype(dtype).astype(np.float64), training=True)
    for name, g, w in zip("x s b".split(), got, want):
        np.testing.assert_allclose(g.astype(np.float64), w, **tols(dtype), err_msg=name)


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4, 5)])
@pytest.mark.parametrize("opset,attrs", [(15, {"training_mode": 0}), (6, {"is_test": 1})])
def test_gradients_with_running_statistics(shape, opset, attrs):
    x, (scale, bias, mean, var) = params(shape, np.float64, seed=4)
    cot = np.random.RandomState(5).uniform(-1.5, 1.5, shape)
    got = popart_grads(x, scale, bias, mean, var, cot, opset=opset, attrs=attrs)
    for name, g, w in zip("x s b".split(), got, torch_grads(x, scale, bias, mean, var, cot, training=False)):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-10, err_msg=name)


def train_popart(domain, x_steps, weights, cot, lr, momentum):
    """w * x + a -> BatchNorm (5 outputs) -> sum(y^2 * cot), SGD; returns the weights after each step."""
    b = popart.Builder(opsets={"ai.onnx": 9, "ai.graphcore": 1})
    x = b.addInputTensor(popart.TensorInfo("FLOAT", list(x_steps[0].shape)), "x")
    ids = {k: b.addInitializedInputTensor(v, k) for k, v in weights.items()}
    h = b.aiOnnx.add([b.aiOnnx.mul([x, ids["w"]]), ids["a"]])
    bn_args = [h, ids["scale"], ids["bias"], ids["mean"], ids["var"]]
    if domain == "ai.graphcore":
        y = b.aiGraphcore.batchnormalization(bn_args, 5, epsilon=EPS, momentum=momentum)[0]
    else:
        y = b.aiOnnx.batchnormalization(bn_args, 5, epsilon=EPS, momentum=momentum)[0]
    c = b.aiOnnx.constant(cot.astype(np.float32))
    loss = b.aiGraphcore.identityloss([b.aiOnnx.mul([b.aiOnnx.mul([y, y]), c])],
                                      reduction=popart.ReductionType.Sum)
    s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [loss]), loss=loss,
                               optimizer=popart.ConstSGD(lr), deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    history = []
    for xs in x_steps:
        s.run(popart.PyStepIO({x: xs}, anchors))
        s.weightsToHost()
        out = {k: np.zeros_like(v) for k, v in weights.items()}
        s.readWeights(popart.PyWeightsIO(out))
        history.append(out)
    return history


def train_torch(x_steps, weights, cot, lr, momentum, unbiased):
    p = {k: torch.tensor(v.astype(np.float64), requires_grad=k not in ("mean", "var")) for k, v in weights.items()}
    history = []
    for xs in x_steps:
        h = torch.tensor(xs.astype(np.float64)) * p["w"] + p["a"]
        if unbiased:  # torch's own running update: r = (1 - m') r + m' batch, m' = 1 - momentum, N - 1 variance
            y = F.batch_norm(h, p["mean"], p["var"], p["scale"], p["bias"], True, 1 - momentum, EPS)
        else:
            y = F.batch_norm(h, None, None, p["scale"], p["bias"], True, 0.0, EPS)
            axes = (0,) + tuple(range(2, h.dim()))
            with torch.no_grad():
                p["mean"].mul_(momentum).add_((1 - momentum) * h.mean(axes))
                p["var"].mul_(momentum).add_((1 - momentum) * h.var(axes, unbiased=False))
        (y * y * torch.tensor(cot, dtype=torch.float64)).sum().backward()
        with torch.no_grad():
            for k, v in p.items():
                if v.grad is not None:
                    v -= lr * v.grad
                    v.grad = None
        history.append({k: v.detach().numpy().copy() for k, v in p.items()})
    return history


@pytest.mark.parametrize("domain", ["ai.onnx", "ai.graphcore"])
@pytest.mark.parametrize("shape", [(6, 3), (4, 2, 3, 3)])
def test_sgd_training_matches_torch(domain, shape):
    rng = np.random.RandomState(7)
    c = shape[1]
    wshape = (c,) + (1,) * (len(shape) - 2)
    weights = {"w": rng.uniform(0.5, 1.5, wshape), "a": rng.randn(*wshape), "scale": rng.uniform(0.5, 1.5, c),
               "bias": rng.randn(c), "mean": rng.randn(c) * 0.1, "var": rng.uniform(0.5, 1.5, c)}
    weights = {k: v.astype(np.float32) for k, v in weights.items()}
    x_steps = [rng.randn(*shape).astype(np.float32) * (i + 1) for i in range(3)]
    cot = rng.uniform(-1, 1, shape).astype(np.float32)
    got = train_popart(domain, x_steps, weights, cot, lr=0.05, momentum=0.8)
    want = train_torch(x_steps, weights, cot, lr=0.05, momentum=0.8, unbiased=domain == "ai.graphcore")
    for step, (g, w) in enumerate(zip(got, want)):
        for k in weights:
            np.testing.assert_allclose(g[k], w[k], rtol=1e-4, atol=1e-4, err_msg=f"{k} after step {step + 1}")
    assert not np.allclose(got[-1]["var"], weights["var"])  # the running statistics moved


def test_inference_session_leaves_running_statistics():
    # 5 outputs select training mode, but only a TrainingSession writes the mean/var Variables
    x, (scale, bias, mean, var) = params((4, 3), np.float32)
    outs = ["y", "rm", "rv"]
    node = oh.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], outs, momentum=0.5)
    df = popart.DataFlow(2, {o: popart.AnchorReturnType("All") for o in outs})
    s = popart.InferenceSession(model([node], {"x": x}, outs, {"s": scale, "b": bias, "m": mean, "v": var}), df,
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": np.stack([x, x])}, res))
    _, rm, rv, _, _ = numpy_train_bn(x, scale, bias, mean, var, 0.5)
    for step in range(2):
        np.testing.assert_allclose(res["rm"][step], rm, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(res["rv"][step], rv, rtol=1e-5, atol=1e-6)


def test_graphcore_form_in_inference():
    x, (scale, bias, mean, var) = params((4, 3, 2), np.float32, seed=9)
    node = oh.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], domain="ai.graphcore", epsilon=EPS)
    got = run_model(model([node], {"x": x}, ["y"], {"s": scale, "b": bias, "m": mean, "v": var}), {"x": x}, ["y"])
    want = F.batch_norm(torch.tensor(x), torch.tensor(mean), torch.tensor(var), torch.tensor(scale),
                        torch.tensor(bias), training=False, eps=EPS)
    np.testing.assert_allclose(got["y"], want.numpy(), rtol=1e-5, atol=1e-5)
