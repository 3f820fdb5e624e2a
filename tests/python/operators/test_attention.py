"""Attention (opset 23/24) against torch's scaled_dot_product_attention and the
ONNX reference implementation (masks, causal with past keys, softcap, GQA,
qk_matmul_output modes, nonpad_kv_seqlen), float32/float16/float64."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch
import torch.nn.functional as F
from onnx.reference import ReferenceEvaluator

import popart


def onnx_reference(attrs, opset=23, num_outputs=1):
    def ref(*inputs):
        names = ["Q", "K", "V", "attn_mask", "past_key", "past_value", "nonpad_kv_seqlen"][:len(inputs)]
        node = oh.make_node("Attention", [n if x is not None else "" for n, x in zip(names, inputs)],
                            [f"o{i}" for i in range(num_outputs)], **attrs)
        infos = [oh.make_tensor_value_info(n, oh.np_dtype_to_tensor_dtype(x.dtype), None)
                 for n, x in zip(names, inputs) if x is not None]
        graph = oh.make_graph([node], "g", infos, [oh.make_empty_tensor_value_info(f"o{i}") for i in range(num_outputs)])
        model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset)])
        feeds = {n: x for n, x in zip(names, inputs) if x is not None}
        return ReferenceEvaluator(model).run(None, feeds)
    return ref


def rand(shape, dtype, seed):
    return np.random.RandomState(seed).randn(*shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("b,hq,hkv,sq,skv,d,dv", [(2, 4, 4, 5, 7, 8, 6), (1, 6, 2, 3, 3, 4, 4), (2, 2, 1, 1, 9, 16, 8)])
@pytest.mark.parametrize("causal", [0, 1])
def test_attention_4d_against_torch(op_tester, dtype, b, hq, hkv, sq, skv, d, dv, causal):
    q, k, v = rand((b, hq, sq, d), dtype, 0), rand((b, hkv, skv, d), dtype, 1), rand((b, hkv, skv, dv), dtype, 2)

    def ref(q, k, v):
        t = [torch.from_numpy(x.astype(np.float64)) for x in (q, k, v)]
        mask = torch.ones(sq, skv, dtype=torch.bool).tril() if causal else None  # top-left aligned
        return F.scaled_dot_product_attention(*t, attn_mask=mask, enable_gqa=hq != hkv).numpy().astype(dtype)
    tol = 1e-2 if dtype == np.float16 else 1e-5
    op_tester.check("Attention", [q, k, v], reference=ref, attrs={"is_causal": causal}, opset=23, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("mask_shape,mask_type", [((5, 7), np.float32), ((2, 1, 5, 7), np.bool_),
                                                  ((3, 5, 4), np.float32), ((5, 6), np.bool_)])
def test_attention_3d_masks_past_and_present(op_tester, dtype, mask_shape, mask_type):
    b, hq, hkv, sq, skv, past, d = 2, 3, 3, 5, 4, 3, 4
    q, k, v = rand((b, sq, hq * d), dtype, 3), rand((b, skv, hkv * d), dtype, 4), rand((b, skv, hkv * d), dtype, 5)
    pk, pv = rand((b, hkv, past, d), dtype, 6), rand((b, hkv, past, d), dtype, 7)
    m = rand(mask_shape, np.float32, 8)
    mask = (m > -0.5) if mask_type == np.bool_ else m.astype(dtype)
    # the ONNX reference turns a bool mask into NaN when causal (0 * -inf), so bool masks run non-causal
    attrs = {"q_num_heads": hq, "kv_num_heads": hkv, "is_causal": int(mask_type != np.bool_)}
    tol = 1e-2 if dtype == np.float16 else 1e-5
    op_tester.check("Attention", [q, k, v, mask, pk, pv], reference=onnx_reference(attrs, num_outputs=3),
                    attrs=attrs, opset=23, num_outputs=3, rtol=tol, atol=tol)


@pytest.mark.parametrize("mode,softcap", [(0, 0.0), (1, 2.0), (2, 0.0), (3, 1.5)])
def test_attention_qk_output_modes_scale_softcap(op_tester, mode, softcap):
    q, k, v = rand((2, 4, 3, 8), np.float32, 9), rand((2, 2, 6, 8), np.float32, 10), rand((2, 2, 6, 5), np.float32, 11)
    mask = rand((3, 6), np.float32, 12)
    attrs = {"qk_matmul_output_mode": mode, "scale": 0.3}
    if softcap:
        attrs["softcap"] = softcap
    op_tester.check("Attention", [q, k, v, mask], reference=onnx_reference(attrs, num_outputs=4), attrs=attrs,
                    opset=23, num_outputs=4, rtol=1e-5, atol=1e-5)


def test_attention_nonpad_kv_seqlen(op_tester):
    q, k, v = rand((2, 2, 3, 4), np.float32, 13), rand((2, 2, 6, 4), np.float32, 14), rand((2, 2, 6, 4), np.float32, 15)
    lens = np.array([4, 6], np.int64)
    mask = rand((2, 2, 3, 6), np.float32, 16)  # the ONNX reference needs a batch-sized bias here
    op_tester.check("Attention", [q, k, v, mask, None, None, lens], reference=onnx_reference({}, opset=24),
                    opset=24, rtol=1e-5, atol=1e-5)


def test_attention_errors(op_tester):
    q, k = np.zeros((1, 2, 3, 4), np.float32), np.zeros((1, 2, 5, 4), np.float32)
    with pytest.raises(popart.popart_exception, match="3-D inputs need attribute q_num_heads"):
        op_tester.run("Attention", [q[0], k[0], k[0]], opset=23)
    with pytest.raises(popart.popart_exception, match="query heads 2 must be a multiple of key/value heads 3"):
        op_tester.run("Attention", [q, np.zeros((1, 3, 5, 4), np.float32), np.zeros((1, 3, 5, 4), np.float32)],
                      opset=23)
    with pytest.raises(popart.popart_exception, match="attn_mask"):
        op_tester.run("Attention", [q, k, k, np.zeros((4, 5), np.float32)], opset=23)
    with pytest.raises(popart.popart_exception, match="qk_matmul_output_mode must be 0..3"):
        op_tester.run("Attention", [q, k, k], attrs={"qk_matmul_output_mode": 4}, opset=23)
