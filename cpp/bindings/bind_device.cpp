// DeviceManager, DeviceInfo and their enums.
#include "bindings.hpp"
#include "popart/devicemanager.hpp"
#include <pybind11/stl.h>

namespace popart::bindings {

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
      .def("getChildDeviceIds", &DeviceInfo::getChildIds)
      .def("__enter__", [](std::shared_ptr<DeviceInfo> d) { return d; })
      .def("__exit__", [](DeviceInfo &d, py::object, py::object, py::object) { d.detach(); })
      .def("__repr__", &DeviceInfo::toString)
      .def("__str__", &DeviceInfo::toString);

  py::class_<DeviceManager, std::unique_ptr<DeviceManager, py::nodelete>>(m, "DeviceManager")
      .def(py::init([] { return &DeviceManager::createDeviceManager(); }))
      .def("createCpuDevice", &DeviceManager::createCpuDevice)
      .def("createIpuModelDevice", [](DeviceManager &dm, std::map<std::string, py::object> opts) {
             std::map<std::string, std::string> o;
             for (auto &[k, v] : opts) o[k] = py::str(v);
             return dm.createIpuModelDevice(o);
           }, py::arg("opts") = std::map<std::string, py::object>{})
      .def("createSimDevice", [](DeviceManager &dm, std::map<std::string, py::object> opts) {
             std::map<std::string, std::string> o;
             for (auto &[k, v] : opts) o[k] = py::str(v);
             return dm.createSimDevice(o);
           }, py::arg("opts") = std::map<std::string, py::object>{})
      .def("createOfflineIPUDevice", [](DeviceManager &dm, std::map<std::string, py::object> opts) {
             std::map<std::string, std::string> o;
             for (auto &[k, v] : opts) o[k] = py::str(v);
             return dm.createOfflineIPUDevice(o);
           }, py::arg("opts") = std::map<std::string, py::object>{})
      .def("createOfflineIpuFromDeviceInfo", &DeviceManager::createOfflineIpuFromDeviceInfo)
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
      .def("setOnDemandAttachTimeout", &DeviceManager::setOnDemandAttachTimeout);
}

} // namespace popart::bindings
