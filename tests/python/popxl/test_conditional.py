"""ops.conditional / conditional_with_info: the branch taken at run time, per-branch inputs, by-reference
inputs, ConditionalSiteInfo, and errors."""
import numpy as np
import pytest

import popart
import popxl
import popxl.ops as ops
import popxl.transforms as transforms
from popxl.ops import var_updates as vu


def branch_graphs(ir, shape, dtype):
    """then(a, b) = a + b; else(c) = c * c (different inputs per branch)."""
    then_g = ir.create_empty_graph("add_branch")
    with then_g:
        a = popxl.graph_input(shape, dtype, "a")
        b = popxl.graph_input(shape, dtype, "b")
        popxl.graph_output(a + b)
    else_g = ir.create_empty_graph("square_branch")
    with else_g:
        c = popxl.graph_input(shape, dtype, "c")
        popxl.graph_output(c * c)
    return then_g, else_g


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", [popxl.float32, popxl.float16, popxl.int32])
def test_branch_taken_at_run_time(shape, dtype):
    ir = popxl.Ir()
    with ir.main_graph:
        cond_s = popxl.h2d_stream((), popxl.bool, "cond")
        x_s = popxl.h2d_stream(shape, dtype, "x")
        y_s = popxl.h2d_stream(shape, dtype, "y")
        cond, x, y = ops.host_load(cond_s), ops.host_load(x_s), ops.host_load(y_s)
        then_g, else_g = branch_graphs(ir, shape, dtype)
        out, = ops.conditional(cond, then_g, else_g, then_inputs=[x, y], else_inputs=[y])
        o_s = popxl.d2h_stream(out.shape, out.dtype, "o")
        ops.host_store(o_s, out)
    assert out.shape == shape and out.dtype == dtype
    rng = np.random.default_rng(0)
    xv = (rng.random(shape) * 10).astype(dtype.as_numpy())
    yv = (rng.random(shape) * 10).astype(dtype.as_numpy())
    with popxl.Session(ir, "ipu_model") as s:
        for c in (True, False, True):
            res = s.run({cond_s: np.bool_(c), x_s: xv, y_s: yv})[o_s]
            assert res.dtype == dtype.as_numpy()
            np.testing.assert_array_equal(res, xv + yv if c else yv * yv)


def test_inputs_dict_and_several_outputs():
    ir = popxl.Ir()
    with ir.main_graph:
        g1 = ir.create_empty_graph("g1")
        with g1:
            a = popxl.graph_input((2,), popxl.float32, "a")
            b = popxl.graph_input((2,), popxl.float32, "b")
            popxl.graph_output(a - b)
            popxl.graph_output(a * 2)
        g2 = ir.create_empty_graph("g2")
        with g2:
            c = popxl.graph_input((2,), popxl.float32, "c")
            popxl.graph_output(c)
            popxl.graph_output(-c)
        x = popxl.variable(np.array([5, 7], np.float32), name="x")
        y = popxl.variable(np.array([1, 2], np.float32), name="y")
        flag = popxl.variable(np.bool_(True), name="flag")
        info = ops.conditional_with_info(flag, g1, g2, then_inputs=[x], then_inputs_dict={b: y},
                                         else_inputs_dict={c: y})
        o0, o1 = info.outputs
        streams = [popxl.d2h_stream((2,), popxl.float32, f"o{i}") for i in range(2)]
        for st, o in zip(streams, info.outputs):
            ops.host_store(st, o)
    assert info.inputs == (x, y, y)
    assert info.then_graph_to_parent_input_index(1) == 2 and info.else_graph_to_parent_input_index(0) == 3
    assert info.parent_to_then_graph_input_index(1) == 0 and info.parent_to_else_graph_input_index(3) == 0
    assert info.is_parent_index_in_then(2) and info.is_parent_index_in_else(3) and not info.is_parent_index_in_then(3)
    assert info.then_graph_to_parent(b) == y and info.else_graph_to_parent(c) == y
    assert info.parent_to_then_graph(x) == a and info.parent_to_else_graph(o1) == g2.outputs[1]
    assert info.parent_input(0) == flag and info.parent_output(1) == o1
    assert info.conditional_op.opType() == "If"
    with pytest.raises(IndexError, match="out of range"):
        info.then_graph_to_parent_input_index(2)
    s = popxl.Session(ir, "cpu")
    with s:
        out = s.run()
        np.testing.assert_array_equal(out[streams[0]], [4, 5])
        np.testing.assert_array_equal(out[streams[1]], [10, 14])
        s.write_variable_data(flag, np.bool_(False))
        out = s.run()
        np.testing.assert_array_equal(out[streams[0]], [1, 2])
        np.testing.assert_array_equal(out[streams[1]], [-1, -2])


