"""popxl.Session: running an Ir, host streams and their shapes, variable transfers, contexts, device types."""
import numpy as np
import pytest

import popart
import popxl
import popxl.ops as ops


def adder(shape=(3,), dtype=popxl.float32):
    """An Ir computing o = a + b from two host streams."""
    ir = popxl.Ir()
    with ir.main_graph:
        a_h2d = popxl.h2d_stream(shape, dtype, name="a_stream")
        b_h2d = popxl.h2d_stream(shape, dtype, name="b_stream")
        o = ops.add(ops.host_load(a_h2d, "a"), ops.host_load(b_h2d, "b"))
        o_d2h = popxl.d2h_stream(o.shape, o.dtype, name="o_stream")
        ops.host_store(o_d2h, o)
    return ir, a_h2d, b_h2d, o_d2h


def counter_ir(start=3):
    """An Ir with variable v; each run stores v + 1 and then does v += 10 in place."""
    ir = popxl.Ir()
    with ir.main_graph:
        v = popxl.variable(np.int32(start), name="v")
        c = popxl.constant(np.int32(1), name="one")
        o = v + c
        o_d2h = popxl.d2h_stream(o.shape, o.dtype, name="o")
        ops.host_store(o_d2h, o)
        ops.add_(v, popxl.constant(np.int32(10)))
    return ir, v, c, o_d2h


@pytest.mark.parametrize("shape", [(1,), (3,), (2, 4)])
@pytest.mark.parametrize("dtype", [popxl.float32, popxl.float16, popxl.int32])
def test_run_adds(shape, dtype):
    ir, a_h2d, b_h2d, o_d2h = adder(shape, dtype)
    rng = np.random.default_rng(0)
    a = (rng.random(shape) * 10).astype(dtype.as_numpy())
    b = (rng.random(shape) * 10).astype(dtype.as_numpy())
    with popxl.Session(ir, "ipu_model") as session:
        out = session.run({a_h2d: a, b_h2d: b})
    assert set(out) == {o_d2h}
    assert out[o_d2h].dtype == dtype.as_numpy() and out[o_d2h].shape == shape
    np.testing.assert_array_equal(out[o_d2h], a + b)


def test_run_with_outputs_fills_given_arrays():
    ir, a_h2d, b_h2d, o_d2h = adder()
    session = popxl.Session(ir, "ipu_model")
    buf = np.full((3,), -1, np.float32)
    with session:
        session.run_with_outputs({a_h2d: np.ones(3, np.float32), b_h2d: np.arange(3, dtype=np.float32)},
                                 {o_d2h: buf})
    np.testing.assert_array_equal(buf, [1, 2, 3])
    outs = session.create_host_outputs()
    assert outs[o_d2h].shape == (3,) and outs[o_d2h].dtype == np.float32


def test_run_needs_an_attached_session():
    ir, a_h2d, b_h2d, _ = adder()
    session = popxl.Session(ir, "ipu_model")
    with pytest.raises(popart.popart_exception, match="not attached"):
        session.run({a_h2d: np.ones(3, np.float32), b_h2d: np.ones(3, np.float32)})


def test_input_errors_name_the_stream():
    ir, a_h2d, b_h2d, o_d2h = adder()
    with popxl.Session(ir, "ipu_model") as s:
        good = np.ones(3, np.float32)
        with pytest.raises(ValueError, match=r"no data for host-to-device stream.*b_stream"):
            s.run({a_h2d: good})
        with pytest.raises(ValueError, match=r"'b_stream' has shape \(4,\), expected \(3,\)"):
            s.run({a_h2d: good, b_h2d: np.ones(4, np.float32)})
        with pytest.raises(ValueError, match="'a_stream' is float64.*downcast_inputs"):
            s.run({a_h2d: np.ones(3), b_h2d: good}, downcast_inputs=False)
        other_ir, other_a, _, _ = adder()
        with pytest.raises(ValueError, match="not a host-to-device stream of this Ir"):
            s.run({a_h2d: good, b_h2d: good, other_a: good})
        with pytest.raises(ValueError, match="buffer for stream 'o_stream' is int32"):
            s.run_with_outputs({a_h2d: good, b_h2d: good}, {o_d2h: np.zeros(3, np.int32)})
        # downcasting float64 data is the default
        out = s.run({a_h2d: np.ones(3), b_h2d: good})
        assert out[o_d2h].dtype == np.float32


