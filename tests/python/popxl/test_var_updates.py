"""popxl.ops.var_updates and ops.lamb_square against numpy: values and dtypes over several runs of a
Session (the variable keeps each run's update), float and tensor factors, mixed precision."""
import numpy as np
import pytest

import popart
import popxl
import popxl.ops as ops
from popxl.ops import var_updates as vu

SHAPES = [(), (5,), (3, 4)]
DTYPES = [np.float32, np.float16]  # (t, X) types are combined below
RUNS = 3


def tol(*dtypes):
    return dict(rtol=2e-3, atol=2e-3) if np.float16 in dtypes else dict(rtol=1e-5, atol=1e-6)


def run_update(build, t0, xs, fs=None, read=()):
    """Builds an Ir with variable t (value t0) updated once per run by build(t, x, f) with x from a host
    stream (xs[i] in run i) and f either None, a float or a host-stream scalar (fs[i] in run i, when fs
    is an array). Returns the returned tensor's value of each run and t's final value."""
    ir = popxl.Ir()
    with ir.main_graph:
        t = popxl.variable(t0, name="t")
        x_s = popxl.h2d_stream(xs[0].shape, popxl.dtype.as_dtype(xs[0].dtype), name="x_stream")
        x = ops.host_load(x_s, "x")
        f, f_s = fs, None
        if isinstance(fs, np.ndarray):
            f_s = popxl.h2d_stream((), popxl.dtype.as_dtype(fs.dtype), name="f_stream")
            f = ops.host_load(f_s, "f")
        out = build(t, x, f)
        o_s = popxl.d2h_stream(out.shape, out.dtype, name="o_stream")
        ops.host_store(o_s, out)
    outs = []
    with popxl.Session(ir, "ipu_model") as s:
        for i in range(len(xs)):
            feed = {x_s: xs[i]}
            if f_s is not None:
                feed[f_s] = fs[i]
            outs.append(s.run(feed)[o_s])
    return outs, s.get_tensor_data(t), out


ACCUMULATE = {
    # name: (op, numpy reference of (a, x, f), default factor when f is None)
    "accumulate_": (vu.accumulate_, lambda a, x, f: a + (1.0 if f is None else f) * x),
    "accumulate_square_": (vu.accumulate_square_, lambda a, x, f: a + (1.0 if f is None else f) * x * x),
    "accumulate_mean_": (vu.accumulate_mean_, lambda a, x, f: a * f / (f + 1) + x / (f + 1)),
    "accumulate_moving_average_": (vu.accumulate_moving_average_, lambda a, x, f: f * a + (1 - f) * x),
    "accumulate_moving_average_square_": (vu.accumulate_moving_average_square_,
                                          lambda a, x, f: f * a + (1 - f) * x * x),
}


def factors_for(name, kind, rng):
    """None, a float, or per-run factor values (a float32 array fed as a tensor)."""
    if kind == "none":
        return None
    vals = {"accumulate_mean_": np.arange(RUNS, dtype=np.float32)}.get(
        name, rng.uniform(0.1, 0.9, RUNS).astype(np.float32))
    return float(vals[0]) if kind == "float" else vals


# (op name, factor kind): only accumulate_ and accumulate_square_ have a default factor
NAME_KINDS = [(n, k) for n in sorted(ACCUMULATE) for k in ("none", "float", "tensor")
              if k != "none" or n in ("accumulate_", "accumulate_square_")]


