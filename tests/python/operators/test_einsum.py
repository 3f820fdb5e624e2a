import numpy as np
import pytest

import popart

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->ji", [(3, 4)]),
    ("ij->i", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 5, 8)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ba", [(3, 4)]),
    ("Ab,bA", [(2, 3), (3, 2)]),
    ("->", [()]),
    ("i->", [(7,)]),
    ("...,...->...", [(3, 1), (4,)]),
])
def test_einsum(op_tester, eq, shapes):
    xs = [RNG.standard_normal(s).astype(np.float32) for s in shapes]
    op_tester.check("Einsum", xs, reference=lambda *x: np.asarray(np.einsum(eq, *x), np.float32),
                    attrs={"equation": eq}, opset=12, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int32, np.int64])
def test_einsum_dtypes(op_tester, dtype):
    xs = [RNG.integers(-3, 4, (2, 3, 4)).astype(dtype), RNG.integers(-3, 4, (2, 4, 3)).astype(dtype)]
    op_tester.check("Einsum", xs, reference=lambda a, b: np.einsum("bij,bjk->bik", a, b).astype(dtype),
                    attrs={"equation": "bij, bjk -> bik"}, opset=12, rtol=1e-3, atol=1e-3)


def test_einsum_errors(op_tester):
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="2 input terms for 1 inputs"):
        op_tester.run("Einsum", [x], attrs={"equation": "ij,jk->ik"}, opset=12)
    with pytest.raises(popart.popart_exception, match="3 labels for an input of rank 2"):
        op_tester.run("Einsum", [x], attrs={"equation": "ijk->i"}, opset=12)
    with pytest.raises(popart.popart_exception, match="has size 3, elsewhere 2"):
        op_tester.run("Einsum", [x], attrs={"equation": "ii->i"}, opset=12)
    with pytest.raises(popart.popart_exception, match="appears in no input"):
        op_tester.run("Einsum", [x], attrs={"equation": "ij->k"}, opset=12)
    with pytest.raises(popart.popart_exception, match="invalid character"):
        op_tester.run("Einsum", [x], attrs={"equation": "i1->i"}, opset=12)