def repeat_load_ir(n, shape=(2, 3)):
    """host_load inside a repeated graph: y_i = x_i @ W + b for each of n transfers."""
    ir = popxl.Ir()
    with ir.main_graph:
        x_h2d = popxl.h2d_stream(shape, popxl.float32, name="x")
        y_d2h = popxl.d2h_stream((shape[0], 4), popxl.float32, name="y")
        w_data = np.arange(shape[1] * 4, dtype=np.float32).reshape(shape[1], 4) / 10
        w = popxl.variable(w_data, name="w")
        b = popxl.variable(np.ones(4, np.float32), name="b")

        def body(w_in, b_in):
            x = ops.host_load(x_h2d, "x_in")
            y = x @ w_in + b_in
            ops.host_store(y_d2h, y)

        g = ir.create_graph(body, w, b)
        ops.repeat(g, n, w, b)
    ir.num_host_transfers = n
    return ir, x_h2d, y_d2h, w_data


@pytest.mark.parametrize("n", [1, 2, 5])
def test_host_transfers_in_a_repeat(n):
    ir, x_h2d, y_d2h, w_data = repeat_load_ir(n)
    x = np.random.default_rng(n).random((n, 2, 3) if n > 1 else (2, 3)).astype(np.float32)
    with popxl.Session(ir, "ipu_model") as s:
        y = s.run({x_h2d: x})[y_d2h]
        with pytest.raises(ValueError, match="num_host_transfers"):
            s.run({x_h2d: np.zeros((n + 1, 2, 3), np.float32)})
    assert y.shape == ((n, 2, 4) if n > 1 else (2, 4))
    np.testing.assert_allclose(y, x @ w_data + 1, rtol=1e-6)


def test_repeat_carries_values():
    ir = popxl.Ir()
    with ir.main_graph:
        def step(acc, k):
            return acc * 2 + k

        acc0 = popxl.constant(np.array([1, 2], np.float32))
        k = popxl.variable(np.array([1, 0], np.float32), name="k")
        g = ir.create_graph(step, acc0, k)
        (final,) = ops.repeat(g, 4, acc0, k)
        d2h = popxl.d2h_stream(final.shape, final.dtype, name="final")
        ops.host_store(d2h, final)
    ref = np.array([1, 2], np.float32)
    for _ in range(4):
        ref = ref * 2 + np.array([1, 0], np.float32)
    with popxl.Session(ir, "cpu") as s:
        np.testing.assert_array_equal(s.run()[d2h], ref)


def test_repeat_checks_its_arguments():
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.constant(np.zeros(2, np.float32))
        g = ir.create_graph(lambda a: ops.reshape(a, (1, 2)), x)
        with pytest.raises(ValueError, match="carried into input 0"):
            ops.repeat(g, 2, x)
        g2 = ir.create_graph(lambda a: a + 1, x)
        with pytest.raises(ValueError, match="repeat_trip_count is -1"):
            ops.repeat(g2, -1, x)
        with pytest.raises(ValueError, match="missing"):
            ops.repeat(g2, 2)


def test_variables_persist_and_transfer_rules():
    ir, v, c, o_d2h = counter_ir(3)
    session = popxl.Session(ir, "ipu_model")
    counts = session._transfers
    # detached: write only the host copy
    session.write_variable_data(v, np.int32(5))
    assert counts == {"weights_from_host": 0, "weights_to_host": 0}
    assert session.get_tensor_data(v) == 5
    with session:  # attach: weights_from_host
        assert counts["weights_from_host"] == 1
        assert session.get_tensor_data(v) == 5 and counts["weights_to_host"] == 0  # host still in sync
        assert session.run()[o_d2h] == 6
        assert session.get_tensor_data(c) == 1 and counts["weights_to_host"] == 0  # constants never transfer
        datas = session.get_tensors_data([v, c])
        assert counts["weights_to_host"] == 1 and datas[v] == 15 and datas[c] == 1
        session.get_tensor_data(v)
        assert counts["weights_to_host"] == 1  # cached
        session.write_variable_data(v, np.int32(100))  # host and device
        assert counts["weights_from_host"] == 2
        assert session.get_tensor_data(v) == 100 and counts["weights_to_host"] == 1
        assert session.run()[o_d2h] == 101
    assert counts["weights_to_host"] == 2  # on exit
    assert session.get_tensor_data(v) == 110