@pytest.mark.parametrize("name,kind", NAME_KINDS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("t_dtype,x_dtype", [(np.float32, np.float32), (np.float16, np.float16),
                                             (np.float32, np.float16), (np.float16, np.float32)])
def test_accumulate_family(name, kind, shape, t_dtype, x_dtype):
    op, ref = ACCUMULATE[name]
    rng = np.random.default_rng(len(shape) * 7 + len(name))
    t0 = rng.standard_normal(shape).astype(t_dtype)
    xs = [rng.standard_normal(shape).astype(x_dtype) for _ in range(RUNS)]
    fs = factors_for(name, kind, rng)
    outs, final, out = run_update(lambda t, x, f: op(t, x) if f is None else op(t, x, f), t0, xs, fs)
    assert out.dtype == popxl.dtype.as_dtype(t_dtype) and out.shape == shape
    expect = t0.astype(np.float64)
    for i in range(RUNS):
        f = None if fs is None else (fs if isinstance(fs, float) else float(fs[i]))
        expect = ref(expect, xs[i].astype(np.float64), f).astype(t_dtype).astype(np.float64)
        assert outs[i].dtype == t_dtype and outs[i].shape == shape
        np.testing.assert_allclose(outs[i], expect, **tol(t_dtype, x_dtype))
    np.testing.assert_allclose(final, expect, **tol(t_dtype, x_dtype))
    assert final.dtype == t_dtype


def test_accumulate_default_factor_is_plain_add():
    t0 = np.array([1, 2, 3], np.float32)
    xs = [np.array([0.5, 0.25, 4], np.float32)] * 2
    outs, final, _ = run_update(lambda t, x, f: vu.accumulate_(t, x), t0, xs)
    np.testing.assert_array_equal(outs[0], t0 + xs[0])
    np.testing.assert_array_equal(final, t0 + 2 * xs[0])


def test_factor_tensor_is_read_every_run_and_float_is_fixed():
    t0 = np.zeros(2, np.float32)
    xs = [np.ones(2, np.float32)] * 3
    outs, _, _ = run_update(lambda t, x, f: vu.accumulate_(t, x, f), t0, xs, np.array([1, 10, 100], np.float32))
    np.testing.assert_array_equal([o[0] for o in outs], [1, 11, 111])
    outs, _, _ = run_update(lambda t, x, f: vu.accumulate_(t, x, f), t0, xs, 2.0)
    np.testing.assert_array_equal([o[0] for o in outs], [2, 4, 6])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["float", "tensor"])
def test_accumulator_scale_and_zero(dtype, kind):
    rng = np.random.default_rng(1)
    t0 = rng.standard_normal((3, 2)).astype(dtype)
    fs = np.array([0.5, -2.0, 3.0], np.float32)
    xs = [np.zeros(1, np.float32)] * RUNS  # unused stream keeps run_update's shape
    f_arg = fs if kind == "tensor" else 0.5
    outs, final, out = run_update(lambda t, x, f: vu.accumulator_scale_(t, f), t0, xs, f_arg)
    assert out.dtype == popxl.dtype.as_dtype(dtype)
    expect = t0.astype(np.float64)
    for i in range(RUNS):
        expect = (expect * (fs[i] if kind == "tensor" else 0.5)).astype(dtype).astype(np.float64)
        np.testing.assert_allclose(outs[i], expect, **tol(dtype))
    np.testing.assert_allclose(final, expect, **tol(dtype))
    outs, final, _ = run_update(lambda t, x, f: vu.accumulator_zero_(t), t0, xs)
    assert final.dtype == dtype and not final.any() and not outs[0].any()


def test_accumulator_scale_by_zero_clears_non_finite_values():
    t0 = np.array([np.inf, np.nan, 1], np.float32)
    _, final, _ = run_update(lambda t, x, f: vu.accumulator_scale_(t, f), t0, [np.zeros(1, np.float32)],
                             np.array([0], np.float32))
    np.testing.assert_array_equal(final, 0)


def sparse_reference(a, x, idx, axis, f):
    out = np.moveaxis(a.astype(np.float64), axis, 0).copy()
    xm = np.moveaxis(x.astype(np.float64).reshape(a.shape[:axis] + (idx.size,) + a.shape[axis + 1:]), axis, 0)
    np.add.at(out, idx.reshape(-1), f * xm)
    return np.moveaxis(out, 0, axis)


