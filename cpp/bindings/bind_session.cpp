// _InferenceSessionCore (and the shared Session methods), DataFlow, AnchorReturnType, InputShapeInfo.
#include "bindings.hpp"
#include "numpy_util.hpp"
#include "popart/dataflow.hpp"
#include "popart/devicemanager.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/ir.hpp"
#include "popart/optimizer.hpp"
#include "popart/patterns.hpp"
#include "popart/session.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/stepio.hpp"
#include <pybind11/stl.h>

namespace popart::bindings {

void bindDataFlow(py::module_ &m) {
  py::enum_<AnchorReturnTypeId>(m, "AnchorReturnTypeId",
                                "Which micro-batches an anchor returns: Final, EveryN, All or Sum.")
      .value("Final", AnchorReturnTypeId::Final)
      .value("EveryN", AnchorReturnTypeId::EveryN)
      .value("All", AnchorReturnTypeId::All)
      .value("Sum", AnchorReturnTypeId::Sum);
  py::class_<AnchorReturnType>(m, "AnchorReturnType",
                               "Which values of an anchor one session.run() returns: \"All\" (every "
                               "micro-batch: the anchor array gains a batchesPerStep dimension), \"Final\" (the "
                               "last one), \"EveryN\" (every N-th, N = returnPeriod) or \"Sum\" (their sum).")
      .def(py::init<const std::string &, TileSet, ExchangeStrategy>(), py::arg("anchorReturnTypeString"),
           py::arg("tileSet") = TileSet::Compute, py::arg("exchangeStrategy") = ExchangeStrategy::JustInTime,
           "From \"All\", \"Final\" or \"Sum\". tileSet and exchangeStrategy are IPU placement hints, "
           "stored only.")
      .def(py::init<const std::string &, int, TileSet, ExchangeStrategy>(), py::arg("anchorReturnTypeString"),
           py::arg("returnPeriod"), py::arg("tileSet") = TileSet::Compute,
           py::arg("exchangeStrategy") = ExchangeStrategy::JustInTime,
           "From \"EveryN\" and the period N (batchesPerStep must be a multiple of it).")
      .def("id", &AnchorReturnType::id, "The kind, an AnchorReturnTypeId.")
      .def("tileSet", &AnchorReturnType::tileSet, "The TileSet hint (stored only).")
      .def("exchangeStrategy", &AnchorReturnType::exchangeStrategy, "The ExchangeStrategy hint (stored only).")
      .def("rp", &AnchorReturnType::rp, "The return period of EveryN (0 for the other kinds).")
      .def("str", &AnchorReturnType::str, "The kind as text: \"All\", \"Final\", \"EveryN\" or \"Sum\".")
      .def("__repr__", [](const AnchorReturnType &a) {
        return "AnchorReturnType(" + a.str() + (a.rp() ? ", " + std::to_string(a.rp()) : "") + ")";
      });
  py::class_<DataFlow>(m, "DataFlow",
                       "What one session.run() processes: batchesPerStep micro-batches, and the anchors (tensors "
                       "copied back to the host) with their AnchorReturnType.")
      .def(py::init<>(), "One batch per step, no anchors.")
      .def(py::init<int, const std::map<TensorId, AnchorReturnType> &>(), py::arg("batchesPerStep"),
           py::arg("anchorTensors"), "`anchorTensors`: dict of tensor id to AnchorReturnType.")
      .def(py::init<int, const std::vector<TensorId> &, const AnchorReturnType &>(), py::arg("batchesPerStep"),
           py::arg("anchorIds"), py::arg("anchorReturnType") = AnchorReturnType("All"),
           "The tensors `anchorIds`, all with `anchorReturnType` (default AnchorReturnType(\"All\")).")
      .def("anchors", &DataFlow::anchors, "The anchored tensor ids.")
      .def("art", &DataFlow::art, py::arg("anchorId"), "The AnchorReturnType of anchor `anchorId`.")
      .def("batchesPerStep", &DataFlow::batchesPerStep, "The number of micro-batches per run().")
      .def("isAnchored", &DataFlow::isAnchored, py::arg("tensorId"), "Whether `tensorId` is an anchor.")
      .def("nAnchors", &DataFlow::nAnchors, "The number of anchors.")
      .def("setBatchesPerStep", &DataFlow::setBatchesPerStep, py::arg("batchesPerStep"),
           "Change the number of micro-batches per run().");
  py::class_<InputShapeInfo>(m, "InputShapeInfo",
                             "Types and shapes of model inputs that the model itself leaves unknown, given when "
                             "a session is created.")
      .def(py::init<>(), "No shapes given.")
      .def("add", &InputShapeInfo::add, py::arg("tensorId"), py::arg("info"),
           "Give input `tensorId` the TensorInfo `info`.")
      .def("get", &InputShapeInfo::get, py::arg("tensorId"), "The TensorInfo given for `tensorId`.")
      .def("has", &InputShapeInfo::has, py::arg("tensorId"), "Whether a TensorInfo was given for `tensorId`.");
}

namespace {

template <class S, class C> void bindSessionMethods(C &c) {
  c.def("prepareDevice", &S::prepareDevice, py::arg("loadEngine") = true, py::call_guard<py::gil_scoped_release>(),
        "Compile the session: prepare the IR (patterns, autodiff and optimizer updates for training, constant "
        "folding, in-placing), schedule it, plan memory, set up every kernel once and copy the weights to the "
        "device. With loadEngine False the session is compiled but not yet runnable.")
      .def("loadEngineAndConnectStreams", &S::loadEngineAndConnectStreams,
           "Make a session prepared with loadEngine=False runnable.")
      .def("weightsFromHost", &S::weightsFromHost, "Copy the host weights to the device.")
      .def("weightsToHost", &S::weightsToHost, "Copy the device weights (e.g. after training) to the host weights.")
      .def("readWeights", &S::readWeights, py::arg("weightsIo"),
           "Copy host weights into the arrays of a PyWeightsIO (call weightsToHost first after training).")
      .def("writeWeights", &S::writeWeights, py::arg("weightsIo"),
           "Copy the arrays of a PyWeightsIO into the host weights (then weightsFromHost to use them). "
           "Refused for tensors that are compile-time constants.")
      .def("run", py::overload_cast<IStepIO &, const std::string &>(&S::run), py::arg("stepio"),
           py::arg("debugName") = "", py::call_guard<py::gil_scoped_release>(),
           "Run one step: batchesPerStep micro-batches (times accumulation and replication) read from `stepio`, "
           "anchors written to it; training sessions also update the weights.")
      .def("run", py::overload_cast<const std::string &, IStepIO &, const std::string &>(&S::run),
           py::arg("programHandle"), py::arg("stepio"), py::arg("debugName") = "",
           py::call_guard<py::gil_scoped_release>(),
           "Run the named program (\"\" or \"main\": the main program) with `stepio`.")
      .def("modelToHost", &S::modelToHost, py::arg("fileName"),
           "Write the ONNX model with the device's current weights (and optimizer state) to `fileName`.")
      .def("updateExternallySavedTensorLocations", &S::updateExternallySavedTensorLocations,
           py::arg("fromLocation"), py::arg("toLocation"),
           "Make the tensors saved in the external data file `fromLocation` be read from and written to "
           "`toLocation` instead.")
      .def("resetHostWeights", [](S &s, const py::object &model, bool ignore) {
             s.resetHostWeights(py::isinstance<py::bytes>(model) ? std::string(model.cast<py::bytes>())
                                                                 : model.cast<std::string>(), ignore);
           }, py::arg("modelProtoOrFilename"), py::arg("ignoreWeightsInModelWithoutCorrespondingHostWeight") = false,
           "Replace the host weights by the initializers of a model (bytes or file name) and copy them to the "
           "device. Model weights the session does not have raise unless the second argument is True.")
      .def("getIr", &S::getIrShared, "The session's IR (popart._internal.ir.Ir).")
      .def("getInfo", &S::getInfo, py::arg("tensorId"), "The TensorInfo (type and shape) of tensor `tensorId`.")
      .def("hasInfo", &S::hasInfo, py::arg("tensorId"), "Whether the session has a tensor `tensorId`.")
      .def("getTensorIds", &S::getTensorIds, "The ids of the tensors of the main graph.")
      .def("getSummaryReport", &S::getSummaryReport, py::arg("resetProfile") = true,
           "A text report: per op type, calls and time spent since the last reset, and the planned activation "
           "and weight memory. resetProfile (default True) clears the timings afterwards.")
      .def("getSerializedGraph", [](const S &s) { return py::bytes(s.getSerializedGraph()); },
           "The prepared IR as JSON bytes: {\"maingraph\": [ops...], <subgraph>: [...]}.")
      // PopART's JSON IR: {"maingraph": [ops...], "<subgraph>": [...]}; the only format PopART has.
      .def("_serializeIr", [](const S &s, IrSerializationFormat) { return s.getSerializedGraph(); },
           py::arg("format"))
      .def("getCycleCount", &S::getCycleCount, py::arg("id") = "",
           "Time-stamp-counter ticks (rdtsc) spent in the last run(); 0 before any run. `id` is ignored.")
      .def("setRandomSeed", &S::setRandomSeed, py::arg("seedValue"),
           "Seed the random ops (Dropout, RandomNormal, ...): the same seed gives the same masks and values.")
      .def("getRandomSeed", &S::getRandomSeed, "The seed set last with setRandomSeed.")
      .def("getRNGState", &S::getRNGState, "The random-number state (seed and counters) as a list of ints.")
      .def("setRNGState", &S::setRNGState, py::arg("rngState"),
           "Restore a state returned by getRNGState, so random ops repeat from that point.")
      .def("broadcastWeights", &S::broadcastWeights, py::arg("rootRank") = 0, py::call_guard<py::gil_scoped_release>(),
           "Copy the weights of process rootRank to the others; within one process they are already identical.")
      .def("getDevice", &S::getDevice, "The DeviceInfo the session runs on.")
      .def("areHostWeightsInSync", &S::areHostWeightsInSync,
           "Whether the host weights equal the device weights (False after training until weightsToHost).")
      .def("markHostWeightsInSync", &S::markHostWeightsInSync, "Declare the host weights equal to the device's.")
      .def("markHostWeightsOutOfSync", &S::markHostWeightsOutOfSync, "Declare the host weights stale.")
      .def("copyDeviceWeightsToHost", &S::copyDeviceWeightsToHost,
           "weightsToHost(), unless the host weights are already in sync.")
      .def("getAllTensorIds", &S::getAllTensorIds, "The ids of every tensor of every graph, as a set.")
      .def("getReport", &S::getReport, "The summary report, without resetting the timings.")
      .def("checkInplacingAmbiguity", &S::checkInplacingAmbiguity,
           "Raise when two in-place ops could modify one tensor in either order.")
      .def("connectStreamToCallback", [](S &s, const std::string &id, py::function cb, unsigned index) {
             // Called from run() without the GIL: take it, hand the buffer over as a capsule.
             auto fn = std::make_shared<py::function>(std::move(cb));
             s.connectStreamToCallback(id, [fn](void *p) {
               py::gil_scoped_acquire gil;
               (*fn)(py::capsule(p));
             }, index);
           }, py::arg("streamHandle"), py::arg("callback"), py::arg("index") = 0,
           "Call callback(capsule) with a pointer to the buffer of tensor `streamHandle` each time run() writes "
           "it (an input after it is read, other tensors after their producer), for replica `index` (default 0). "
           "The callback may read or change the data.")
      .def("saveExecutable", &S::saveExecutable, py::arg("path"), py::arg("savePopartMetadata") = true,
           py::arg("saveVariables") = true,
           "Save the compiled session: a fingerprint of the prepared IR and, with saveVariables (default True), "
           "the weights and optimizer state. `path` is a file, or a folder to write <name>.popart_cpu into.")
      .def("loadExecutable", &S::loadExecutable, py::arg("filename"),
           "Restore the variables saved by saveExecutable; the file must match this session's IR (checked, "
           "with a checksum).")
      .def("compileAndExport", [](S &s, const std::string &f, py::object) { s.compileAndExport(f); },
           py::arg("filename"), py::arg("err") = py::none(),
           "prepareDevice(loadEngine=False), then saveExecutable(filename). `err` is accepted and unused.")
      .def("saveVariables", &S::saveVariables, py::arg("path"),
           "Save only the weights and optimizer state, in the executable format.")
      .def("updateEngineCache", &S::updateEngineCache,
           "With SessionOptions.enableEngineCaching, write the executable into cachePath.")
      .def("setEngineIsLoaded", &S::setEngineIsLoaded, py::arg("isLoaded"),
           "With False, the next run() reloads the engine (copying the host weights if needed).")
      .def("_getNumpyDtype", [](const S &s, const TensorId &id) { return numpyDtypeOf(s.getInfo(id).dataType()); })
      .def("_irDataFlow", [](const S &s) { return s.getIr().getDataFlow(); })
      .def("_irSessionOptions", [](const S &s) { return s.getIr().getSessionOptions(); });
}

std::string modelBytes(const py::object &fnModel) {
  if (py::isinstance<py::bytes>(fnModel)) return std::string(fnModel.cast<py::bytes>());
  return fnModel.cast<std::string>();
}

} // namespace

void bindSession(py::module_ &m) {
  py::class_<Session> base(m, "_SessionCore", "Methods shared by inference and training sessions.");
  py::class_<InferenceSession, Session> inf(m, "_InferenceSessionCore",
                                            "The C++ inference session; use popart.InferenceSession.");
  inf.def(py::init([](const py::object &fnModel, const DataFlow &df, std::shared_ptr<DeviceInfo> device,
                      const InputShapeInfo &shapes, const SessionOptions &opts, const Patterns &patterns,
                      const std::string &name) {
            std::string bytes = modelBytes(fnModel);
            py::gil_scoped_release release;
            return InferenceSession::createFromOnnxModel(bytes, df, std::move(device), shapes, opts, patterns, name);
          }),
          py::arg("fnModel"), py::arg("dataFlow"), py::arg("deviceInfo"),
          py::arg_v("inputShapeInfo", InputShapeInfo(), "InputShapeInfo()"),
          py::arg_v("userOptions", SessionOptions(), "SessionOptions()"),
          py::arg_v("patterns", Patterns(), "Patterns()"), py::arg("name") = "inference",
          "An inference session for an ONNX model (bytes or file name) on `deviceInfo`.");
  // From an Ir a front end built (popart._internal.ir.Ir, held by shared_ptr).
  inf.def(py::init([](std::shared_ptr<Ir> ir, std::shared_ptr<DeviceInfo> device, const std::string &name) {
            py::gil_scoped_release release;
            return InferenceSession::createFromIr(std::move(ir), std::move(device), name);
          }),
          py::arg("ir"), py::arg("deviceInfo"), py::arg("name") = "fromIr",
          "An inference session for an Ir built op by op (popart._internal.ir.Ir).");
  bindSessionMethods<InferenceSession>(inf);

  py::class_<TrainingSession, Session> train(m, "_TrainingSessionCore",
                                             "The C++ training session; use popart.TrainingSession.");
  train.def(py::init([](const py::object &fnModel, const DataFlow &df, const TensorId &loss, const Optimizer &opt,
                        std::shared_ptr<DeviceInfo> device, const InputShapeInfo &shapes, const SessionOptions &opts,
                        const Patterns &patterns, const std::string &name) {
              std::string bytes = modelBytes(fnModel);
              py::gil_scoped_release release;
              return TrainingSession::createFromOnnxModel(bytes, df, loss, opt, std::move(device), shapes, opts,
                                                          patterns, name);
            }),
            py::arg("fnModel"), py::arg("dataFlow"), py::arg("loss"), py::arg("optimizer"), py::arg("deviceInfo"),
            py::arg_v("inputShapeInfo", InputShapeInfo(), "InputShapeInfo()"),
            py::arg_v("userOptions", SessionOptions(), "SessionOptions()"),
            py::arg_v("patterns", Patterns(), "Patterns()"), py::arg("name") = "training",
            "A training session for an ONNX model (bytes or file name), minimising tensor `loss` with `optimizer`.");
  train.def(py::init([](std::shared_ptr<Ir> ir, std::shared_ptr<DeviceInfo> device, const std::string &name,
                        const Optimizer *optimizer) {
              py::gil_scoped_release release;
              return TrainingSession::createFromIr(std::move(ir), std::move(device), name, optimizer);
            }),
            py::arg("ir"), py::arg("deviceInfo"), py::arg("name") = "fromIr", py::arg("optimizer") = nullptr,
            "A training session for an Ir built op by op, with the Ir's loss and `optimizer` (or the Ir's).");
  bindSessionMethods<TrainingSession>(train);
  train.def("updateOptimizerFromHost", &TrainingSession::updateOptimizerFromHost, py::arg("optimizer"),
            "Replace the values of the non-constant hyper-parameters by those of `optimizer`, without preparing "
            "again. Changing a constant value or the optimizer's type raises an error naming it.");
}

} // namespace popart::bindings
