"""Inference benchmark: popart-cpu vs onnxruntime vs torch eager on the same ONNX models.

Every model is defined here in torch, exported once with the TorchScript exporter
(opset 11, constant folding), and run by three frameworks in one process:

  popart       popart.InferenceSession on DeviceManager().createCpuDevice()
  onnxruntime  CPUExecutionProvider, intra_op_num_threads=2, inter_op_num_threads=1, sequential,
               otherwise its defaults (worker spinning on, as users run it)
  torch        eager nn.Module under torch.inference_mode(), torch.set_num_threads(2)

Outputs are checked against onnxruntime (rtol 1e-3, atol 1e-4) before timing. Timing
interleaves the frameworks round-robin (the starting framework rotates every round) so
machine noise hits all of them alike, and reports the median time per batch. Peak
resident memory (VmHWM) is measured in a fresh subprocess per (framework, model).

    python benchmarks/bench_inference.py [--models mlp,cnn,resnet18,encoder] [--reps N] [--quick]

See benchmarks/README.md for how to read the output.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "2")  # popart (OpenMP/oneDNN) threads; before any import
# torch ships its own libgomp.so.1 and, imported first, initialises the one OpenMP
# runtime everyone shares: set the spin count popart would choose before any import.
if not {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"} & set(os.environ):
    os.environ["GOMP_SPINCOUNT"] = "30000"
NUM_THREADS = int(os.environ["OMP_NUM_THREADS"])

import numpy as np  # noqa: E402

RTOL, ATOL = 1e-3, 1e-4
ALL_MODELS = ["mlp", "cnn", "resnet18", "encoder"]
BPS_MODELS = {"mlp", "cnn"}  # also measured with popart batchesPerStep=10
BPS = 10
IDLE_GAP_S = 0.1  # idle time before each timing sample (onnxruntime's workers spin ~40 ms after a call)
# (model -> batch, per-sample input shape)
SPECS = {
    "mlp": (64, (784,)),
    "cnn": (32, (1, 28, 28)),
    "resnet18": (8, (3, 224, 224)),
    "encoder": (4, (128, 768)),
}


# ----------------------------------------------------------------------------- models
def build_torch_model(name):
    """The eval-mode torch module for `name` (random weights, seeded)."""
    import torch
    from torch import nn

    torch.manual_seed(0)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                     nn.Linear(512, 10))

        def forward(self, x):
            return self.net(x)

    class MnistCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3)
            self.conv2 = nn.Conv2d(32, 64, 3)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = torch.relu(self.conv1(x))
            x = torch.relu(self.conv2(x))
            x = torch.flatten(nn.functional.max_pool2d(x, 2), 1)
            return self.fc2(torch.relu(self.fc1(x)))

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return torch.relu(y + (x if self.down is None else self.down(x)))

    class ResNet18(nn.Module):
        def __init__(self, classes=1000):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                      nn.MaxPool2d(3, 2, 1))
            layers, cin = [], 64
            for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
                layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
                cin = cout
            self.layers = nn.Sequential(*layers)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(512, classes)

        def forward(self, x):
            return self.fc(torch.flatten(self.pool(self.layers(self.stem(x))), 1))

    class EncoderLayer(nn.Module):
        """BERT-base encoder layer (post-LayerNorm), written with plain Linear/matmul/softmax."""

        def __init__(self, hidden=768, heads=12, ffn=3072):
            super().__init__()
            self.heads, self.dh = heads, hidden // heads
            self.q, self.k, self.v = (nn.Linear(hidden, hidden) for _ in range(3))
            self.o = nn.Linear(hidden, hidden)
            self.ln1, self.ln2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
            self.ff1, self.ff2 = nn.Linear(hidden, ffn), nn.Linear(ffn, hidden)
            self.gelu = nn.GELU()

        def split(self, t):  # [B, S, H] -> [B, heads, S, dh]
            b, s, _ = t.shape
            return t.reshape(b, s, self.heads, self.dh).transpose(1, 2)

        def forward(self, x):
            b, s, h = x.shape
            q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
            att = torch.softmax(torch.matmul(q, k.transpose(2, 3)) / (self.dh ** 0.5), dim=-1)
            ctx = torch.matmul(att, v).transpose(1, 2).reshape(b, s, h)
            x = self.ln1(x + self.o(ctx))
            return self.ln2(x + self.ff2(self.gelu(self.ff1(x))))

    model = {"mlp": MLP, "cnn": MnistCNN, "resnet18": ResNet18, "encoder": EncoderLayer}[name]()
    if name == "resnet18":  # realistic BatchNorm statistics: one training-mode pass
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.momentum = None  # cumulative average
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.2, 0.2)
        model.train()
        with torch.no_grad():
            model(torch.randn(8, 3, 224, 224))
    return model.eval()


def make_inputs(name, bps):
    """Deterministic inputs, shape [batch, ...] (bps == 1) or [bps, batch, ...]."""
    batch, shape = SPECS[name]
    lead = (batch,) if bps == 1 else (bps, batch)
    return np.random.default_rng(1 + bps).standard_normal(lead + shape).astype(np.float32)


def export_onnx(model, name, path):
    import warnings
    import torch
    x = torch.from_numpy(make_inputs(name, 1))
    with warnings.catch_warnings():  # the TorchScript exporter is deprecated: that is expected
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), path, opset_version=11, do_constant_folding=True, dynamo=False,
                          input_names=["input"], output_names=["output"])


# ----------------------------------------------------------------------------- runners
# A runner is a zero-argument callable doing one run (bps batches), with `.output()`
# returning the last result as numpy and `.batches` = batches per call.
class OrtRunner:
    batches = 1

    def __init__(self, onnx_path, x):
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.intra_op_num_threads = NUM_THREADS
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # Otherwise onnxruntime's defaults, as its users run it (its workers spin between
        # calls: time_round_robin leaves an idle gap before each sample so that the spinning
        # does not slow the framework timed next).
        self.sess = ort.InferenceSession(onnx_path, so, providers=["CPUExecutionProvider"])
        self.feed = {"input": x}
        self.out = None

    def __call__(self):
        self.out = self.sess.run(None, self.feed)[0]

    def output(self):
        return self.out


class TorchRunner:
    batches = 1

    def __init__(self, model, x):
        import torch
        torch.set_num_threads(NUM_THREADS)
        self.torch, self.model, self.x = torch, model, torch.from_numpy(x)
        self.out = None

    def __call__(self):
        with self.torch.inference_mode():
            self.out = self.model(self.x)

    def output(self):
        return self.out.numpy()


class PopartRunner:
    def __init__(self, onnx_path, x, bps):
        import popart
        self.batches = bps
        self.session = popart.InferenceSession(
            fnModel=onnx_path,
            dataFlow=popart.DataFlow(bps, {"output": popart.AnchorReturnType("All")}),
            deviceInfo=popart.DeviceManager().createCpuDevice())
        self.session.prepareDevice()
        self.anchors = self.session.initAnchorArrays()
        self.stepio = popart.PyStepIO({"input": x}, self.anchors)

    def __call__(self):
        self.session.run(self.stepio)

    def output(self):
        return self.anchors["output"]


# ----------------------------------------------------------------------------- timing
def calibrate(fn, target_s):
    """Calls per timing sample so that one sample lasts about target_s."""
    t = time.perf_counter()
    fn()
    dt = time.perf_counter() - t
    return max(1, int(round(target_s / max(dt, 1e-6))))


def time_round_robin(runners, reps, warmup, target_s):
    """Seconds per batch of every sample of each runner, sampled round-robin with a rotating
    start: sample r of every runner comes from the same round, so ratios can be taken per round."""
    names = list(runners)
    for _ in range(warmup):
        for n in names:
            runners[n]()
    inner = {n: calibrate(runners[n], target_s) for n in names}
    samples = {n: [] for n in names}
    for r in range(reps):
        for n in names[r % len(names):] + names[:r % len(names)]:
            fn, k = runners[n], inner[n]
            time.sleep(IDLE_GAP_S)  # the previous framework's spinning workers go to sleep
            fn()                    # untimed: wakes this framework's workers
            t = time.perf_counter()
            for _ in range(k):
                fn()
            samples[n].append((time.perf_counter() - t) / (k * fn.batches))
    return {n: np.array(s) for n, s in samples.items()}


def check(name, got, ref):
    """'ok' or a description of the mismatch against the reference output."""
    got = np.asarray(got).reshape(ref.shape)
    if np.allclose(got, ref, rtol=RTOL, atol=ATOL):
        return "ok"
    err = np.abs(got - ref)
    return (f"MISMATCH {name}: max abs err {err.max():.3g}, "
            f"{np.mean(err > ATOL + RTOL * np.abs(ref)) * 100:.2f}% of elements out of tolerance")


# ----------------------------------------------------------------------------- memory
def vm_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def child_main(framework, model_name, workdir, runs):
    """Subprocess body: import one framework, load, run; print peak RSS as JSON."""
    x = np.load(os.path.join(workdir, f"{model_name}.npy"))
    onnx_path = os.path.join(workdir, f"{model_name}.onnx")
    if framework == "onnxruntime":
        import onnxruntime  # noqa: F401
    elif framework == "torch":
        import torch
    else:
        import popart  # noqa: F401
    base = vm_kib("VmHWM")
    if framework == "onnxruntime":
        fn = OrtRunner(onnx_path, x)
    elif framework == "torch":
        model = build_torch_model(model_name)
        model.load_state_dict(torch.load(os.path.join(workdir, f"{model_name}.pt")))
        fn = TorchRunner(model, x)
    else:
        fn = PopartRunner(onnx_path, x, 1)
    stages = [("load", vm_kib("VmHWM"))]
    fn()
    stages.append(("first run", vm_kib("VmHWM")))
    for _ in range(runs - 1):
        fn()
    print(json.dumps({"peak_kib": vm_kib("VmHWM"), "import_kib": base, "stages": stages}))


def measure_memory(framework, model_name, workdir, runs):
    """(peak MiB, peak MiB minus the after-import peak, growth per stage), or an error string."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child", framework, model_name, workdir, str(runs)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return f"failed: {last_line(p.stderr)}"
    r = json.loads(p.stdout.strip().splitlines()[-1])
    prev, growth = r["import_kib"], []
    for stage, kib in r["stages"]:
        growth.append(f"{stage} +{(kib - prev) / 1024:.0f}")
        prev = kib
    return r["peak_kib"] / 1024, (r["peak_kib"] - r["import_kib"]) / 1024, ", ".join(growth)


