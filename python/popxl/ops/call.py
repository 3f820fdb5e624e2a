"""popxl.ops.call: the module PopXL programs import CallSiteInfo (and call, call_with_info) from."""
from popxl.ops._call import CallSiteInfo, call, call_with_info  # noqa: F401
