"""A graph with one call site works in its caller's buffers (no copies): the by-value, by-reference and
output semantics of call must be unchanged by that, compared with the same graph called twice (which
copies)."""
import numpy as np
import pytest

import popxl
import popxl.ops as ops
from popxl.ops import var_updates as vu


def run_main(build, sites: int):
    """Builds the main graph with build(call) where call(g, *args) calls g `sites` times (all but the last
    on a throw-away copy), stores every tensor build returns; returns their values after two runs."""
    ir = popxl.Ir()
    with ir.main_graph:
        def call(g, *args):
            for _ in range(sites - 1):
                ops.call(g, *[a + 0 for a in args])  # other call sites, on copies
            return ops.call(g, *args)
        outs = build(ir, call)
        streams = []
        for t in outs:
            streams.append(popxl.d2h_stream(t.shape, t.dtype))
            ops.host_store(streams[-1], t)
    with popxl.Session(ir, "cpu") as s:
        s.run()
        res = s.run()
    return [res[st] for st in streams]


def by_value_modified(ir, call):
    g = ir.create_empty_graph("scale_in_place")
    with g:
        t = popxl.graph_input((3,), popxl.float32, "t")
        vu.accumulator_scale_(t, 2.0)
        popxl.graph_output(t + 0)
    v = popxl.variable(np.array([1, 2, 3], np.float32), name="v")
    out, = call(g, v)
    return [out, v + 0]


def same_tensor_by_ref_and_by_value(ir, call):
    g = ir.create_empty_graph("bump_and_read")
    with g:
        r = popxl.graph_input((2,), popxl.float32, "r", by_ref=True)
        x = popxl.graph_input((2,), popxl.float32, "x")
        vu.accumulate_(r, popxl.constant(np.ones(2, np.float32)))
        popxl.graph_output(x * 1)  # x is the value before the call, though r is the same tensor
    v = popxl.variable(np.array([5, 7], np.float32), name="v")
    out, = call(g, v, v)
    return [out, v + 0]


def outputs_of_every_kind(ir, call):
    g = ir.create_empty_graph("outs")
    with g:
        a = popxl.graph_input((2, 2), popxl.float32, "a")
        s = a * 2
        popxl.graph_output(a)                  # an input
        popxl.graph_output(s)                  # owns its memory
        popxl.graph_output(s)                  # twice
        popxl.graph_output(ops.reshape(s, (4,)))  # a view
        popxl.graph_output(popxl.constant(np.ones(2, np.float32)))  # a constant
    v = popxl.variable(np.arange(4, dtype=np.float32).reshape(2, 2), name="v")
    o = call(g, v)
    later = o[1] + o[2]  # read after the call
    return list(o) + [later]


@pytest.mark.parametrize("build", [by_value_modified, same_tensor_by_ref_and_by_value, outputs_of_every_kind])
def test_one_call_site_matches_copying_call_sites(build):
    one = run_main(build, 1)
    two = run_main(build, 2)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


def test_values():
    out, v = run_main(by_value_modified, 1)
    np.testing.assert_array_equal(out, [2, 4, 6])
    np.testing.assert_array_equal(v, [1, 2, 3])
    out, v = run_main(same_tensor_by_ref_and_by_value, 1)
    np.testing.assert_array_equal(out, [6, 8])  # second run: v was bumped once by the first
    np.testing.assert_array_equal(v, [7, 9])
    a, s, s2, flat, ones, later = run_main(outputs_of_every_kind, 1)
    base = np.arange(4, dtype=np.float32).reshape(2, 2)
    np.testing.assert_array_equal(a, base)
    np.testing.assert_array_equal(s, 2 * base)
    np.testing.assert_array_equal(s2, 2 * base)
    np.testing.assert_array_equal(flat, 2 * base.reshape(4))
    np.testing.assert_array_equal(ones, [1, 1])
    np.testing.assert_array_equal(later, 4 * base)


def test_nested_single_call_sites():
    """inner is called once from outer, outer once from main: both work in main's memory."""
    ir = popxl.Ir()
    with ir.main_graph:
        inner = ir.create_empty_graph("inner")
        with inner:
            t = popxl.graph_input((3,), popxl.float32, "t", by_ref=True)
            u = popxl.graph_input((3,), popxl.float32, "u")
            vu.accumulate_(t, u, 0.5)
            popxl.graph_output(u * 3)
        outer = ir.create_empty_graph("outer")
        with outer:
            a = popxl.graph_input((3,), popxl.float32, "a", by_ref=True)
            b = popxl.graph_input((3,), popxl.float32, "b")
            y, = ops.call(inner, a, b)
            popxl.graph_output(y + a)
        v = popxl.variable(np.zeros(3, np.float32), name="v")
        w = popxl.variable(np.array([2, 4, 6], np.float32), name="w")
        o, = ops.call(outer, v, w)
        st = popxl.d2h_stream((3,), popxl.float32)
        ops.host_store(st, o)
    with popxl.Session(ir, "cpu") as s:
        r1 = s.run()[st]
        r2 = s.run()[st]
    np.testing.assert_array_equal(r1, [7, 14, 21])  # 3w + 0.5w
    np.testing.assert_array_equal(r2, [8, 16, 24])  # 3w + w
    np.testing.assert_array_equal(s.get_tensor_data(v), [2, 4, 6])
    np.testing.assert_array_equal(s.get_tensor_data(w), [2, 4, 6])


def test_in_place_output_is_written_into_the_callers_output():
    """The callee's output relu_(x * 2) is the product made in place: the product is placed in the caller's
    output, so the only activation of the program is that output (the input is a variable)."""
    import re
    ir = popxl.Ir()
    with ir.main_graph:
        g = ir.create_empty_graph("scaled_relu")
        with g:
            x = popxl.graph_input((256, 256), popxl.float32, "x")
            popxl.graph_output(ops.relu_(x * 2))
        data = np.linspace(-1, 1, 256 * 256, dtype=np.float32).reshape(256, 256)
        v = popxl.variable(data, name="v")
        out, = ops.call(g, v)
        st = popxl.d2h_stream(out.shape, out.dtype)
        ops.host_store(st, out)
    with popxl.Session(ir, "cpu") as s:
        res = s.run()[st]
        report = s._pb_session.getSummaryReport()
    np.testing.assert_array_equal(res, np.maximum(data * 2, 0))
    arena_mb = float(re.search(r"activations arena ([0-9.]+) MB", report).group(1))
    assert arena_mb == round(256 * 256 * 4 / 1e6, 3), report