def counting_branches(ir):
    """then: acc += x (acc by reference); else: other += 1 (other by reference). Both output acc's double."""
    inc = ir.create_empty_graph("inc")
    with inc:
        acc = popxl.graph_input((3,), popxl.float32, "acc", by_ref=True)
        x = popxl.graph_input((3,), popxl.float32, "x")
        vu.accumulate_(acc, x)
        popxl.graph_output(acc * 2)
    bump = ir.create_empty_graph("bump")
    with bump:
        other = popxl.graph_input((3,), popxl.float32, "other", by_ref=True)
        ops.add_(other, popxl.constant(np.ones(3, np.float32)))
        popxl.graph_output(other * 2)
    return inc, bump


def test_by_ref_inputs_are_modified_only_by_the_branch_taken():
    ir = popxl.Ir()
    with ir.main_graph:
        inc, bump = counting_branches(ir)
        acc = popxl.variable(np.zeros(3, np.float32), name="acc")
        other = popxl.variable(np.full(3, 10, np.float32), name="other")
        cond_s = popxl.h2d_stream((), popxl.bool, "cond")
        x = popxl.constant(np.array([1, 2, 3], np.float32))
        out, = ops.conditional(ops.host_load(cond_s), inc, bump, [acc, x], [other])
        after = acc + 0  # read after the conditional sees its change
        o_s = popxl.d2h_stream((3,), popxl.float32, "o")
        a_s = popxl.d2h_stream((3,), popxl.float32, "after")
        ops.host_store(o_s, out)
        ops.host_store(a_s, after)
    pattern = [True, True, False, True, False]
    with popxl.Session(ir, "ipu_model") as s:
        acc_v, other_v = np.zeros(3), np.full(3, 10.0)
        for c in pattern:
            res = s.run({cond_s: np.bool_(c)})
            if c:
                acc_v = acc_v + [1, 2, 3]
            else:
                other_v = other_v + 1
            np.testing.assert_array_equal(res[o_s], 2 * (acc_v if c else other_v))
            np.testing.assert_array_equal(res[a_s], acc_v)
    np.testing.assert_array_equal(s.get_tensor_data(acc), acc_v)
    np.testing.assert_array_equal(s.get_tensor_data(other), other_v)


def test_by_value_inputs_are_not_modified():
    ir = popxl.Ir()
    with ir.main_graph:
        g = ir.create_empty_graph("g")
        with g:
            t = popxl.graph_input((2,), popxl.float32, "t")  # by value
            popxl.graph_output(vu.accumulate_(t, t))
        v = popxl.variable(np.array([1, 2], np.float32), name="v")
        out, = ops.conditional(popxl.constant(np.bool_(True)), g, g, [v], [v])
        o_s = popxl.d2h_stream((2,), popxl.float32, "o")
        ops.host_store(o_s, out)
    with popxl.Session(ir, "cpu") as s:
        np.testing.assert_array_equal(s.run()[o_s], [2, 4])
        np.testing.assert_array_equal(s.run()[o_s], [2, 4])
    np.testing.assert_array_equal(s.get_tensor_data(v), [1, 2])