def test_write_keeps_newer_device_values_of_other_variables():
    ir = popxl.Ir()
    with ir.main_graph:
        a = popxl.variable(np.float32(0), name="a")
        b = popxl.variable(np.float32(0), name="b")
        ops.add_(a, popxl.constant(np.float32(1)))
    with popxl.Session(ir, "cpu") as s:
        s.run()
        s.run()
        s.write_variable_data(b, np.float32(7))
        assert s.get_tensor_data(a) == 2 and s.get_tensor_data(b) == 7


def test_weights_to_host_on_exit_can_be_off():
    ir, v, _, _ = counter_ir(0)
    s = popxl.Session(ir, "ipu_model", weights_to_host_on_exit=False)
    with s:
        s.run()
    assert s._transfers["weights_to_host"] == 0
    assert s.get_tensor_data(v) == 0  # host copy not refreshed


def test_nested_contexts():
    ir, v, _, _ = counter_ir()
    s = popxl.Session(ir, "ipu_model")
    assert not s.is_attached
    with s:
        assert s.is_attached
        with s:
            assert s.is_attached
        assert s.is_attached and s._transfers == {"weights_from_host": 1, "weights_to_host": 0}
    assert not s.is_attached and s._transfers["weights_to_host"] == 1


def test_tensor_data_errors():
    ir, v, c, _ = counter_ir()
    with ir.main_graph:
        inter = v * 2
    s = popxl.Session(ir, "cpu")
    with pytest.raises(TypeError, match=f"'{inter.id}' is neither a Variable nor a Constant"):
        s.get_tensor_data(inter)
    with pytest.raises(TypeError, match="is a Constant"):
        s.write_variable_data(c, np.int32(0))
    with pytest.raises(ValueError, match=r"has shape \(2,\)"):
        s.write_variable_data(v, np.zeros(2, np.int32))
    other, ov, _, _ = counter_ir()
    with pytest.raises(ValueError, match="another Ir"):
        s.get_tensor_data(ov)


@pytest.mark.parametrize("device", ["cpu", "ipu_model", "ipu_hw"])
def test_device_types(device):
    ir, a_h2d, b_h2d, o_d2h = adder()
    with popxl.Session(ir, device) as s:
        out = s.run({a_h2d: np.ones(3, np.float32), b_h2d: np.ones(3, np.float32)})
    np.testing.assert_array_equal(out[o_d2h], 2)
    assert isinstance(s.device, popart.DeviceInfo)


def test_bad_device_desc_and_cpu_replication():
    ir, *_ = adder()
    with pytest.raises(ValueError, match="'gpu' is not one of"):
        popxl.Session(ir, "gpu")
    rep = popxl.Ir(replication=2)
    with rep.main_graph:
        popxl.variable(np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="'cpu' device type does not support replication"):
        popxl.Session(rep, "cpu")


def test_by_ref_input_modifies_the_callers_tensor():
    ir = popxl.Ir()
    with ir.main_graph:
        v = popxl.variable(np.array([1, 2], np.float32), name="v")

        g = ir.create_empty_graph("bump")
        with g:
            t = popxl.graph_input((2,), popxl.float32, "t", by_ref=True)
            ops.add_(t, popxl.constant(np.ones(2, np.float32)))

        g_val = ir.create_empty_graph("bump_by_value")
        with g_val:
            t2 = popxl.graph_input((2,), popxl.float32, "t2")
            ops.add_(t2, popxl.constant(np.ones(2, np.float32)))
        ops.call(g, v)
        ops.call(g_val, v)  # by value: no change in v
        ops.repeat(g, 3, v)
    with popxl.Session(ir, "cpu") as s:
        s.run()
        np.testing.assert_array_equal(s.get_tensor_data(v), [5, 6])
        s.run()
        np.testing.assert_array_equal(s.get_tensor_data(v), [9, 10])


def test_set_parent_input_modified():
    ir = popxl.Ir()
    with ir.main_graph:
        v = popxl.variable(np.zeros(3, np.float32), name="v")
        g = ir.create_empty_graph("g")
        with g:
            t = popxl.graph_input((3,), popxl.float32, "t")
            ops.add_(t, popxl.constant(np.ones(3, np.float32)))
        info = ops.call_with_info(g, v)
        info.set_parent_input_modified(v)
        rinfo = ops.repeat_with_info(g, 2, v)
        rinfo.set_parent_input_modified(v)
        assert info.parent_to_graph(v).id == t.id and rinfo.graph_to_parent_input_index(0) == 2
    with popxl.Session(ir, "cpu") as s:
        s.run()
        np.testing.assert_array_equal(s.get_tensor_data(v), [3, 3, 3])


