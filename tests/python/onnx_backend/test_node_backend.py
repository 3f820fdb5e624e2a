"""ONNX backend node tests (onnx/backend/test/data/node) through popart.InferenceSession.

Every test named in allowlist.txt must pass; excluded.txt gives the reason for
each test of the supported subset (all ops in PopART's list) that is not
allow-listed. survey.py runs all node tests and regenerates the allow-list."""
import os
import sys

import onnx
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # importlib mode: no test dirs on sys.path
import _node_runner as nr  # noqa: E402

ALLOWED = nr.read_list("allowlist.txt")


@pytest.mark.parametrize("name", ALLOWED)
def test_node(name):
    nr.run_test(name)


def test_lists_are_consistent():
    """Allow-listed tests exist, and every supported-subset test is either
    allow-listed or excluded with a reason (and not both)."""
    existing = set(nr.all_tests())
    allowed, excluded = set(ALLOWED), nr.read_reasons()
    assert not allowed - existing, f"allow-listed tests that do not exist: {sorted(allowed - existing)}"
    assert not excluded.keys() - existing, f"excluded tests that do not exist: {sorted(excluded.keys() - existing)}"
    assert not allowed & excluded.keys(), f"both allowed and excluded: {sorted(allowed & excluded.keys())}"
    assert all(excluded.values()), f"excluded without a reason: {[t for t, r in excluded.items() if not r]}"
    supported = nr.supported_onnx_ops()
    subset = {n for n in existing
              if nr.in_supported_subset(onnx.load(os.path.join(nr.NODE_DIR, n, "model.onnx")), supported)}
    missing = sorted(subset - allowed - excluded.keys())
    assert not missing, f"supported-subset tests neither allow-listed nor excluded: {missing}"


def test_baking_constant_inputs():
    """Reshape's shape is a graph input in the node test: the runner bakes it."""
    assert nr.run_test("test_reshape_extended_dims") is True


def test_regenerating_the_lists_cannot_absorb_a_regression(monkeypatch):
    """survey.py --write-allowlist refuses to drop an allow-listed test that fails now, unless
    excluded.txt gives it a hand-written reason."""
    import survey
    allowed = nr.read_list("allowlist.txt")
    results = {n: {"ok": True, "error": ""} for n in allowed}
    results[allowed[0]] = {"ok": False, "error": "boom"}
    assert survey.regressions(results) == [allowed[0]]
    monkeypatch.setattr(nr, "read_reasons", lambda name="excluded.txt": {allowed[0]: "fails: boom"})
    assert survey.regressions(results) == [allowed[0]], "a generated reason is no excuse"
    monkeypatch.setattr(nr, "read_reasons", lambda name="excluded.txt": {allowed[0]: "needs sequences"})
    assert survey.regressions(results) == []