def test_set_parent_input_modified():
    ir = popxl.Ir()
    with ir.main_graph:
        g = ir.create_empty_graph("g")
        with g:
            t = popxl.graph_input((2,), popxl.float32, "t")
            vu.accumulator_scale_(t, 3.0)
        e = ir.create_empty_graph("e")
        with e:
            popxl.graph_input((2,), popxl.float32, "u")
        v = popxl.variable(np.array([1, 2], np.float32), name="v")
        w = popxl.variable(np.array([5, 5], np.float32), name="w")
        info = ops.conditional_with_info(popxl.constant(np.bool_(True)), g, e, [v], [w])
        info.set_parent_input_modified(v)
        with pytest.raises(ValueError, match="not an input of the conditional"):
            info.set_parent_input_modified(popxl.constant(np.zeros(2, np.float32)))
    with popxl.Session(ir, "cpu") as s:
        s.run()
        s.run()
    np.testing.assert_array_equal(s.get_tensor_data(v), [9, 18])
    np.testing.assert_array_equal(s.get_tensor_data(w), [5, 5])


def test_conditional_inside_a_repeat():
    """A loop body choosing per iteration: x += 1 on even iterations, x *= 2 on odd ones."""
    ir = popxl.Ir()
    with ir.main_graph:
        plus = ir.create_empty_graph("plus")
        with plus:
            a = popxl.graph_input((), popxl.float32, "a")
            popxl.graph_output(a + popxl.constant(np.float32(1)))
        times = ir.create_empty_graph("times")
        with times:
            b = popxl.graph_input((), popxl.float32, "b")
            popxl.graph_output(b * popxl.constant(np.float32(2)))
        body = ir.create_empty_graph("body")
        with body:
            x = popxl.graph_input((), popxl.float32, "x")
            even = popxl.graph_input((), popxl.bool, "even")
            y, = ops.conditional(even, plus, times, [x], [x])
            popxl.graph_output(y)
            popxl.graph_output(ops.logical_not(even))
        x0 = popxl.variable(np.float32(1), name="x0")
        e0 = popxl.constant(np.bool_(True))
        y, _ = ops.repeat(body, 4, x0, e0)
        o_s = popxl.d2h_stream((), popxl.float32, "o")
        ops.host_store(o_s, y)
    with popxl.Session(ir, "cpu") as s:
        assert s.run()[o_s] == ((1 + 1) * 2 + 1) * 2


def test_conditional_errors():
    ir = popxl.Ir()
    with ir.main_graph:
        then_g, else_g = branch_graphs(ir, (2,), popxl.float32)
        x = popxl.variable(np.zeros(2, np.float32), name="x")
        flag = popxl.variable(np.bool_(True), name="flag")
        with pytest.raises(ValueError, match="cond 'x' is float32 .*expected one bool value"):
            ops.conditional(x, then_g, else_g, [x, x], [x])
        with pytest.raises(ValueError, match="then_branch of graph 'add_branch'.*missing"):
            ops.conditional(flag, then_g, else_g, [x], [x])
        with pytest.raises(ValueError, match=r"input 0 'y' is float32 \(3,\)"):
            ops.conditional(flag, then_g, else_g, [x, x], [popxl.variable(np.zeros(3, np.float32), name="y")])
        other = ir.create_empty_graph("int_out")
        with other:
            i = popxl.graph_input((2,), popxl.float32, "i")
            popxl.graph_output(ops.reshape(i, (2, 1)))
        with pytest.raises(ValueError, match=r"output 0 is float32 \(2,\) in then_branch 'add_branch' but float32 "
                                             r"\(2, 1\) in else_branch 'int_out'"):
            ops.conditional(flag, then_g, other, [x, x], [x])
    with then_g:
        with pytest.raises(ValueError, match="belongs to graph"):
            ops.conditional(flag, then_g, else_g, [x, x], [x])
    sub = ir.create_empty_graph("caller")
    with sub:
        c = popxl.graph_input((), popxl.bool, "c")
        with pytest.raises(ValueError, match="belongs to graph"):
            ops.conditional(c, then_g, else_g, [x, x], [x])


