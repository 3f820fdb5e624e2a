"""Peak resident memory of a training step: popart.TrainingSession vs torch eager, one fresh process each.

The workloads of shared/bench (compare.py's sessions: the exported model plus its loss, SGD lr 0.01
momentum 0.9). Each measurement is a subprocess that imports only its framework, builds the session or
model, runs 5 steps and reports VmHWM (peak RSS) and its growth over the imports.

    PYTHONPATH=$PWD/python:$PWD/build/main/cpp/bindings \\
        python benchmarks/training_memory.py [--workloads mlp cnn encoder] [--bench DIR]
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

SHAPES = {"mlp": ([64, 784], "nll", "logprobs"), "cnn": ([32, 1, 28, 28], "nll", "logprobs"),
          "encoder": ([4, 128, 768], "mean", "output")}

CHILD = r"""
import json, sys
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
name, framework, bench = sys.argv[1], sys.argv[2], sys.argv[3]
shape, loss, out = json.loads(sys.argv[4])
import numpy as np
rs = np.random.RandomState(0)
x = rs.randn(*shape).astype(np.float32)
labels = rs.randint(0, 10, shape[0]).astype(np.int32)
if framework == "popart":
    import popart
    base = hwm()
    path = f"{bench}/models/{name}_train.onnx" if loss == "nll" else f"{bench}/models/{name}.onnx"
    b = popart.Builder(path)
    if loss == "nll":
        lab = b.addInputTensor("INT32", [shape[0]])
        l = b.aiGraphcore.nllloss([out, lab], reduction=popart.ReductionType.Mean, inputIsLogProbability=True)
    else:
        lab = None
        l = b.aiGraphcore.identityloss([out], reduction=popart.ReductionType.Mean)
    s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, {l: popart.AnchorReturnType("All")}),
                               loss=l, optimizer=popart.SGD({"defaultLearningRate": (0.01, False), "defaultMomentum": (0.9, False)}),
                               deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice(); s.weightsFromHost()
    a = s.initAnchorArrays()
    feeds = {"input": x, **({lab: labels} if lab else {})}
    for _ in range(5):
        s.run(popart.PyStepIO(feeds, a))
else:
    import torch
    torch.set_num_threads(2)
    sys.path.insert(0, bench)
    import models
    base = hwm()
    trainer_model = models.build_model(name)
    model = models.WithLogSoftmax(trainer_model) if loss == "nll" else trainer_model
    opt = models.make_optimizer(model)
    tx, tl = torch.from_numpy(x), torch.from_numpy(labels).long()
    for _ in range(5):
        opt.zero_grad()
        y = model(tx)
        (torch.nn.functional.nll_loss(y, tl) if loss == "nll" else y.mean()).backward()
        opt.step()
print(json.dumps({"peak_mib": hwm(), "over_imports_mib": hwm() - base}))
"""


def measure(name, framework, bench):
    out = subprocess.run([sys.executable, "-c", CHILD, name, framework, str(bench), json.dumps(SHAPES[name])],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", nargs="+", default=list(SHAPES))
    parser.add_argument("--bench", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "bench")
    args = parser.parse_args()
    print(f"{'workload':<10} {'popart MiB (+over import)':>28} {'torch eager MiB (+over import)':>32} {'ratio':>6}")
    for name in args.workloads:
        p, t = measure(name, "popart", args.bench), measure(name, "torch", args.bench)
        print(f"{name:<10} {p['peak_mib']:>16.0f} (+{p['over_imports_mib']:.0f}) {t['peak_mib']:>20.0f} "
              f"(+{t['over_imports_mib']:.0f}) {p['peak_mib'] / t['peak_mib']:>6.2f}")


if __name__ == "__main__":
    main()
