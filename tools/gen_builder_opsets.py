#!/usr/bin/env python3
"""Writes cpp/include/popart/builder.gen.hpp and cpp/src/onnx/builder_opsets.gen.cpp:
the C++ per-opset Builder classes PopART programs use (builder->aiOnnxOpset11().relu({x})),
one method per op of cpp/src/onnx/op_table_onnx.inc in effect at each opset, with the
attributes in the table's (PopART's) order and defaults, as the Python Builder.

Usage: python3 tools/gen_builder_opsets.py   (from the repository root)"""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "cpp/src/onnx/op_table_onnx.inc"
GRAPHCORE_TABLE = ROOT / "cpp/src/onnx/op_table_graphcore.inc"
HEADER = ROOT / "cpp/include/popart/builder.gen.hpp"
SOURCE = ROOT / "cpp/src/onnx/builder_opsets.gen.cpp"
FIRST, LAST = 6, 21  # PopART has 6..11; later opsets as the Python Builder has them
NAMES = {"And": "logical_and", "Or": "logical_or", "Not": "logical_not", "Xor": "logical_xor", "If": "logical_if",
         "Ctc": "ctcloss", "Nll": "nllloss", "L1": "l1loss", "NormalizeImage": "normalize_image"}
# ai.graphcore ops whose Builder methods are shaped by hand in Python (not offered here).
GRAPHCORE_SKIP = {"Call", "PackedDataBlock", "Reshape", "Init", "PrintTensor", "ReplicatedAllReduce",
                  "ReplicatedReduceScatter", "ReplicatedAllGather", "MultiConv"}
FIRST_OUTPUT_ONLY = {"Ctc"}
CPP_KEYWORDS = {"and", "or", "not", "xor", "if", "default", "case", "switch", "int", "float", "union"}


def read_rows(table=TABLE, domain="ai.onnx"):
    rows = []
    for line in table.read_text().splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        s = re.sub(r"\b[PA]::(\w+)", r"'\1'", line.rstrip(","))
        s = s.replace("nullptr", "None").replace("false", "False").replace("true", "True")
        d, t, since, dep, min_in, max_in, _ins, min_out, max_out, _outs, attrs = ast.literal_eval(
            s.replace("{", "[").replace("}", "]"))
        if d != domain:
            continue
        rows.append(dict(type=t, since=since, deprecated=dep, max_in=max_in, min_out=min_out, max_out=max_out,
                         attrs=[dict(name=a[0], type=a[1], required=a[2], default=a[3]) for a in attrs]))
    return rows


def live(rows, version):
    """op type -> row in effect at `version`."""
    out = {}
    for r in rows:
        if r["since"] <= version and (r["type"] not in out or out[r["type"]]["since"] < r["since"]):
            out[r["type"]] = r
    return out


def cpp_default(a):
    t, text = a["type"], a["default"]
    if t == "Int":
        return text
    if t == "Float":
        return repr(float(text)) + "f"
    if t == "String":
        return '"' + text + '"'
    items = [x for x in text.split(",") if x != ""]
    if t == "Ints":
        return "std::vector<int64_t>{" + ", ".join(items) + "}"
    if t == "Floats":
        return "std::vector<float>{" + ", ".join(x + "f" for x in items) + "}"
    return "std::vector<std::string>{" + ", ".join('"' + x + '"' for x in items) + "}"


SCALAR = {"Int": "int64_t", "Float": "float", "String": "std::string"}
VECTOR = {"Ints": "std::vector<int64_t>", "Floats": "std::vector<float>", "Strings": "std::vector<std::string>"}


def param(op, a, always):
    """(declaration with default, definition, body line) of one attribute, or None to leave it out.
    `always`: write attributes with defaults even when equal to them (ai.graphcore, as PopART)."""
    n, t = a["name"], a["type"]
    var = n + "_" if n in CPP_KEYWORDS else n
    if always and n == "reduction" and t == "String":  # ai.graphcore losses: PopART's enum, written as its name
        d = "ReductionType::" + a["default"]
        return (f"ReductionType {var} = {d}", f"ReductionType {var}",
                f'  a["{n}"] = std::string(reductionName({var}));')
    if op == "Cast" and n == "to":  # PopART takes the type name: cast({x}, "FLOAT")
        return (f"const std::string &{var}", f"const std::string &{var}",
                f'  a["{n}"] = int64_t(onnxDataType(dataTypeFromString({var})));')
    if t == "Graph":
        return (f"const Builder &{var}", f"const Builder &{var}", f'  a["{n}"] = SubgraphRef{{&{var}}};')
    if t in SCALAR:
        ty = SCALAR[t]
        arg = f"const {ty} &{var}" if t == "String" else f"{ty} {var}"
        if a["required"]:
            return arg, arg, f'  a["{n}"] = {ty}({var});'
        if a["default"] is not None:
            d = cpp_default(a)
            cond = "" if always else f"if ({var} != {ty}({d})) "
            return f"{arg} = {d}", arg, f'  {cond}a["{n}"] = {ty}({var});'
        opt = f"const std::optional<{ty}> &{var}"
        return f"{opt} = std::nullopt", opt, f'  if ({var}) a["{n}"] = *{var};'
    if t in VECTOR:
        ty = VECTOR[t]
        arg = f"const {ty} &{var}"
        if a["required"]:
            return arg, arg, f'  a["{n}"] = {var};'
        if a["default"] is not None:
            d = cpp_default(a)
            cond = "" if always else f"if ({var} != {d}) "
            return f"{arg} = {d}", arg, f'  {cond}a["{n}"] = {var};'
        return f"{arg} = {ty}()", arg, f'  if (!{var}.empty()) a["{n}"] = {var};'
    return None  # Tensor, SparseTensor, TypeProto attributes: not offered (as PopART)