@pytest.mark.parametrize("shape,axis,idx_shape", [((6, 3), 0, (4,)), ((2, 5, 3), 1, (2, 2)), ((4, 5), -1, (3,))])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["none", "float", "tensor"])
def test_sparse_accumulate(shape, axis, idx_shape, dtype, kind):
    rng = np.random.default_rng(3)
    ax = axis % len(shape)
    rows = shape[ax]
    idx = np.array(rng.integers(-rows, rows, idx_shape), np.int32)
    idx.reshape(-1)[0] = idx.reshape(-1)[-1]  # a repeated index adds twice
    x_shape = shape[:ax] + idx_shape + shape[ax + 1:]
    t0 = rng.standard_normal(shape).astype(dtype)
    xs = [rng.standard_normal(x_shape).astype(dtype) for _ in range(RUNS)]
    fs = {"none": None, "float": 0.5, "tensor": np.array([1.0, -0.5, 2.0], np.float32)}[kind]

    def build(t, x, f):
        ind = popxl.constant(idx, name="indices")
        return vu.sparse_accumulate_(t, x, ind, axis=axis) if f is None else \
            vu.sparse_accumulate_(t, x, ind, axis=axis, f=f)

    outs, final, out = run_update(build, t0, xs, fs)
    assert out.dtype == popxl.dtype.as_dtype(dtype) and out.shape == shape
    expect = t0.astype(np.float64)
    for i in range(RUNS):
        f = 1.0 if fs is None else (fs if isinstance(fs, float) else float(fs[i]))
        expect = sparse_reference(expect, xs[i], np.where(idx < 0, idx + rows, idx), ax, f)
        expect = expect.astype(dtype).astype(np.float64)
        np.testing.assert_allclose(outs[i], expect, **tol(dtype))
    np.testing.assert_allclose(final, expect, **tol(dtype))


def test_sparse_accumulate_index_out_of_range_is_an_error():
    def build(t, x, f):
        return vu.sparse_accumulate_(t, x, popxl.constant(np.array([0, 4], np.int32)))
    with pytest.raises(popart.popart_exception, match="index 4 is out of range for 4 rows"):
        run_update(build, np.zeros((4, 2), np.float32), [np.ones((2, 2), np.float32)])


def adam_reference(m, v, w, t, wd, b1, b2, eps, mode):
    """The updater term in float64; t is the step after the in-place increment."""
    m, v = m.astype(np.float64), v.astype(np.float64)
    if mode in ("adam", "lamb", "adamax"):
        m = m / (1 - b1 ** t)
        if mode != "adamax":
            v = v / (1 - b2 ** t)
    u = m / (v + eps) if mode == "adamax" else m / (np.sqrt(v) + eps)
    if wd:
        u = u + wd * w.astype(np.float64)
    return u


UPDATERS = {"adam": vu.adam_updater, "adam_nobias": vu.adam_updater, "lamb": vu.lamb_updater,
            "lamb_nobias": vu.lamb_updater, "adamax": vu.adamax_updater}


@pytest.mark.parametrize("mode", sorted(UPDATERS))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hyper", ["float", "tensor"])
@pytest.mark.parametrize("wd", [0.0, 0.1])
def test_updaters(mode, dtype, hyper, wd):
    rng = np.random.default_rng(5)
    shape = (4, 3)
    m0 = rng.standard_normal(shape).astype(dtype)
    v0 = rng.uniform(0.1, 1, shape).astype(dtype)
    w0 = rng.standard_normal(shape).astype(dtype)
    b1, b2, eps = 0.9, 0.99, 1e-3
    bias = "nobias" not in mode
    ir = popxl.Ir()
    with ir.main_graph:
        m, v, w = popxl.variable(m0, name="m"), popxl.variable(v0, name="v"), popxl.variable(w0, name="w")
        step = popxl.variable(np.float32(2), name="step")

        def h(x):
            return popxl.constant(np.float32(x)) if hyper == "tensor" else x
        kw = dict(weight=w if wd else None, weight_decay=h(wd) if wd else None, epsilon=h(eps))
        if bias:
            kw.update(time_step=step, beta1=h(b1))
            if mode != "adamax":
                kw["beta2"] = h(b2)
        u = UPDATERS[mode](m, v, **kw)
        u_s = popxl.d2h_stream(u.shape, u.dtype, name="u")
        ops.host_store(u_s, u)
    assert u.dtype == popxl.dtype.as_dtype(dtype) and u.shape == shape
    with popxl.Session(ir, "ipu_model") as s:
        outs = [s.run()[u_s] for _ in range(RUNS)]
    for i, o in enumerate(outs):
        ref = adam_reference(m0, v0, w0, 3 + i, wd, b1, b2, eps, mode)
        assert o.dtype == dtype
        np.testing.assert_allclose(o, ref, rtol=5e-3 if dtype == np.float16 else 1e-5, atol=1e-3 if dtype ==
                                   np.float16 else 1e-6)
    assert s.get_tensor_data(step) == (2 + RUNS if bias else 2)  # incremented in place once per run


