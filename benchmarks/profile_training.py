"""Per-op profile of a popart training step on the workloads of shared/bench (compare.py's sessions).

For each workload the popart.TrainingSession that shared/bench/compare.py times (the exported model plus
its loss, SGD lr 0.01 momentum 0.9, batchesPerStep 1) runs --steps steps; the summary report
(`getSummaryReport(resetProfile=True)`) is read after every step and each op keeps its fastest step, which
filters out the steps another process interrupted. Printed per op type: time per step, share, and for the
products (MatMul/Gemm/Conv and their gradients) the GFLOP/s against shared/bench's FLOP count of the step.

    PYTHONPATH=$PWD/python:$PWD/build/main/cpp/bindings \\
        python benchmarks/profile_training.py [--workloads mlp cnn encoder] [--steps 20] [--bench DIR] [--ops N]

--bench defaults to ../shared/bench beside the repository; --ops N also lists the N slowest ops.
"""
import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path

PRODUCTS = ("MatMul", "Gemm", "Conv")


def parse_report(text):
    """{(op name, type, output bytes): ms} from a summary report."""
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("op "))
    ops = {}
    for line in lines[head + 1:]:
        if not line.strip():
            continue
        if line.startswith("time by op type"):
            break
        name, rest = line[:48].strip(), line[49:].split()
        ops[(name, rest[0], int(rest[-1]))] = float(rest[2])
    return ops


def profile(popart, compare, models, benchlib, name, steps):
    w = models.WORKLOADS[name]
    session = compare.PopartTraining(popart, w, 1)
    data = models.make_inputs(name, batches=1, seed=2)
    batch = {k: v[0] for k, v in data.items()}
    for _ in range(3):
        session.run(batch)
    session.session.getSummaryReport(True)
    best = {}
    for _ in range(steps):
        session.run(batch)
        for key, ms in parse_report(session.session.getSummaryReport(True)).items():
            best[key] = min(best.get(key, float("inf")), ms)
    flops = benchlib.onnx_graph_stats(w.train_onnx_path)["train_flops"]
    return best, flops


def print_profile(name, best, flops, top):
    total = sum(best.values())
    by_type = defaultdict(lambda: [0, 0.0])
    for (_, op_type, _), ms in best.items():
        by_type[op_type][0] += 1
        by_type[op_type][1] += ms
    product_ms = sum(ms for t, (_, ms) in by_type.items() if t.startswith(PRODUCTS))
    print(f"\n{name}: {total:.2f} ms of ops per step (fastest of each op), {flops / 1e9:.2f} GFLOP per step; "
          f"products {product_ms:.2f} ms = {flops / product_ms / 1e6:.0f} GFLOP/s, everything else "
          f"{total - product_ms:.2f} ms; load average {os.getloadavg()[0]:.1f}")
    print(f"  {'op type':<28} {'ops':>4} {'ms/step':>9} {'share':>7}")
    for op_type, (count, ms) in sorted(by_type.items(), key=lambda kv: -kv[1][1]):
        print(f"  {op_type:<28} {count:>4} {ms:>9.3f} {100 * ms / total:>6.1f}%")
    for (op, op_type, _), ms in sorted(best.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {op[:44]:<44} {op_type:<24} {ms:8.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", nargs="+", default=["mlp", "cnn", "encoder"])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--ops", type=int, default=0, help="also list the N slowest ops")
    parser.add_argument("--bench", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "bench")
    args = parser.parse_args()
    sys.path.insert(0, str(args.bench))
    import benchlib  # noqa: F401  (first: pins the thread counts)
    import compare
    import models
    import popart
    models.ensure_exported(args.workloads)
    print(f"threads: {benchlib.THREADS} (BENCH_THREADS)")
    for name in args.workloads:
        best, flops = profile(popart, compare, models, benchlib, name, args.steps)
        print_profile(name, best, flops, args.ops)


if __name__ == "__main__":
    main()
