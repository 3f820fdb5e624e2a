"""Training benchmark: popart-cpu TrainingSession vs torch eager, same models, same numerics.

The models are those of bench_inference.py (MLP 784-512-512-10 batch 64, MNIST CNN batch
32, BERT-base-like encoder layer batch 4 x seq 128), exported from torch at opset 11.
A loss is appended to each ONNX graph:

  mlp, cnn   LogSoftmax(axis=1) + ai.graphcore Nll(inputIsLogProbability, Mean) on labels
  encoder    ai.graphcore L1(lambda=1, Mean) of the output (torch: mean(|y|))

Both frameworks train with plain SGD (lr 0.01) from identical weights on identical data
(every parameter is perturbed first, so the exporter cannot merge equal initializers).
Before timing, three steps are compared: the table's last column is the largest
difference over all weights, relative to the weight's largest value.
Timing interleaves popart (batchesPerStep 1 and 10) and torch round-robin and reports the
median time per training step (one batch):

    python benchmarks/bench_training.py [--models mlp,cnn,encoder] [--reps N]
"""
import argparse
import os
import tempfile

os.environ.setdefault("OMP_NUM_THREADS", "2")
# torch ships its own libgomp.so.1 and, imported first, initialises the one OpenMP
# runtime everyone shares: set the spin count popart would choose before any import.
if not {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"} & set(os.environ):
    os.environ["GOMP_SPINCOUNT"] = "30000"
NUM_THREADS = int(os.environ["OMP_NUM_THREADS"])

import numpy as np  # noqa: E402

from bench_inference import SPECS, build_torch_model, export_onnx, time_round_robin  # noqa: E402

LR = 0.01
BPS = 10
CLASSIFIERS = {"mlp", "cnn"}


def make_batch(name, bps, seed):
    """Inputs (and labels for classifiers), with a leading bps axis when bps > 1."""
    batch, shape = SPECS[name]
    rng = np.random.default_rng(seed)
    lead = (batch,) if bps == 1 else (bps, batch)
    feed = {"input": rng.standard_normal(lead + shape).astype(np.float32)}
    if name in CLASSIFIERS:
        feed["label"] = rng.integers(0, 10, lead).astype(np.int32)
    return feed


def add_loss(name, path):
    """Appends the loss nodes to the exported model; returns (model bytes, loss id)."""
    import onnx
    from onnx import helper as oh
    m = onnx.load(path)
    g = m.graph
    if name in CLASSIFIERS:
        batch = SPECS[name][0]
        g.input.append(oh.make_tensor_value_info("label", onnx.TensorProto.INT32, [batch]))
        g.node.append(oh.make_node("LogSoftmax", ["output"], ["logp"], axis=1))
        g.node.append(oh.make_node("Nll", ["logp", "label"], ["loss"], domain="ai.graphcore", reduction=1,
                                   inputIsLogProbability=1))
    else:
        g.node.append(oh.make_node("L1", ["output"], ["loss"], domain="ai.graphcore", reduction=1, **{"lambda": 1.0}))
    del g.output[:]
    g.output.append(oh.make_tensor_value_info("loss", onnx.TensorProto.FLOAT, []))
    m.opset_import.append(oh.make_opsetid("ai.graphcore", 1))
    return m.SerializeToString(), "loss"


def torch_loss(name, model, feed):
    import torch
    y = model(torch.from_numpy(feed["input"]))
    if name in CLASSIFIERS:
        return torch.nn.functional.cross_entropy(y, torch.from_numpy(feed["label"]).long())
    return y.abs().mean()


class TorchTrainer:
    batches = 1

    def __init__(self, name, model, feed):
        import torch
        torch.set_num_threads(NUM_THREADS)
        self.name, self.model, self.feed = name, model.train(), feed
        self.opt = torch.optim.SGD(model.parameters(), lr=LR)

    def __call__(self):
        self.opt.zero_grad(set_to_none=True)
        torch_loss(self.name, self.model, self.feed).backward()
        self.opt.step()


class PopartTrainer:
    def __init__(self, proto, loss, feed, bps):
        import popart
        self.batches = bps
        self.session = popart.TrainingSession(
            fnModel=proto, dataFlow=popart.DataFlow(bps, {loss: popart.AnchorReturnType("Final")}), loss=loss,
            optimizer=popart.SGD({"defaultLearningRate": (LR, True)}),
            deviceInfo=popart.DeviceManager().createCpuDevice())
        self.session.prepareDevice()
        self.session.weightsFromHost()
        self.anchors = self.session.initAnchorArrays()
        self.stepio = popart.PyStepIO(feed, self.anchors)

    def __call__(self):
        self.session.run(self.stepio)

    def weights(self, names):
        import popart
        out = {n: np.zeros(self.session.getInfo(n).shape(), np.float32) for n in names}
        self.session.weightsToHost()
        self.session.readWeights(popart.PyWeightsIO(out))
        return out


def agreement(name, proto, loss, model, onnx_names):
    """Max relative difference of the weights after three identical SGD steps."""
    import copy
    import popart
    import torch
    ref = copy.deepcopy(model).train()
    opt = torch.optim.SGD(ref.parameters(), lr=LR)
    trainer = PopartTrainer(proto, loss, make_batch(name, 1, 0), 1)
    for step in range(3):
        feed = make_batch(name, 1, step)
        trainer.stepio = popart.PyStepIO(feed, trainer.anchors)
        trainer()
        opt.zero_grad()
        torch_loss(name, ref, feed).backward()
        opt.step()
    got = trainer.weights(list(onnx_names))
    worst = 0.0
    params = dict(ref.named_parameters())
    for onnx_name, (torch_name, transposed) in onnx_names.items():
        want = params[torch_name].detach().numpy()
        g = got[onnx_name].T if transposed else got[onnx_name].reshape(want.shape)
        worst = max(worst, float(np.max(np.abs(g - want)) / (np.max(np.abs(want)) + 1e-12)))
    return worst


def onnx_weight_names(proto, model):
    """ONNX initializer name -> (torch parameter name, transposed). The exporter keeps
    parameter names, except Linear weights it stores transposed for MatMul."""
    import onnx
    from onnx import numpy_helper
    params = {n: p.detach().numpy() for n, p in model.named_parameters()}
    out = {}
    for t in onnx.load_from_string(proto).graph.initializer:
        if t.name in params:
            out[t.name] = (t.name, False)
            continue
        a = numpy_helper.to_array(t)
        for n, p in params.items():
            if p.ndim == 2 and p.T.shape == a.shape and np.array_equal(p.T, a):
                out[t.name] = (n, True)
    return out


def distinct_parameters(model):
    """Perturbs every parameter: the exporter merges equal initializers (the two
    LayerNorms' ones/zeros), which would make popart train one shared tensor."""
    import torch
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.01 * torch.rand(p.shape, generator=gen))
    return model