def test_bad_modified_inputs_attribute_is_an_error():
    ir = popxl.Ir()
    with ir.main_graph:
        g = ir.create_empty_graph("ident")
        with g:
            popxl.graph_output(popxl.graph_input((2,), popxl.float32, "i"))
        x = popxl.variable(np.zeros(2, np.float32), name="x")
        c = popxl.constant(np.bool_(True), name="c")
        attrs = {"then_branch": g._pb_graph, "else_branch": g._pb_graph, "__implicit_inputs": 1, "modifiedInputs": [9]}
        with pytest.raises(popart.popart_exception, match="'modifiedInputs' names input 9"):
            ir.main_graph._pb_graph.createConnectedOp("ai.onnx", "If", 0, {0: c.id, 1: x.id}, {0: "o"}, attrs, "")


@pytest.mark.parametrize("dtype", [popxl.float32, popxl.float16])
def test_autodiff_through_a_conditional(dtype):
    """d/dx of 2 * (x*x if c else exp(x)): the backward graph runs the gradient of the branch taken."""
    ir = popxl.Ir()
    with ir.main_graph:
        th = ir.create_empty_graph("square")
        with th:
            a = popxl.graph_input((3,), dtype, "a")
            popxl.graph_output(a * a)
        el = ir.create_empty_graph("exp")
        with el:
            b = popxl.graph_input((3,), dtype, "b")
            popxl.graph_output(ops.exp(b))
        f = ir.create_empty_graph("f")
        with f:
            c = popxl.graph_input((), popxl.bool, "c")
            x = popxl.graph_input((3,), dtype, "x")
            y, = ops.conditional(c, th, el, [x], [x])
            popxl.graph_output(y * popxl.constant(np.array(2, dtype.as_numpy())))
        bwd = transforms.autodiff(f, grads_required=[x])
        cs = popxl.h2d_stream((), popxl.bool, "cs")
        xv = np.array([0.5, 1.0, -1.0], dtype.as_numpy())
        info = ops.call_with_info(f, ops.host_load(cs), popxl.constant(xv))
        dx, = ops.call(bwd.graph, popxl.constant(np.ones(3, dtype.as_numpy())), inputs_dict=bwd.inputs_dict(info))
        st = popxl.d2h_stream((3,), dtype)
        ops.host_store(st, dx)
    tol = dict(rtol=1e-2) if dtype == popxl.float16 else dict(rtol=1e-6)
    with popxl.Session(ir, "cpu") as s:
        got_then = s.run({cs: np.bool_(True)})[st]
        got_else = s.run({cs: np.bool_(False)})[st]
    assert got_then.dtype == dtype.as_numpy()
    np.testing.assert_allclose(got_then, 4 * xv.astype(np.float64), **tol)
    np.testing.assert_allclose(got_else, 2 * np.exp(xv.astype(np.float64)), **tol)


def test_same_graphs_in_several_conditionals():
    ir = popxl.Ir()
    with ir.main_graph:
        g = ir.create_empty_graph("inc")
        with g:
            a = popxl.graph_input((2,), popxl.float32, "a")
            popxl.graph_output(a + popxl.constant(np.ones(2, np.float32)))
        h = ir.create_empty_graph("dbl")
        with h:
            b = popxl.graph_input((2,), popxl.float32, "b")
            popxl.graph_output(b * popxl.constant(np.full(2, 2, np.float32)))
        x = popxl.variable(np.array([1, 3], np.float32), name="x")
        y, = ops.conditional(popxl.constant(np.bool_(True)), g, h, [x], [x])
        z, = ops.conditional(popxl.constant(np.bool_(False)), g, h, [y], [y])
        w, = ops.conditional(popxl.constant(np.bool_(True)), h, h, [z], [z])
        st = popxl.d2h_stream((2,), popxl.float32)
        ops.host_store(st, w)
    with popxl.Session(ir, "cpu") as s:
        np.testing.assert_array_equal(s.run()[st], ((np.array([1, 3]) + 1) * 2) * 2)
