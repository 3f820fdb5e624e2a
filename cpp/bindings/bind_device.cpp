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
  py::enum_<DeviceType>(m, "DeviceType")
      .value("IpuModel", DeviceType::IpuModel)
      .value("Cpu", DeviceType::Cpu)
      .value("Ipu", DeviceType::Ipu)
      .value("OfflineIpu", DeviceType::OfflineIpu)
      .value("Sim", DeviceType::Sim);
  py::enum_<DeviceConnectionType>(m, "DeviceConnectionType")
      .value("Always", DeviceConnectionType::Always)
      .value("OnDemand", DeviceConnectionType::OnDemand)
      .value("Never", DeviceConnectionType::Never);
  py::enum_<SyncPattern>(m, "SyncPattern")
      .value("Full", SyncPattern::Full)
      .value("SinglePipeline", SyncPattern::SinglePipeline)
      .value("ReplicaAndLadder", SyncPattern::ReplicaAndLadder);
  py::enum_<DeviceSelectionCriterion>(m, "DeviceSelectionCriterion")
      .value("First", DeviceSelectionCriterion::First)
      .value("Random", DeviceSelectionCriterion::Random);

  py::class_<DeviceInfo, std::shared_ptr<DeviceInfo>>(m, "DeviceInfo")
      .def("attach", &DeviceInfo::attach)
      .def("detach", &DeviceInfo::detach)
      .def("tryAttachUntilTimeout", &DeviceInfo::tryAttachUntilTimeout)
      .def("setOnDemandAttachTimeout", &DeviceInfo::setOnDemandAttachTimeout)
      .def_property_readonly("type", &DeviceInfo::getType)
      .def_property_readonly("connectionType", &DeviceInfo::getConnectionType)
      .def_property_readonly("version", &DeviceInfo::getVersion)
      .def_property_readonly("id", &DeviceInfo::getId)
      .def_property_readonly("numIpus", &DeviceInfo::getNumIpus)
      .def_property_readonly("tilesPerIPU", &DeviceInfo::getTilesPerIPU)
      .def_property_readonly("driverIds", &DeviceInfo::getDriverIds)
      .def_property_readonly("numWorkerContexts", &DeviceInfo::getNumWorkerContexts)
      .def_property_readonly("numThreads", &DeviceInfo::getNumThreads)
      .def_property_readonly("isAttached", &DeviceInfo::isAttached)
      .def_property_readonly("options", &DeviceInfo::getOptions)
      .def_property_readonly("onDemandAttachTimeout", &DeviceInfo::getOnDemandAttachTimeout)
      .def("getChildDeviceIds", &DeviceInfo::getChildIds)
      .def("canCompileOffline", &DeviceInfo::canCompileOffline)
      .def("isHwCompatible", &DeviceInfo::isHwCompatible)
      // `with manager.acquireAvailableDevice() as device:` detaches on exit.
      .def("__enter__", [](std::shared_ptr<DeviceInfo> d) { return d; })
      .def("__exit__", [](DeviceInfo &d, py::object, py::object, py::object) {
        d.detach();
        return false;
      })
      .def("__repr__", &DeviceInfo::toString)
      .def("__str__", &DeviceInfo::toString);

  py::class_<DeviceManager, std::unique_ptr<DeviceManager, py::nodelete>>(m, "DeviceManager")
      .def(py::init([] { return &DeviceManager::createDeviceManager(); }))
      .def("createCpuDevice", &DeviceManager::createCpuDevice)
      .def("createIpuModelDevice", [](DeviceManager &dm, const py::dict &opts) {
             auto o = stringOptions(opts);
             return dm.createIpuModelDevice(o);
           }, py::arg("opts") = py::dict())
      .def("createSimDevice", [](DeviceManager &dm, const py::dict &opts) {
             auto o = stringOptions(opts);
             return dm.createSimDevice(o);
           }, py::arg("opts") = py::dict())
      .def("createOfflineIPUDevice", [](DeviceManager &dm, const py::dict &opts) {
             auto o = stringOptions(opts);
             return dm.createOfflineIPUDevice(o);
           }, py::arg("opts") = py::dict())
      .def("createOfflineIpuFromDeviceInfo", &DeviceManager::createOfflineIpuFromDeviceInfo)
      .def("createOfflineIpuFromSystemString", &DeviceManager::createOfflineIpuFromSystemString, py::arg("system"),
           py::arg("numIpus"))
      .def("acquireAvailableDevice", &DeviceManager::acquireAvailableDevice, py::arg("numIpus") = 1,
           py::arg("tilesPerIpu") = 0, py::arg("pattern") = SyncPattern::Full,
           py::arg("connectionType") = DeviceConnectionType::Always,
           py::arg("selectionCriterion") = DeviceSelectionCriterion::First)
      .def("acquireDeviceById", &DeviceManager::acquireDeviceById, py::arg("id"),
           py::arg("pattern") = SyncPattern::Full, py::arg("connectionType") = DeviceConnectionType::Always)
      .def("tryAcquireAvailableDevice", &DeviceManager::tryAcquireAvailableDevice, py::arg("numIpus") = 1,
           py::arg("tilesPerIpu") = 0, py::arg("pattern") = SyncPattern::Full,
           py::arg("connectionType") = DeviceConnectionType::Always,
           py::arg("selectionCriterion") = DeviceSelectionCriterion::First)
      .def("tryAcquireDeviceById", &DeviceManager::tryAcquireDeviceById, py::arg("id"),
           py::arg("pattern") = SyncPattern::Full, py::arg("connectionType") = DeviceConnectionType::Always)
      .def("enumerateDevices", &DeviceManager::enumerateDevices, py::arg("pattern") = SyncPattern::Full,
           py::arg("numIpus") = 1, py::arg("deviceType") = DeviceType::Ipu,
           py::arg("connectionType") = DeviceConnectionType::Always, py::arg("tilesPerIPU") = 0)
      .def("getDevice", &DeviceManager::getDevice, py::arg("syncPattern") = SyncPattern::Full,
           py::arg("deviceManagerId") = 0, py::arg("connectionType") = DeviceConnectionType::Always)
      .def("setOnDemandAttachTimeout", &DeviceManager::setOnDemandAttachTimeout, py::arg("attachTimeout"));
}

} // namespace popart::bindings
