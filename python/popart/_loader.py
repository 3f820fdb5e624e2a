"""Find the native libraries before popart_core is imported.

RPATHs cover regular and editable installs; this preload also covers installs
where site-packages is not under the prefix that holds oneDNN (user site,
--target, unusual venv layouts)."""
import ctypes
import glob
import os
import sys
import sysconfig


def _candidate_dirs():
    seen = []
    for base in (sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(sysconfig.get_paths()["purelib"]))):
        for d in (os.path.join(base, "lib"), base):
            if d not in seen:
                seen.append(d)
    return seen


def preload():
    for d in _candidate_dirs():
        hits = glob.glob(os.path.join(d, "libdnnl.so.3*"))
        if hits:
            try:
                ctypes.CDLL(sorted(hits)[0], mode=ctypes.RTLD_GLOBAL)
            except OSError:
                continue
            return
