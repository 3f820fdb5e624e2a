"""popart.ir.ops: popxl's ops under popart.ir's module name."""
from popxl.ops import *  # noqa: F401,F403
