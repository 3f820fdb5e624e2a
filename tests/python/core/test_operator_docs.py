"""docs/operators.md matches the op registry (regenerate with tools/gen_op_docs.py)."""
import importlib.util
import os

import popart_core

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")


def _generator():
    spec = importlib.util.spec_from_file_location("gen_op_docs", os.path.join(ROOT, "tools", "gen_op_docs.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_operator_table_is_up_to_date():
    gen = _generator()
    with open(os.path.join(ROOT, "docs", "operators.md")) as f:
        assert f.read() == gen.generate(), "docs/operators.md is out of date: run python tools/gen_op_docs.py"


def test_table_rows_reflect_registry():
    rows = {(d, t, v): (types, grad) for d, t, v, types, grad in popart_core._operatorTable(False)}
    assert rows[("ai.onnx", "Relu", 6)][1] is True          # has a gradient
    assert rows[("ai.onnx", "ArgMax", 11)][1] is False      # integer output: none
    assert "FLOAT16" in rows[("ai.onnx", "Softmax", 13)][0]
    internal = {t for _, t, _ in (r[:3] for r in popart_core._operatorTable(True))}
    assert "SoftmaxGrad" in internal and "SoftmaxGrad" not in {t for _, t, _ in rows}
