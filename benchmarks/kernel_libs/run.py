"""Interleaved A/B run of the kernel benchmark builds (see build.sh and benchmarks/README.md).

Each round runs every build once per thread count (the order of the builds alternating from round
to round); within the onednn32 build, oneDNN 3.2 and MKL alternate case by case in one process.
Per case it keeps the best (lowest) of the rounds' median ms per call and of the CPU ms per call,
and prints a Markdown table: ms, GFLOP/s, % of the fp32 FMA peak measured on this machine
(one core's measured peak x threads), the ratios to oneDNN 3.2, CPU-time ratios and the load
average seen during the case's runs. Workload totals weight each case by its count (".xN").

    python benchmarks/kernel_libs/run.py [--rounds 3] [--threads 1,2] [--time 0.3]
        [--filter SUBSTRING] [--json results.json]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILDS = {"onednn32": ROOT / "build/kernel_libs/onednn32/kernel_bench",
          "onednn313": ROOT / "build/kernel_libs/onednn313/kernel_bench"}
BASE = "onednn-3.2"


def environment(build: str, eval_prefix: str) -> dict:
    env = dict(os.environ)
    env.setdefault("GOMP_SPINCOUNT", "30000")  # what popart sets for its GNU OpenMP team
    if build == "onednn313":
        # oneDNN 2026's CPU engine is a SYCL CPU device: the OpenCL CPU runtime of the
        # intel-opencl-rt wheel, found by the ICD loader only through this variable (or /etc/OpenCL).
        env.setdefault("OCL_ICD_FILENAMES", os.path.join(eval_prefix, "lib", "libintelocl.so"))
    return env


def run_build(build: str, threads: int, args, env: dict) -> list:
    cmd = [str(BUILDS[build]), "--threads", str(threads), "--time", str(args.time)]
    if args.filter:
        cmd += ["--filter", args.filter]
    load0 = os.getloadavg()[0]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    load = (load0 + os.getloadavg()[0]) / 2
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    for r in rows:
        r["load"] = load
    return rows


def peak_per_core(env: dict) -> float:
    """Best of five one-thread FMA-throughput runs, per second of thread CPU time."""
    best = 0.0
    for _ in range(5):
        out = subprocess.run([str(BUILDS["onednn32"]), "--peak", "--threads", "1"], env=env, check=True,
                             capture_output=True, text=True).stdout
        best = max(best, json.loads(out)["peak_gflops"])
    return best


def count_of(case: str) -> int:
    m = re.search(r"\.x(\d+)$", case)
    return int(m.group(1)) if m else 1


def workload_sets(case: str):
    """Which workload totals a case belongs to: (workload, 'inference' | 'training')."""
    w = case.split(".")[0]
    grad = ".dX" in case or ".dW" in case
    sets = []
    if w == "bert":
        if ".train." in case:
            sets.append((w, "training"))
        elif grad:
            sets.append((w, "training"))
        else:
            sets.append((w, "inference"))
            if case.startswith("bert.scores") or case.startswith("bert.context"):
                sets.append((w, "training"))  # the attention products run in the training forward too
    elif w == "resnet18":
        sets.append((w, "inference"))  # shared/bench trains the MLP, the CNN and the encoder only
    else:
        sets.append((w, "training"))  # forward products approximate the training forward
        if not grad:
            sets.append((w, "inference"))
    return sets


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--time", type=float, default=0.3, help="seconds per case and backend in each round")
    ap.add_argument("--filter", default="")
    ap.add_argument("--json", help="write every raw measurement here")
    ap.add_argument("--peak", type=float, help="fp32 GFLOP/s of one core (default: measured; a loaded "
                    "machine skews the measurement, 240 on the Xeon of 2026-11-25 when idle)")
    ap.add_argument("--eval-prefix", default=os.environ.get("EVAL_PREFIX", "/work/libeval-venv"))
    args = ap.parse_args()
    for b, p in BUILDS.items():
        if not p.exists():
            sys.exit(f"{p} missing: run benchmarks/kernel_libs/build.sh first")
    threads = [int(t) for t in args.threads.split(",")]
    envs = {b: environment(b, args.eval_prefix) for b in BUILDS}
    if args.peak:
        peak = args.peak
        print(f"fp32 FMA peak given: {peak:.0f} GFLOP/s per core (measured now: "
              f"{peak_per_core(envs['onednn32']):.0f})", flush=True)
    else:
        peak = peak_per_core(envs["onednn32"])
        print(f"fp32 FMA peak, best of 5 one-thread runs: {peak:.0f} GFLOP/s per core", flush=True)
    raw = []
    t0 = time.time()
    for r in range(args.rounds):
        order = list(BUILDS) if r % 2 == 0 else list(reversed(BUILDS))
        for t in threads:
            for b in order:
                raw += run_build(b, t, args, envs[b])
        print(f"round {r + 1}/{args.rounds} done after {time.time() - t0:.0f} s, load {os.getloadavg()[0]:.1f}",
              file=sys.stderr, flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"peak_per_core": peak, "raw": raw}, indent=1))
    summarise(raw, peak, threads)


def summarise(raw, peak, threads):
    best = {}
    loads = defaultdict(list)
    impls = {}
    for r in raw:
        key = (r["case"], r["backend"], r["threads"])
        b = best.setdefault(key, {"ms": 1e30, "cpu": 1e30, "gflop": r["gflop"]})
        b["ms"] = min(b["ms"], r["median_ms"])
        b["cpu"] = min(b["cpu"], r["cpu_ms"])
        loads[key].append(r["load"])
        impls[(r["case"], r["backend"])] = r["impl"]
    backends = sorted({k[1] for k in best}, key=lambda s: (s != BASE, s))
    other = [b for b in backends if b != BASE]
    cases = list(dict.fromkeys(r["case"] for r in raw))
    for t in threads:
        print(f"\n#### {t} thread(s): ms per call, wall (CPU time per call in brackets); GFLOP/s from wall time "
              f"and its % of the {peak * t:.0f} GFLOP/s peak of {t} core(s); ratio = backend / {BASE}, wall (CPU)\n")
        head = f"| case | GFLOP | {BASE} ms | GFLOP/s |" + "".join(f" {b} ms | GFLOP/s | ratio |" for b in other)
        head += " load |"
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for c in cases:
            base = best.get((c, BASE, t))
            if not base:
                continue
            line = f"| {c} | {base['gflop']:.3f} | {cell(base, peak * t)} |"
            for b in other:
                x = best.get((c, b, t))
                line += (f" {cell(x, peak * t)} | {x['ms'] / base['ms']:.2f} ({x['cpu'] / base['cpu']:.2f}) |"
                         if x else " - | - | - |")
            ld = [v for b in backends for v in loads.get((c, b, t), [])]
            line += f" {statistics.mean(ld):.1f} |"
            print(line)
        print(f"\nWorkload totals at {t} thread(s) (cases weighted by their count; MKL rows use MKL for the "
              "GEMMs and oneDNN 3.2 for the convolutions; ms, ratio to oneDNN 3.2):\n")
        print("| workload | " + " | ".join(backends) + " | CPU time: ms, ratios |")
        print("|---|" + "---:|" * len(backends) + "---|")
        totals = defaultdict(lambda: defaultdict(float))
        cpus = defaultdict(lambda: defaultdict(float))
        for c in cases:
            for s in workload_sets(c):
                for b in backends:
                    x = best.get((c, b, t)) or best.get((c, BASE, t))
                    if x:
                        totals[s][b] += count_of(c) * x["ms"]
                        cpus[s][b] += count_of(c) * x["cpu"]
        for s, per in totals.items():
            base = per[BASE]
            cpu = f"{BASE} {cpus[s][BASE]:.3f} ms, " + " ".join(f"{b} {cpus[s][b] / cpus[s][BASE]:.2f}" for b in other)
            print(f"| {s[0]} {s[1]} | " + " | ".join(
                f"{per[b]:.3f}" + ("" if b == BASE else f" ({per[b] / base:.2f})") for b in backends) + f" | {cpu} |")
    sums = {}
    for r in raw:
        sums.setdefault((r["case"], r["backend"]), (r.get("checksum"), r.get("postops", 1)))
    worst = {}
    for (c, b), (v, post) in sums.items():
        ref = sums.get((c, BASE), (None, 1))[0]
        if b == BASE or v is None or ref is None or (b.startswith("mkl") and post):
            continue  # MKL's GEMM has no bias/activation: only plain products compare
        d = abs(v - ref) / max(abs(ref), 1e-30)
        if d > worst.get(b, (0, ""))[0]:
            worst[b] = (d, c)
    for b in other:
        d, c = worst.get(b, (0.0, "-"))
        print(f"\nChecksums (sum of each result) of {b} vs {BASE}: largest relative difference {d:.1e} ({c})")
    print("\nImplementations:")
    for (c, b), impl in impls.items():
        print(f"  {c:24s} {b:12s} {impl}")


def cell(x, peak):
    gf = x["gflop"] / (x["ms"] / 1e3)
    return f"{x['ms']:.3f} ({x['cpu']:.3f}) | {gf:.0f} ({100 * gf / peak:.0f}%)"


if __name__ == "__main__":
    main()