def method(row, cls, always=False):
    op = row["type"]
    name = NAMES.get(op, op.lower())
    decl, defn, body = [], [], []
    if op == "Constant":
        decl = ["const ConstVoidData &value", "bool is_value_sparse = false"]
        defn = ["const ConstVoidData &value", "bool is_value_sparse"]
        body = ['  if (is_value_sparse) throw error("Constant: sparse values are not supported");',
                '  a["value"] = constTensorData(value);']
    else:
        if row["max_in"] > 0:
            decl.append("const std::vector<TensorId> &args")
            defn.append("const std::vector<TensorId> &args")
        if row["min_out"] != row["max_out"]:
            decl.append("unsigned num_outputs")
            defn.append("unsigned num_outputs")
        for a in row["attrs"]:
            if a["name"] == "num_outputs" and row["min_out"] != row["max_out"]:  # Split-18: from num_outputs
                body.append('  if (args.size() < 2) a["num_outputs"] = int64_t(num_outputs);')
                continue
            p = param(op, a, always)
            if p is None:
                if a["required"]:
                    return None
                continue
            decl.append(p[0])
            defn.append(p[1])
            body.append(p[2])
    decl.append("const DebugContext &debugContext = {}")
    defn.append("const DebugContext &debugContext")
    many = row["max_out"] != 1 and op not in FIRST_OUTPUT_ONLY
    ret = "std::vector<TensorId>" if many else "TensorId"
    args = "args" if row["max_in"] > 0 and op != "Constant" else "{}"
    nout = "static_cast<int>(num_outputs)" if row["min_out"] != row["max_out"] else "-1"
    call = f'addNode("{op}", {args}, {nout}, a, debugContext)'
    lines = [f"{ret} {cls}::{name}({', '.join(defn)}) {{", "  NodeAttributes a;"] + body
    lines.append(f"  return {call};" if many else f"  return {call}.at(0);")
    lines.append("}")
    return f"  {ret} {name}({', '.join(decl)});", "\n".join(lines)


def main():
    rows = read_rows()
    hdr, src = [], []
    previous = {}
    for v in range(FIRST, LAST + 1):
        now = live(rows, v)
        cls, base = f"AiOnnxOpset{v}", f"AiOnnxOpset{v - 1}" if v > FIRST else "DomainOpSet"
        decls = []
        for op in sorted(now):
            row = now[op]
            if previous.get(op) is row or row["deprecated"]:
                continue
            m = method(row, cls)
            if m:
                decls.append(m[0])
                src.append(m[1])
        previous = now
        ctor = (f"  explicit {cls}(Builder *builder) : {base}(builder, \"ai.onnx\", {v}) {{}}\n"
                f"  {cls}(Builder *builder, const std::string &domain, int version) : {base}(builder, domain, version) {{}}")
        hdr.append(f"/// ai.onnx opset {v}: the ops new or changed in it; the others come from the base.\n"
                   f"class {cls} : public {base} {{\npublic:\n{ctor}\n" + "\n".join(decls) + "\n};\n")
    graphcore = []
    for row in sorted(read_rows(GRAPHCORE_TABLE, "ai.graphcore"), key=lambda r: r["type"]):
        if row["type"] in GRAPHCORE_SKIP or row["max_out"] == 0:
            continue
        m = method(row, "AiGraphcoreOpset1", always=True)
        if m:
            graphcore.append(m[0])
            src.append(m[1])
    hdr.append("/// ai.graphcore opset 1 (PopART's custom ops: losses, scale, subsample, ...).\n"
               "class AiGraphcoreOpset1 : public DomainOpSet {\npublic:\n"
               "  explicit AiGraphcoreOpset1(Builder *builder) : DomainOpSet(builder, \"ai.graphcore\", 1) {}\n"
               + "\n".join(graphcore) + "\n};\n")
    HEADER.write_text(
        "// GENERATED by tools/gen_builder_opsets.py from op_table_onnx.inc and op_table_graphcore.inc: do not edit.\n"
        "// Per-opset Builder interfaces (PopART's builder.gen.hpp): builder->aiOnnxOpset11().relu({x}).\n"
        "#pragma once\n#include \"popart/builder.hpp\"\n#include \"popart/sessionoptions.hpp\"  // ReductionType\n"
        "#include <optional>\n\nnamespace popart {\n\n"
        + "\n".join(hdr) + "\n} // namespace popart\n")
    SOURCE.write_text(
        "// GENERATED by tools/gen_builder_opsets.py from op_table_onnx.inc and op_table_graphcore.inc: do not edit.\n"
        "#include \"popart/builder.gen.hpp\"\n#include \"popart/error.hpp\"\n\nnamespace popart {\nnamespace {\n\n"
        "const char *reductionName(ReductionType r) {\n"
        "  switch (r) {\n  case ReductionType::Sum: return \"Sum\";\n  case ReductionType::Mean: return \"Mean\";\n"
        "  case ReductionType::NoReduction: return \"NoReduction\";\n  default: break;\n  }\n"
        "  throw error(\"invalid ReductionType {}\", static_cast<int>(r));\n}\n\n} // namespace\n\n"
        + "\n\n".join(src) + "\n\n} // namespace popart\n")


if __name__ == "__main__":
    main()