def last_line(text):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else "(no output)"


# ----------------------------------------------------------------------------- main
FRAMEWORKS = ["popart", "onnxruntime", "torch"]


def bench_model(name, args, workdir):
    """Exports, checks and times one model; returns a result dict for the table."""
    import torch
    batch, _ = SPECS[name]
    model = build_torch_model(name)
    onnx_path = os.path.join(workdir, f"{name}.onnx")
    export_onnx(model, name, onnx_path)
    torch.save(model.state_dict(), os.path.join(workdir, f"{name}.pt"))
    x = make_inputs(name, 1)
    np.save(os.path.join(workdir, f"{name}.npy"), x)

    res = {"model": name, "batch": batch, "errors": {}, "checks": {}}
    runners = {"onnxruntime": OrtRunner(onnx_path, x), "torch": TorchRunner(model, x)}
    t0 = time.perf_counter()
    try:
        runners["popart"] = PopartRunner(onnx_path, x, 1)
        res["compile_s"] = time.perf_counter() - t0
    except Exception as e:  # report, keep benchmarking the others
        res["errors"]["popart"] = f"{type(e).__name__}: {last_line(str(e))}"
    xs = None
    if name in BPS_MODELS and "popart" in runners:
        xs = make_inputs(name, BPS)
        try:
            runners[f"popart bps={BPS}"] = PopartRunner(onnx_path, xs, BPS)
        except Exception as e:
            res["errors"][f"popart bps={BPS}"] = f"{type(e).__name__}: {last_line(str(e))}"

    for n in list(runners):  # one run each, then check against onnxruntime
        try:
            runners[n]()
        except Exception as e:
            res["errors"][n] = f"{type(e).__name__}: {last_line(str(e))}"
            del runners[n]
    ref = runners["onnxruntime"].output()
    for n in runners:
        if n == "onnxruntime":
            continue
        if n.startswith("popart bps"):
            ort = OrtRunner(onnx_path, xs[0])
            refs = []
            for i in range(BPS):
                ort.feed["input"] = xs[i]
                ort()
                refs.append(ort.output())
            res["checks"][n] = check(n, runners[n].output(), np.stack(refs))
        else:
            res["checks"][n] = check(n, runners[n].output(), ref)

    samples = time_round_robin(runners, args.reps, args.warmup, args.sample_s)
    res["time"] = {n: float(np.median(s)) for n, s in samples.items()}
    # noise: interquartile range over median, worst framework
    res["spread"] = max(float(np.subtract(*np.percentile(s, [75, 25])) / np.median(s)) for s in samples.values())
    # ratios: median over rounds of the per-round ratio (robust to load drifting between rounds)
    res["ratio"] = {(a, b): float(np.median(samples[a] / samples[b]))
                    for a in samples for b in ("onnxruntime", "torch") if b in samples and a != b}
    if args.popart_report and "popart" in runners:
        runners["popart"].session.getSummaryReport(True)
        for _ in range(5):
            runners["popart"]()
        res["report"] = runners["popart"].session.getSummaryReport(True)
    res["mem"] = {} if args.no_memory else {
        fw: measure_memory(fw, name, workdir, args.mem_runs) for fw in FRAMEWORKS}
    return res