def bench(name, args, workdir):
    model = distinct_parameters(build_torch_model(name))
    path = os.path.join(workdir, f"{name}.onnx")
    export_onnx(model, name, path)
    proto, loss = add_loss(name, path)
    names = onnx_weight_names(proto, model)
    diff = agreement(name, proto, loss, model, names)
    runners = {"torch": TorchTrainer(name, model, make_batch(name, 1, 0)),
               "popart": PopartTrainer(proto, loss, make_batch(name, 1, 0), 1),
               f"popart bps={BPS}": PopartTrainer(proto, loss, make_batch(name, BPS, 0), BPS)}
    samples = time_round_robin(runners, args.reps, args.warmup, args.sample_s)
    t = {n: float(np.median(s)) for n, s in samples.items()}
    ratio = {n: float(np.median(samples[n] / samples["torch"])) for n in samples if n != "torch"}
    return {"model": name, "batch": SPECS[name][0], "diff": diff, "time": t, "ratio": ratio}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default="mlp,cnn,encoder")
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--sample-s", type=float, default=0.3)
    args = p.parse_args()
    print(f"threads: {NUM_THREADS} (OMP_NUM_THREADS; torch.set_num_threads)")
    hdr = (f"{'model':<10}{'batch':>6}{'torch ms':>10}{'popart ms':>11}{'bps=10 ms':>11}"
           f"{'pop/torch':>11}{'bps10/torch':>13}{'max rel diff':>14}")
    print(hdr)
    print("-" * len(hdr))
    with tempfile.TemporaryDirectory() as workdir:
        for name in args.models.split(","):
            r = bench(name, args, workdir)
            t, q = r["time"], r["ratio"]
            print(f"{name:<10}{r['batch']:>6}{t['torch'] * 1e3:>10.2f}{t['popart'] * 1e3:>11.2f}"
                  f"{t[f'popart bps={BPS}'] * 1e3:>11.2f}{q['popart']:>10.2f}x{q[f'popart bps={BPS}']:>12.2f}x"
                  f"{r['diff']:>14.2e}", flush=True)


if __name__ == "__main__":
    main()
