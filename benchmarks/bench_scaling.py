#!/usr/bin/env python3
"""Scaling of popart inference with batch size and threads, and compile time of large models.

(a) The MLP 784-512-512-10 and ResNet-18 (224x224, BatchNorm kept) of bench_inference.py at
    batch sizes 1, 8, 64 and 256, with 1 and 2 threads: median ms per batch and samples/s.
(b) Time to build the session (ONNX import, IR passes) and to run prepareDevice (kernel
    creation, memory planning) for ResNet-50 (batch 1) and a 12-layer BERT-base encoder
    (4 x 128): inference sessions, and a training session (SGD with momentum) for the encoder.

The models are defined in torch (bench_inference.build_torch_model; ResNet-50 here) and
exported with the TorchScript exporter at opset 11, as the other benchmarks do; nothing is
downloaded. Every popart output is checked against torch's (rtol 1e-3, atol 1e-4) first.
Each thread count runs in a fresh process (OMP_NUM_THREADS is read when OpenMP loads), which
imports popart only.

    python benchmarks/bench_scaling.py [--batches 1 8 64 256] [--threads 1 2] [--time 2.0] [--json FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RTOL, ATOL = 1e-3, 1e-4
SCALING_MODELS = {"mlp": (784,), "resnet18": (3, 224, 224)}
COMPILE_MODELS = {"resnet50": (1, 3, 224, 224), "encoder12": (4, 128, 768)}


# ----------------------------------------------------------------------------- models (parent)
def resnet50():
    """Standard ResNet-50 (Bottleneck blocks 3-4-6-3, BatchNorm, 1000 classes), eval mode."""
    import torch
    from torch import nn

    class Bottleneck(nn.Module):
        def __init__(self, cin, width, stride):
            super().__init__()
            cout = 4 * width
            self.body = nn.Sequential(
                nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
                nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
                nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout))
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            return torch.relu(self.body(x) + (x if self.down is None else self.down(x)))

    torch.manual_seed(0)
    layers, cin = [], 64
    for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = 4 * width
    model = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                          nn.MaxPool2d(3, 2, 1), *layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(2048, 1000))
    for m in model.modules():  # non-trivial BatchNorm statistics, so outputs stay O(1)
        if isinstance(m, nn.BatchNorm2d):
            m.running_var.fill_(1.0)
            nn.init.uniform_(m.weight, 0.1, 0.3)
    return model.eval()


def build(name):
    from torch import nn
    sys.path.insert(0, HERE)
    from bench_inference import build_torch_model
    if name == "resnet50":
        return resnet50()
    if name == "encoder12":
        import torch
        layers = [build_torch_model("encoder") for _ in range(12)]
        with torch.no_grad():  # distinct weights per layer (the exporter would share equal initializers)
            for i, layer in enumerate(layers):
                torch.manual_seed(100 + i)
                for p in layer.parameters():
                    p.add_(0.01 * torch.randn_like(p))
        return nn.Sequential(*layers).eval()
    return build_torch_model(name)


def export(model, x, path):
    """ONNX (opset 11) of `model` at the input x; returns torch's output for x."""
    import warnings
    import torch
    xt = torch.from_numpy(x)
    with warnings.catch_warnings():  # the TorchScript exporter is deprecated: that is expected
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (xt,), path, opset_version=11, do_constant_folding=True, dynamo=False,
                          input_names=["input"], output_names=["output"])
    with torch.inference_mode():
        return model(xt).numpy()


def prepare_cases(workdir, batches):
    """Exports every (model, batch) and the compile models; returns the case list for the children."""
    cases = []
    rng = np.random.default_rng(0)
    for name, shape in SCALING_MODELS.items():
        model = build(name)
        for b in batches:
            x = rng.standard_normal((b, *shape), dtype=np.float32)
            path = os.path.join(workdir, f"{name}_b{b}.onnx")
            np.savez(path + ".npz", x=x, y=export(model, x, path))
            cases.append({"kind": "scaling", "model": name, "batch": b, "path": path})
    for name, shape in COMPILE_MODELS.items():
        x = rng.standard_normal(shape, dtype=np.float32)
        path = os.path.join(workdir, f"{name}.onnx")
        np.savez(path + ".npz", x=x, y=export(build(name), x, path))
        cases.append({"kind": "compile", "model": name, "batch": shape[0], "path": path})
    return cases


# ----------------------------------------------------------------------------- child (popart only)
def check(name, got, want):
    if got.shape != want.shape or not np.allclose(got, want, rtol=RTOL, atol=ATOL):
        err = np.abs(got.astype(np.float64) - want).max() if got.shape == want.shape else "shape"
        raise SystemExit(f"MISMATCH {name}: popart differs from torch (max abs err {err})")


def time_runs(fn, budget_s):
    """Median and min seconds per call: 2 warm-up calls, then at least 5 calls and budget_s."""
    fn()
    fn()
    times, start = [], time.perf_counter()
    while len(times) < 5 or time.perf_counter() - start < budget_s:
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), float(min(times))


