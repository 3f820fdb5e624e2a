"""Host streams: h2d_stream (host to device) and d2h_stream (device to host)."""
from popxl import context
from popxl.dtypes import dtype as _dtype


class _Stream:
    def __init__(self, ir, tid, shape, dt):
        self._ir = ir
        self._id = tid
        self.shape = tuple(shape)
        self.dtype = _dtype.as_dtype(dt)

    @property
    def tensor_id(self) -> str:
        return self._id

    def __hash__(self):
        return hash((id(self._ir), self._id))

    def __eq__(self, o):
        return type(o) is type(self) and o._ir is self._ir and o._id == self._id

    def __repr__(self):
        return f"{type(self).__name__}[{self._id} {self.dtype.name} {self.shape}]"


class HostToDeviceStream(_Stream):
    """A stream of host data read on the device with ops.host_load."""


class DeviceToHostStream(_Stream):
    """A stream of device data written with ops.host_store and returned by Session.run."""


def h2d_stream(shape, dtype, name=None) -> HostToDeviceStream:
    """A new host-to-device stream of tensors of `shape` and `dtype` (main graph)."""
    g = context.get_main_graph()
    tid = g._new_id(name or "h2d_stream")
    s = HostToDeviceStream(g.ir, tid, shape, dtype)
    g.ir._h2d[tid] = s
    return s


def d2h_stream(shape, dtype, name=None) -> DeviceToHostStream:
    """A new device-to-host stream of tensors of `shape` and `dtype`."""
    g = context.get_main_graph()
    tid = g._new_id(name or "d2h_stream")
    s = DeviceToHostStream(g.ir, tid, shape, dtype)
    g.ir._d2h[tid] = s
    return s
