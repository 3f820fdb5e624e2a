"""A fixed-seed mutation campaign (about a minute): no mutated model may crash
the process, hang, or raise anything but a popart exception. Longer campaigns:
`python tests/fuzz/fuzz_models.py --minutes 30`."""
import os

import fuzz_models

SEED = 20261125
CASES = int(os.environ.get("FUZZ_CASES", "5000"))  # scripts/sanitize.sh runs fewer (slower under ASan)


def test_seeded_campaign_finds_no_defect():
    result = fuzz_models.campaign(seed=SEED, cases=CASES, timeout=30)
    report = "\n".join(f"{d['outcome']} case {d['seed']}:{d['index']} ({d['model']}, {d['kind']}): {d['detail']}"
                       for d in result["defects"])
    assert not result["defects"], report
    counts = result["counts"]
    # the campaign exercises both sides: mutated models that still run and ones popart rejects
    assert counts.get("ok", 0) >= CASES // 20 and counts.get("popart_error", 0) >= CASES // 4, counts


def test_cases_are_reproducible():
    seeds = fuzz_models.seed_models()
    for index in range(20):
        assert fuzz_models.make_case(seeds, SEED, index) == fuzz_models.make_case(seeds, SEED, index)
    assert fuzz_models.make_case(seeds, SEED, 0) != fuzz_models.make_case(seeds, SEED + 1, 0)


def test_worker_reports_signal_deaths_and_hangs():
    env = fuzz_models.worker_env()
    # These children run no popart code; under scripts/sanitize.sh the preloaded AddressSanitizer would catch
    # the SIGSEGV itself (a report and an abort instead of the signal death being classified).
    env.pop("LD_PRELOAD", None)
    dies = "import os, signal, sys\nfor line in sys.stdin: os.kill(os.getpid(), signal.SIGSEGV)\n"
    sleeps = "import sys, time\nfor line in sys.stdin: time.sleep(60)\n"
    case = {"path": "m.onnx", "inputs": [], "outputs": []}
    for code, outcome, detail in [(dies, "crash", "signal 11"), (sleeps, "hang", "no answer")]:
        w = fuzz_models.Worker(env, code)
        got, text = w.run(case, timeout=5)
        w.close()
        assert got == outcome and detail in text, (got, text)
