"""popxl.Session: compiles an Ir and runs it on a (CPU-backed) device.

Host transfer rules: entering the outermost ``with session:`` attaches and
copies the host weights to the device; leaving it copies them back (unless
``weights_to_host_on_exit`` is False) and detaches. The host copy of the
variables is a cache of the device's: it is refreshed only when a run may have
changed the device values since the last ``weights_to_host``."""
import hashlib
import os
import time
from typing import Dict, Iterable, Mapping, Optional

import numpy as np

import popart
import popart_core
from popxl import remote as _remote
from popxl._replica_weights import ReplicaWeights
from popxl.streams import DeviceToHostStream, HostToDeviceStream
from popxl.tensor import Constant, Tensor, Variable

_DEVICE_TYPES = ("cpu", "ipu_model", "ipu_hw")
_log = popart.getLogger("python")


def _device(device_desc: str, num_ipus: int):
    if device_desc not in _DEVICE_TYPES:
        raise ValueError(f"device_desc '{device_desc}' is not one of {', '.join(_DEVICE_TYPES)}")
    dm = popart.DeviceManager()
    if device_desc == "cpu":
        return dm.createCpuDevice()
    if device_desc == "ipu_model":
        return dm.createIpuModelDevice({"numIPUs": num_ipus})
    return dm.acquireAvailableDevice(num_ipus)


def _join_instances(instances) -> None:
    """Connects this instance to the others over MPI (the collectives and weights_to_host use it)."""
    from popart import distributed
    if distributed.size() != instances.count:
        raise ValueError(f"popxl.Session: the environment describes {instances.count} instances, but MPI runs "
                         f"{distributed.size()} processes; launch with mpiexec -n {instances.count}")
    distributed.setup()


