"""Runs ALL ONNX backend node tests through popart and prints the counts:
the supported subset (every op in PopART's list, user guide 7.1) passing/total,
all node tests passing/total, and the first error line of each failure.

    PYTHONPATH=python:build/<name>/cpp/bindings python tests/python/onnx_backend/survey.py
        [--filter REGEX] [--subset-only] [--write-allowlist] [--ort] [--timeout S] [--json FILE]

Tests run in a worker subprocess (restarted after a crash or a timeout), so a
crashing kernel is reported as a failure instead of ending the survey.
--write-allowlist rewrites allowlist.txt with every passing test (supported
subset or not) and excluded.txt with a reason for every failing supported-subset
test: a hand-written reason already in excluded.txt is kept, otherwise the
first matching KNOWN_REASONS entry, otherwise "fails: <first error line>".
--ort runs onnxruntime instead, for comparison."""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _node_runner as nr  # noqa: E402


def worker():
    """Reads test names on stdin, writes one JSON result per line on stdout."""
    mode = os.environ.get("SURVEY_BACKEND", "popart")
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # stray prints from the library go to stderr, not into the protocol
    for line in sys.stdin:
        name = line.strip()
        t0 = time.time()
        try:
            baked = run_ort(name) if mode == "ort" else nr.run_test(name)
            res = {"name": name, "ok": True, "baked": bool(baked)}
        except BaseException as e:  # noqa: BLE001 (any failure is a result)
            res = {"name": name, "ok": False, "error": nr.first_line(e)}
        res["time"] = time.time() - t0
        out.write(json.dumps(res) + "\n")
        out.flush()


def run_ort(name):
    import numpy as np
    import onnxruntime as ort
    model, sets = nr.load(name)
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    for k, (inputs, outputs) in enumerate(sets):
        got = sess.run(None, dict(zip(names, inputs)))
        for j, (g, w) in enumerate(zip(got, outputs)):
            nr.compare(np.asarray(g), w, f"data set {k}, output {j}")
    return False


