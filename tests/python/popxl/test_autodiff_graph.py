"""popxl.transforms.autodiff on the IR: backward graph inputs/outputs and their expected connections."""
import numpy as np

import popxl
import popxl.ops as ops
import popxl.transforms as transforms
from popxl.transforms import ExpectedConnectionType as ECT


class Linear(popxl.Module):
    def build(self, x, n):
        self.W = popxl.graph_input((x.shape[-1], n), popxl.float32, "W")
        self.b = popxl.graph_input((n,), popxl.float32, "b")
        return ops.relu(x @ self.W + self.b)


def test_backward_graph_of_linear_and_call_site_activations():
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.variable(np.ones((2, 3), np.float32), name="x")
        W = popxl.variable(np.ones((3, 4), np.float32), name="W")
        b = popxl.variable(np.ones(4, np.float32), name="b")
        lin = Linear()
        g = ir.create_graph(lin, x, n=4)
        fwd = ops.call_with_info(g, x, inputs_dict={lin.W: W, lin.b: b})
        info = transforms.autodiff(g)
        # gradients of x, W, b, in the forward graph's input order
        assert [c.connection_type for c in info.expected_outputs] == [ECT.FwdGrad] * 3
        assert [c.fwd_tensor for c in info.expected_outputs] == list(g.inputs)
        assert [o.shape for o in info.graph.outputs] == [(2, 3), (3, 4), (4,)]
        # first input: the gradient of the output; then forward tensors
        assert info.expected_inputs[0].connection_type is ECT.FwdGrad
        assert info.expected_inputs[0].fwd_tensor == g.outputs[0]
        acts = info.inputs_dict(fwd)
        assert len(acts) == len(info.expected_inputs) - 1 and acts
        for bwd_in, parent in acts.items():
            assert parent.graph == ir.main_graph and bwd_in.shape == parent.shape
        seed = popxl.constant(np.ones((2, 4), np.float32))
        bwd = ops.call_with_info(info.graph, seed, inputs_dict=acts)
        gx, gW, gb = bwd.outputs
        grads = info.fwd_parent_ins_to_grad_parent_outs(fwd, bwd)
        assert grads[x] == gx and grads[W] == gW and grads[b] == gb
    assert (gx.shape, gW.shape, gb.shape) == ((2, 3), (3, 4), (4,))
    types = {op.opType() for op in info.graph._pb_graph.getOps()}
    assert "MatMul" in types or any("MatMul" in t for t in types)
