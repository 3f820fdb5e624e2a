// DeviceManager, DeviceInfo and their enums.
#include "bindings.hpp"
#include "popart/devicemanager.hpp"
#include <pybind11/stl.h>

namespace popart::bindings {
namespace {

/// Device options ({"numIPUs": 2, "tilesPerIPU": 4}) as strings.
std::map<std::string, std::string> stringOptions(const py::dict &opts) {
  std::map<std::string, std::string> o;
  for (const auto &[k, v] : opts) o[py::str(k)] = py::str(v);
  return o;
}

} // namespace

void bindDevice(py::module_ &m) {
  py::enum_<DeviceType>(m, "DeviceType", "Kind of device: IpuModel, Cpu, Ipu, OfflineIpu, Sim (all but OfflineIpu run on the CPU).")
      .value("IpuModel", DeviceType::IpuModel)
      .value("Cpu", DeviceType::Cpu)
      .value("Ipu", DeviceType::Ipu)
      .value("OfflineIpu", DeviceType::OfflineIpu)
      .value("Sim", DeviceType::Sim);
  py::enum_<DeviceConnectionType>(m, "DeviceConnectionType",
                                  "When a device is attached: Always, OnDemand (at prepareDevice) or Never.")
      .value("Always", DeviceConnectionType::Always)
      .value("OnDemand", DeviceConnectionType::OnDemand)
      .value("Never", DeviceConnectionType::Never);
  py::enum_<SyncPattern>(m, "SyncPattern", "How IPUs of a multi-IPU device synchronise. Stored; no effect on the CPU.")
      .value("Full", SyncPattern::Full)
      .value("SinglePipeline", SyncPattern::SinglePipeline)
      .value("ReplicaAndLadder", SyncPattern::ReplicaAndLadder);
  py::enum_<DeviceSelectionCriterion>(m, "DeviceSelectionCriterion",
                                      "Which of several free devices acquireAvailableDevice picks: First or Random.")
      .value("First", DeviceSelectionCriterion::First)
      .value("Random", DeviceSelectionCriterion::Random);

  py::class_<DeviceInfo, std::shared_ptr<DeviceInfo>>(m, "DeviceInfo",
                                                      "A device a session runs on, from DeviceManager. Every kind "
                                                      "but OfflineIpu executes on the host's cores; IPU counts and "
                                                      "tiles are reported as requested. Usable as a context "
                                                      "manager that detaches on exit.")
      .def("attach", &DeviceInfo::attach, "Attach the device; returns False for an offline device.")
      .def("detach", &DeviceInfo::detach, "Detach the device: sessions on it can no longer run.")
      .def("tryAttachUntilTimeout", &DeviceInfo::tryAttachUntilTimeout,
           "Attach, retrying until onDemandAttachTimeout; returns whether it succeeded.")
      .def("setOnDemandAttachTimeout", &DeviceInfo::setOnDemandAttachTimeout, py::arg("seconds"),
           "Set how long an on-demand attach may wait, in seconds.")
      .def_property_readonly("type", &DeviceInfo::getType, "The kind of device (a DeviceType).")
      .def_property_readonly("connectionType", &DeviceInfo::getConnectionType,
                             "When the device attaches (a DeviceConnectionType).")
      .def_property_readonly("version", &DeviceInfo::getVersion,
                             "\"cpu\" for a CPU device, else the IPU version reported (default \"ipu2\").")
      .def_property_readonly("id", &DeviceInfo::getId, "The device's id within its DeviceManager.")
      .def_property_readonly("numIpus", &DeviceInfo::getNumIpus, "The number of (virtual) IPUs of the device.")
      .def_property_readonly("tilesPerIPU", &DeviceInfo::getTilesPerIPU,
                             "Tiles per IPU as requested (1472 by default, 1 for a CPU device); no effect on "
                             "execution.")
      .def_property_readonly("driverIds", &DeviceInfo::getDriverIds, "The ids of the single-IPU devices it spans.")
      .def_property_readonly("numWorkerContexts", &DeviceInfo::getNumWorkerContexts,
                             "Worker contexts per tile on an IPU (reported for scripts that read it).")
      .def_property_readonly("numThreads", &DeviceInfo::getNumThreads,
                             "Number of CPU threads sessions use (OMP_NUM_THREADS, by default every core).")
      .def_property_readonly("isAttached", &DeviceInfo::isAttached, "Whether the device is attached.")
      .def_property_readonly("options", &DeviceInfo::getOptions, "The options the device was created with.")
      .def_property_readonly("onDemandAttachTimeout", &DeviceInfo::getOnDemandAttachTimeout,
                             "Seconds an on-demand attach may wait.")
      .def("getChildDeviceIds", &DeviceInfo::getChildIds, "The ids of the single-IPU devices it spans.")
      .def("canCompileOffline", &DeviceInfo::canCompileOffline,
           "Whether sessions can be prepared for this device without running (True for every kind here).")
      .def("isHwCompatible", &DeviceInfo::isHwCompatible, "Whether the device can run sessions: True for every kind but an offline IPU.")
      // `with manager.acquireAvailableDevice() as device:` detaches on exit.
      .def("__enter__", [](std::shared_ptr<DeviceInfo> d) { return d; })
      .def("__exit__", [](DeviceInfo &d, py::object, py::object, py::object) {
        d.detach();
        return false;
      })
      .def("__repr__", &DeviceInfo::toString)
      .def("__str__", &DeviceInfo::toString);

  py::class_<DeviceManager, std::unique_ptr<DeviceManager, py::nodelete>>(
      m, "DeviceManager",
      "Creates and hands out devices. Every DeviceManager() is the same process-wide manager. CPU, IPU-model, "
      "simulator and acquired \"IPU\" devices all run on the host's cores, so IPU scripts run unchanged; "
      "offline IPU devices compile but do not run.")
      .def(py::init([] { return &DeviceManager::createDeviceManager(); }), "The process-wide device manager.")
      .def("createCpuDevice", &DeviceManager::createCpuDevice, "A device running on the host's cores (one IPU).")
      .def("createIpuModelDevice", [](DeviceManager &dm, const py::dict &opts) {
             auto o = stringOptions(opts);
             return dm.createIpuModelDevice(o);
           }, py::arg("opts") = py::dict(),
           "A CPU-backed IPU-model device. `opts`: dict such as {\"numIPUs\": 2, \"tilesPerIPU\": 1472} "
           "(defaults 1 and 1472).")
      .def("createSimDevice", [](DeviceManager &dm, const py::dict &opts) {
             auto o = stringOptions(opts);
             return dm.createSimDevice(o);
           }, py::arg("opts") = py::dict(),
           "A CPU-backed simulator device; `opts` as for createIpuModelDevice.")
      .def("createOfflineIPUDevice", [](DeviceManager &dm, const py::dict &opts) {
             auto o = stringOptions(opts);
             return dm.createOfflineIPUDevice(o);
           }, py::arg("opts") = py::dict(),
           "An offline IPU device: sessions can be prepared (and saved) for it but not run. `opts` as for "
           "createIpuModelDevice, plus \"ipuVersion\".")
      .def("createOfflineIpuFromDeviceInfo", &DeviceManager::createOfflineIpuFromDeviceInfo, py::arg("deviceInfo"),
           "An offline device with the IPU count, tiles and version of `deviceInfo`.")
      .def("createOfflineIpuFromSystemString", &DeviceManager::createOfflineIpuFromSystemString, py::arg("system"),
           py::arg("numIpus"),
           "An offline device for the IPU system \"ipu1\", \"ipu2\" or \"ipu21\" with `numIpus` IPUs.")
      .def("acquireAvailableDevice", &DeviceManager::acquireAvailableDevice, py::arg("numIpus") = 1,
           py::arg("tilesPerIpu") = 0, py::arg("pattern") = SyncPattern::Full,
           py::arg("connectionType") = DeviceConnectionType::Always,
           py::arg("selectionCriterion") = DeviceSelectionCriterion::First,
           "A free CPU-backed \"IPU\" device of `numIpus` IPUs (a power of two, at most 64); raises when none "
           "is free. tilesPerIpu 0 means the default.")
      .def("acquireDeviceById", &DeviceManager::acquireDeviceById, py::arg("id"),
           py::arg("pattern") = SyncPattern::Full, py::arg("connectionType") = DeviceConnectionType::Always,
           "The CPU-backed \"IPU\" device with the given id (see enumerateDevices); raises when it is taken.")
      .def("tryAcquireAvailableDevice", &DeviceManager::tryAcquireAvailableDevice, py::arg("numIpus") = 1,
           py::arg("tilesPerIpu") = 0, py::arg("pattern") = SyncPattern::Full,
           py::arg("connectionType") = DeviceConnectionType::Always,
           py::arg("selectionCriterion") = DeviceSelectionCriterion::First,
           "As acquireAvailableDevice, but returns None instead of raising when no device is free.")
      .def("tryAcquireDeviceById", &DeviceManager::tryAcquireDeviceById, py::arg("id"),
           py::arg("pattern") = SyncPattern::Full, py::arg("connectionType") = DeviceConnectionType::Always,
           "As acquireDeviceById, but returns None instead of raising.")
      .def("enumerateDevices", &DeviceManager::enumerateDevices, py::arg("pattern") = SyncPattern::Full,
           py::arg("numIpus") = 1, py::arg("deviceType") = DeviceType::Ipu,
           py::arg("connectionType") = DeviceConnectionType::Always, py::arg("tilesPerIPU") = 0,
           "The devices of `numIpus` IPUs this manager offers (CPU-backed), as a list of DeviceInfo.")
      .def("getDevice", &DeviceManager::getDevice, py::arg("syncPattern") = SyncPattern::Full,
           py::arg("deviceManagerId") = 0, py::arg("connectionType") = DeviceConnectionType::Always,
           "The device with id `deviceManagerId`, or None.")
      .def("setOnDemandAttachTimeout", &DeviceManager::setOnDemandAttachTimeout, py::arg("attachTimeout"),
           "Set the on-demand attach timeout (seconds) of devices acquired from now on.");
}

} // namespace popart::bindings