class Pool:
    """One worker subprocess; restarted when it dies or a test times out."""

    def __init__(self, timeout, backend):
        self.timeout, self.backend, self.proc = timeout, backend, None

    def _start(self):
        env = dict(os.environ, SURVEY_BACKEND=self.backend, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=env)

    def run(self, name):
        import selectors
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self.proc.stdin.write(name + "\n")
        self.proc.stdin.flush()
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        if not sel.select(self.timeout):
            self.close()
            return {"name": name, "ok": False, "error": f"timeout after {self.timeout}s"}
        line = self.proc.stdout.readline()
        if not line:
            rc = self.proc.wait()
            self.proc = None
            return {"name": name, "ok": False, "error": f"crashed (exit code {rc})"}
        return json.loads(line)

    def close(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def survey(names, timeout, backend, verbose):
    pool, results = Pool(timeout, backend), {}
    try:
        for i, n in enumerate(names):
            results[n] = pool.run(n)
            if verbose:
                print(f"[{i + 1}/{len(names)}] {n}: {'ok' if results[n]['ok'] else results[n]['error']}",
                      file=sys.stderr)
    finally:
        pool.close()
    return results


# Permanent exclusions, matched on the test name (first match wins).
KNOWN_REASONS = [
    (r"FLOAT8|FLOAT4|INT4|INT2|UINT4|UINT2|float8|float4|int4|uint4|int2|uint2",
     "8/4/2-bit types are storage types: only Cast, CastLike and the data-movement ops take them"),
    (r"BFLOAT16|bfloat16", "BFLOAT16 tensors are only cast and moved: the computing ops do not take them"),
    (r"^test_training_dropout",
     "Dropout in training mode draws random masks; the stored outputs come from numpy's RNG"),
    (r"^test_bernoulli", "random outputs: the stored outputs come from numpy's RNG"),
    (r"^test_identity_(opt|sequence)$|_seq$|_seq_none$|_opt$|optional|sequence",
     "sequence/optional-typed values are not PopART tensors"),
    (r"_string", "STRING tensors are not PopART data types"),
]


def known_reason(name):
    for pattern, reason in KNOWN_REASONS:
        if re.search(pattern, name):
            return reason
    return None


def is_hand_written(reason):
    return bool(reason) and not reason.startswith("fails: ")


def regressions(results):
    """Allow-listed tests that fail now and have no hand-written reason in excluded.txt: the
    allow-list is never regenerated over them."""
    reasons = nr.read_reasons()
    return sorted(n for n in nr.read_list("allowlist.txt")
                  if n in results and not results[n]["ok"] and not is_hand_written(reasons.get(n, "")))


def write_excluded(results, subset):
    old = nr.read_reasons() if os.path.exists(os.path.join(HERE, "excluded.txt")) else {}
    # A test dropped from the allow-list keeps its line (its hand-written reason) wherever it comes from.
    dropped = {n for n in nr.read_list("allowlist.txt") if n in results and not results[n]["ok"]}
    with open(os.path.join(HERE, "excluded.txt"), "w") as f:
        f.write("# Supported-subset node tests (every op in PopART's list) that are not allow-listed,\n"
                "# one per line: test name, then the reason (regenerate: survey.py --write-allowlist;\n"
                "# hand-written reasons are kept while the test still fails). A test leaves the\n"
                "# allow-list only with a hand-written reason here.\n")
        for n in sorted(n for n in subset | dropped if not results[n]["ok"]):
            reason = old.get(n, "")
            if not reason or reason.startswith("fails: "):
                reason = known_reason(n) or "fails: " + results[n]["error"]
            f.write(f"{n} {reason}\n")


def write_allowlist(results, subset):
    passing = sorted(n for n, r in results.items() if r["ok"])
    with open(os.path.join(HERE, "allowlist.txt"), "w") as f:
        f.write("# ONNX backend node tests that must pass (regenerate: survey.py --write-allowlist).\n"
                "# '*' marks tests outside PopART's supported subset; 'baked' marks tests whose\n"
                "# shape-like graph inputs are baked into Constant nodes (ops needing compile-time constants).\n")
        for n in passing:
            tags = ([] if n in subset else ["*"]) + (["baked"] if results[n].get("baked") else [])
            f.write(n + ("  # " + " ".join(tags) if tags else "") + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--filter", default=None, help="regex on test names")
    ap.add_argument("--subset-only", action="store_true")
    ap.add_argument("--write-allowlist", action="store_true")
    ap.add_argument("--ort", action="store_true", help="run onnxruntime instead of popart")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--json", default=None, help="write all results to this file")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.worker:
        return worker()

    import onnx
    supported = nr.supported_onnx_ops()
    names = nr.all_tests()
    if args.filter:
        names = [n for n in names if re.search(args.filter, n)]
    subset = {n for n in names
              if nr.in_supported_subset(onnx.load(os.path.join(nr.NODE_DIR, n, "model.onnx")), supported)}
    if args.subset_only:
        names = [n for n in names if n in subset]
    results = survey(names, args.timeout, "ort" if args.ort else "popart", args.verbose)

    failures = sorted((n, r) for n, r in results.items() if not r["ok"])
    print("\nFailures (name: first error line):")
    for n, r in failures:
        print(f"  {'S' if n in subset else ' '} {n}: {r['error']}")
    baked = sorted(n for n, r in results.items() if r.get("baked"))
    print(f"\nPassing with graph inputs baked into Constant nodes ({len(baked)}): {' '.join(baked)}")
    sub_pass = sum(1 for n in subset if results.get(n, {}).get("ok"))
    all_pass = sum(1 for r in results.values() if r["ok"])
    who = "onnxruntime" if args.ort else "popart"
    print(f"\n{who}: supported subset passing {sub_pass} / {len(subset)}")
    print(f"{who}: all node tests passing {all_pass} / {len(results)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "subset": sorted(subset)}, f, indent=1)
    if args.write_allowlist:
        if args.filter or args.ort:
            sys.exit("--write-allowlist needs a full popart run (no --filter, no --ort)")
        lost = regressions(results)
        if lost:
            sys.exit("refusing to rewrite the lists: these allow-listed tests fail now; fix them, or give each a\n"
                     "hand-written reason in excluded.txt (a line '<test> <reason>') to drop it:\n  "
                     + "\n  ".join(f"{n}: {results[n]['error']}" for n in lost))
        write_excluded(results, subset)
        write_allowlist(results, subset)


if __name__ == "__main__":
    main()
