"""ai.graphcore MultiConv (built with aiGraphcore.multiconv) and ConvFlipWeights against torch, with gradients."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import popart

_NP = {np.float32: "FLOAT", np.float16: "FLOAT16", np.float64: "DOUBLE"}


def torch_conv(x, w, b, strides, pads, dilations):
    r = x.dim() - 2
    strides, dilations, pads = strides or [1] * r, dilations or [1] * r, pads or [0] * 2 * r
    tp = [p for i in reversed(range(r)) for p in (pads[i], pads[r + i])]
    conv = [F.conv1d, F.conv2d, F.conv3d][r - 1]
    return conv(F.pad(x, tp), w, b, stride=strides, dilation=dilations, groups=x.shape[1] // w.shape[1])


CONVS = [  # per conv: x shape, w shape, bias?, strides, pads, dilations
    [((2, 3, 8, 8), (4, 3, 3, 3), True, [2, 2], [1, 0, 1, 1], [1, 1]),
     ((1, 4, 6, 7), (6, 2, 3, 2), False, [1, 2], [0, 1, 2, 0], [2, 1])],
    [((2, 3, 10), (4, 3, 3), True, [2], [1, 2], [1]),
     ((1, 2, 4, 5, 4), (2, 1, 2, 3, 2), True, [1, 2, 1], [1, 0, 0, 0, 1, 1], [1, 1, 2]),
     ((1, 2, 5, 5), (3, 2, 1, 1), False, [1, 1], [0, 0, 0, 0], [1, 1])],
]


def run_multiconv(convs, dtype, with_attrs=True, extra=None):
    """Builds aiGraphcore.multiconv over initialized inputs; returns (outputs, {name: gradient}, names, cots)."""
    rs = np.random.RandomState(0)
    builder = popart.Builder()
    args, arrays = [], {}
    for i, (xs, ws, bias, *_) in enumerate(convs):
        conv = []
        parts = [(f"x{i}", xs, 1.0), (f"w{i}", ws, 0.3)] + ([(f"b{i}", (ws[0],), 1.0)] if bias else [])
        for name, shape, scale in parts:
            arrays[name] = (rs.randn(*shape) * scale).astype(dtype)
            conv.append(builder.addInitializedInputTensor(arrays[name], name))
        args.append(conv)
    attrs = {}
    if with_attrs:
        attrs = {"strides": [c[3] for c in convs], "pads": [c[4] for c in convs], "dilations": [c[5] for c in convs]}
    attrs.update(extra or {})
    outs = builder.aiGraphcore.multiconv(args, **attrs)
    want = [torch_conv(*[torch.tensor(arrays[f"{k}{i}"].astype(np.float64)) if f"{k}{i}" in arrays else None
                         for k in "xwb"], *(c[3:] if with_attrs else [None] * 3)) for i, c in enumerate(convs)]
    cots = [rs.uniform(-1, 1, tuple(t.shape)).astype(dtype) for t in want]
    total = None
    for out, cot in zip(outs, cots):
        term = builder.aiOnnx.reducesum([builder.aiOnnx.mul([out, builder.aiOnnx.constant(cot)])], keepdims=0)
        total = term if total is None else builder.aiOnnx.add([total, term])
    loss = builder.aiGraphcore.identityloss([total], reduction=popart.ReductionType.NoReduction)
    anchors = list(outs) + [popart.reservedGradientPrefix() + n for n in arrays]
    sess = popart.TrainingSession(builder.getModelProto(), popart.DataFlow(1, anchors), loss, popart.ConstSGD(0.0),
                                  popart.DeviceManager().createCpuDevice())
    sess.prepareDevice()
    res = sess.initAnchorArrays()
    sess.run(popart.PyStepIO({}, res))
    return [res[o] for o in outs], {n: res[popart.reservedGradientPrefix() + n] for n in arrays}, arrays, cots


TOL = {np.float32: (1e-4, 1e-4), np.float64: (1e-10, 1e-10), np.float16: (2e-2, 3e-2)}


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("convs", CONVS)
def test_multiconv(dtype, convs):
    outs, grads, arrays, cots = run_multiconv(convs, dtype)
    rtol, atol = TOL[dtype]
    ts = {n: torch.tensor(a.astype(np.float64), requires_grad=True) for n, a in arrays.items()}
    total = 0
    for i, (c, cot) in enumerate(zip(convs, cots)):
        y = torch_conv(ts[f"x{i}"], ts[f"w{i}"], ts.get(f"b{i}"), *c[3:])
        np.testing.assert_allclose(outs[i].astype(np.float64), y.detach().numpy(), rtol=rtol,
                                   atol=atol * max(1.0, y.abs().max().item()), err_msg=f"output {i}")
        total = total + (y * torch.tensor(cot.astype(np.float64))).sum()
    total.backward()
    for n, t in ts.items():
        ref = t.grad.numpy()
        np.testing.assert_allclose(grads[n].astype(np.float64), ref, rtol=rtol, atol=atol * max(1.0, np.abs(ref).max()),
                                   err_msg=n)


def test_multiconv_defaults():
    convs = [((1, 2, 5, 5), (3, 2, 3, 3), True, None, None, None), ((1, 4, 6), (2, 2, 2), False, None, None, None)]
    outs, _, arrays, _ = run_multiconv(convs, np.float32, with_attrs=False)
    for i in range(2):
        want = torch_conv(torch.tensor(arrays[f"x{i}"]), torch.tensor(arrays[f"w{i}"]),
                          torch.tensor(arrays["b0"]) if i == 0 else None, None, None, None)
        np.testing.assert_allclose(outs[i], want.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("extra,match", [
    ({"inDilations": [[2, 2], [1, 1]]}, "inDilations"),
    ({"outPads": [[0, 0, 1, 1], [0, 0, 0, 0]]}, "outPads"),
    ({"strides": [[2, 2]]}, "strides has 2 values, expected 4"),
])
def test_multiconv_errors(extra, match):
    convs = [((1, 2, 5, 5), (3, 2, 3, 3), False, None, None, None)] * 2
    with pytest.raises(popart.popart_exception, match=match):
        run_multiconv(convs, np.float32, with_attrs=False, extra=extra)


def flip_reference(w, group):
    """[M, C/G, k...] -> [C, M/G, k...]: per group swap the channel axes, then flip every spatial axis."""
    m, cg = w.shape[:2]
    r = w.reshape(group, m // group, cg, *w.shape[2:]).swapaxes(1, 2)
    return np.flip(r.reshape(group * cg, m // group, *w.shape[2:]), axis=tuple(range(2, w.ndim)))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("shape,group", [((4, 3, 3, 3), 1), ((6, 2, 3, 2), 2), ((4, 1, 3), 4), ((4, 2, 2, 3, 2), 2)])
def test_conv_flip_weights(op_tester, dtype, shape, group):
    w = np.random.RandomState(5).randn(*shape).astype(dtype)
    attrs = {"group": group}
    op_tester.check("ConvFlipWeights", [w], attrs=attrs, domain="ai.graphcore",
                    reference=lambda w: flip_reference(w, group), rtol=0, atol=0)
    if dtype == np.float64:
        op_tester.check_grad("ConvFlipWeights", [w], attrs=attrs, domain="ai.graphcore",
                             reference=lambda w: flip_reference(w, group))


def test_conv_flip_weights_is_the_data_gradient_weight(op_tester):
    """conv_transpose(dy, w) == conv(dy, flip(w)) with the flipped padding: what the transform is for."""
    rs = np.random.RandomState(6)
    w, dy = rs.randn(6, 2, 3, 3).astype(np.float32), rs.randn(1, 6, 5, 5).astype(np.float32)
    want = F.conv_transpose2d(torch.tensor(dy), torch.tensor(w), groups=2).numpy()
    flipped = op_tester.run("ConvFlipWeights", [w], attrs={"group": 2}, domain="ai.graphcore")[0]
    np.testing.assert_allclose(F.conv2d(torch.tensor(dy), torch.tensor(flipped), padding=2, groups=2).numpy(), want,
                               rtol=1e-5, atol=1e-5)


def test_conv_flip_weights_bad_group(op_tester):
    with pytest.raises(popart.popart_exception, match="group 4 does not divide"):
        op_tester.run("ConvFlipWeights", [np.zeros((6, 2, 3, 3), np.float32)], attrs={"group": 4},
                      domain="ai.graphcore")
