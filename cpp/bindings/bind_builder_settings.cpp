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
template <class E>
void bindEnum(py::module_ &m, const char *name, const char *doc, std::initializer_list<const char *> names) {
  py::enum_<E> e(m, name, doc);
  int i = 0;
  for (const char *n : names) e.value(n, static_cast<E>(i++));
}

void bindEnums(py::module_ &m) {
  bindEnum<RecomputeType>(m, "RecomputeType", "Whether an op's output is kept or recomputed for the backward pass.",
                          {"Undefined", "Checkpoint", "Recompute", "Recomputed"});
  bindEnum<ExecutionContext>(m, "ExecutionContext", "Which part of the program an op runs in.",
                             {"Normal", "AccumulateOuterFragment", "WeightsFromHostFragment",
                              "WeightsToHostFragment", "OptimizerFromHostFragment", "Subgraph"});
  bindEnum<TensorStorage>(m, "TensorStorage", "Where a tensor lives on an IPU system: OnChip or OffChip (stored).", {"OnChip", "OffChip"});
  bindEnum<TileSet>(m, "TileSet", "Which IPU tiles hold a tensor or run an exchange (stored; a CPU has no tiles).", {"Compute", "IO", "Undefined"});
  bindEnum<ReplicatedTensorSharding>(m, "ReplicatedTensorSharding", "Whether a tensor is split across replicas.", {"Off", "On"});
  bindEnum<ExchangeStrategy>(m, "ExchangeStrategy", "When host exchanges of a stream overlap compute on an IPU (stored).",
                             {"JustInTime", "OverlapInnerLoop", "OverlapLoops", "OverlapStep"});
  bindEnum<ReplicatedStreamMode>(m, "ReplicatedStreamMode",
                                  "Whether replicas read their own slice of an input (Replicate) or the same data "
                                  "(Broadcast).", {"Replicate", "Broadcast"});
  bindEnum<CommGroupType>(m, "CommGroupType", "How replicas are grouped for a collective or a shared variable.", {"All", "Consecutive", "Orthogonal", "Ungrouped"});
  bindEnum<VariableRetrievalMode>(m, "VariableRetrievalMode", "Which replicas' copies of a variable are read back to the host.",
                                  {"OnePerGroup", "AllReduceReplicas", "AllReplicas"});
}

void bindTensorLocation(py::module_ &m) {
  py::class_<TensorLocation>(m, "TensorLocation",
                             "Where a tensor is stored on an IPU system: on or off chip, the tiles it is loaded "
                             "from and stored on, and whether it is sharded across replicas. Stored and checked; "
                             "on the CPU every tensor is in host memory.")
      .def(py::init<>(), "On chip, compute tiles, not sharded.")
      .def(py::init<TensorStorage>(), py::arg("storage"), "The given storage, other fields default.")
      .def(py::init<TensorStorage, ReplicatedTensorSharding>(), py::arg("storage"),
           py::arg("replicatedTensorSharding"), "The given storage and sharding.")
      .def(py::init<TensorStorage, TileSet, TileSet, ReplicatedTensorSharding>(), py::arg("storage"),
           py::arg("loadTileSet"), py::arg("storageTileSet"), py::arg("replicatedTensorSharding"),
           "Storage, tile sets and sharding.")
      .def(py::init<TensorStorage, TileSet, TileSet, ReplicatedTensorSharding, CommGroup>(),
           py::arg("storage"), py::arg("loadTileSet"), py::arg("storageTileSet"),
           py::arg("replicatedTensorSharding"), py::arg("shardingDomain"),
           "Storage, tile sets, sharding and the replica group (CommGroup) sharded over.")
      .def_readwrite("storage", &TensorLocation::storage, "The TensorStorage (OnChip or OffChip).")
      .def_readwrite("loadTileSet", &TensorLocation::loadTileSet, "The TileSet the tensor is loaded onto.")
      .def_readwrite("storageTileSet", &TensorLocation::storageTileSet, "The TileSet the tensor is stored on.")
      .def_readwrite("replicatedTensorSharding", &TensorLocation::replicatedTensorSharding,
                     "Whether the tensor is sharded across replicas.")
      .def_readwrite("shardingDomain", &TensorLocation::shardingDomain, "The CommGroup of replicas sharded over.")
      .def("serialize", &TensorLocation::serialize, "The location as the text stored in a node attribute.")
      .def("__eq__", &TensorLocation::operator==);
}

