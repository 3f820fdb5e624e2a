"""popxl.ops neural-network ops against torch / onnxruntime: pooling, convolutions, normalisations,
interpolate, roi_align, NLL losses, matmul and print_tensor; values, dtypes, float16, autodiff, bad input."""
import numpy as np
import pytest

from popxl_run import check, check_grad, rand, run, run_grad
import popxl
import popxl.ops as ops
import torch
import torch.nn.functional as F

FLOATS = [np.float32, np.float16]
F16_TOL = dict(rtol=3e-2, atol=3e-2)


def _ort(node_type, inputs, attrs, opset=16, n_out=1):
    """One ONNX node run by onnxruntime (the reference for Resize and RoiAlign)."""
    import onnx
    import onnxruntime as ort
    from onnx import helper
    names = [f"i{i}" for i in range(len(inputs))]
    node = helper.make_node(node_type, names, [f"o{i}" for i in range(n_out)], **attrs)
    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
           for n, a in zip(names, inputs)]
    outs = [helper.make_tensor_value_info(f"o{i}", onnx.TensorProto.FLOAT, None) for i in range(n_out)]
    model = helper.make_model(helper.make_graph([node], "g", ins, outs), opset_imports=[helper.make_opsetid("", opset)])
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, dict(zip(names, inputs)))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((2, 2, 3), (3, 5)), ((4,), (4, 2)), ((1, 2, 3), (2, 3, 2))])
def test_matmul(dtype, shapes):
    a, b = rand(shapes[0], dtype, seed=1), rand(shapes[1], dtype, seed=2)
    check_grad(ops.matmul, torch.matmul, a, b, **({"out_tol": F16_TOL, "grad_tol": F16_TOL}
                                                  if dtype == np.float16 else {}))
    check(run(lambda x, y: x @ y, a, b), np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(dtype)) \
        if dtype == np.float32 else None


def test_matmul_output_type():
    a, b = rand((2, 3), np.float16, seed=1), rand((3, 2), np.float16, seed=2)
    got = run(lambda x, y: ops.matmul(x, y, output_type=popxl.float32), a, b)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, a.astype(np.float32) @ b.astype(np.float32), rtol=2e-2, atol=2e-2)
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.constant(np.ones((2, 2), np.float32), name="x")
        with pytest.raises(TypeError, match="matmul: output_type int32"):
            ops.matmul(x, x, output_type=popxl.int32)


