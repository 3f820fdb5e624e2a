"""popxl random ops: seeded draws (distribution, dtype, determinism by seed value), split_random_seed,
dropout / shaped_dropout values and gradients, popxl.random_seed helpers, bad input."""
import numpy as np
import pytest

from popxl_run import check, rand, run, run_grad
import popxl
import popxl.ops as ops
from popxl.random_seed import create_seeds, two_uint32_to_uint64, uint64_to_two_uint32

FLOATS = [np.float32, np.float16, np.float64]


@pytest.mark.parametrize("dtype", FLOATS)
def test_random_uniform(dtype):
    s = create_seeds(11)
    u = run(lambda t: ops.random_uniform(t, (4000,), -1.0, 3.0, popxl.dtype.as_dtype(dtype)), s)
    assert u.dtype == dtype and u.shape == (4000,)
    assert u.min() >= -1 and u.max() <= 3
    assert abs(u.astype(np.float64).mean() - 1.0) < 0.1
    assert abs(u.astype(np.float64).std() - 4 / np.sqrt(12)) < 0.06
    hist = np.histogram(u.astype(np.float64), bins=4, range=(-1, 3))[0]
    assert hist.min() > 850  # each quarter holds ~1000


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5000,), (50, 100)])
def test_random_normal(dtype, shape):
    s = create_seeds(12)
    n = run(lambda t: ops.random_normal(t, shape, 2.0, 0.5, popxl.dtype.as_dtype(dtype)), s)
    assert n.dtype == dtype and n.shape == shape
    x = n.astype(np.float64).ravel()
    assert abs(x.mean() - 2.0) < 0.03 and abs(x.std() - 0.5) < 0.03
    assert 0.64 < np.mean(np.abs(x - 2.0) < 0.5) < 0.72  # within one std: ~68%


def test_default_dtype_is_float32():
    u = run(lambda t: ops.random_uniform(t, (3,)), create_seeds(1))
    assert u.dtype == np.float32 and ((0 <= u) & (u < 1)).all()


def test_same_seed_same_values_other_seed_other_values():
    s1, s2 = create_seeds(1), create_seeds(2)
    a = run(lambda t: [ops.random_normal(t, (100,)), ops.random_normal(t, (100,))], s1)
    np.testing.assert_array_equal(a[0], a[1])
    b = run(lambda t: ops.random_normal(t, (100,)), s1)
    np.testing.assert_array_equal(a[0], b)
    c = run(lambda t: ops.random_normal(t, (100,)), s2)
    assert not np.allclose(b, c)


def test_split_random_seed():
    s = create_seeds(3)
    out = run(lambda t: list(ops.split_random_seed(t, 3)) + [ops.random_uniform(x, (200,)) for x in
                                                            ops.split_random_seed(t, 3)], s)
    seeds, draws = out[:3], out[3:]
    for x in seeds:
        assert x.dtype == np.uint32 and x.shape == (2,)
    assert len({tuple(x) for x in seeds} | {tuple(s)}) == 4
    for i in range(3):
        for j in range(i + 1, 3):
            assert abs(np.corrcoef(draws[i], draws[j])[0, 1]) < 0.25
    again = run(lambda t: list(ops.split_random_seed(t, 3)), s)
    for x, y in zip(seeds, again):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("p", [0.1, 0.5])
def test_dropout(dtype, p):
    x = rand((40, 50), dtype, 0.5, 2)
    s = create_seeds(4)
    y = run(lambda a, t: ops.dropout(a, t, p), x, s)
    assert y.dtype == dtype and y.shape == x.shape
    kept = y != 0
    assert abs(1 - kept.mean() - p) < 0.05
    check(y[kept], (x.astype(np.float64) / (1 - p)).astype(dtype)[kept])
    out, grads, seed = run_grad(lambda a, t: ops.dropout(a, t, p), x, s)
    np.testing.assert_array_equal(out, y)  # same seed, same mask
    check(grads[0], np.where(kept, seed.astype(np.float64) / (1 - p), 0).astype(dtype))
    assert grads[1] is None


def test_dropout_zero_probability_is_identity():
    x = rand((3, 4))
    check(run(lambda a, t: ops.dropout(a, t, 0.0), x, create_seeds(1)), x)


@pytest.mark.parametrize("mask_shape", [(40, 1), (1, 50), (50,)])
def test_shaped_dropout(mask_shape):
    x = rand((40, 50), np.float32, 0.5, 2)
    y = run(lambda a, t: ops.shaped_dropout(a, t, mask_shape, 0.5), x, create_seeds(5))
    kept = y != 0
    full = np.broadcast_to(np.ones(mask_shape, bool), x.shape)
    # the mask is constant along the broadcast axes
    if mask_shape == (40, 1):
        assert (kept == kept[:, :1]).all()
    else:
        assert (kept == kept[:1, :]).all()
    assert 0.25 < kept.mean() < 0.75 and full.all()
    check(y[kept], (x * 2)[kept])


def test_seed_helpers():
    assert two_uint32_to_uint64(uint64_to_two_uint32(2 ** 40 + 7)) == 2 ** 40 + 7
    np.testing.assert_array_equal(uint64_to_two_uint32(2 ** 32 + 5), [1, 5])
    s = create_seeds(7)
    assert s.dtype == np.uint32 and s.shape == (2,)
    np.testing.assert_array_equal(s, create_seeds(7))
    assert create_seeds(7, batches_per_step=3, replicas=2).shape == (2, 3, 2)
    assert create_seeds(7, gradient_accumulation_factor=4).shape == (4, 2)
    with pytest.raises(ValueError, match="replicas"):
        create_seeds(1, replicas=0)
    with pytest.raises(ValueError, match="uint64"):
        uint64_to_two_uint32(-1)


def test_bad_input():
    ir = popxl.Ir()
    with ir.main_graph:
        s = popxl.constant(np.zeros(2, np.uint32), name="seed")
        bad = popxl.constant(np.zeros(3, np.uint32), name="badseed")
        x = popxl.constant(np.zeros((2, 3), np.float32), name="x")
        with pytest.raises(ValueError, match="random_normal: seed tensor 'badseed' must be uint32 \\(2,\\)"):
            ops.random_normal(bad, (2,))
        with pytest.raises(ValueError, match="random_uniform: seed tensor 'x'"):
            ops.random_uniform(x, (2,))
        with pytest.raises(TypeError, match="random_uniform: dtype int32"):
            ops.random_uniform(s, (2,), dtype=popxl.int32)
        with pytest.raises(ValueError, match="random_uniform: low 2 must not exceed high 1"):
            ops.random_uniform(s, (2,), 2, 1)
        with pytest.raises(ValueError, match="dropout: probability 1.0 for tensor 'x'"):
            ops.dropout(x, s, 1.0)
        with pytest.raises(ValueError, match="shaped_dropout: mask shape \\(4,\\) does not broadcast to tensor 'x'"):
            ops.shaped_dropout(x, s, (4,), 0.5)
        with pytest.raises(ValueError, match="split_random_seed: n=0"):
            ops.split_random_seed(s, 0)