void bindGroups(py::module_ &m) {
  py::class_<ReplicaGrouping>(m, "ReplicaGrouping",
                              "Replicas 0..numReplicas-1 split into groups of groupSize, the members of a group "
                              "`stride` apart.")
      .def(py::init<unsigned, unsigned, unsigned>(), py::arg("numReplicas"), py::arg("stride"), py::arg("groupSize"),
           "Groups of `groupSize` replicas whose members are `stride` apart.")
      .def(py::init<unsigned>(), py::arg("numReplicas"), "All replicas in one group.")
      .def("getNumReplicas", &ReplicaGrouping::getNumReplicas, "The number of replicas.")
      .def("getStride", &ReplicaGrouping::getStride, "The distance between members of a group.")
      .def("getGroupSize", &ReplicaGrouping::getGroupSize, "The number of replicas per group.")
      .def("getNumGroups", &ReplicaGrouping::getNumGroups, "The number of groups.")
      .def("getGroupAt", &ReplicaGrouping::getGroupAt, py::arg("replica"), "The group `replica` belongs to.")
      .def("getIndexInGroupAt", &ReplicaGrouping::getIndexInGroupAt, py::arg("replica"),
           "The position of `replica` within its group.")
      .def("getReplicaAt", &ReplicaGrouping::getReplicaAt, py::arg("group"), py::arg("index") = 0,
           "The replica at position `index` (default 0) of `group`.")
      .def("getReplicasAt", &ReplicaGrouping::getReplicasAt, py::arg("group"), "The replicas of `group`, a list.")
      .def("getTranspose", &ReplicaGrouping::getTranspose,
           "The grouping whose groups take one replica from each group of this one.")
      .def("str", &ReplicaGrouping::str, "The grouping as readable text.")
      .def("__repr__", &ReplicaGrouping::str)
      .def("__eq__", &ReplicaGrouping::operator==)
      .def("__ne__", &ReplicaGrouping::operator!=);
  py::class_<CommGroup>(m, "CommGroup",
                        "A group of replicas for a collective or a shared variable: a CommGroupType and a group "
                        "size.")
      .def(py::init<>(), "All replicas in one group.")
      .def(py::init<CommGroupType, unsigned>(), py::arg("type"), py::arg("replicaGroupSize"),
           "Groups of `replicaGroupSize` replicas arranged by `type` (Consecutive, Orthogonal, ...).")
      .def_readwrite("type", &CommGroup::type, "How replicas are grouped (a CommGroupType).")
      .def_readwrite("replicaGroupSize", &CommGroup::replicaGroupSize, "The number of replicas per group.")
      .def("__eq__", &CommGroup::operator==)
      .def("toReplicaGrouping", [](const CommGroup &g, unsigned n) { return toReplicaGrouping(g, n); },
           py::arg("numReplicas"), "The same grouping as a ReplicaGrouping over `numReplicas` replicas.")
      .def("__repr__", [](const CommGroup &g) {
        return "CommGroup(type=" + std::to_string(int(g.type)) + ", size=" +
               std::to_string(g.replicaGroupSize) + ")";
      });
  py::class_<VariableSettings>(m, "VariableSettings",
                               "How replicas share a weight: which replicas hold one value (a CommGroup, or a "
                               "stride and group size) and which values are read back to the host (retrievalMode).")
      .def(py::init<>(), "One value shared by all replicas, read back once.")
      .def(py::init<CommGroup>(), py::arg("sharedVariableDomain"), "One value per group of `sharedVariableDomain`.")
      .def(py::init<VariableRetrievalMode>(), py::arg("retrievalMode"), "Shared by all, read back as `retrievalMode`.")
      .def(py::init<CommGroup, VariableRetrievalMode>(), py::arg("sharedVariableDomain"),
           py::arg("retrievalMode"), "One value per group, read back as `retrievalMode`.")
      .def(py::init<unsigned, unsigned>(), py::arg("stride"), py::arg("groupSize"),
           "One value per group of `groupSize` replicas `stride` apart (as a ReplicaGrouping).")
      .def(py::init<unsigned, unsigned, VariableRetrievalMode>(), py::arg("stride"), py::arg("groupSize"),
           py::arg("retrievalMode"), "As (stride, groupSize), read back as `retrievalMode`.")
      .def("getSharedVariableDomain", &VariableSettings::getSharedVariableDomain, "The CommGroup sharing a value.")
      .def("getRetrievalMode", &VariableSettings::getRetrievalMode, "Which values are read back to the host.")
      .def("isUsingCommGroup", &VariableSettings::isUsingCommGroup,
           "True when built from a CommGroup, False when from a stride and group size.")
      .def("getCommGroupType", &VariableSettings::getCommGroupType, "The type of the groups (a CommGroupType).")
      .def("getGroupSize", &VariableSettings::getGroupSize, "Replicas per group as given (0: all replicas).")
      .def("getStride", &VariableSettings::getStride,
           "Distance between the members of a group (an Orthogonal CommGroup's depends on the replica count: "
           "use getReplicaGrouping(n).getStride()).")
      .def("getReplicaGrouping", &VariableSettings::getReplicaGrouping, py::arg("numReplicas"),
           "The groups over `numReplicas` replicas as a ReplicaGrouping.")
      .def("getGroupCount", &VariableSettings::getGroupCount, py::arg("replicationFactor"),
           "The number of values of the weight with `replicationFactor` replicas.")
      .def("getRealGroupSize", &VariableSettings::getRealGroupSize, py::arg("replicationFactor"),
           "The number of replicas sharing one value with `replicationFactor` replicas.")
      .def("getGroupRepresentative", &VariableSettings::getGroupRepresentative, py::arg("group"),
           "The replica whose value stands for group `group` (its lowest).")
      .def("numReplicasReturningVariable", &VariableSettings::numReplicasReturningVariable,
           py::arg("replicationFactor"), "How many values are read back to the host (per group or per replica).")
      .def("groups", &VariableSettings::groups, py::arg("replicationFactor"), "The replicas of each group.")
      .def("shapeOnReplica", &VariableSettings::shapeOnReplica, py::arg("fullShape"), py::arg("replicationFactor"),
           py::arg("name"), "The shape on a replica of a weight given on the host as `fullShape`.")
      .def("shapeOnHost", &VariableSettings::shapeOnHost, py::arg("replicaShape"), py::arg("replicationFactor"),
           "The host shape ([groups, *shape] with several groups) of a weight shaped `replicaShape` per replica.")
      .def("verify", &VariableSettings::verify, "Raises when the settings are inconsistent.")
      .def("__eq__", &VariableSettings::operator==)
      .def("__repr__", &VariableSettings::str);
  py::class_<InputSettings>(m, "InputSettings",
                            "How a model input is streamed: IPU tile set and exchange strategy (stored), and "
                            "whether replicas get their own data or the same (ReplicatedStreamMode).")
      .def(py::init<>(), "Compute tiles, just-in-time exchange, each replica its own data.")
      .def(py::init<TileSet, ExchangeStrategy>(), py::arg("tileSet"), py::arg("exchangeStrategy"),
           "The given tile set and exchange strategy.")
      .def(py::init<ReplicatedStreamMode>(), py::arg("replicatedStreamMode"), "The given ReplicatedStreamMode.")
      .def("tileSet", [](const InputSettings &s) { return s.tileSet; }, "The TileSet the input is streamed to (stored).")
      .def("exchangeStrategy", [](const InputSettings &s) { return s.exchangeStrategy; },
           "When the input is exchanged (an ExchangeStrategy; stored).")
      .def("replicatedStreamMode", [](const InputSettings &s) { return s.replicatedStreamMode; },
           "Whether replicas read their own data or the same (a ReplicatedStreamMode).")
      .def("setTileSet", [](InputSettings &s, TileSet t) { s.tileSet = t; }, py::arg("tileSet"), "Set the TileSet the input is streamed to.")
      .def("setExchangeStrategy", [](InputSettings &s, ExchangeStrategy e) { s.exchangeStrategy = e; },
           py::arg("exchangeStrategy"), "Set when the input is exchanged.")
      .def("setReplicatedStreamMode", [](InputSettings &s, ReplicatedStreamMode r) { s.replicatedStreamMode = r; },
           py::arg("replicatedStreamMode"), "Set whether replicas read their own data or the same.");
}

} // namespace

void bindBuilderSettings(py::module_ &m) {
  bindEnums(m);
  bindGroups(m);  // before TensorLocation, which takes a CommGroup
  bindTensorLocation(m);
}

} // namespace popart::bindings