def run_scaling(popart, case, budget_s):
    data = np.load(case["path"] + ".npz")
    s = popart.InferenceSession(fnModel=case["path"], dataFlow=popart.DataFlow(1, {"output": popart.AnchorReturnType("All")}),
                                deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    io = popart.PyStepIO({"input": data["x"]}, anchors)
    s.run(io)
    check(f"{case['model']} b{case['batch']}", anchors["output"], data["y"])
    med, best = time_runs(lambda: s.run(io), budget_s)
    return {"median_ms": 1e3 * med, "min_ms": 1e3 * best, "samples_per_s": case["batch"] / med}


def build_and_prepare(make):
    """(session, construction s, prepareDevice s)."""
    t0 = time.perf_counter()
    s = make()
    t1 = time.perf_counter()
    s.prepareDevice()
    return s, t1 - t0, time.perf_counter() - t1


def run_compile(popart, case, repeats):
    data = np.load(case["path"] + ".npz")
    out = {}
    dev = popart.DeviceManager().createCpuDevice

    def inference():
        return popart.InferenceSession(fnModel=case["path"], deviceInfo=dev(),
                                       dataFlow=popart.DataFlow(1, {"output": popart.AnchorReturnType("All")}))

    def training():
        b = popart.Builder(case["path"])
        loss = b.aiGraphcore.identityloss(["output"], reduction=popart.ReductionType.Mean)
        return popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [loss]), loss=loss,
                                      optimizer=popart.SGD({"defaultLearningRate": (0.01, False),
                                                            "defaultMomentum": (0.9, False)}),
                                      deviceInfo=dev())

    modes = [("inference", inference)] + ([("training", training)] if case["model"] == "encoder12" else [])
    for mode, make in modes:
        builds, prepares = [], []
        for r in range(repeats):
            s, t_build, t_prep = build_and_prepare(make)
            builds.append(t_build)
            prepares.append(t_prep)
            if r == 0 and mode == "inference":
                anchors = s.initAnchorArrays()
                s.run(popart.PyStepIO({"input": data["x"]}, anchors))
                check(case["model"], anchors["output"], data["y"])
            del s
        out[mode] = {"session_ms": 1e3 * float(np.median(builds)), "prepareDevice_ms": 1e3 * float(np.median(prepares))}
    return out


def child_main(cases_path, budget_s):
    import popart
    with open(cases_path) as f:
        cases = json.load(f)
    results = []
    for case in cases:
        r = run_scaling(popart, case, budget_s) if case["kind"] == "scaling" else run_compile(popart, case, 3)
        results.append({**case, **r})
        print(f"  {case['model']} b{case['batch']}: {r}", file=sys.stderr, flush=True)
    print(json.dumps(results))


# ----------------------------------------------------------------------------- parent
def run_child(cases, threads, budget_s, workdir):
    path = os.path.join(workdir, f"cases_{threads}.json")
    with open(path, "w") as f:
        json.dump(cases, f)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    print(f"{threads} thread(s) ...", file=sys.stderr, flush=True)
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", path, str(budget_s)],
                       stdout=subprocess.PIPE, env=env, text=True)
    if p.returncode != 0:
        raise SystemExit(f"the {threads}-thread run failed (exit {p.returncode})")
    return json.loads(p.stdout.strip().splitlines()[-1])


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def print_report(scaling, compiles, batches, loads):
    print(f"Inference scaling: median ms per batch (samples/s); load average during the runs: "
          + ", ".join(f"{t} thread(s) {a:.1f}-{b:.1f}" for t, (a, b) in loads.items()) + "\n")
    threads = sorted(scaling)
    print("| model | batch | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in threads) +
          (" | speed-up 2/1 |" if {1, 2} <= set(threads) else " |"))
    print("|---|---:|" + "---:|" * len(threads) + ("---:|" if {1, 2} <= set(threads) else ""))
    for model in SCALING_MODELS:
        for b in batches:
            r = {t: next(x for x in scaling[t] if x["model"] == model and x["batch"] == b) for t in threads}
            cells = [f"{r[t]['median_ms']:.3f} ({r[t]['samples_per_s']:.0f}/s)" for t in threads]
            speed = f" | {r[1]['median_ms'] / r[2]['median_ms']:.2f}x" if {1, 2} <= set(threads) else ""
            print(f"| {model} | {b} | " + " | ".join(cells) + speed + " |")
    print("\nCompile time (median of 3, 2 threads): session construction (ONNX import, IR passes) "
          "and prepareDevice (kernels, memory plan), ms\n")
    print("| model | session | construction ms | prepareDevice ms |")
    print("|---|---|---:|---:|")
    for r in compiles:
        for mode in ("inference", "training"):
            if mode in r:
                print(f"| {r['model']} (batch {r['batch']}) | {mode} | {r[mode]['session_ms']:.0f} | "
                      f"{r[mode]['prepareDevice_ms']:.0f} |")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child_main(sys.argv[2], float(sys.argv[3]))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 8, 64, 256])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--time", type=float, default=2.0, help="seconds of timed runs per case (at least 5 runs)")
    ap.add_argument("--json", help="write the raw results here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        print("exporting models ...", file=sys.stderr, flush=True)
        cases = prepare_cases(workdir, args.batches)
        scaling, loads, compiles = {}, {}, []
        for t in args.threads:
            a = load_average()
            # compile times are measured once, with 2 threads (or the largest count asked for)
            todo = [c for c in cases if c["kind"] == "scaling" or t == max(args.threads)]
            results = run_child(todo, t, args.time, workdir)
            loads[t] = (a, load_average())
            scaling[t] = [r for r in results if r["kind"] == "scaling"]
            compiles += [r for r in results if r["kind"] == "compile"]
    print_report(scaling, compiles, args.batches, loads)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scaling": scaling, "compile": compiles, "load_average": loads}, f, indent=1)


if __name__ == "__main__":
    main()