POOLS = [  # kernel, stride, padding, ceil_mode
    ((2, 2), None, None, False),
    ((3, 3), (2, 2), (1, 1, 1, 1), False),
    ((2, 3), (2, 1), (0, 1, 0, 1), True),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", range(len(POOLS)))
def test_pools(dtype, case):
    k, s, p, ceil = POOLS[case]
    a = rand((2, 3, 6, 7), dtype)
    tp = (p[0], p[1]) if p else 0
    tol = {"out_tol": F16_TOL, "grad_tol": F16_TOL} if dtype == np.float16 else {}
    check_grad(lambda x: ops.max_pool(x, k, s, p, ceil_mode=ceil),
               lambda x: F.max_pool2d(x, k, s or 1, tp, ceil_mode=ceil), a, **tol)
    check_grad(lambda x: ops.average_pool(x, k, s, p, ceil_mode=ceil),
               lambda x: F.avg_pool2d(x, k, s or 1, tp, ceil_mode=ceil, count_include_pad=False), a, **tol)


def test_pool_1d_and_auto_pad():
    a = rand((1, 2, 9))
    check(run(lambda x: ops.max_pool(x, (3,), (2,)), a), F.max_pool1d(torch.tensor(a), 3, 2).numpy())
    got = run(lambda x: ops.average_pool(x, (3,), (1,), auto_pad="same_upper"), a)
    check(got, F.avg_pool1d(torch.tensor(a), 3, 1, 1, count_include_pad=False).numpy())


CONVS = [  # in shape, weight shape, stride, padding, dilation, groups
    ((2, 3, 7, 6), (4, 3, 3, 3), None, None, None, 1),
    ((1, 4, 8, 8), (6, 2, 3, 2), (2, 1), (1, 0, 1, 1), (1, 2), 2),
    ((2, 2, 9), (3, 2, 4), (2,), (1, 2), None, 1),
]


def _torch_pad(p, n):
    return [0] * n if p is None else list(p[:n])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", range(len(CONVS)))
def test_conv(dtype, case):
    xs, ws, s, p, d, g = CONVS[case]
    x, w = rand(xs, dtype, seed=1), rand(ws, dtype, seed=2)
    n = len(xs) - 2
    conv_t = F.conv2d if n == 2 else F.conv1d

    def tfn(a, b):
        if p is not None and p[:n] != p[n:]:  # asymmetric: pad explicitly
            a = F.pad(a, [v for i in reversed(range(n)) for v in (p[i], p[n + i])])
            return conv_t(a, b, None, s or 1, 0, d or 1, g)
        return conv_t(a, b, None, s or 1, _torch_pad(p, n), d or 1, g)

    tol = {"out_tol": dict(rtol=5e-2, atol=8e-2), "grad_tol": dict(rtol=5e-2, atol=1e-1)} \
        if dtype == np.float16 else {"out_tol": dict(rtol=1e-5, atol=1e-5), "grad_tol": dict(rtol=1e-4, atol=1e-4)}
    check_grad(lambda a, b: ops.conv(a, b, s, p, d, g), tfn, x, w, **tol)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("stride,padding,out_pad,groups", [((1, 1), None, None, 1), ((2, 2), (1, 0, 1, 0), (1, 0), 1),
                                                           ((2, 1), None, None, 2)])
def test_conv_transpose(dtype, stride, padding, out_pad, groups):
    x, w = rand((2, 4, 4, 5), dtype, seed=1), rand((4, 3, 3, 2), dtype, seed=2)
    tol = {"out_tol": dict(rtol=5e-2, atol=8e-2), "grad_tol": dict(rtol=5e-2, atol=1e-1)} \
        if dtype == np.float16 else {"out_tol": dict(rtol=1e-5, atol=1e-5), "grad_tol": dict(rtol=1e-4, atol=1e-4)}
    check_grad(lambda a, b: ops.conv_transpose(a, b, stride, padding, groups=groups, output_padding=out_pad),
               lambda a, b: F.conv_transpose2d(a, b, None, stride, list(padding[:2]) if padding else 0,
                                               list(out_pad) if out_pad else 0, groups), x, w, **tol)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4, 2)])
def test_batch_norm_inference(dtype, shape):
    x = rand(shape, dtype)
    c = shape[1]
    sc, b, m = rand((c,), dtype, seed=1), rand((c,), dtype, seed=2), rand((c,), dtype, seed=3)
    v = rand((c,), dtype, 0.5, 2, seed=4)
    tol = {"out_tol": F16_TOL, "grad_tol": F16_TOL} if dtype == np.float16 else {}
    check_grad(lambda a, s, bb, mm, vv: ops.batch_norm_inference(a, s, bb, mm, vv, 1e-3),
               lambda a, s, bb, mm, vv: F.batch_norm(a, mm.detach(), vv.detach(), s, bb, False, 0.1, 1e-3),
               x, sc, b, m, v, **tol)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,groups", [((2, 4), 2), ((2, 6, 3), 3), ((3, 4, 2, 2), 1)])
def test_group_and_layer_norm(dtype, shape, groups):
    x = rand(shape, dtype)
    c = shape[1]
    w, b = rand((c,), dtype, seed=1), rand((c,), dtype, seed=2)
    tol = {"out_tol": F16_TOL, "grad_tol": dict(rtol=5e-2, atol=5e-2)} if dtype == np.float16 else \
        {"out_tol": dict(rtol=1e-5, atol=1e-5), "grad_tol": dict(rtol=1e-4, atol=1e-4)}
    check_grad(lambda a, ww, bb: ops.group_norm(a, ww, bb, groups, 1e-4),
               lambda a, ww, bb: F.group_norm(a, groups, ww, bb, 1e-4), x, w, b, **tol)
    check_grad(lambda a, ww, bb: ops.layer_norm(a, ww, bb),
               lambda a, ww, bb: F.group_norm(a, 1, ww, bb, 1e-5), x, w, b, **tol)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mode,scales,ctm", [("nearest", (1, 1, 2, 2), "half_pixel"),
                                             ("nearest", (1, 1, 0.5, 1.5), "asymmetric"),
                                             ("linear", (1, 1, 2, 3), "half_pixel"),
                                             ("linear", (1, 1, 1.5, 0.5), "align_corners")])
