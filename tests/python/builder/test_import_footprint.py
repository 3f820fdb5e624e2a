"""`import popart` loads what every program needs only: ml_dtypes (BFLOAT16 and the 8/4/2-bit types) and
tempfile (atomic saves) come when first used, and the types still map both ways then."""
import subprocess
import sys

CODE = """
import sys, numpy as np, popart
print(sorted(m for m in ('ml_dtypes', 'tempfile') if m in sys.modules))
print(popart.tensorinfo.numpy_type_of('FLOAT8E4M3FN'))
print(popart.tensorinfo.popart_type_of(popart.tensorinfo.numpy_type_of('BFLOAT16')))
print('ml_dtypes' in sys.modules)
"""


def test_optional_modules_load_on_first_use():
    p = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")
    assert lines[0] == "[]"
    assert lines[1] == "float8_e4m3fn"
    assert lines[2] == "BFLOAT16"
    assert lines[3] == "True"


def test_unknown_types_still_raise():
    import numpy as np
    import pytest

    import popart
    with pytest.raises(TypeError, match="has no PopART equivalent"):
        popart.tensorinfo.popart_type_of(np.dtype("U3"))
    with pytest.raises(TypeError, match="has no numpy equivalent"):
        popart.tensorinfo.numpy_type_of("NOTATYPE")
