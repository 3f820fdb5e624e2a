// Settings types the Builder API takes: RecomputeType, ExecutionContext,
// TensorLocation and its enums, CommGroup, VariableSettings, InputSettings.
#include "bind_builder_convert.hpp"
#include "popart/commgroup.hpp"
#include "popart/replicagrouping.hpp"
#include "popart/tensorlocation.hpp"
#include "popart/variablesettings.hpp"
#include <pybind11/stl.h>

namespace popart {
enum class ExecutionContext;
enum class VariableRetrievalMode;
} // namespace popart

namespace popart::bindings {
namespace {

// Values follow PopART's enums (op.hpp / tensor.hpp declare the same numbering).
template <class E> void bindEnum(py::module_ &m, const char *name, std::initializer_list<const char *> names) {
  py::enum_<E> e(m, name);
  int i = 0;
  for (const char *n : names) e.value(n, static_cast<E>(i++));
}

void bindEnums(py::module_ &m) {
  bindEnum<RecomputeType>(m, "RecomputeType", {"Undefined", "Checkpoint", "Recompute", "Recomputed"});
  bindEnum<ExecutionContext>(m, "ExecutionContext",
                             {"Normal", "AccumulateOuterFragment", "WeightsFromHostFragment",
                              "WeightsToHostFragment", "OptimizerFromHostFragment", "Subgraph"});
  bindEnum<TensorStorage>(m, "TensorStorage", {"OnChip", "OffChip"});
  bindEnum<TileSet>(m, "TileSet", {"Compute", "IO", "Undefined"});
  bindEnum<ReplicatedTensorSharding>(m, "ReplicatedTensorSharding", {"Off", "On"});
  bindEnum<ExchangeStrategy>(m, "ExchangeStrategy",
                             {"JustInTime", "OverlapInnerLoop", "OverlapLoops", "OverlapStep"});
  bindEnum<ReplicatedStreamMode>(m, "ReplicatedStreamMode", {"Replicate", "Broadcast"});
  bindEnum<CommGroupType>(m, "CommGroupType", {"All", "Consecutive", "Orthogonal", "Ungrouped"});
  bindEnum<VariableRetrievalMode>(m, "VariableRetrievalMode",
                                  {"OnePerGroup", "AllReduceReplicas", "AllReplicas"});
}

void bindTensorLocation(py::module_ &m) {
  py::class_<TensorLocation>(m, "TensorLocation")
      .def(py::init<>())
      .def(py::init<TensorStorage>(), py::arg("storage"))
      .def(py::init<TensorStorage, ReplicatedTensorSharding>(), py::arg("storage"),
           py::arg("replicatedTensorSharding"))
      .def(py::init<TensorStorage, TileSet, TileSet, ReplicatedTensorSharding>(), py::arg("storage"),
           py::arg("loadTileSet"), py::arg("storageTileSet"), py::arg("replicatedTensorSharding"))
      .def(py::init<TensorStorage, TileSet, TileSet, ReplicatedTensorSharding, CommGroup>(),
           py::arg("storage"), py::arg("loadTileSet"), py::arg("storageTileSet"),
           py::arg("replicatedTensorSharding"), py::arg("shardingDomain"))
      .def_readwrite("storage", &TensorLocation::storage)
      .def_readwrite("loadTileSet", &TensorLocation::loadTileSet)
      .def_readwrite("storageTileSet", &TensorLocation::storageTileSet)
      .def_readwrite("replicatedTensorSharding", &TensorLocation::replicatedTensorSharding)
      .def_readwrite("shardingDomain", &TensorLocation::shardingDomain)
      .def("serialize", &TensorLocation::serialize)
      .def("__eq__", &TensorLocation::operator==);
}

void bindGroups(py::module_ &m) {
  py::class_<CommGroup>(m, "CommGroup")
      .def(py::init<>())
      .def(py::init<CommGroupType, unsigned>(), py::arg("type"), py::arg("replicaGroupSize"))
      .def_readwrite("type", &CommGroup::type)
      .def_readwrite("replicaGroupSize", &CommGroup::replicaGroupSize)
      .def("__eq__", &CommGroup::operator==)
      .def("toReplicaGrouping", [](const CommGroup &g, unsigned n) { return toReplicaGrouping(g, n); },
           py::arg("numReplicas"))
      .def("__repr__", [](const CommGroup &g) {
        return "CommGroup(type=" + std::to_string(int(g.type)) + ", size=" +
               std::to_string(g.replicaGroupSize) + ")";
      });
  py::class_<ReplicaGrouping>(m, "ReplicaGrouping")
      .def(py::init<unsigned, unsigned, unsigned>(), py::arg("numReplicas"), py::arg("stride"), py::arg("groupSize"))
      .def(py::init<unsigned>(), py::arg("numReplicas"))
      .def("getNumReplicas", &ReplicaGrouping::getNumReplicas)
      .def("getStride", &ReplicaGrouping::getStride)
      .def("getGroupSize", &ReplicaGrouping::getGroupSize)
      .def("getNumGroups", &ReplicaGrouping::getNumGroups)
      .def("getGroupAt", &ReplicaGrouping::getGroupAt, py::arg("replica"))
      .def("getIndexInGroupAt", &ReplicaGrouping::getIndexInGroupAt, py::arg("replica"))
      .def("getReplicaAt", &ReplicaGrouping::getReplicaAt, py::arg("group"), py::arg("index") = 0)
      .def("getReplicasAt", &ReplicaGrouping::getReplicasAt, py::arg("group"))
      .def("getTranspose", &ReplicaGrouping::getTranspose)
      .def("str", &ReplicaGrouping::str)
      .def("__repr__", &ReplicaGrouping::str)
      .def("__eq__", &ReplicaGrouping::operator==)
      .def("__ne__", &ReplicaGrouping::operator!=);
  py::class_<VariableSettings>(m, "VariableSettings")
      .def(py::init<>())
      .def(py::init<CommGroup>(), py::arg("sharedVariableDomain"))
      .def(py::init<VariableRetrievalMode>(), py::arg("retrievalMode"))
      .def(py::init<CommGroup, VariableRetrievalMode>(), py::arg("sharedVariableDomain"),
           py::arg("retrievalMode"))
      .def("getSharedVariableDomain", &VariableSettings::getSharedVariableDomain)
      .def("getRetrievalMode", &VariableSettings::getRetrievalMode)
      .def("getGroupCount", &VariableSettings::getGroupCount, py::arg("replicationFactor"))
      .def("getRealGroupSize", &VariableSettings::getRealGroupSize, py::arg("replicationFactor"))
      .def("numReplicasReturningVariable", &VariableSettings::numReplicasReturningVariable,
           py::arg("replicationFactor"));
  py::class_<InputSettings>(m, "InputSettings")
      .def(py::init<>())
      .def(py::init<TileSet, ExchangeStrategy>(), py::arg("tileSet"), py::arg("exchangeStrategy"))
      .def(py::init<ReplicatedStreamMode>(), py::arg("replicatedStreamMode"))
      .def("tileSet", [](const InputSettings &s) { return s.tileSet; })
      .def("exchangeStrategy", [](const InputSettings &s) { return s.exchangeStrategy; })
      .def("replicatedStreamMode", [](const InputSettings &s) { return s.replicatedStreamMode; })
      .def("setTileSet", [](InputSettings &s, TileSet t) { s.tileSet = t; })
      .def("setExchangeStrategy", [](InputSettings &s, ExchangeStrategy e) { s.exchangeStrategy = e; })
      .def("setReplicatedStreamMode", [](InputSettings &s, ReplicatedStreamMode r) { s.replicatedStreamMode = r; });
}

} // namespace

void bindBuilderSettings(py::module_ &m) {
  bindEnums(m);
  bindTensorLocation(m);
  bindGroups(m);
}

} // namespace popart::bindings