def test_interpolate(dtype, mode, scales, ctm):
    x = rand((1, 2, 4, 6), dtype)
    got = run(lambda a: ops.interpolate(a, scales, mode, coordinate_transformation_mode=ctm), x)
    want = _ort("Resize", [x.astype(np.float32), np.zeros(0, np.float32), np.asarray(scales, np.float32)],
                {"mode": mode, "coordinate_transformation_mode": ctm, "nearest_mode": "round_prefer_floor"},
                opset=13)[0].astype(dtype)
    check(got, want)


def test_interpolate_grad():
    x = rand((1, 1, 3, 4))
    check_grad(lambda a: ops.interpolate(a, (1, 1, 2, 2), "linear", coordinate_transformation_mode="half_pixel"),
               lambda a: F.interpolate(a, scale_factor=2, mode="bilinear", align_corners=False), x,
               out_tol=dict(rtol=1e-5, atol=1e-6), grad_tol=dict(rtol=1e-5, atol=1e-5))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("aligned", [True, False])
def test_roi_align(dtype, aligned):
    x = rand((2, 3, 8, 8), dtype)
    rois = np.array([[0, 0, 4, 4], [1.5, 2, 7, 6.5], [2, 1, 3, 7]], dtype)
    bi = np.array([0, 1, 1], np.int32)
    got = run(lambda a, r, b: ops.roi_align(a, r, b, (2, 3), 0.5, 2, aligned), x, rois, bi)
    want = _ort("RoiAlign", [x.astype(np.float32), rois.astype(np.float32), bi.astype(np.int64)],
                {"output_height": 2, "output_width": 3, "spatial_scale": 0.5, "sampling_ratio": 2,
                 "coordinate_transformation_mode": "half_pixel" if aligned else "output_half_pixel"})[0]
    if dtype == np.float16:
        assert got.dtype == np.float16 and got.shape == want.shape
        np.testing.assert_allclose(got.astype(np.float32), want, **F16_TOL)
    else:
        check(got, want)


def _nll_ref(probs, target, ignore, reduction):
    t = torch.tensor(target, dtype=torch.int64)
    logp = torch.log(torch.tensor(probs.astype(np.float64)))
    return F.nll_loss(logp.reshape(-1, probs.shape[-1]), t.reshape(-1), ignore_index=-100 if ignore is None
                      else ignore, reduction=reduction).reshape(target.shape if reduction == "none" else ())


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore", [None, 1])
@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 4)])
def test_nll_loss(dtype, reduction, ignore, shape):
    probs = torch.softmax(torch.tensor(rand(shape, np.float64)), -1).numpy().astype(dtype)
    target = rand(shape[:-1], np.int32, 0, shape[-1], seed=3)
    target.flat[0] = 1
    want = _nll_ref(probs, target, ignore, reduction).numpy().astype(dtype)
    got = run(lambda p, t: ops.nll_loss(p, t, ignore, reduction), probs, target)
    check(got, want)
    logp = np.log(probs.astype(np.float64)).astype(dtype)
    check(run(lambda p, t: ops.nll_loss(p, t, ignore, reduction, log_prob=True), logp, target), want)
    if dtype == np.float32:
        check_grad(lambda p, t: ops.nll_loss(p, t, ignore, reduction),
                   lambda p, t: F.nll_loss(torch.log(p).reshape(-1, shape[-1]), t.reshape(-1).long(),
                                           ignore_index=-100 if ignore is None else ignore,
                                           reduction=reduction).reshape(target.shape if reduction == "none"
                                                                        else ()), probs, target)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("ignore", [None, 2])
