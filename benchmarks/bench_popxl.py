"""PopXL vs popart.TrainingSession: one MLP training step (784-512-512-10, batch 64, ReLU, softmax
cross-entropy, plain SGD lr 0.01) built both ways from the same weights and batch.

  popart  Builder ONNX graph + LogSoftmax + Nll (mean), TrainingSession with SGD, batchesPerStep 1
  popxl   a forward graph (MLP + loss) called from the main graph, its autodiff graph called with
          d(loss) = 1 (gradients of the weights only), then var_updates.accumulate_(w, dw, -lr) per
          weight; one Session.run per step

Three steps are compared first (largest weight difference relative to the weight's largest value),
then both are timed round-robin and the median ms per step is reported:

    python benchmarks/bench_popxl.py [--reps N]
"""
import argparse
import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", "2")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from bench_inference import time_round_robin  # noqa: E402

SIZES = [784, 512, 512, 10]
BATCH = 64
LR = 0.01


def init_weights(seed=0):
    rng = np.random.default_rng(seed)
    w = {}
    for i, (a, b) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        w[f"W{i}"] = (rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32)
        w[f"b{i}"] = (0.01 * rng.standard_normal(b)).astype(np.float32)
    return w


def make_batch(seed):
    rng = np.random.default_rng(100 + seed)
    return rng.standard_normal((BATCH, SIZES[0])).astype(np.float32), rng.integers(0, 10, BATCH).astype(np.int32)


class PopartStep:
    batches = 1

    def __init__(self, weights, x, y):
        import popart
        b = popart.Builder()
        h = b.addInputTensor(popart.TensorInfo("FLOAT", [BATCH, SIZES[0]]), "x")
        label = b.addInputTensor(popart.TensorInfo("INT32", [BATCH]), "label")
        n = len(SIZES) - 1
        for i in range(n):
            w = b.addInitializedInputTensor(weights[f"W{i}"], f"W{i}")
            bias = b.addInitializedInputTensor(weights[f"b{i}"], f"b{i}")
            h = b.aiOnnx.add([b.aiOnnx.matmul([h, w]), bias])
            if i + 1 < n:
                h = b.aiOnnx.relu([h])
        logp = b.aiOnnx.logsoftmax([h], axis=1)
        loss = b.aiGraphcore.nllloss([logp, label], reduction=popart.ReductionType.Mean, inputIsLogProbability=True)
        self.session = popart.TrainingSession(
            fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, {loss: popart.AnchorReturnType("Final")}),
            loss=loss, optimizer=popart.SGD({"defaultLearningRate": (LR, True)}),
            deviceInfo=popart.DeviceManager().createCpuDevice())
        self.session.prepareDevice()
        self.session.weightsFromHost()
        self.anchors = self.session.initAnchorArrays()
        self.feed(x, y)

    def feed(self, x, y):
        import popart
        self.stepio = popart.PyStepIO({"x": x, "label": y}, self.anchors)

    def __call__(self):
        self.session.run(self.stepio)

    def weights(self):
        import popart
        out = {k: np.zeros(v.shape, np.float32) for k, v in init_weights().items()}
        self.session.weightsToHost()
        self.session.readWeights(popart.PyWeightsIO(out))
        return out


class PopxlStep:
    batches = 1

    def __init__(self, weights, x, y):
        import popxl
        import popxl.ops as ops
        import popxl.transforms as transforms
        from popxl.ops import var_updates
        ir = popxl.Ir()
        n = len(SIZES) - 1
        with ir.main_graph:
            fwd = ir.create_empty_graph("mlp")
            with fwd:
                h = popxl.graph_input((BATCH, SIZES[0]), popxl.float32, "x")
                one_hot = popxl.graph_input((BATCH, SIZES[-1]), popxl.float32, "one_hot")
                params = []
                for i in range(n):
                    w = popxl.graph_input(weights[f"W{i}"].shape, popxl.float32, f"W{i}")
                    bias = popxl.graph_input(weights[f"b{i}"].shape, popxl.float32, f"b{i}")
                    params += [w, bias]
                    h = h @ w + bias
                    if i + 1 < n:
                        h = ops.relu(h)
                logp = ops.log_softmax(h, axis=1)
                popxl.graph_output(ops.sum(logp * one_hot) * popxl.constant(np.float32(-1.0 / BATCH)))
            bwd = transforms.autodiff(fwd, grads_required=params)  # no gradient for the data
            self.x_s = popxl.h2d_stream((BATCH, SIZES[0]), popxl.float32, "x")
            self.y_s = popxl.h2d_stream((BATCH, SIZES[-1]), popxl.float32, "one_hot")
            variables = {k: popxl.variable(v, name=k) for k, v in weights.items()}
            args = [variables[f"{p}{i}"] for i in range(n) for p in ("W", "b")]
            info = ops.call_with_info(fwd, ops.host_load(self.x_s), ops.host_load(self.y_s), *args)
            loss = info.outputs[0]
            d_loss = popxl.constant(np.float32(1.0))
            grad_info = ops.call_with_info(bwd.graph, d_loss, inputs_dict=bwd.inputs_dict(info))
            grads = bwd.fwd_parent_ins_to_grad_parent_outs(info, grad_info)
            for v in variables.values():
                var_updates.accumulate_(v, grads[v], -LR)
            self.loss_s = popxl.d2h_stream((), popxl.float32, "loss")
            ops.host_store(self.loss_s, loss)
        self.variables = variables
        self.session = popxl.Session(ir, "cpu")
        self.session.__enter__()
        self.feed(x, y)

    def feed(self, x, y):
        self.inputs = {self.x_s: x, self.y_s: np.eye(SIZES[-1], dtype=np.float32)[y]}

    def __call__(self):
        self.session.run(self.inputs)

    def weights(self):
        data = self.session.get_tensors_data(list(self.variables.values()))
        return {k: data[v] for k, v in self.variables.items()}


def agreement():
    """Largest weight difference after three identical steps, relative to the weight's largest value."""
    w0 = init_weights()
    a, b = PopartStep(w0, *make_batch(0)), PopxlStep(w0, *make_batch(0))
    for step in range(3):
        for r in (a, b):
            r.feed(*make_batch(step))
            r()
    wa, wb = a.weights(), b.weights()
    return max(float(np.max(np.abs(wa[k] - wb[k])) / np.max(np.abs(wa[k]))) for k in wa)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reps", type=int, default=21)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--sample-s", type=float, default=0.3)
    args = p.parse_args()
    diff = agreement()
    w0, (x, y) = init_weights(), make_batch(0)
    runners = {"popart": PopartStep(w0, x, y), "popxl": PopxlStep(w0, x, y)}
    samples = time_round_robin(runners, args.reps, args.warmup, args.sample_s)
    ms = {n: 1e3 * float(np.median(s)) for n, s in samples.items()}
    ratio = float(np.median(samples["popxl"] / samples["popart"]))
    print(f"threads: {os.environ['OMP_NUM_THREADS']}; MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, SGD lr {LR}")
    print(f"popart.TrainingSession: {ms['popart']:.3f} ms/step")
    print(f"popxl.Session:          {ms['popxl']:.3f} ms/step")
    print(f"popxl / popart (median of per-round ratios): {ratio:.3f}")
    print(f"max relative weight difference after 3 steps: {diff:.2e}")


if __name__ == "__main__":
    main()
