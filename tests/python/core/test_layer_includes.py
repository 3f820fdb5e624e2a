"""The C++ sources are layered onnx -> core -> ops -> patterns/transforms ->
cpu -> session: no file may include a header of a layer above its own."""
import pathlib
import re

SRC = pathlib.Path(__file__).resolve().parents[3] / "cpp" / "src"
RANK = {"onnx": 0, "core": 1, "ops": 2, "patterns": 3, "transforms": 3, "cpu": 4, "session": 5}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/', re.M)

# Upward includes not yet removed (the ONNX importer still lives in onnx/ and
# builds ops; the op-schema table uses core's name suggestions). The list may
# only shrink: an entry that no longer occurs fails the test too.
KNOWN = {
    ("onnx/import.cpp", "ops"),
    ("onnx/import.cpp", "transforms"),
    ("onnx/builder_attributes.cpp", "ops"),
    ("onnx/op_schema.cpp", "core"),
}


def upward_includes(src=SRC):
    found = set()
    for path in sorted(src.rglob("*.[ch]pp")):
        rel = path.relative_to(src)
        layer = rel.parts[0]
        for target in INCLUDE.findall(path.read_text()):
            if target in RANK and RANK[target] > RANK[layer]:
                found.add((rel.as_posix(), target))
    return found


def test_no_new_upward_include():
    new = upward_includes() - KNOWN
    assert not new, f"includes running up the layers: {sorted(new)}"


def test_known_exceptions_still_exist():
    gone = KNOWN - upward_includes()
    assert not gone, f"remove these fixed entries from KNOWN: {sorted(gone)}"


def test_check_detects_an_upward_include(tmp_path):
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "x.cpp").write_text('#include "cpu/devicex.hpp"\n#include "onnx/model.hpp"\n')
    assert upward_includes(tmp_path) == {("core/x.cpp", "cpu")}