class Session:
    """Runs an Ir. The session owns the Ir from now on: it must not change."""

    def __init__(self, ir, device_desc: str = "ipu_model", weights_to_host_on_exit: bool = True):
        from popxl.ir import Ir
        if not isinstance(ir, Ir):
            raise TypeError(f"popxl.Session needs a popxl.Ir, got {type(ir).__name__}")
        if device_desc == "cpu" and ir.replication_factor > 1:
            raise ValueError("the 'cpu' device type does not support replication "
                             f"(ir.replication_factor is {ir.replication_factor}); use 'ipu_model'")
        self._ir = ir
        self._device_desc = device_desc
        self.weights_to_host_on_exit = weights_to_host_on_exit
        self._stored = ir._stored_streams()
        self._loaded = ir._loaded_streams()
        self._device = _device(device_desc, ir.instance_replication_factor)
        if ir._instances.count > 1:
            _join_instances(ir._instances)
        ir._freeze()
        _remote.before_compile(ir)
        ir._session = self
        self._pb_session = popart_core._InferenceSessionCore(ir=ir._pb_ir, deviceInfo=self._device,
                                                             name="popxl")
        t0 = time.perf_counter()
        self._pb_session.prepareDevice(False)
        self._device.detach()
        _log.info(f"popxl.Session: compiled Ir {ir.id} ({len(ir._pb_ir.getAllGraphs())} graphs) for "
                  f"'{device_desc}' in {(time.perf_counter() - t0) * 1e3:.1f} ms")
        self._use_cache(os.environ.get("POPXL_CACHE_DIR"))
        self._replica_weights = ReplicaWeights(ir, self._pb_session)
        self._host_in_sync = True
        self._entered_attached = []  # per open `with session:`: was the device attached on entry
        self._transfers = {"weights_from_host": 0, "weights_to_host": 0}

    def _use_cache(self, cache_dir: Optional[str]) -> None:
        """POPXL_CACHE_DIR: the compiled executable is saved as <dir>/popxl_<hash>.popef, or, when a file of
        the same IR is there, validated against this compilation and loaded (weights are not cached)."""
        if not cache_dir:
            return
        os.makedirs(cache_dir, exist_ok=True)
        digest = hashlib.sha256(self._ir._pb_ir.serialise().encode()).hexdigest()[:20]
        path = os.path.join(cache_dir, f"popxl_{digest}.popef")
        if os.path.exists(path):
            self._pb_session.loadExecutable(path)
            _log.info(f"popxl.Session: loaded cached executable {path}")
        else:
            self._pb_session.saveExecutable(path, True, False)
            _log.info(f"popxl.Session: saved executable {path}")
        self.cache_file = path

    # ---- properties ----
    @property
    def ir(self):
        return self._ir

    @property
    def device(self):
        return self._device

    @property
    def is_attached(self) -> bool:
        return self._device.isAttached

    # ---- context ----
    def __enter__(self) -> "Session":
        entered_attached = self.is_attached
        self._entered_attached.append(entered_attached)
        if not entered_attached:
            self._device.attach()
            self.weights_from_host()
        return self

    def __exit__(self, *exc) -> bool:
        if not self._entered_attached.pop():
            if self.weights_to_host_on_exit:
                self.weights_to_host()
            self._device.detach()
        return False

    # ---- weights ----
    def _check_attached(self, what: str):
        if not self.is_attached:
            raise popart.popart_exception(f"Session.{what}: the session is not attached to its device; "
                                          "use it inside `with session:`")

    def weights_from_host(self) -> None:
        """Copies the host values of all variables to the device (must be attached)."""
        self._check_attached("weights_from_host")
        self._pb_session.weightsFromHost()
        self._replica_weights.to_device()
        _remote.to_device(self)
        self._transfers["weights_from_host"] += 1
        _log.debug("popxl.Session: weights_from_host")

    def weights_to_host(self) -> None:
        """Copies the device values of all variables to the host (must be attached)."""
        self._check_attached("weights_to_host")
        self._pb_session.weightsToHost()
        self._replica_weights.from_device()
        _remote.to_host(self)
        self._host_in_sync = True
        self._transfers["weights_to_host"] += 1
        _log.debug("popxl.Session: weights_to_host")

    def _own_tensor(self, t, what: str):
        if not isinstance(t, Tensor):
            raise TypeError(f"Session.{what}: expected a popxl Tensor, got {type(t).__name__}")
        if t.ir is not self._ir:
            raise ValueError(f"Session.{what}: tensor '{t.id}' belongs to another Ir")
        if not isinstance(t, (Variable, Constant)):
            raise TypeError(f"Session.{what}: tensor '{t.id}' is neither a Variable nor a Constant: only their "
                            "data lives outside a run")

    def get_tensor_data(self, tensor: Tensor) -> np.ndarray:
        """The value of variable or constant `tensor` (a copy)."""
        return self.get_tensors_data([tensor])[tensor]

    def get_tensors_data(self, tensors: Iterable[Tensor]) -> Dict[Tensor, np.ndarray]:
        """The values of variables and constants, with at most one device-to-host transfer."""
        tensors = list(tensors)
        for t in tensors:
            self._own_tensor(t, "get_tensors_data")
        if self.is_attached and not self._host_in_sync and any(isinstance(t, Variable) for t in tensors):
            self.weights_to_host()
        return {t: self._host_value(t) for t in tensors}

    def _host_value(self, t: Tensor) -> np.ndarray:
        placement = _remote.placement(self._ir, t.id)
        if placement is not None:  # a remote or replica-sharded variable: the full value, kept in Python
            return placement.host_value()
        if t in self._replica_weights:
            return self._replica_weights.value(t)
        raw = t._pb_tensor.dataBytes()
        return np.frombuffer(raw, dtype=t.dtype.as_numpy()).reshape(t.shape).copy()

    def write_variable_data(self, tensor: Variable, data: np.ndarray) -> None:
        """Sets variable `tensor` to `data` on the host, and on the device when attached."""
        self.write_variables_data({tensor: data})

    def write_variables_data(self, tensor_data: Mapping[Variable, np.ndarray]) -> None:
        """Sets several variables; one host-to-device transfer when attached."""
        arrays, per_replica_data = {}, set()
        for t, data in tensor_data.items():
            self._own_tensor(t, "write_variables_data")
            if not isinstance(t, Variable):
                raise TypeError(f"Session.write_variables_data: tensor '{t.id}' is a Constant: only variables "
                                "can be written")
            arr = np.asarray(data)
            per_replica = self._per_replica_shape(t)
            if arr.shape != t.shape_on_host and arr.shape != per_replica:
                also = f" or {per_replica} (one value per replica)" if per_replica else ""
                raise ValueError(f"Session.write_variables_data: data for '{t.id}' has shape {arr.shape}, the "
                                 f"variable needs {t.shape_on_host} (its shape on the host){also}")
            arrays[t] = np.asarray(arr.astype(t.dtype.as_numpy(), copy=False), order="C")
            if arr.shape != t.shape_on_host:  # one value per replica
                per_replica_data.add(t)
                placement = _remote.placement(self._ir, t.id)
                if placement is not None:
                    placement.check_replicas(arrays[t])
        if self.is_attached and not self._host_in_sync:
            self.weights_to_host()  # keep the device's newer values of the other variables
        for t, arr in arrays.items():
            placement = _remote.placement(self._ir, t.id)
            replicas = t in per_replica_data
            if placement is not None and replicas:
                placement.set_replicas(arr.copy())
            elif placement is not None:
                placement.set_groups(arr.copy())
            elif t in self._replica_weights:
                self._replica_weights.write(t, arr, replicas)
            else:
                t._pb_tensor.setTensorData(arr)
        if self.is_attached:
            self.weights_from_host()

    def _per_replica_shape(self, t: Variable) -> Optional[tuple]:
        """The shape of one value per replica, which a variable of retrieval mode "all_replicas" reads and
        may be written with (no leading axis with one replica); None for other variables."""
        if t.retrieval_mode != "all_replicas":
            return None
        replicas = self._ir.replication_factor
        return ((replicas,) if replicas > 1 else ()) + tuple(t.meta_shape or t.shape)

    # ---- running ----
    def expected_inputs(self):
        """The host-to-device streams run() needs data for."""
        return list(self._loaded)

    def _expected_shape(self, stream) -> tuple:
        lead = ()
        if self._ir.num_host_transfers > 1:
            lead += (self._ir.num_host_transfers,)
        if self._ir.instance_replication_factor > 1:
            lead += (self._ir.instance_replication_factor,)
        return lead + tuple(stream.shape)

    def create_host_outputs(self) -> Dict[DeviceToHostStream, np.ndarray]:
        """Empty arrays for every device-to-host stream the Ir stores to, shaped for one run."""
        return {s: np.empty(self._expected_shape(s), dtype=s.dtype.as_numpy()) for s in self._stored}

    def run(self, inputs: Optional[Mapping[HostToDeviceStream, np.ndarray]] = None,
            downcast_inputs: bool = True) -> Dict[DeviceToHostStream, np.ndarray]:
        """Runs the Ir once; returns the data of every device-to-host stream."""
        self._check_attached("run")
        outputs = self.create_host_outputs()
        self._run(inputs, {s.tensor_id: a for s, a in outputs.items()}, downcast_inputs)  # made right: no check
        return outputs

    def run_with_outputs(self, inputs: Optional[Mapping[HostToDeviceStream, np.ndarray]],
                         outputs: Mapping[DeviceToHostStream, np.ndarray], downcast_inputs: bool = True) -> None:
        """Runs the Ir once, writing the device-to-host streams into `outputs`."""
        self._check_attached("run")
        self._run(inputs, self._check_outputs(outputs), downcast_inputs)

    def _run(self, inputs, outs: Dict[str, np.ndarray], downcast_inputs: bool) -> None:
        ins = self._check_inputs(inputs or {}, downcast_inputs)
        io = popart_core.PyStepIO(ins, outs)
        self._host_in_sync = False
        _log.debug(f"popxl.Session.run: Ir {self._ir.id}, {len(ins)} input streams, {len(outs)} output streams")
        self._pb_session.run(io)

    def _check_inputs(self, inputs, downcast: bool) -> Dict[str, np.ndarray]:
        ins = {}
        for s, data in inputs.items():
            if not isinstance(s, HostToDeviceStream) or s._ir is not self._ir:
                raise ValueError(f"Session.run: input key {s!r} is not a host-to-device stream of this Ir")
            if s not in self._loaded:
                raise ValueError(f"Session.run: stream '{s.tensor_id}' is not loaded by any host_load op")
            ins[s.tensor_id] = self._input_array(s, data, downcast)
        missing = [s.tensor_id for s in self._loaded if s.tensor_id not in ins]
        if missing:
            raise ValueError(f"Session.run: no data for host-to-device stream(s) {missing}")
        return ins

    def _input_array(self, s, data, downcast: bool) -> np.ndarray:
        arr = np.asarray(data)
        want = self._expected_shape(s)
        if arr.shape != want:
            raise ValueError(f"Session.run: data for stream '{s.tensor_id}' has shape {arr.shape}, expected {want} "
                             f"(num_host_transfers={self._ir.num_host_transfers}, instance_replication_factor="
                             f"{self._ir.instance_replication_factor}, stream shape {s.shape})")
        np_type = s.dtype.as_numpy()
        if arr.dtype != np_type:
            narrowing = arr.dtype.itemsize > np_type.itemsize or arr.dtype.kind != np_type.kind
            if narrowing and not downcast:
                raise ValueError(f"Session.run: data for stream '{s.tensor_id}' is {arr.dtype}, the stream is "
                                 f"{s.dtype.name} (pass downcast_inputs=True to convert)")
            arr = arr.astype(np_type)
        return np.asarray(arr, order="C")

    def _check_outputs(self, outputs) -> Dict[str, np.ndarray]:
        outs = {}
        for s, arr in outputs.items():
            if not isinstance(s, DeviceToHostStream) or s._ir is not self._ir:
                raise ValueError(f"Session.run_with_outputs: output key {s!r} is not a device-to-host stream of "
                                 "this Ir")
            if s not in self._stored:
                raise ValueError(f"Session.run_with_outputs: nothing is stored to stream '{s.tensor_id}'")
            want = self._expected_shape(s)
            if not isinstance(arr, np.ndarray) or arr.shape != want or arr.dtype != s.dtype.as_numpy():
                got = f"{arr.dtype} {arr.shape}" if isinstance(arr, np.ndarray) else type(arr).__name__
                raise ValueError(f"Session.run_with_outputs: buffer for stream '{s.tensor_id}' is {got}, expected "
                                 f"{s.dtype.name} {want}")
            if not arr.flags.c_contiguous or not arr.flags.writeable:
                raise ValueError(f"Session.run_with_outputs: buffer for stream '{s.tensor_id}' must be a "
                                 "writeable C-contiguous array")
            outs[s.tensor_id] = arr
        missing = [s.tensor_id for s in self._stored if s not in outputs]
        if missing:
            raise ValueError(f"Session.run_with_outputs: no buffer for device-to-host stream(s) {missing}")
        return outs

    def __repr__(self):
        return f"Session[{self._device_desc}, {'attached' if self.is_attached else 'detached'}]"