def test_nll_loss_with_softmax_grad(dtype, reduction, ignore):
    logits = rand((6, 4), np.float64)
    target = np.array([0, 2, 3, 1, 2, 0], np.int32)
    lg = torch.tensor(logits, requires_grad=True)
    loss = F.cross_entropy(lg, torch.tensor(target, dtype=torch.int64), ignore_index=-100 if ignore is None
                           else ignore, reduction=reduction)
    (loss * 0.5).backward()
    probs = torch.softmax(torch.tensor(logits), -1).numpy().astype(dtype)
    got_loss, got_dx = run(lambda p, t: list(ops.nll_loss_with_softmax_grad(p, t, 0.5, ignore, reduction)),
                           probs, target)
    check(got_loss, loss.detach().numpy().astype(dtype))
    check(got_dx, lg.grad.numpy().astype(dtype))
    # loss_grad as a tensor
    g = np.array(0.5, dtype)
    check(run(lambda p, t, s: ops.nll_loss_with_softmax_grad(p, t, s, ignore, reduction)[1], probs, target, g),
          lg.grad.numpy().astype(dtype))


def test_print_tensor(capfd):
    a = np.array([[1.5, -2.0], [3.0, 4.25]], np.float32)
    out, grads, seed = run_grad(lambda x: ops.print_tensor(x, "my_title", print_gradient=True) * 2, a,)
    check(out, a * 2)
    check(grads[0], seed * 2)
    printed = capfd.readouterr()
    text = printed.out + printed.err
    assert "my_title" in text and "4.25" in text and "Gradient___my_title" in text
    check(run(lambda x: ops.print_tensor(x, print_self=False), a), a)
    text = capfd.readouterr()
    assert "1.5" not in text.out + text.err
    out, grads, seed = run_grad(lambda x: ops.print_tensor(x, "only_grad", print_self=False, print_gradient=True), a)
    check(grads[0], seed)
    text = capfd.readouterr()
    assert "Gradient___only_grad" in text.out and "4.25" not in text.out


def test_bad_input():
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.constant(np.zeros((1, 4, 5, 5), np.float32), name="x")
        w = popxl.constant(np.zeros((2, 4, 3, 3), np.float16), name="w")
        w3 = popxl.constant(np.zeros((2, 4, 3), np.float32), name="w3")
        with pytest.raises(TypeError, match="conv.*'x'.*'w'"):
            ops.conv(x, w)
        with pytest.raises(ValueError, match="conv: weight 'w3'.*rank"):
            ops.conv(x, w3)
        with pytest.raises(ValueError, match="conv: groups=3.*'x'"):
            ops.conv(x, popxl.constant(np.zeros((2, 4, 3, 3), np.float32)), groups=3)
        with pytest.raises(ValueError, match="max_pool: 'stride' \\[1\\] of tensor 'x' needs 2"):
            ops.max_pool(x, (2, 2), (1,))
        with pytest.raises(ValueError, match="average_pool: pad_type 'same'"):
            ops.average_pool(x, (2, 2), auto_pad="same")
        with pytest.raises(ValueError, match="group_norm: num_groups=3.*'x'"):
            ops.group_norm(x, popxl.constant(np.ones(4, np.float32)), popxl.constant(np.ones(4, np.float32)), 3)
        with pytest.raises(ValueError, match="batch_norm_inference: scale 'bad'"):
            v = popxl.constant(np.ones(4, np.float32))
            ops.batch_norm_inference(x, popxl.constant(np.ones(3, np.float32), name="bad"), v, v, v)
        p = popxl.constant(np.ones((3, 5), np.float32), name="p")
        with pytest.raises(ValueError, match="nll_loss: target 't'.*\\(3,\\)"):
            ops.nll_loss(p, popxl.constant(np.ones(4, np.int32), name="t"))
        with pytest.raises(TypeError, match="nll_loss.*'tf'.*integer"):
            ops.nll_loss(p, popxl.constant(np.ones(3, np.float32), name="tf"))
        with pytest.raises(ValueError, match="interpolate: scale_factor"):
            ops.interpolate(x, (2.0, 2.0))
        with pytest.raises(ValueError, match="in_dilation"):
            ops.max_pool(x, (2, 2), in_dilation=(2, 2))