def fmt_ms(t):
    return f"{t * 1e3:.3f}" if t is not None else "-"


def fmt_ratio(r, a, b):
    return f"{r['ratio'][(a, b)]:.2f}x" if (a, b) in r["ratio"] else "-"


def fmt_mem(m):
    return f"{m[0]:.0f} (+{m[1]:.0f})" if isinstance(m, tuple) else "n/a"


def print_table(results):
    hdr = (f"{'model':<16}{'batch':>6}{'popart ms':>11}{'ort ms':>10}{'torch ms':>10}"
           f"{'pop/ort':>9}{'pop/torch':>10}{'spread':>8}   {'peak RSS MiB (+over imports) popart / ort / torch'}")
    print(hdr)
    print("-" * len(hdr))
    for r in results:
        t = r["time"]
        pop, ort, tor = t.get("popart"), t.get("onnxruntime"), t.get("torch")
        mem = " / ".join(fmt_mem(r["mem"].get(fw)) for fw in FRAMEWORKS) if r["mem"] else "-"
        print(f"{r['model']:<16}{r['batch']:>6}{fmt_ms(pop):>11}{fmt_ms(ort):>10}{fmt_ms(tor):>10}"
              f"{fmt_ratio(r, 'popart', 'onnxruntime'):>9}{fmt_ratio(r, 'popart', 'torch'):>10}{r['spread'] * 100:>7.0f}%   {mem}")
        bn = f"popart bps={BPS}"
        if bn in t:
            print(f"{'  bps=' + str(BPS) + ' /batch':<16}{r['batch']:>6}{fmt_ms(t[bn]):>11}{fmt_ms(ort):>10}"
                  f"{fmt_ms(tor):>10}{fmt_ratio(r, bn, 'onnxruntime'):>9}{fmt_ratio(r, bn, 'torch'):>10}")
    print()
    for r in results:
        notes = [f"{n}: {c}" for n, c in r["checks"].items() if c != "ok"]
        notes += [f"{n} failed: {e}" for n, e in r["errors"].items()]
        notes += [f"memory {fw}: {m}" for fw, m in r["mem"].items() if isinstance(m, str)]
        ok = [n for n, c in r["checks"].items() if c == "ok"]
        comp = f", popart compile {r['compile_s']:.2f} s" if "compile_s" in r else ""
        print(f"{r['model']}: outputs match onnxruntime for {', '.join(ok) or 'none'}{comp}")
        mem = r["mem"].get("popart")
        if isinstance(mem, tuple):
            print(f"  popart peak-RSS growth (MiB) by stage: {mem[2]}")
        for n in notes:
            print(f"  {n}")
        if "report" in r:  # the slowest ops, then the time per op type (the per-op profile breakdown)
            lines = r["report"].strip().splitlines()
            by_type = lines.index("time by op type:") if "time by op type:" in lines else len(lines)
            print("\n".join("    " + ln for ln in lines[:min(14, by_type)] + lines[by_type:]))


