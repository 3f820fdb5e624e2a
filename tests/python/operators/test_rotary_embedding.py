"""RotaryEmbedding (opset 23) against the ONNX reference implementation and a
torch formulation (complex rotation), 3-D/4-D inputs, position_ids,
interleaved, partial rotary dimension; float32/float16/float64."""
import numpy as np
import onnx.helper as oh
import pytest
import torch
from onnx.reference import ReferenceEvaluator

import popart


def onnx_reference(attrs):
    def ref(*inputs):
        names = ["X", "cos", "sin", "pos"][:len(inputs)]
        node = oh.make_node("RotaryEmbedding", names, ["Y"], **attrs)
        infos = [oh.make_tensor_value_info(n, oh.np_dtype_to_tensor_dtype(x.dtype), None) for n, x in zip(names, inputs)]
        graph = oh.make_graph([node], "g", infos, [oh.make_empty_tensor_value_info("Y")])
        model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 23)])
        return ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))[0]
    return ref


def caches(rows, half, dtype):
    ang = np.random.RandomState(0).uniform(0, 6, (rows, half))
    return np.cos(ang).astype(dtype), np.sin(ang).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("rank", [3, 4])
@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("rot_dim", [0, 4])
@pytest.mark.parametrize("with_pos", [True, False])
def test_rotary_embedding(op_tester, dtype, rank, interleaved, rot_dim, with_pos):
    b, h, s, d = 2, 3, 5, 8
    x = np.random.RandomState(1).randn(*((b, h, s, d) if rank == 4 else (b, s, h * d))).astype(dtype)
    half = (rot_dim or d) // 2
    if with_pos:
        cos, sin = caches(11, half, dtype)
        pos = np.random.RandomState(2).randint(0, 11, (b, s)).astype(np.int64)
        ins = [x, cos, sin, pos]
    else:
        cos, sin = caches(b * s, half, dtype)
        ins = [x, cos.reshape(b, s, half), sin.reshape(b, s, half)]
    attrs = {"interleaved": interleaved}
    if rot_dim:
        attrs["rotary_embedding_dim"] = rot_dim
    if rank == 3:
        attrs["num_heads"] = h
    tol = 1e-2 if dtype == np.float16 else 1e-6
    op_tester.check("RotaryEmbedding", ins, reference=onnx_reference(attrs), attrs=attrs, opset=23, rtol=tol, atol=tol)


def test_rotary_embedding_against_torch_complex(op_tester):
    b, h, s, d = 1, 2, 6, 8
    x = np.random.RandomState(3).randn(b, h, s, d).astype(np.float32)
    theta = np.outer(np.arange(s), 1.0 / 10000 ** (np.arange(0, d, 2) / d))  # [s, d/2]
    cos, sin = np.cos(theta).astype(np.float32), np.sin(theta).astype(np.float32)
    pos = np.tile(np.arange(s, dtype=np.int64), (b, 1))

    def ref(x, cos, sin, pos):  # interleaved pairs as complex numbers times e^{i theta}
        xc = torch.view_as_complex(torch.from_numpy(x.astype(np.float64)).reshape(b, h, s, d // 2, 2))
        rot = torch.polar(torch.ones(s, d // 2, dtype=torch.float64), torch.from_numpy(theta))
        return torch.view_as_real(xc * rot).reshape(b, h, s, d).numpy().astype(np.float32)
    op_tester.check("RotaryEmbedding", [x, cos, sin, pos], reference=ref, attrs={"interleaved": 1}, opset=23,
                    rtol=1e-5, atol=1e-5)


def test_rotary_embedding_errors(op_tester):
    x = np.zeros((1, 2, 3, 8), np.float32)
    cos = np.zeros((4, 4), np.float32)
    pos = np.zeros((1, 3), np.int64)
    with pytest.raises(popart.popart_exception, match="num_heads"):
        op_tester.run("RotaryEmbedding", [x[0], cos, cos, pos], opset=23)
    with pytest.raises(popart.popart_exception, match="rotary_embedding_dim 3 must be even"):
        op_tester.run("RotaryEmbedding", [x, cos, cos, pos], attrs={"rotary_embedding_dim": 3}, opset=23)
    with pytest.raises(popart.popart_exception, match="input 1 \\(cos_cache\\)"):
        op_tester.run("RotaryEmbedding", [x, np.zeros((4, 3), np.float32), cos, pos], opset=23)
    with pytest.raises(popart.popart_exception, match="position_ids value 9 is outside"):
        op_tester.run("RotaryEmbedding", [x, cos, cos, np.full((1, 3), 9, np.int64)], opset=23)
