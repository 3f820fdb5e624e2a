"""DeviceManager and DeviceInfo (spec 13.7): every device runs on the CPU; offline
devices compile but refuse to run."""
import numpy as np
import pytest

import popart
from _session_models import relu, relu_model, run, session


@pytest.fixture
def dm():
    return popart.DeviceManager()


def runs_on(device):
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    s = session(relu_model(), ["out"], device=device)
    np.testing.assert_array_equal(run(s, {"x": x})["out"], relu(x))
    return s


def test_cpu_device(dm):
    d = dm.createCpuDevice()
    assert d.type == popart.DeviceType.Cpu
    assert d.numIpus == 1 and d.version == "cpu"
    assert d.numThreads >= 1
    assert repr(d).startswith("Device Type:Cpu Connection Type:Always")
    assert str(d) == repr(d)
    runs_on(d)
    assert d.isAttached


def test_ipu_model_device(dm):
    d = dm.createIpuModelDevice({"numIPUs": 2})
    assert d.type == popart.DeviceType.IpuModel
    assert d.numIpus == 2 and d.tilesPerIPU == 1472
    assert "NumIPUs:2" in repr(d)
    assert dm.createIpuModelDevice({"numIPUs": 1, "tilesPerIPU": 4}).tilesPerIPU == 4
    assert dm.createIpuModelDevice().numIpus == 1
    runs_on(d)


def test_ipu_model_bad_option(dm):
    with pytest.raises(popart.popart_exception, match="'numIPUs' must be an integer"):
        dm.createIpuModelDevice({"numIPUs": "two"})
    with pytest.raises(popart.popart_exception, match="numIPUs must be positive"):
        dm.createIpuModelDevice({"numIPUs": 0})


def test_acquire_available_device(dm):
    d = dm.acquireAvailableDevice(2)
    assert d.type == popart.DeviceType.Ipu
    assert d.numIpus == 2 and d.id == 64 and d.isAttached
    assert d.connectionType == popart.DeviceConnectionType.Always
    assert d.version == "ipu2" and d.driverIds == [64] and d.numWorkerContexts == 6
    assert d.getChildDeviceIds() == []
    runs_on(d)
    d.detach()
    assert not d.isAttached
    assert d.attach() and d.isAttached
    assert d.attach() and d.isAttached  # attaching twice is harmless


@pytest.mark.parametrize("n", [0, 3, 128])
def test_acquire_impossible_count(dm, n):
    with pytest.raises(popart.popart_exception, match=f"cannot acquire {n} IPUs"):
        dm.acquireAvailableDevice(n)
    assert dm.tryAcquireAvailableDevice(n) is None


def test_try_acquire_available_device(dm):
    d = dm.tryAcquireAvailableDevice(4)
    assert d.numIpus == 4 and d.id == 96 and d.isAttached
    assert dm.tryAcquireAvailableDevice(1, tilesPerIpu=7) is None


def test_on_demand_attaches_when_needed(dm):
    d = dm.acquireAvailableDevice(4, connectionType=popart.DeviceConnectionType.OnDemand)
    assert not d.isAttached
    runs_on(d)
    assert d.isAttached


@pytest.mark.parametrize("id,num_ipus", [(0, 1), (5, 1), (63, 1), (64, 2), (95, 2), (96, 4), (126, 64)])
def test_acquire_device_by_id(dm, id, num_ipus):
    d = dm.acquireDeviceById(id)
    assert d.id == id and d.numIpus == num_ipus and d.isAttached
    assert dm.tryAcquireDeviceById(id).id == id


def test_acquire_unknown_id(dm):
    with pytest.raises(popart.popart_exception, match="no device with id 127"):
        dm.acquireDeviceById(127)
    assert dm.tryAcquireDeviceById(127) is None
    assert dm.tryAcquireDeviceById(-1) is None


def test_enumerate_devices(dm):
    singles = dm.enumerateDevices()
    assert [d.id for d in singles] == list(range(64))
    quads = dm.enumerateDevices(numIpus=4)
    assert [d.id for d in quads] == list(range(96, 112)) and all(d.numIpus == 4 for d in quads)
    assert not any(d.isAttached for d in quads)
    assert dm.enumerateDevices(numIpus=3) == []
    assert dm.enumerateDevices(deviceType=popart.DeviceType.Cpu) == []


def test_context_manager_detaches(dm):
    with dm.acquireAvailableDevice(1) as d:
        assert d.isAttached
        runs_on(d)
    assert not d.isAttached


def test_context_manager_does_not_swallow_errors(dm):
    with pytest.raises(KeyError):
        with dm.acquireAvailableDevice(1):
            raise KeyError("boom")


def test_offline_device_compiles_but_refuses_to_run(dm):
    d = dm.createOfflineIPUDevice({"numIPUs": 2, "tilesPerIPU": 1216})
    assert d.type == popart.DeviceType.OfflineIpu
    assert d.numIpus == 2 and d.tilesPerIPU == 1216
    assert d.connectionType == popart.DeviceConnectionType.Never
    assert not d.attach()
    s = session(relu_model(), ["out"], device=d)  # prepareDevice compiles
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="offline IPU device"):
        s.run(popart.PyStepIO({"x": x}, s.initAnchorArrays()))
    with pytest.raises(popart.popart_exception, match="offline IPU device"):
        s.loadEngineAndConnectStreams()


def test_offline_from_device_info_and_system_string(dm):
    d = dm.createOfflineIpuFromDeviceInfo(dm.createIpuModelDevice({"numIPUs": 4}))
    assert d.type == popart.DeviceType.OfflineIpu and d.numIpus == 4
    d = dm.createOfflineIpuFromSystemString("ipu21", 2)
    assert d.type == popart.DeviceType.OfflineIpu and d.numIpus == 2 and d.version == "ipu21"
    with pytest.raises(popart.popart_exception, match="unknown IPU system 'gpu'"):
        dm.createOfflineIpuFromSystemString("gpu", 1)


def test_attach_timeout_settings(dm):
    dm.setOnDemandAttachTimeout(5)
    d = dm.createCpuDevice()
    d.setOnDemandAttachTimeout(3)
    assert d.onDemandAttachTimeout == 3
    assert d.tryAttachUntilTimeout()


def test_enums():
    assert popart.DeviceType.IpuModel.value == 0 and popart.DeviceType.Sim.value == 4
    assert set(popart.SyncPattern.__members__) == {"Full", "SinglePipeline", "ReplicaAndLadder"}
    assert set(popart.DeviceConnectionType.__members__) == {"Always", "OnDemand", "Never"}
    assert set(popart.DeviceSelectionCriterion.__members__) == {"First", "Random"}