def test_updater_argument_errors():
    ir = popxl.Ir()
    with ir.main_graph:
        m, v = popxl.variable(np.zeros(3, np.float32)), popxl.variable(np.zeros(3, np.float32))
        step = popxl.variable(np.float32(0))
        with pytest.raises(ValueError, match="needs both beta1 and beta2"):
            vu.adam_updater(m, v, time_step=step, beta1=0.9)
        with pytest.raises(ValueError, match="weight_decay needs the weight"):
            vu.lamb_updater(m, v, weight_decay=0.1)
        with pytest.raises(ValueError, match="time_step is required"):
            vu.adamax_updater(m, v)
        with pytest.raises(TypeError, match="epsilon must be a float or a scalar"):
            vu.adam_updater(m, v, epsilon="x")
        with pytest.raises(ValueError, match="must be a scalar tensor"):
            vu.adam_updater(m, v, epsilon=m)
        with pytest.raises(popart.popart_exception, match=r"second-order accumulator '.*' has shape \[2\]"):
            vu.adam_updater(m, popxl.variable(np.zeros(2, np.float32)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hyper", ["float", "tensor"])
@pytest.mark.parametrize("lamb", [False, True])
def test_adam_var_update(dtype, hyper, lamb):
    rng = np.random.default_rng(7)
    shape = (5, 2)
    w0 = rng.standard_normal(shape).astype(dtype)
    xs = [rng.standard_normal(shape).astype(np.float32) for _ in range(RUNS)]
    lr, mwn = 0.1, 1.5

    def build(t, x, f):
        h = (lambda a: popxl.constant(np.float32(a))) if hyper == "tensor" else (lambda a: a)
        if not lamb:
            return vu.adam_var_update(t, x, learning_rate=h(lr))
        r1, r2 = ops.lamb_square(t), ops.lamb_square(x)
        assert r1.dtype == popxl.float32 and r1.shape == ()
        return vu.adam_var_update(t, x, r1, r2, learning_rate=h(lr), max_weight_norm=h(mwn))

    outs, final, out = run_update(build, w0, xs)
    assert out.dtype == popxl.dtype.as_dtype(dtype)
    w = w0.astype(np.float64)
    for i in range(RUNS):
        ratio = min(np.linalg.norm(w), mwn) / np.linalg.norm(xs[i]) if lamb else 1.0
        w = (w - lr * ratio * xs[i]).astype(dtype).astype(np.float64)
        np.testing.assert_allclose(outs[i], w, **tol(dtype))
    np.testing.assert_allclose(final, w, **tol(dtype))


def test_adam_var_update_trust_ratio_is_one_for_a_zero_norm():
    w0 = np.zeros(3, np.float32)
    xs = [np.array([1, 2, 2], np.float32)]
    _, final, _ = run_update(lambda t, x, f: vu.adam_var_update(t, x, ops.lamb_square(t), ops.lamb_square(x),
                                                                 learning_rate=0.5), w0, xs)
    np.testing.assert_allclose(final, -0.5 * xs[0])
    _, final, _ = run_update(lambda t, x, f: vu.adam_var_update(t, x), np.ones(3, np.float32), xs)
    np.testing.assert_allclose(final, 1 - xs[0])  # no learning rate: x applied as is


@pytest.mark.parametrize("shape", SHAPES + [(300, 70)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_lamb_square(shape, dtype):
    x = np.random.default_rng(2).standard_normal(shape).astype(dtype)
    ir = popxl.Ir()
    with ir.main_graph:
        t = popxl.variable(x)
        y = ops.lamb_square(t)
        s_ = popxl.d2h_stream(y.shape, y.dtype)
        ops.host_store(s_, y)
    with popxl.Session(ir, "cpu") as s:
        out = s.run()[s_]
    assert out.dtype == np.float32 and out.shape == ()
    np.testing.assert_allclose(out, np.sum(x.astype(np.float64) ** 2), rtol=1e-6)


def test_sgd_with_accumulate_trains_a_linear_model():
    """accumulate_(w, grad, -lr) as an SGD step, through autodiff, converges to the least-squares fit."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((32, 3)).astype(np.float32)
    w_true = np.array([[1.0], [-2.0], [0.5]], np.float32)
    Y = X @ w_true
    ir = popxl.Ir()
    with ir.main_graph:
        w = popxl.variable(np.zeros((3, 1), np.float32), name="w")
        x = popxl.constant(X)
        err = ops.matmul(x, w) - popxl.constant(Y)
        # d/dw mean(err^2) = 2/N X^T err
        grad = ops.matmul(ops.transpose(x), err) * popxl.constant(np.float32(2 / len(X)))
        vu.accumulate_(w, grad, -0.1)
    with popxl.Session(ir, "cpu") as s:
        for _ in range(200):
            s.run()
    np.testing.assert_allclose(s.get_tensor_data(w), w_true, atol=1e-4)


def test_var_update_input_errors():
    ir = popxl.Ir()
    with ir.main_graph:
        t = popxl.variable(np.zeros((2, 3), np.float32), name="acc")
        with pytest.raises(popart.popart_exception, match=r"updater '.*' has shape \[3\] .* \(no broadcasting\)"):
            vu.accumulate_(t, popxl.constant(np.zeros(3, np.float32)))
        with pytest.raises(popart.popart_exception, match="expected FLOAT, FLOAT16 or DOUBLE"):
            vu.accumulate_(t, popxl.constant(np.zeros((2, 3), np.int32)))
        with pytest.raises(ValueError, match="factor f 'f.*' must be a scalar tensor"):
            vu.accumulate_(t, t, popxl.constant(np.ones(2, np.float32), name="f"))
        with pytest.raises(TypeError, match="factor f must be a float or a scalar popxl.Tensor"):
            vu.accumulator_scale_(t, None)
        with pytest.raises(popart.popart_exception,
                           match=r"updater '.*' has shape \[2,3\]; accumulator.*gives \[4,3\]"):
            vu.sparse_accumulate_(t, t, popxl.constant(np.zeros(4, np.int32)))
        with pytest.raises(popart.popart_exception, match="indices .* expected INT32"):
            vu.sparse_accumulate_(t, t, popxl.constant(np.zeros(2, np.float32)))
        with pytest.raises(ValueError, match="give both r1 and r2"):
            vu.adam_var_update(t, t, r1=ops.lamb_square(t))
    g = ir.create_empty_graph("sub")
    with g:
        with pytest.raises(ValueError, match="tensor 'acc' belongs to graph"):
            vu.accumulator_zero_(t)


def test_var_update_in_a_subgraph_modifies_the_callers_variable():
    ir = popxl.Ir()
    with ir.main_graph:
        w = popxl.variable(np.ones(3, np.float32), name="w")
        g = ir.create_empty_graph("step")
        with g:
            t = popxl.graph_input((3,), popxl.float32, "t", by_ref=True)
            x = popxl.graph_input((3,), popxl.float32, "x")
            vu.accumulate_(t, x, 2.0)
        ops.call(g, w, popxl.constant(np.arange(3, dtype=np.float32)))
    with popxl.Session(ir, "cpu") as s:
        s.run()
        s.run()
    np.testing.assert_array_equal(s.get_tensor_data(w), 1 + 4 * np.arange(3))
