"""Writes docs/operators.md, the operator table, from the op registry of the
built popart_core module: per domain and op, the registered versions, the
input types and whether a gradient is defined. tests/python/core/
test_operator_docs.py fails when the file is out of date.

    python tools/gen_op_docs.py            # rewrite docs/operators.md
    python tools/gen_op_docs.py --check    # exit 1 if it differs
"""
import argparse
import os
import sys
from collections import defaultdict

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "operators.md")

HEADER = """# Operators

Every operator an ONNX model or the Builder can use, generated from the op
registry by `tools/gen_op_docs.py` (a test keeps it in sync). *Versions* are
the opset versions with their own implementation: a model at opset N uses the
newest version <= N. *Types* are the element types of input 0 ("any" when
the op accepts every type). *Gradient*: the op defines a backward pass, so it
can sit between the weights and the loss of a TrainingSession.
"""


# Nodes the ONNX importer turns into constant tensors: they never become IR
# ops, so the registry does not list them.
IMPORTED_AS_TENSORS = [("ai.onnx", "Constant", v, [], False) for v in (1, 9, 11, 12, 13, 19, 21)]


def render(rows):
    ops = defaultdict(lambda: {"versions": set(), "types": set(), "grad": False})
    for domain, op_type, version, types, grad in rows:
        entry = ops[(domain, op_type)]
        entry["versions"].add(version)
        entry["types"].update(types or ["any"])
        entry["grad"] = entry["grad"] or grad
    lines = [HEADER]
    for domain in sorted({d for d, _ in ops}):
        names = sorted(t for d, t in ops if d == domain)
        grads = sum(ops[(domain, t)]["grad"] for t in names)
        lines.append(f"\n## {domain} ({len(names)} operators, {grads} with gradients)\n")
        lines.append("| Operator | Versions | Types | Gradient |")
        lines.append("|---|---|---|---|")
        for t in names:
            e = ops[(domain, t)]
            types = "any" if "any" in e["types"] else ", ".join(sorted(e["types"]))
            versions = ", ".join(str(v) for v in sorted(e["versions"]))
            lines.append(f"| {t} | {versions} | {types} | {'yes' if e['grad'] else 'no'} |")
    return "\n".join(lines) + "\n"


def generate():
    import popart_core
    return render(list(popart_core._operatorTable(False)) + IMPORTED_AS_TENSORS)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="compare instead of writing")
    args = p.parse_args()
    text = generate()
    if args.check:
        with open(DOC) as f:
            same = f.read() == text
        print("docs/operators.md is " + ("up to date" if same else "out of date: run tools/gen_op_docs.py"))
        sys.exit(0 if same else 1)
    with open(DOC, "w") as f:
        f.write(text)
    print(f"wrote {os.path.normpath(DOC)}")


if __name__ == "__main__":
    main()
