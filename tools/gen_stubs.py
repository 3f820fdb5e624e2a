"""Writes python/popart_core-stubs/, the PEP 561 type stubs (.pyi) of the compiled
module popart_core and its submodule _ir, with pybind11-stubgen, from the
popart_core that `import popart` loads. The stubs are kept in the repository and
shipped in the wheel; tests/python/core/test_stubs.py regenerates them and fails
when they differ. Run this after changing a binding:

    python tools/gen_stubs.py            # rewrite python/popart_core-stubs/
    python tools/gen_stubs.py --check    # exit 1 if they differ
"""
import argparse
import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
STUBS = os.path.join(ROOT, "python", "popart_core-stubs")

# Imports popart first (it preloads oneDNN), then runs pybind11-stubgen on popart_core.
_RUN = """
import sys
import popart  # noqa: F401
from pybind11_stubgen import main
sys.argv = ["pybind11-stubgen", "popart_core", "--root-suffix=-stubs", "-o", sys.argv[1],
            "--numpy-array-remove-parameters", "--enum-class-locations=.+:popart_core",
            # _ir's own classes name each other before all are bound (bind_ir.cpp): typed as `...`
            "--ignore-invalid-expressions=popart::(Graph|Ir|Op|Tensor)$", "--exit-code"]
main()
"""


def _split_params(text):
    """Top-level comma-separated parts of a parameter list."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c in "([{"
        depth -= c in ")]}"
        if c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


_DEF = re.compile(r"^(\s*def \w+\()(.*)(\) -> .*:.*)$")


def _required_after_default(line):
    """pybind11 allows a required argument after one with a default (Python does not).
    In such a signature the earlier defaults are dropped: the stub then asks for every
    argument up to the last required one, which the module accepts."""
    m = _DEF.match(line)
    if not m:
        return line
    params = _split_params(m.group(2))
    plain = [i for i, p in enumerate(params) if "=" not in p and not p.startswith("*")]
    if not plain:
        return line
    last = plain[-1]
    fixed = [p.split(" = ")[0] if i < last else p for i, p in enumerate(params)]
    return m.group(1) + ", ".join(fixed) + m.group(3)


def generate(out_dir):
    """Writes the stubs into out_dir/popart_core-stubs and returns that folder."""
    env = dict(os.environ)
    subprocess.run([sys.executable, "-c", _RUN, out_dir], check=True, env=env)
    folder = os.path.join(out_dir, "popart_core-stubs")
    for name in stub_files(folder):
        path = os.path.join(folder, name)
        with open(path) as f:
            lines = f.read().split("\n")
        with open(path, "w") as f:
            f.write("\n".join(_required_after_default(line) for line in lines))
    return folder


def stub_files(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder)
                  for d, _, files in os.walk(folder) for f in files if f.endswith(".pyi"))


def differences(generated, committed):
    """File names that are missing, extra or different between two stub folders."""
    a, b = stub_files(generated), stub_files(committed) if os.path.isdir(committed) else []
    diff = sorted(set(a) ^ set(b))
    diff += [f for f in set(a) & set(b)
             if not filecmp.cmp(os.path.join(generated, f), os.path.join(committed, f), shallow=False)]
    return sorted(diff)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="compare only; exit 1 when the stubs are out of date")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        generated = generate(tmp)
        diff = differences(generated, STUBS)
        if args.check:
            if diff:
                print("out of date: " + ", ".join(diff) + " (run python tools/gen_stubs.py)")
                return 1
            return 0
        shutil.rmtree(STUBS, ignore_errors=True)
        shutil.copytree(generated, STUBS)
        print(f"wrote {len(stub_files(STUBS))} stub files into {os.path.relpath(STUBS, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
