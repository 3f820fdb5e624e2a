"""Einsum gradients (EinsumGrad: the einsum with an operand's and the output's subscripts
swapped) against torch autograd: contractions, diagonals, ellipsis broadcasting, implicit
outputs, three operands."""
import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
from _torch_grad import check_against_torch  # noqa: E402

EQUATIONS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->ji", [(3, 4)]),
    ("ij->i", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("iij->ji", [(3, 3, 2)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 5, 8)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ij,j", [(3, 4), (4,)]),
    ("ij,k->ijk", [(2, 3), (4,)]),       # an outer product: dX sums over the other's labels
    ("ij,jk->i", [(3, 4), (4, 5)]),       # k only in B: summed in the forward
    ("Ab,bA", [(2, 3), (3, 2)]),
    ("i->", [(7,)]),
    ("...,...->...", [(3, 1), (4,)]),
    ("ij,ij->ij", [(64, 96), (64, 96)]),
]


@pytest.mark.parametrize("eq,shapes", EQUATIONS)
def test_einsum_grad(op_tester, eq, shapes):
    rs = np.random.RandomState(0)
    xs = [rs.randn(*s).astype(np.float32) for s in shapes]
    check_against_torch(op_tester, "Einsum", xs, lambda *t: torch.einsum(eq, *t), attrs={"equation": eq}, opset=12)


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
@pytest.mark.parametrize("eq,shapes", [("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
                                       ("...ii->...i", [(2, 3, 3)]),
                                       ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)])])
def test_einsum_grad_dtypes(op_tester, dtype, eq, shapes):
    rs = np.random.RandomState(1)
    xs = [rs.randn(*s).astype(dtype) for s in shapes]
    check_against_torch(op_tester, "Einsum", xs, lambda *t: torch.einsum(eq, *t), attrs={"equation": eq}, opset=12)


def test_einsum_grad_large(op_tester):
    rs = np.random.RandomState(2)
    xs = [rs.randn(64, 128).astype(np.float32), rs.randn(128, 96).astype(np.float32)]
    check_against_torch(op_tester, "Einsum", xs, lambda *t: torch.einsum("ik,kj->ij", *t),
                        attrs={"equation": "ik,kj->ij"}, opset=12)