def print_targets(results):
    print("\ntargets (not asserted):")
    by = {r["model"]: r for r in results}

    def line(desc, value, limit, ok_if_le=True):
        if value is None:
            print(f"  {desc:<52} n/a")
            return
        ok = value <= limit if ok_if_le else value >= limit
        print(f"  {desc:<52} {value:6.2f}x  (target <= {limit}x)  {'met' if ok else 'MISSED'}")

    def ratio(model, num, den="onnxruntime"):
        return by[model]["ratio"].get((num, den))

    for m in ("resnet18", "encoder"):
        if m in by:
            line(f"{m} latency popart/onnxruntime", ratio(m, "popart"), 1.2)
    for m in ("mlp", "cnn"):
        if m in by:
            line(f"{m} latency popart/onnxruntime (bps=1)", ratio(m, "popart"), 1.5)
            line(f"{m} per-batch popart(bps={BPS})/onnxruntime", ratio(m, f"popart bps={BPS}"), 1.0)
    if "resnet18" in by:
        mem = by["resnet18"]["mem"]
        p, o = mem.get("popart"), mem.get("onnxruntime")
        v = p[0] / o[0] if isinstance(p, tuple) and isinstance(o, tuple) else None
        line("resnet18 peak RSS popart/onnxruntime", v, 1.5)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default=",".join(ALL_MODELS),
                    help=f"comma-separated subset of {','.join(ALL_MODELS)}")
    ap.add_argument("--reps", type=int, default=None, help="timing samples per framework (default 15, quick 5)")
    ap.add_argument("--quick", action="store_true", help="fewer samples, shorter samples, fewer memory runs")
    ap.add_argument("--no-memory", action="store_true", help="skip the peak-RSS subprocesses")
    ap.add_argument("--popart-report", action="store_true",
                    help="print popart's per-op time summary (getSummaryReport) for each model")
    args = ap.parse_args()
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    bad = [m for m in models if m not in ALL_MODELS]
    if bad:
        ap.error(f"unknown model(s) {bad}; choose from {ALL_MODELS}")
    args.reps = args.reps or (5 if args.quick else 15)
    args.warmup = 1 if args.quick else 3
    args.sample_s = 0.02 if args.quick else 0.05
    args.mem_runs = 2 if args.quick else 5

    import onnxruntime
    import torch
    vers = {"onnxruntime": onnxruntime.__version__, "torch": torch.__version__}
    try:
        import popart
        vers["popart"] = getattr(popart, "__version__", "?")
    except Exception as e:
        sys.exit(f"cannot import popart ({e}); set PYTHONPATH=$PWD/python:$PWD/build/<dir>/cpp/bindings")
    print(f"threads {NUM_THREADS}, reps {args.reps}, warm-up {args.warmup}; "
          + ", ".join(f"{k} {v}" for k, v in vers.items())
          + "; load average %.2f %.2f %.2f" % os.getloadavg(), flush=True)

    results = []
    with tempfile.TemporaryDirectory(prefix="bench_inference_") as workdir:
        for m in models:
            t = time.perf_counter()
            results.append(bench_model(m, args, workdir))
            print(f"  {m} done in {time.perf_counter() - t:.1f} s", flush=True)
    print("load average at end %.2f %.2f %.2f (a busy machine makes numbers noisy)\n" % os.getloadavg())
    print_table(results)
    print_targets(results)


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        child_main(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        main()