def test_one_compiled_body_for_many_call_sites():
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.variable(np.ones(4, np.float32), name="x")
        g = ir.create_graph(lambda a: ops.relu(a) * 3, x)
        y = x
        for _ in range(4):
            (y,) = ops.call(g, y)
        d2h = popxl.d2h_stream(y.shape, y.dtype, name="y")
        ops.host_store(d2h, y)
    with popxl.Session(ir, "cpu") as s:
        np.testing.assert_array_equal(s.run()[d2h], 81)
    graphs = [gr.id for gr in ir._pb_ir.getAllGraphs()]
    assert len(graphs) == 2  # main + one callee, called four times
    calls = [op for op in ir.main_graph._pb_graph.getOps() if op.opType() == "Call"]
    assert len(calls) == 4 and {op.getAttribute("callee") for op in calls} == {g.id}


def _child(code, **env):
    import os
    import subprocess
    import sys
    e = dict(os.environ)
    e.update(env)
    e["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, timeout=120)


_PROGRAM = """
import numpy as np, popxl, popxl.ops as ops
ir = popxl.Ir()
with ir.main_graph:
    v = popxl.variable(np.float32(2), name="v")
    d2h = popxl.d2h_stream((), popxl.float32, name="out")
    ops.host_store(d2h, v * 3)
s = popxl.Session(ir, "cpu")
with s:
    print("RESULT", s.run()[d2h])
print("CACHE", getattr(s, "cache_file", None))
"""


def test_log_level_env_drives_popxl_logging():
    quiet = _child(_PROGRAM, POPART_LOG_LEVEL="OFF")
    loud = _child(_PROGRAM, POPART_LOG_LEVEL="DEBUG")
    assert quiet.returncode == 0 and loud.returncode == 0, quiet.stderr + loud.stderr
    assert "popxl.Session" not in quiet.stdout + quiet.stderr
    text = loud.stdout + loud.stderr
    assert "popxl.Session: compiled Ir" in text and "popxl.Session.run" in text and "weights_to_host" in text


def test_executable_cache_dir(tmp_path):
    first = _child(_PROGRAM, POPXL_CACHE_DIR=str(tmp_path), POPART_LOG_LEVEL="INFO")
    assert first.returncode == 0, first.stderr
    files = list(tmp_path.glob("*.popef"))
    assert len(files) == 1 and "saved executable" in first.stdout + first.stderr
    second = _child(_PROGRAM, POPXL_CACHE_DIR=str(tmp_path), POPART_LOG_LEVEL="INFO")
    assert "loaded cached executable" in second.stdout + second.stderr and "RESULT 6.0" in second.stdout
    files[0].write_bytes(files[0].read_bytes()[:-3])  # a damaged cache file is refused, clearly
    third = _child(_PROGRAM, POPXL_CACHE_DIR=str(tmp_path))
    assert third.returncode != 0 and "popef" in third.stderr


def _mlp_grads(grads_provided=None, grads_required=None):
    """Gradients of y = relu(x @ w) * 2 and z = sum-ish second output, run through a session."""
    ir = popxl.Ir()
    x_np = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    w_np = np.array([[0.3, -1.0], [2.0, 0.1]], np.float32)
    with ir.main_graph:
        x = popxl.variable(x_np, name="x")
        w = popxl.variable(w_np, name="w")

        def f(a, b):
            h = ops.relu(a @ b)
            return h * 2, h + a

        g = ir.create_graph(f, x, w)
        info = ops.call_with_info(g, x, w)
        kw = {}
        if grads_provided is not None:
            kw["grads_provided"] = [g.outputs[i] for i in grads_provided]
        if grads_required is not None:
            kw["grads_required"] = [g.inputs[i] for i in grads_required]
        bwd = popxl.transforms.autodiff(g, **kw)
        seeds = [popxl.constant(np.ones((2, 2), np.float32)) for c in bwd.expected_inputs
                 if c.connection_type is popxl.transforms.ExpectedConnectionType.FwdGrad]
        grads = ops.call(bwd.graph, *seeds, inputs_dict=bwd.inputs_dict(info))
        streams = []
        for i, t in enumerate(grads):
            d2h = popxl.d2h_stream(t.shape, t.dtype, name=f"grad{i}")
            ops.host_store(d2h, t)
            streams.append(d2h)
    with popxl.Session(ir, "cpu") as s:
        out = s.run()
    names = ([c.fwd_tensor.id for c in bwd.expected_outputs], [t.id for t in g.inputs])
    return [out[d] for d in streams], names, (x_np, w_np)


@pytest.mark.parametrize("provided", [None, [0], [1]])
@pytest.mark.parametrize("required", [None, [1], [1, 0]])
def test_autodiff_grads_provided_and_required(provided, required):
    import torch
    grads, names, (x_np, w_np) = _mlp_grads(provided, required)
    x = torch.tensor(x_np, requires_grad=True)
    w = torch.tensor(w_np, requires_grad=True)
    h = torch.relu(x @ w)
    outs = [h * 2, h + x]
    use = [0, 1] if provided is None else provided
    sum(outs[i].sum() for i in use).backward()
    ref = [x.grad.numpy(), w.grad.numpy()]
    order = [0, 1] if required is None else required
    got_names, fwd_inputs = names
    assert len(grads) == len(order) and got_names == [fwd_inputs[i] for i in order]
    for got, i in zip(grads, order):
        np.testing.assert_allclose(got, ref[i], rtol=1e-6)


ALL_DTYPES = [popxl.bool, popxl.int8, popxl.int16, popxl.int32, popxl.int64, popxl.uint8, popxl.uint16,
              popxl.uint32, popxl.uint64, popxl.float16, popxl.float32, popxl.float64, popxl.float8_143,
              popxl.float8_152]


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=lambda d: d.name)
def test_every_dtype_through_streams_variables_and_constants(dt):
    """Host input -> device -> host output, and variable/constant data, keep values and dtypes."""
    rng = np.random.default_rng(3)
    np_t = dt.as_numpy()
    data = (rng.random((2, 3)) * 100).astype(np_t)
    ir = popxl.Ir()
    with ir.main_graph:
        x_h2d = popxl.h2d_stream((2, 3), dt, name="x")
        x = ops.host_load(x_h2d, "x_in")
        v = popxl.variable(data[::-1].copy(), dt, name="v")
        c = popxl.constant(data[:, ::-1].copy(), dt, name="c")
        streams = {}
        for name, t in [("x", x), ("v", v), ("c", c)]:
            streams[name] = popxl.d2h_stream(t.shape, t.dtype, name=f"{name}_out")
            ops.host_store(streams[name], t)
    assert x.dtype == dt and v.dtype == dt and c.dtype == dt
    with popxl.Session(ir, "cpu") as s:
        out = s.run({x_h2d: data})
        got_v, got_c = s.get_tensor_data(v), s.get_tensor_data(c)
    for name, ref in [("x", data), ("v", data[::-1]), ("c", data[:, ::-1])]:
        assert out[streams[name]].dtype == np_t
        np.testing.assert_array_equal(out[streams[name]], ref)
    np.testing.assert_array_equal(got_v, data[::-1])
    np.testing.assert_array_equal(got_c, data[:, ::-1])
    assert got_v.dtype == np_t and got_c.dtype == np_t


@pytest.mark.parametrize("dt", [popxl.float16, popxl.float32, popxl.int32], ids=lambda d: d.name)
def test_intermediate_tensors_of_each_kind(dt):
    """An intermediate computed from a host input, a variable and a constant."""
    np_t = dt.as_numpy()
    ir = popxl.Ir()
    with ir.main_graph:
        x_h2d = popxl.h2d_stream((4,), dt, name="x")
        x = ops.host_load(x_h2d)
        v = popxl.variable(np.arange(4).astype(np_t), name="v")
        c = popxl.constant(np.full(4, 3).astype(np_t), name="c")
        y = (x + v) * c - v
        d2h = popxl.d2h_stream(y.shape, y.dtype, name="y")
        ops.host_store(d2h, y)
    xs = np.array([1, 2, 3, 4]).astype(np_t)
    with popxl.Session(ir, "cpu") as s:
        out = s.run({x_h2d: xs})[d2h]
    ref = (xs + np.arange(4).astype(np_t)) * np.full(4, 3).astype(np_t) - np.arange(4).astype(np_t)
    assert out.dtype == np_t
    np.testing.assert_array_equal(out, ref)
